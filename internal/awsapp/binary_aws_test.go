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

	"blueprint/internal/awstest"
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

// TestFileReadersRunOnAmazonLinux2023: the api, upload and process
// binaries link MuPDF with cgo; every glibc symbol version they require
// must exist in Amazon Linux 2023's glibc 2.34.
func TestFileReadersRunOnAmazonLinux2023(t *testing.T) {
	for _, fn := range []string{"api", "upload", "process"} {
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

// TestPureGoFunctionsAreStatic: the webhook and sweep binaries are
// CGO_ENABLED=0 builds: no interpreter, no shared library.
func TestPureGoFunctionsAreStatic(t *testing.T) {
	for _, fn := range []string{"webhook", "sweep"} {
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

// TestBinariesAreStripped: no function carries a symbol table or debug
// information (the cgo ones are linked by zig cc, which needs telling); the
// dynamic symbols the cgo ones import stay.
func TestBinariesAreStripped(t *testing.T) {
	for _, fn := range []string{"api", "process", "webhook", "sweep", "upload"} {
		f := lambdaBinary(t, fn)
		for _, s := range f.Sections {
			if s.Type == elf.SHT_SYMTAB || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
				t.Errorf("%s has section %s (%d bytes): not stripped", fn, s.Name, s.Size)
			}
		}
		if st, err := os.Stat(filepath.Join(os.Getenv("BLUEPRINT_LAMBDA_DIR"), fn, "bootstrap")); err == nil {
			t.Logf("%s: %.1f MB", fn, float64(st.Size())/1e6)
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

// macEnv is this process's environment as a Mac with Apple silicon would
// give it to make (sam build runs the targets with its own environment):
// the host's and the default target's OS and architecture are darwin/arm64.
func macEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOOS", "GOARCH", "GOHOSTOS", "GOHOSTARCH", "CGO_ENABLED", "LAMBDA_ARCH", "LAMBDA_DIR", "ARTIFACTS_DIR", "MAKEFLAGS", "MAKELEVEL", "MFLAGS":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "GOHOSTOS=darwin", "GOHOSTARCH=arm64", "GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=1"), extra...)
}

// TestBuildTargetsIgnoreTheHost runs the Makefile's targets that sam build
// calls (build-<Function>; lambda-process for the image) in a Mac's
// environment: each must give a Linux ELF bootstrap for the function's
// architecture, x86_64 (the template's default), or arm64 for the pure-Go
// functions with LAMBDA_ARCH=arm64 (PureGoArchitecture=arm64).
func TestBuildTargetsIgnoreTheHost(t *testing.T) {
	root, err := awstest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		target, arch string
		want         elf.Machine
	}{
		{"build-ApiFunction", "", elf.EM_X86_64},
		{"lambda-process", "", elf.EM_X86_64},
		{"build-WebhookFunction", "", elf.EM_X86_64},
		{"build-SweepFunction", "", elf.EM_X86_64},
		{"build-UploadFunction", "", elf.EM_X86_64},
		{"build-WebhookFunction", "arm64", elf.EM_AARCH64},
		{"build-SweepFunction", "arm64", elf.EM_AARCH64},
		// The cgo functions are x86_64 whatever LAMBDA_ARCH says.
		{"build-ApiFunction", "arm64", elf.EM_X86_64},
		{"build-UploadFunction", "arm64", elf.EM_X86_64},
	}
	for _, c := range cases {
		t.Run(c.target+"/"+c.arch, func(t *testing.T) {
			out := t.TempDir()
			extra := []string{"ARTIFACTS_DIR=" + out, "LAMBDA_DIR=" + out}
			if c.arch != "" {
				extra = append(extra, "LAMBDA_ARCH="+c.arch)
			}
			cmd := exec.Command("make", "--no-print-directory", c.target)
			cmd.Dir = root
			cmd.Env = macEnv(extra...)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("make %s: %v\n%s", c.target, err, b)
			}
			bin := filepath.Join(out, "bootstrap")
			if c.target == "lambda-process" {
				bin = filepath.Join(out, "process", "bootstrap")
			}
			f, err := elf.Open(bin)
			if err != nil {
				t.Fatalf("%s: not an ELF binary (built for the host?): %v", bin, err)
			}
			defer f.Close()
			if f.Class != elf.ELFCLASS64 || f.Machine != c.want || f.OSABI != elf.ELFOSABI_NONE && f.OSABI != elf.ELFOSABI_LINUX {
				t.Fatalf("%s: %v %v %v, want a 64-bit Linux %v binary", bin, f.Class, f.OSABI, f.Machine, c.want)
			}
		})
	}
	// The variable is checked: a typo is an error, not an x86_64 build.
	cmd := exec.Command("make", "--no-print-directory", "build-WebhookFunction")
	cmd.Dir = root
	cmd.Env = macEnv("ARTIFACTS_DIR="+t.TempDir(), "LAMBDA_ARCH=aarch64")
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "LAMBDA_ARCH is x86_64 or arm64") {
		t.Errorf("LAMBDA_ARCH=aarch64: %v\n%s", err, b)
	}
}
