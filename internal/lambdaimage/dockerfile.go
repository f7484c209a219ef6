// Package lambdaimage reads the processing function's Dockerfile
// (functions/process/Dockerfile) the way a builder would, as far as this
// project's Dockerfile needs: its stages, and the final stage's COPY, ENV and
// ENTRYPOINT. Without a Docker daemon it is how the image is checked: a test
// holds the Dockerfile to what the Makefile builds, and Assemble lays out the
// image's file system from the same instructions so that
// `make process-rootfs-check` can run the binary's OCR self-check in it with
// chroot (docs/deploy.md, "Reading text on images").
package lambdaimage

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Instruction is one Dockerfile instruction, its continuation lines joined.
type Instruction struct {
	Cmd  string // upper case: FROM, COPY, ENV, ...
	Rest string // the rest of the line
	Line int    // where it starts, from 1
}

// Stage is a FROM and the instructions after it.
type Stage struct {
	From, Name string
	Platform   string
	Body       []Instruction
}

// Parse reads a Dockerfile into its stages. Instructions before the first
// FROM (ARG) are dropped; comments and blank lines are skipped.
func Parse(r io.Reader) ([]Stage, error) {
	sc := bufio.NewScanner(r)
	var stages []Stage
	var cur strings.Builder
	start, n := 0, 0
	flush := func() error {
		text := strings.TrimSpace(cur.String())
		cur.Reset()
		if text == "" {
			return nil
		}
		cmd, rest, _ := strings.Cut(text, " ")
		in := Instruction{Cmd: strings.ToUpper(cmd), Rest: strings.TrimSpace(rest), Line: start}
		if in.Cmd == "FROM" {
			s := Stage{}
			f := strings.Fields(in.Rest)
			for len(f) > 0 && strings.HasPrefix(f[0], "--") {
				if v, ok := strings.CutPrefix(f[0], "--platform="); ok {
					s.Platform = v
				}
				f = f[1:]
			}
			if len(f) == 0 {
				return fmt.Errorf("line %d: FROM without an image", start)
			}
			s.From = f[0]
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.Name = f[2]
			}
			stages = append(stages, s)
			return nil
		}
		if len(stages) > 0 {
			stages[len(stages)-1].Body = append(stages[len(stages)-1].Body, in)
		}
		return nil
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		t := strings.TrimSpace(line)
		if cur.Len() == 0 && (t == "" || strings.HasPrefix(t, "#")) {
			continue
		}
		if cur.Len() > 0 && strings.HasPrefix(t, "#") { // a comment inside a continued instruction
			continue
		}
		if cur.Len() == 0 {
			start = n
		}
		if s, ok := strings.CutSuffix(t, `\`); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(t)
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(stages) == 0 {
		return nil, fmt.Errorf("no FROM")
	}
	return stages, nil
}

// Copy is a COPY instruction: its sources, destination and --from stage.
type Copy struct {
	From string // "" for the build context
	Src  []string
	Dst  string
	Line int
}

// Copies returns the stage's COPY instructions (ADD is refused: the
// Dockerfile uses none).
func (s Stage) Copies() ([]Copy, error) {
	var out []Copy
	for _, in := range s.Body {
		switch in.Cmd {
		case "ADD":
			return nil, fmt.Errorf("line %d: ADD is not supported here", in.Line)
		case "COPY":
			f := strings.Fields(in.Rest)
			c := Copy{Line: in.Line}
			for len(f) > 0 && strings.HasPrefix(f[0], "--") {
				if v, ok := strings.CutPrefix(f[0], "--from="); ok {
					c.From = v
				}
				f = f[1:]
			}
			if len(f) < 2 || strings.HasPrefix(f[0], "[") {
				return nil, fmt.Errorf("line %d: COPY wants sources and a destination", in.Line)
			}
			c.Src, c.Dst = f[:len(f)-1], f[len(f)-1]
			out = append(out, c)
		}
	}
	return out, nil
}

// Env returns the stage's ENV variables as "NAME=value", in order (later
// ones win), in either form: ENV NAME=value ... and ENV NAME value. Values
// are taken as written: no quotes or variable references are expanded, and
// one that has them is refused.
func (s Stage) Env() ([]string, error) {
	var out []string
	for _, in := range s.Body {
		if in.Cmd != "ENV" {
			continue
		}
		if strings.ContainsAny(in.Rest, `"'$`) {
			return nil, fmt.Errorf("line %d: ENV with quotes or references is not supported here", in.Line)
		}
		f := strings.Fields(in.Rest)
		if len(f) > 0 && !strings.Contains(f[0], "=") {
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: ENV NAME value wants one value", in.Line)
			}
			out = append(out, f[0]+"="+f[1])
			continue
		}
		for _, kv := range f {
			if !strings.Contains(kv, "=") {
				return nil, fmt.Errorf("line %d: ENV %q is not NAME=value", in.Line, kv)
			}
			out = append(out, kv)
		}
	}
	return out, nil
}

// Lookup returns the value of name in env (as Env returns it), the last
// one set.
func Lookup(env []string, name string) (string, bool) {
	v, ok := "", false
	for _, kv := range env {
		if k, val, _ := strings.Cut(kv, "="); k == name {
			v, ok = val, true
		}
	}
	return v, ok
}

// Entrypoint returns the stage's last ENTRYPOINT, which must be in JSON
// (exec) form.
func (s Stage) Entrypoint() ([]string, error) {
	var ep []string
	for _, in := range s.Body {
		if in.Cmd != "ENTRYPOINT" {
			continue
		}
		ep = nil
		if err := json.Unmarshal([]byte(in.Rest), &ep); err != nil {
			return nil, fmt.Errorf("line %d: ENTRYPOINT is not in JSON form: %v", in.Line, err)
		}
	}
	if len(ep) == 0 {
		return nil, fmt.Errorf("no ENTRYPOINT")
	}
	return ep, nil
}

// Runs returns the stage's RUN commands as written.
func (s Stage) Runs() []string {
	var out []string
	for _, in := range s.Body {
		if in.Cmd == "RUN" {
			out = append(out, in.Rest)
		}
	}
	return out
}
