// Package doccheck reads the examples the documentation shows (README.md,
// docs/cli.md, docs/api.md) so that tests can run them against the real
// service and command and compare what they print with what the page
// shows: documented examples cannot drift from the code again.
//
// Two forms are read from fenced code blocks:
//
//   - Shell blocks (```sh) of curl and jq commands, where the output of a
//     command is shown in the comment lines right after it:
//
//     curl -s $B/v1/jobs/$ID -H "X-API-Key: $KEY" | jq -c '{status}'
//     # {"status":"done",
//     #  "total":182}
//
//     A comment line right after a command (no blank line between) is
//     output; "#  " (two spaces) continues the line above it. Other
//     comments (after a blank line, or at the end of a command line) are
//     prose and are not compared.
//
//   - Transcripts (```, no language): a line "$ command args" and the
//     lines after it, to the next "$ " line or the block's end, are the
//     command's output.
//
// In shown output, "…" stands for any text within its line (ids, times,
// signatures); letters, digits and "-" right before it belong to it, so
// "aa916824-…" stands for any id.
package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Step is a run of shell lines and the output shown after its last
// command (Want nil: none shown, the output is not compared).
type Step struct {
	File string // the page, for messages
	Line int    // 1-based line of the step's first shell line
	Code []string
	Want []string
}

// Transcript is one "$ command" of a transcript block and its output.
type Transcript struct {
	File string
	Line int
	Args []string // the command line split at spaces, "$ " left out
	Want []string
}

// block is a fenced code block: its language and lines.
type block struct {
	lang  string
	line  int // 1-based line of its first content line
	lines []string
}

func blocks(text string) []block {
	var out []block
	var cur *block
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(t, "```"):
			cur = &block{lang: strings.TrimPrefix(t, "```"), line: i + 2}
		case cur != nil && t == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return out
}

// ShellSteps reads the shell blocks of the file at path whose text holds
// mark ("" for every shell block) and splits them into steps.
func ShellSteps(path, mark string) ([]Step, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	var steps []Step
	for _, bl := range blocks(string(b)) {
		if bl.lang != "sh" || !strings.Contains(strings.Join(bl.lines, "\n"), mark) {
			continue
		}
		cur := Step{File: name, Line: bl.line}
		prevCode := false // the line before was a shell line
		inOutput := false
		for i, l := range bl.lines {
			t := strings.TrimSpace(l)
			isComment := strings.HasPrefix(t, "#")
			switch {
			case isComment && (prevCode || inOutput):
				inOutput = true
				shown := strings.TrimPrefix(t, "#")
				if strings.HasPrefix(shown, "  ") && len(cur.Want) > 0 {
					cur.Want[len(cur.Want)-1] += strings.TrimSpace(shown)
				} else {
					cur.Want = append(cur.Want, strings.TrimPrefix(shown, " "))
				}
				continue
			case inOutput:
				steps = append(steps, cur)
				cur = Step{File: name, Line: bl.line + i}
				inOutput = false
			}
			cur.Code = append(cur.Code, l)
			prevCode = t != "" && !isComment
		}
		if len(cur.Code) > 0 || cur.Want != nil {
			steps = append(steps, cur)
		}
	}
	return steps, nil
}

// Transcripts reads the "$ command" lines of the plain blocks of the file
// at path that start with prefix ("$ blueprint ").
func Transcripts(path, prefix string) ([]Transcript, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	var out []Transcript
	for _, bl := range blocks(string(b)) {
		if bl.lang != "" {
			continue
		}
		for i, l := range bl.lines {
			if strings.HasPrefix(l, "$ ") {
				if !strings.HasPrefix(l, prefix) {
					break
				}
				out = append(out, Transcript{File: name, Line: bl.line + i, Args: strings.Fields(strings.TrimPrefix(l, "$ "))})
				continue
			}
			if n := len(out); n > 0 && out[n-1].File == name && out[n-1].Line >= bl.line {
				out[n-1].Want = append(out[n-1].Want, l)
			}
		}
	}
	return out, nil
}

var idBeforeEllipsis = regexp.MustCompile(`[A-Za-z0-9-]*…`)

// Pattern is the regular expression of one shown line: the text as it
// is, "…" (with the id characters before it) any text.
func Pattern(shown string) *regexp.Regexp {
	parts := idBeforeEllipsis.Split(shown, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*?") + "$")
}

// Compare says how got (the lines printed) differs from want (the lines
// shown), "" when they agree: as many lines, each matching its Pattern.
// Trailing spaces and carriage returns are not compared.
func Compare(want, got []string) string {
	trim := func(ls []string) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = strings.TrimRight(l, " \r")
		}
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
		return out
	}
	want, got = trim(want), trim(got)
	for i := 0; i < max(len(want), len(got)); i++ {
		switch {
		case i >= len(want):
			return fmt.Sprintf("line %d printed but not shown: %q", i+1, got[i])
		case i >= len(got):
			return fmt.Sprintf("line %d shown but not printed: %q", i+1, want[i])
		case !Pattern(want[i]).MatchString(got[i]):
			return fmt.Sprintf("line %d differs:\n shown:   %s\n printed: %s", i+1, want[i], got[i])
		}
	}
	return ""
}
