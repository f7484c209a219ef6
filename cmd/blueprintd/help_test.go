package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestHelpArgs: -h, --help and help print the usage, naming every
// environment variable, on stdout and exit 0 without serving; any other
// argument is a usage error (exit 2, the usage on stderr); none serves.
func TestHelpArgs(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"help"}} {
		var stdout, stderr bytes.Buffer
		code, exit := parseArgs(args, &stdout, &stderr)
		if !exit || code != 0 || stderr.Len() != 0 || !strings.HasPrefix(stdout.String(), "usage: blueprintd") {
			t.Errorf("%q: exit=%v code %d, stderr %q, stdout %q", args, exit, code, stderr.String(), stdout.String())
		}
		for _, v := range envVars {
			if !strings.Contains(stdout.String(), v) {
				t.Errorf("%q: the usage does not name %s", args, v)
			}
		}
	}
	for _, args := range [][]string{{"--port", "80"}, {"-x"}, {"serve"}, {"help", "me"}} {
		var stdout, stderr bytes.Buffer
		code, exit := parseArgs(args, &stdout, &stderr)
		first, _, _ := strings.Cut(stderr.String(), "\n")
		if !exit || code != 2 || stdout.Len() != 0 || !strings.HasPrefix(first, "blueprintd: ") || !strings.Contains(stderr.String(), "usage: blueprintd") {
			t.Errorf("%q: exit=%v code %d, stdout %q, stderr %q", args, exit, code, stdout.String(), stderr.String())
		}
	}
	if code, exit := parseArgs(nil, &bytes.Buffer{}, &bytes.Buffer{}); exit || code != 0 {
		t.Errorf("no arguments: exit=%v code %d, want to serve", exit, code)
	}
}

// TestRootRedirect: GET / (and HEAD /) send a browser to the review page.
func TestRootRedirect(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: scriptedEngine()})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		req, err := http.NewRequest(method, e.base+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/app/" {
			t.Errorf("%s /: %d Location %q, want 302 to /app/", method, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	// The page is there.
	resp, err := client.Get(e.base + "/app/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /app/: %d", resp.StatusCode)
	}
}
