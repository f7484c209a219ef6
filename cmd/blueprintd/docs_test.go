package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"blueprint/internal/config"
	"blueprint/internal/doccheck"
)

// docsMarker separates the output of the documentation's steps.
const docsMarker = "@@doccheck step "

// TestDocumentedExamples runs the README's walk-through with curl and the
// shell examples of docs/api.md, as a reader pastes them (bash, curl and
// jq, the shell variables carried from one to the next), against a real
// server on 127.0.0.1 with a development key, and compares each output
// the pages show with what was printed ("…" standing for ids, times and
// signatures). Every curl must answer below 400 and nothing may be
// written on stderr. The pages show http://127.0.0.1:8080; the server's
// own address is written so in what it prints.
//
// Without bash, curl or jq it is skipped, unless BLUEPRINT_REQUIRE_DOCS is
// set (.ci/run installs them).
func TestDocumentedExamples(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("BLUEPRINT_REQUIRE_DOCS") != "" {
				t.Fatalf("%s not found; the documented examples need bash, curl and jq", tool)
			}
			t.Skipf("%s not found: the documented examples are not run (apt-get install curl jq)", tool)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var steps []doccheck.Step
	for _, page := range []struct{ path, mark string }{
		{filepath.Join(root, "README.md"), "$B"},
		{filepath.Join(root, "docs", "api.md"), ""},
	} {
		s, err := doccheck.ShellSteps(page.path, page.mark)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) == 0 {
			t.Fatalf("%s: no shell examples found", page.path)
		}
		steps = append(steps, s...)
	}
	shown := 0
	for _, s := range steps {
		if s.Want != nil {
			shown++
		}
	}
	if shown < 10 {
		t.Fatalf("only %d outputs shown in the examples; the parser lost them", shown)
	}

	dir := t.TempDir()
	e := startEnv(t, dir, options{runner: runnerOpts()}, func(c *config.Config) { c.APIKeys = nil })
	// The reader's working directory: the repository's test data, and
	// room for the files curl -OJ saves.
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "testdata"), filepath.Join(work, "testdata")); err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	// Every curl says when it is answered 400 or more (--fail-with-body
	// keeps the body); 23 is a write into a closed pipe (| head).
	script.WriteString(`curl() { command curl --fail-with-body "$@"; local rc=$?; if [ $rc -ne 0 ] && [ $rc -ne 23 ]; then echo "curl exit $rc: curl $*" >&2; fi; return $rc; }` + "\n")
	for i, s := range steps {
		fmt.Fprintf(&script, "echo '%s%d'\n", docsMarker, i)
		script.WriteString(strings.Join(s.Code, "\n") + "\n")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "B=" + e.base, config.EnvDataDir + "=" + dir}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	t.Logf("%d steps, %d outputs shown, ran in %.1f s", len(steps), shown, time.Since(start).Seconds())
	if err != nil || stderr.Len() > 0 {
		t.Errorf("the examples: %v; stderr:\n%s", err, stderr.String())
	}
	out := strings.ReplaceAll(stdout.String(), e.base, "http://127.0.0.1:8080")
	printed := map[int][]string{}
	n := -1
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, docsMarker); ok {
			fmt.Sscan(rest, &n)
			printed[n] = []string{}
			continue
		}
		if n >= 0 {
			printed[n] = append(printed[n], l)
		}
	}
	for i, s := range steps {
		got, ran := printed[i]
		switch {
		case !ran:
			t.Errorf("%s:%d: never ran", s.File, s.Line)
		case s.Want != nil:
			if diff := doccheck.Compare(s.Want, got); diff != "" {
				t.Errorf("%s:%d: the output shown is not what\n%s\nprints: %s", s.File, s.Line, strings.TrimSpace(strings.Join(s.Code, "\n")), diff)
			}
		}
	}
}
