package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"blueprint/internal/config"
)

// cli runs the command line args with the environment vars (nothing
// else of the process's) and returns its exit status, stdout and stderr.
func cli(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := env{getenv: func(k string) string { return vars[k] }, stdout: &stdout, stderr: &stderr}
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
	for _, c := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{rasterOff, []string{"takeoff", missing}, "no such file"},
		{rasterOff, []string{"takeoff", text}, "not a PDF, PNG, JPEG or WebP file"},
		{rasterOff, []string{"explain", missing}, "no such file"},
		// The raster detector on, ONNX Runtime nowhere: say what to do.
		{nil, []string{"takeoff", missing}, config.EnvOnnxRuntimeLib},
		{nil, []string{"explain", "--onnxruntime-lib", "/nonexistent/libonnxruntime.so", missing}, "--raster off"},
	} {
		code, stdout, stderr := cli(t, c.vars, c.args...)
		if code != exitFailure || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 1 and a line saying %q", c.args, code, stdout, stderr, c.want)
		}
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
