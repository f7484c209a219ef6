// Command imageroot lays out the processing image's file system from its
// Dockerfile without Docker and runs its entry point there under chroot
// (make process-rootfs-check; docs/deploy.md, "Reading text on images"):
//
//	imageroot -dockerfile functions/process/Dockerfile -base DIR -out DIR \
//	    -map /out/=build/lambda/ -map /src/=./ -- ocr-check
//
// The final stage's COPY instructions are applied with each build-stage
// path mapped to where this machine built it (-map PREFIX=LOCAL, the
// longest prefix wins) on top of -base, a folder standing for the base
// image. Two runs follow, each with exactly the Dockerfile's ENV (and the
// Lambda base's PATH), /dev/null and /tmp:
//
//  1. the program BLUEPRINT_OCR names, with --list-langs, in a root holding
//     only the COPY that brings it: it needs nothing from the base image;
//  2. the ENTRYPOINT with the arguments after --, in the whole root.
//
// It needs root (chroot, mknod) and Linux.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"blueprint/internal/lambdaimage"
)

// lambdaPath is the PATH of Amazon Linux 2023's Lambda base image.
const lambdaPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

type maps map[string]string

func (m maps) String() string { return fmt.Sprint(map[string]string(m)) }
func (m maps) Set(v string) error {
	k, l, ok := strings.Cut(v, "=")
	if !ok || !strings.HasPrefix(k, "/") {
		return fmt.Errorf("-map wants /STAGE/PREFIX=LOCAL, not %q", v)
	}
	m[k] = l
	return nil
}

func main() {
	dockerfile := flag.String("dockerfile", "functions/process/Dockerfile", "the Dockerfile")
	base := flag.String("base", "", "folder standing for the base image, copied first")
	out := flag.String("out", "build/process-rootfs", "the root file system written (replaced)")
	m := maps{}
	flag.Var(m, "map", "PREFIX=LOCAL: a build-stage path prefix and where this machine has it (repeatable)")
	flag.Parse()
	if err := run(*dockerfile, *base, *out, m, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "imageroot:", err)
		os.Exit(1)
	}
}

func run(dockerfile, base, out string, m maps, args []string) error {
	f, err := os.Open(dockerfile)
	if err != nil {
		return err
	}
	stages, err := lambdaimage.Parse(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", dockerfile, err)
	}
	final := stages[len(stages)-1]
	env, err := final.Env()
	if err != nil {
		return err
	}
	ep, err := final.Entrypoint()
	if err != nil {
		return err
	}
	prefixes := make([]string, 0, len(m))
	for k := range m {
		prefixes = append(prefixes, k)
	}
	sort.Slice(prefixes, func(i, j int) bool { return len(prefixes[i]) > len(prefixes[j]) })
	local := func(stage, src string) (string, error) {
		if stage == "" {
			return "", fmt.Errorf("COPY %s from the build context: not supported here", src)
		}
		for _, p := range prefixes {
			if rest, ok := strings.CutPrefix(src, p); ok {
				return filepath.Join(m[p], rest), nil
			}
		}
		return "", fmt.Errorf("COPY --from=%s %s: no -map for it", stage, src)
	}
	env = append([]string{lambdaPath}, env...)

	// 1. The OCR program alone.
	prog, ok := lambdaimage.Lookup(env, "BLUEPRINT_OCR")
	if !ok {
		return fmt.Errorf("%s sets no BLUEPRINT_OCR", dockerfile)
	}
	copies, err := final.Copies()
	if err != nil {
		return err
	}
	alone := final
	alone.Body = nil
	for _, in := range final.Body {
		if in.Cmd != "COPY" {
			continue
		}
		for _, c := range copies {
			if c.Line == in.Line && strings.HasPrefix(prog, strings.TrimSuffix(c.Dst, "/")+"/") {
				alone.Body = append(alone.Body, in)
			}
		}
	}
	if len(alone.Body) == 0 {
		return fmt.Errorf("no COPY brings BLUEPRINT_OCR=%s", prog)
	}
	only := out + "-ocr-only"
	if err := layout(only, "", alone, local); err != nil {
		return err
	}
	fmt.Printf("== %s --list-langs in %s (the Tesseract COPY alone, no base image)\n", prog, only)
	var langs strings.Builder
	if err := chroot(only, env, &langs, prog, "--list-langs"); err != nil {
		return err
	}
	fmt.Print(langs.String())
	for _, l := range []string{"eng", "fin"} {
		if !slices.Contains(strings.Fields(langs.String()), l) {
			return fmt.Errorf("%s lists no %s data", prog, l)
		}
	}

	// 2. The entry point in the whole image.
	if err := layout(out, base, final, local); err != nil {
		return err
	}
	fmt.Printf("== %s in %s (base %s)\n", strings.Join(append(ep, args...), " "), out, base)
	return chroot(out, env, os.Stdout, ep[0], append(ep[1:], args...)...)
}

// layout writes the root at dir: base's files, the stage's copies, /dev/null
// and /tmp.
func layout(dir, base string, s lambdaimage.Stage, local func(string, string) (string, error)) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if base != "" {
		if out, err := exec.Command("cp", "-a", base+"/.", dir+"/").CombinedOutput(); err != nil {
			return fmt.Errorf("cp %s: %v: %s", base, err, out)
		}
	}
	if err := lambdaimage.Assemble(s, dir, local); err != nil {
		return err
	}
	for _, d := range []string{"dev", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o1777); err != nil {
			return err
		}
	}
	os.Chmod(filepath.Join(dir, "tmp"), 0o1777)
	null := filepath.Join(dir, "dev", "null")
	os.Remove(null)
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		return fmt.Errorf("mknod /dev/null (needs root): %w", err)
	}
	return os.Chmod(null, 0o666)
}

// chroot runs prog with args and exactly env inside root, its output to
// stdout.
func chroot(root string, env []string, stdout io.Writer, prog string, args ...string) error {
	cmd := &exec.Cmd{Path: prog, Args: append([]string{prog}, args...), Env: env, Dir: "/",
		Stdout: stdout, Stderr: os.Stderr, SysProcAttr: &syscall.SysProcAttr{Chroot: root}}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s in %s: %w", prog, strings.Join(args, " "), root, err)
	}
	return nil
}
