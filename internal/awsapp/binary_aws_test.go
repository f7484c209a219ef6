//go:build aws

package awsapp_test

import (
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxGLIBC is Amazon Linux 2023's glibc, the newest a Lambda binary may
// require (provided.al2023 and the process image's base).
const maxGLIBC = "2.34"

// lambdaBinary opens functions' bootstrap as `make lambdas` built it
// (the same build-<Function> targets sam build runs), in
// $BLUEPRINT_LAMBDA_DIR.
func lambdaBinary(t *testing.T, fn string) *elf.File {
	t.Helper()
	dir := os.Getenv("BLUEPRINT_LAMBDA_DIR")
	if dir == "" {
		t.Fatal("BLUEPRINT_LAMBDA_DIR is not set: run `make test-aws`, which builds the functions first")
	}
	f, err := elf.Open(filepath.Join(dir, fn, "bootstrap"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// glibcVersion parses "GLIBC_2.34" into comparable numbers.
func glibcVersion(s string) []int {
	var v []int
	for _, p := range strings.Split(strings.TrimPrefix(s, "GLIBC_"), ".") {
		n, _ := strconv.Atoi(p)
		v = append(v, n)
	}
	return v
}

func newer(a, b []int) bool {
	for i := range max(len(a), len(b)) {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return x > y
		}
	}
	return false
}

// TestFileReadersRunOnAmazonLinux2023: the api and process binaries link
// MuPDF with cgo; every glibc symbol version they require must exist in
// Amazon Linux 2023's glibc 2.34.
func TestFileReadersRunOnAmazonLinux2023(t *testing.T) {
	for _, fn := range []string{"api", "process"} {
		f := lambdaBinary(t, fn)
		syms, err := f.ImportedSymbols()
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		newest, n := "", 0
		for _, s := range syms {
			if !strings.HasPrefix(s.Version, "GLIBC_") {
				continue
			}
			n++
			if newest == "" || newer(glibcVersion(s.Version), glibcVersion(newest)) {
				newest = s.Version
			}
			if newer(glibcVersion(s.Version), glibcVersion(maxGLIBC)) {
				t.Errorf("%s requires %s@%s, newer than Amazon Linux 2023's glibc %s", fn, s.Name, s.Version, maxGLIBC)
			}
		}
		if n == 0 {
			t.Errorf("%s imports no glibc symbol: not the cgo build this test is for", fn)
		}
		t.Logf("%s: %d glibc symbols, newest %s", fn, n, newest)
	}
}

// TestPureGoFunctionsAreStatic: the webhook, sweep and upload binaries are
// CGO_ENABLED=0 builds: no interpreter, no shared library.
func TestPureGoFunctionsAreStatic(t *testing.T) {
	for _, fn := range []string{"webhook", "sweep", "upload"} {
		f := lambdaBinary(t, fn)
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s has a dynamic loader: not a CGO_ENABLED=0 build", fn)
			}
		}
		if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
			t.Errorf("%s needs shared libraries %v", fn, libs)
		}
	}
}

// TestBinariesStart runs each built function outside Lambda with no
// configuration: it must load (its dynamic libraries resolve, the Go
// runtime starts) and stop at init saying what is missing, as it would
// log in CloudWatch on a misconfigured stack.
func TestBinariesStart(t *testing.T) {
	dir := os.Getenv("BLUEPRINT_LAMBDA_DIR")
	for _, fn := range []string{"api", "process", "webhook", "sweep", "upload"} {
		cmd := exec.Command(filepath.Join(dir, fn, "bootstrap"))
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "BLUEPRINT_JOBS_TABLE") {
			t.Errorf("%s without configuration: %v\n%s", fn, err, out)
		}
	}
}
