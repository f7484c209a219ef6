package lambdaimage

import (
	"debug/elf"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	stages, err := Parse(strings.NewReader(`# comment
ARG BASE=x
FROM --platform=$BUILDPLATFORM golang AS build
RUN apt-get update \
    # a comment inside
    && make a b
FROM base
COPY --from=build /out/a/ /var/task/
COPY --from=build /src/f /opt/
ENV A=1 B=/x
ENV C 3
ENV A=2
ENTRYPOINT ["/var/task/bootstrap", "x"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) != 2 || stages[0].Name != "build" || stages[0].Platform != "$BUILDPLATFORM" || stages[1].From != "base" {
		t.Fatalf("stages %+v", stages)
	}
	if r := stages[0].Runs(); len(r) != 1 || r[0] != "apt-get update  && make a b" {
		t.Errorf("runs %q", r)
	}
	cs, err := stages[1].Copies()
	if err != nil || len(cs) != 2 || cs[0].From != "build" || cs[0].Src[0] != "/out/a/" || cs[1].Dst != "/opt/" {
		t.Errorf("copies %+v %v", cs, err)
	}
	env, err := stages[1].Env()
	if err != nil || !slices.Equal(env, []string{"A=1", "B=/x", "C=3", "A=2"}) {
		t.Errorf("env %q %v", env, err)
	}
	if v, _ := Lookup(env, "A"); v != "2" {
		t.Errorf("A = %q", v)
	}
	if ep, err := stages[1].Entrypoint(); err != nil || !slices.Equal(ep, []string{"/var/task/bootstrap", "x"}) {
		t.Errorf("entrypoint %q %v", ep, err)
	}
	if _, err := (Stage{Body: []Instruction{{Cmd: "ENV", Rest: `A="1 2"`}}}).Env(); err == nil {
		t.Error("quoted ENV accepted")
	}
}

// makeVar returns the value of a Makefile's `NAME := value` line.
func makeVar(t *testing.T, makefile, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `\s*:=\s*(\S+)\s*$`).FindStringSubmatch(makefile)
	if m == nil {
		t.Fatalf("the Makefile sets no %s", name)
	}
	return m[1]
}

// TestProcessDockerfile holds functions/process/Dockerfile to what the
// Makefile builds (no Docker here to build it): the build stage runs the
// targets that write what the final stage copies, Tesseract lands where
// its interpreter and BLUEPRINT_OCR point, and every path the image's ENV
// and ENTRYPOINT name is brought by a COPY. Where the binary and the
// Tesseract layer are built (make lambda-process tesseract-layer), the
// image's file system is laid out and every one of those files checked in
// it; make process-rootfs-check goes further and runs them.
func TestProcessDockerfile(t *testing.T) {
	root := filepath.Join("..", "..")
	raw, err := os.ReadFile(filepath.Join(root, "functions", "process", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	makefile := string(mk)
	layer, troot := makeVar(t, makefile, "TESSERACT_LAYER"), makeVar(t, makefile, "TESSERACT_ROOT")
	stages, err := Parse(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) != 2 || stages[0].Name != "build" {
		t.Fatalf("want a build stage and the image, got %d stages", len(stages))
	}
	if !slices.ContainsFunc(stages[0].Runs(), func(r string) bool {
		return strings.Contains(r, "make lambda-process tesseract-layer LAMBDA_DIR=/out")
	}) {
		t.Error("the build stage does not run make lambda-process tesseract-layer LAMBDA_DIR=/out")
	}
	for _, target := range []string{"lambda-process", "tesseract-layer"} {
		if !regexp.MustCompile(`(?m)^` + target + `:`).MatchString(makefile) {
			t.Errorf("the Makefile has no %s target", target)
		}
	}
	final := stages[1]
	copies, err := final.Copies()
	if err != nil {
		t.Fatal(err)
	}
	// Where each copied source comes from on a machine that ran the
	// build stage's targets: /out is LAMBDA_DIR, /src this checkout.
	lambdaDir := os.Getenv("BLUEPRINT_LAMBDA_DIR")
	if lambdaDir == "" {
		lambdaDir = filepath.Join(root, "build", "lambda")
	}
	local := func(stage, src string) (string, error) {
		if rest, ok := strings.CutPrefix(src, "/out/"); ok {
			return filepath.Join(lambdaDir, rest), nil
		}
		return filepath.Join(root, strings.TrimPrefix(src, "/src/")), nil
	}
	var dsts []string
	wantCopies := map[string]string{"/out/process/": "/var/task/", "/src/" + layer + "/": troot + "/"}
	for _, c := range copies {
		if c.From != "build" || len(c.Src) != 1 {
			t.Errorf("line %d: COPY %v is not one source from the build stage", c.Line, c.Src)
			continue
		}
		if want, ok := wantCopies[c.Src[0]]; !ok || want != c.Dst {
			t.Errorf("line %d: COPY %s %s; want one of %v", c.Line, c.Src[0], c.Dst, wantCopies)
		}
		delete(wantCopies, c.Src[0])
		dsts = append(dsts, c.Dst)
	}
	if len(wantCopies) > 0 {
		t.Errorf("not copied into the image: %v", wantCopies)
	}
	env, err := final.Env()
	if err != nil {
		t.Fatal(err)
	}
	ep, err := final.Entrypoint()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"BLUEPRINT_OCR":             troot + "/bin/tesseract",
		"TESSDATA_PREFIX":           troot + "/share/tessdata",
		"BLUEPRINT_ONNXRUNTIME_LIB": "/var/task/lib/libonnxruntime.so",
	}
	for k, v := range want {
		if got, _ := Lookup(env, k); got != v {
			t.Errorf("ENV %s=%q, want %q", k, got, v)
		}
	}
	files := []string{ep[0], want["BLUEPRINT_OCR"], want["BLUEPRINT_ONNXRUNTIME_LIB"], troot + "/lib/ld-linux-x86-64.so.2",
		want["TESSDATA_PREFIX"] + "/eng.traineddata", want["TESSDATA_PREFIX"] + "/fin.traineddata", want["TESSDATA_PREFIX"] + "/configs/tsv"}
	for _, f := range files {
		if !slices.ContainsFunc(dsts, func(d string) bool { return strings.HasPrefix(f, d) }) {
			t.Errorf("%s is in no COPY's destination %v", f, dsts)
		}
	}
	ignore, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Fields(string(ignore)), layer) {
		t.Errorf(".dockerignore does not keep this machine's %s out of the build stage, which builds its own", layer)
	}

	// The files themselves, where they are built.
	if _, err := os.Stat(filepath.Join(lambdaDir, "process", "bootstrap")); err != nil {
		t.Skipf("the image's files are not built here (make lambda-process tesseract-layer): %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, layer, "MANIFEST")); err != nil {
		t.Skipf("the image's files are not built here (make lambda-process tesseract-layer): %v", err)
	}
	dir := t.TempDir()
	if err := Assemble(final, dir, local); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("the image has no file %s: %v", f, err)
		}
	}
	exe, err := elf.Open(filepath.Join(dir, want["BLUEPRINT_OCR"]))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	for _, p := range exe.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimRight(string(b), "\x00"); got != troot+"/lib/ld-linux-x86-64.so.2" {
				t.Errorf("tesseract's interpreter is %s, want %s/lib/ld-linux-x86-64.so.2", got, troot)
			}
		}
	}
}
