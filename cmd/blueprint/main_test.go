package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"blueprint/internal/config"
	"blueprint/internal/doccheck"
	"blueprint/internal/raster/rastertest"
)

// cli runs the command line args with the environment vars (nothing
// else of the process's) and returns its exit status, stdout and stderr.
func cli(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	return cliDirs(t, vars, nil, args...)
}

// cliDirs is cli with ONNX Runtime looked for under dirs where no flag or
// variable names it.
func cliDirs(t *testing.T, vars map[string]string, dirs []string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := env{getenv: func(k string) string { return vars[k] }, stdout: &stdout, stderr: &stderr, libraryDirs: func() []string { return dirs }}
	code := run(context.Background(), args, e)
	return code, stdout.String(), stderr.String()
}

// rasterOff is an environment without the raster detector.
var rasterOff = map[string]string{config.EnvRasterDetector: "off"}

// TestHelp: blueprint and each command print their usage on stdout and
// exit 0, whichever way help is asked for.
func TestHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		cmd  string // "": blueprint's own usage
	}{
		{[]string{"--help"}, ""}, {[]string{"-h"}, ""}, {[]string{"help"}, ""},
		{[]string{"help", "takeoff"}, "takeoff"}, {[]string{"takeoff", "--help"}, "takeoff"},
		{[]string{"takeoff", "-h"}, "takeoff"}, {[]string{"takeoff", "a.pdf", "--help"}, "takeoff"},
		{[]string{"help", "explain"}, "explain"}, {[]string{"explain", "--help"}, "explain"},
	} {
		code, stdout, stderr := cli(t, nil, c.args...)
		want := "Usage:"
		if c.cmd != "" {
			want = "usage: blueprint " + c.cmd
		}
		if code != exitOK || stderr != "" || !strings.Contains(stdout, want) {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want 0 and %q on stdout", c.args, code, stderr, stdout, want)
		}
		if c.cmd != "" && !strings.Contains(stdout, "-onnxruntime-lib") {
			t.Errorf("%q: the usage lists no flags:\n%s", c.args, stdout)
		}
	}
}

// TestUsageErrors: a wrong command line exits 2 with one line on stderr
// saying what is wrong and where help is.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"help", "frobnicate"},
		{"takeoff"},
		{"takeoff", "--bogus", "a.pdf"},
		{"takeoff", "--csv", "--json", "a.pdf"},
		{"takeoff", "--raster", "maybe", "a.pdf"},
		{"takeoff", "--lang", "sv", "a.pdf"},
		{"takeoff", "--confidence", "2", "a.pdf"},
		{"takeoff", "--xlsx", filepath.Join(t.TempDir(), "no-dir"), "a.pdf", "b.pdf"},
		{"explain"},
		{"explain", "a.pdf", "b.pdf"},
	} {
		code, stdout, stderr := cli(t, rasterOff, args...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "blueprint help") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and one line pointing at help", args, code, stdout, stderr)
		}
	}
	// No command at all: the usage, on stderr.
	if code, stdout, stderr := cli(t, nil); code != exitUsage || stdout != "" || !strings.Contains(stderr, "Usage:") {
		t.Errorf("no arguments: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestFailures: a command that cannot do its work exits 1 with one line.
func TestFailures(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pdf")
	text := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(text, []byte("not a drawing"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty.pdf")
	renamed := filepath.Join(t.TempDir(), "renamed.pdf")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(renamed, []byte("not a drawing"), 0o644); err != nil {
		t.Fatal(err)
	}
	sheet := filepath.Join("..", "..", "testdata", "synth", "sheet-00003.pdf")
	scan := filepath.Join("..", "..", "testdata", "raster", "scan-00003.webp")
	rasterOn := map[string]string{config.EnvRasterDetector: "on"}
	for _, c := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{rasterOff, []string{"takeoff", missing}, "no such file"},
		{rasterOff, []string{"takeoff", text}, "not a PDF, PNG, JPEG or WebP file"},
		{rasterOff, []string{"explain", missing}, "no such file"},
		// A missing file is told before anything is loaded: no word of
		// ONNX Runtime, whatever the configuration (issue 47).
		{nil, []string{"takeoff", missing}, ": no such file or directory"},
		{rasterOn, []string{"explain", "--onnxruntime-lib", "/nonexistent/libonnxruntime.so", missing}, ": no such file or directory"},
		// In the command line's words, not the API job's.
		{nil, []string{"takeoff", empty}, "the file is empty"},
		{nil, []string{"takeoff", renamed}, "its name ends in .pdf but its content is none of these"},
		{nil, []string{"explain", renamed}, "its name ends in .pdf but its content is none of these"},
		{nil, []string{"takeoff", "--raster", "off", scan}, "page 1 cannot be processed: the raster detector is off (--raster off)"},
		{rasterOff, []string{"takeoff", scan}, "the raster detector is off ($BLUEPRINT_RASTER_DETECTOR=off)"},
		{nil, []string{"explain", "--raster", "off", scan}, "the raster detector is off (--raster off)"},
		// The raster detector asked for, ONNX Runtime nowhere: say what to do.
		{rasterOn, []string{"takeoff", sheet}, config.EnvOnnxRuntimeLib},
		{nil, []string{"takeoff", "--raster", "on", sheet}, "make ort fetches into layers/onnxruntime/lib"},
		{nil, []string{"explain", "--onnxruntime-lib", "/nonexistent/libonnxruntime.so", sheet}, "--raster off"},
	} {
		code, stdout, stderr := cli(t, c.vars, c.args...)
		if code != exitFailure || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 1 and a line saying %q", c.args, code, stdout, stderr, c.want)
		}
		for _, api := range []string{"job", "declared", "upload", "size must be", "page_index"} {
			if strings.Contains(stderr, api) {
				t.Errorf("%q: %q speaks of the API (%q)", c.args, stderr, api)
			}
		}
		if slices.Contains(c.args, "--raster") && strings.Contains(stderr, config.EnvRasterDetector) {
			t.Errorf("%q: %q names the variable, not the flag", c.args, stderr)
		}
	}
}

// TestFindsONNXRuntime: with no variable or flag naming ONNX Runtime, the
// command finds it where make ort puts it (layers/onnxruntime/lib of the
// checkout it runs from: after make run, blueprint runs as make takeoff
// does); not there, it reads without the raster detector, saying so in
// one line (issue 47).
func TestFindsONNXRuntime(t *testing.T) {
	lib := rastertest.Library(t)
	root := t.TempDir()
	dir := filepath.Join(root, "layers", "onnxruntime", "lib")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(lib, filepath.Join(dir, filepath.Base(lib))); err != nil {
		t.Fatal(err)
	}
	sheet := filepath.Join("..", "..", "testdata", "synth", "sheet-00005.pdf")
	code, stdout, stderr := cliDirs(t, nil, []string{t.TempDir(), root}, "explain", "--json", sheet)
	if code != exitOK || stderr != "" || !strings.Contains(stdout, `"raster_detector": true`) {
		t.Fatalf("found under %s: exit %d, stderr %q, stdout %.200q; want the raster detector on", root, code, stderr, stdout)
	}
	code, stdout, stderr = cliDirs(t, nil, []string{t.TempDir()}, "takeoff", sheet)
	if code != exitOK || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "ONNX Runtime not found") ||
		!strings.Contains(stderr, "without the raster detector") || !strings.Contains(stdout, "182 symbols") {
		t.Fatalf("not found: exit %d, stderr %q, stdout %.200q; want the take-off and a note", code, stderr, stdout)
	}
	// --raster off asks for no note.
	if code, _, stderr = cliDirs(t, nil, nil, "takeoff", "--raster", "off", sheet); code != exitOK || stderr != "" {
		t.Fatalf("--raster off: exit %d, stderr %q", code, stderr)
	}
}

// TestParseArgs: flags may stand before, between and after the files;
// "--" ends them.
func TestParseArgs(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	j := fs.Bool("json", false, "")
	x := fs.String("xlsx", "", "")
	pos, err := parseArgs(fs, []string{"a.pdf", "--json", "b.pdf", "--xlsx", "out", "c.pdf", "--", "--d.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.pdf", "b.pdf", "c.pdf", "--d.pdf"}; !reflect.DeepEqual(pos, want) || !*j || *x != "out" {
		t.Errorf("got %q json=%v xlsx=%q, want %q json=true xlsx=out", pos, *j, *x, want)
	}
}

// TestDocumentedTranscripts runs every "$ blueprint …" transcript of
// docs/cli.md at the repository root, with the raster detector on, and
// compares what it prints with what the page shows ("…" standing for any
// text), so the page cannot drift from the command (issue 47).
func TestDocumentedTranscripts(t *testing.T) {
	lib := rastertest.Library(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := doccheck.Transcripts(filepath.Join(root, "docs", "cli.md"), "$ blueprint ")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) < 2 {
		t.Fatalf("docs/cli.md: %d transcripts found, want takeoff's and explain's", len(ts))
	}
	t.Chdir(root)
	for _, tr := range ts {
		code, stdout, stderr := cliDirs(t, map[string]string{config.EnvOnnxRuntimeLib: lib}, nil, tr.Args[1:]...)
		if code != exitOK || stderr != "" {
			t.Errorf("%s:%d: %q: exit %d, stderr %q", tr.File, tr.Line, tr.Args, code, stderr)
			continue
		}
		got := strings.Split(stdout, "\n")
		if diff := doccheck.Compare(tr.Want, got); diff != "" {
			t.Errorf("%s:%d: the output shown is not what %q prints: %s", tr.File, tr.Line, strings.Join(tr.Args, " "), diff)
		}
	}
}
