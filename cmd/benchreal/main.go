// Command benchreal measures whole jobs through the local server, the way a
// partner sees them: for each PDF it starts a fresh blueprintd (own data
// directory, 127.0.0.1 on a free port), creates a job, uploads the file,
// starts it and polls until done, and reports the seconds from start to
// done, the server's peak RSS during the job (VmHWM; the server is fresh, so
// it is that job's), and the ratio to a bare render of the same file by
// `mutool draw -r 200` (Debian's mupdf-tools) in the same run, when mutool
// is installed; beside them the CPU seconds both spent (the server's from
// start to done, with the OCR processes it ran for outlined text), whose
// ratio moves less with other work on the machine:
//
//	go run ./cmd/benchreal -server bin/blueprintd [-repeat 2] [-dense DIR] [-heavy DIR] FILE.pdf...
//
// -dense DIR writes the generated dense A0/A1 set into DIR (if missing) and
// measures it too. -heavy DIR writes the generated clip-heavy A1 legend
// sheet (synth KIND=heavy: 1.5 million hatching strokes in 40 000 clips)
// into DIR (if missing), measures it, and fails when its ratio to mutool
// passes -heavy-max-ratio or its peak RSS -heavy-max-rss. Each measurement
// is repeated -repeat times and the fastest run is reported (the machine
// is shared; the spread is printed).
//
// -rounds N measures instead what a long-running server keeps between
// jobs: one server processes the files in turn, N times over, and each job's
// line gives its seconds, its peak RSS and the server's resident size three
// seconds after it is done.
package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"blueprint/internal/apiclient"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/synth"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchreal:", err)
		os.Exit(1)
	}
}

func run() error {
	server := flag.String("server", "bin/blueprintd", "blueprintd binary to measure")
	repeat := flag.Int("repeat", 2, "runs per document; the fastest is reported")
	dense := flag.String("dense", "", "directory of the generated dense A0/A1 set (written when missing)")
	mutool := flag.String("mutool", "mutool", "mutool binary for the bare render (skipped when not found)")
	heavyDir := flag.String("heavy", "", "directory of the generated clip-heavy A1 sheet (written when missing)")
	heavyRatio := flag.Float64("heavy-max-ratio", 2, "fail when the clip-heavy sheet takes longer than this many times mutool draw")
	heavyRSS := flag.Int64("heavy-max-rss", 1024, "fail when the clip-heavy sheet's job peaks above this many MiB")
	rounds := flag.Int("rounds", 0, "instead: one server processes the files in turn this many times over; each job's peak RSS and the resident size after it")
	flag.Parse()
	files := flag.Args()
	if *rounds > 0 {
		if len(files) == 0 {
			return errors.New("no files given")
		}
		return resident(*server, files, *rounds)
	}
	heavy := ""
	if *heavyDir != "" {
		var err error
		if heavy, err = heavySheet(*heavyDir); err != nil {
			return err
		}
		files = append(files, heavy)
	}
	if *dense != "" {
		gen, err := denseSet(*dense)
		if err != nil {
			return err
		}
		files = append(files, gen...)
	}
	if len(files) == 0 {
		return errors.New("no PDFs given")
	}
	mt, err := exec.LookPath(*mutool)
	if err != nil {
		mt = ""
		fmt.Println("mutool not found: the ratio to the bare render is skipped")
	}
	fmt.Printf("%-34s %5s %10s %10s %7s %10s %9s %8s %8s %7s\n", "document", "pages", "service s", "mutool s", "ratio", "peak RSS", "idle RSS", "svc CPU", "mut CPU", "CPU x")
	var failed []string
	for _, f := range files {
		var svc []result
		var bare, bareCPU []float64
		for range *repeat {
			r, err := measureJob(*server, f)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			svc = append(svc, r)
			if mt != "" {
				s, cpu, err := measureMutool(mt, f)
				if err != nil {
					return fmt.Errorf("%s: mutool: %w", f, err)
				}
				bare = append(bare, s)
				bareCPU = append(bareCPU, cpu)
			}
		}
		best := slices.MinFunc(svc, func(a, b result) int { return cmp.Compare(a.seconds, b.seconds) })
		peak := slices.MaxFunc(svc, func(a, b result) int { return int(a.peakKB - b.peakKB) })
		line := fmt.Sprintf("%-34s %5d %10s %10s %7s %7d MiB %6d MiB", trim(filepath.Base(f), 34), best.pages,
			spread(svcSeconds(svc)), "-", "-", peak.peakKB/1024, best.idleKB/1024)
		if len(bare) > 0 {
			b := slices.Min(bare)
			line = fmt.Sprintf("%-34s %5d %10s %10s %6.2fx %7d MiB %6d MiB", trim(filepath.Base(f), 34), best.pages,
				spread(svcSeconds(svc)), spread(bare), best.seconds/b, peak.peakKB/1024, best.idleKB/1024)
			cpu := slices.MinFunc(svc, func(a, b result) int { return cmp.Compare(a.cpu, b.cpu) }).cpu
			line += fmt.Sprintf(" %8.2f %8.2f %6.2fx", cpu, slices.Min(bareCPU), cpu/slices.Min(bareCPU))
		}
		fmt.Println(line)
		if f == heavy {
			if len(bare) > 0 && best.seconds/slices.Min(bare) > *heavyRatio {
				failed = append(failed, fmt.Sprintf("%s took %.2f× mutool draw (limit %.2f×)", filepath.Base(f), best.seconds/slices.Min(bare), *heavyRatio))
			}
			if peak.peakKB/1024 > *heavyRSS {
				failed = append(failed, fmt.Sprintf("%s peaked at %d MiB (limit %d MiB)", filepath.Base(f), peak.peakKB/1024, *heavyRSS))
			}
		}
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// result is one job measured through the server.
type result struct {
	pages   int
	seconds float64 // POST start to status done
	cpu     float64 // the server's CPU seconds (user and system) over the same span, its OCR processes' included
	peakKB  int64   // the server's VmHWM after the job
	idleKB  int64   // the server's VmRSS before the upload
}

func svcSeconds(rs []result) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.seconds
	}
	return out
}

// spread prints the fastest of a set of timings, with the slowest after a
// slash when there are several.
func spread(v []float64) string {
	if len(v) == 1 {
		return fmt.Sprintf("%.2f", v[0])
	}
	return fmt.Sprintf("%.2f/%.2f", slices.Min(v), slices.Max(v))
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// measureMutool times `mutool draw -r 200 -o DIR/p-%d.png FILE`: wall
// and CPU seconds.
func measureMutool(mt, file string) (float64, float64, error) {
	dir, err := os.MkdirTemp("", "benchreal-mutool-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(mt, "draw", "-q", "-r", "200", "-o", filepath.Join(dir, "p-%d.png"), file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%w: %s", err, stderr.String())
	}
	wall := time.Since(start).Seconds()
	return wall, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), nil
}

// measureJob runs one job of file through a fresh server.
func measureJob(server, file string) (result, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return result{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	srv, err := apiclient.Start(ctx, server)
	if err != nil {
		return result{}, err
	}
	defer srv.Close()
	time.Sleep(300 * time.Millisecond) // let start-up settle before reading idle RSS
	pid := srv.PID()
	idle := apiclient.ProcStatusKB(pid, "VmRSS")
	var cpu0 float64
	// The server's CPU with its OCR processes' (tesseract, waited for).
	cpu := func() float64 { return apiclient.ProcCPU(pid) + apiclient.ProcChildrenCPU(pid) }
	j, err := srv.Run(ctx, file, data, apiclient.RunOptions{BeforeStart: func() { cpu0 = cpu() }})
	if err != nil {
		return result{}, err
	}
	return result{pages: j.PageCount, seconds: j.Seconds, cpu: cpu() - cpu0,
		peakKB: apiclient.ProcStatusKB(pid, "VmHWM"), idleKB: idle}, nil
}

// settle is how long resident waits after a job before reading the
// server's resident size: the job's memory given back.
const settle = 3 * time.Second

// resident runs files through one server in turn, rounds times over, and
// prints each job's seconds, peak RSS and the server's resident size after
// it: memory a long-running server keeps between jobs shows as a
// resident size that climbs round after round.
func resident(server string, files []string, rounds int) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rounds*len(files))*15*time.Minute)
	defer cancel()
	data := make([][]byte, len(files))
	for i, f := range files {
		var err error
		if data[i], err = os.ReadFile(f); err != nil {
			return err
		}
	}
	srv, err := apiclient.Start(ctx, server)
	if err != nil {
		return err
	}
	defer srv.Close()
	time.Sleep(300 * time.Millisecond)
	pid := srv.PID()
	fmt.Printf("server idle: %d MiB resident\n", apiclient.ProcStatusKB(pid, "VmRSS")/1024)
	fmt.Printf("%5s %-34s %9s %10s %14s\n", "round", "document", "seconds", "peak RSS", "resident after")
	for r := range rounds {
		for i, f := range files {
			if err := apiclient.ResetPeakRSS(pid); err != nil {
				return err
			}
			j, err := srv.Run(ctx, filepath.Base(f), data[i], apiclient.RunOptions{})
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			peak := apiclient.ProcStatusKB(pid, "VmHWM") / 1024
			time.Sleep(settle)
			fmt.Printf("%5d %-34s %9.2f %6d MiB %10d MiB\n", r+1, trim(filepath.Base(f), 34), j.Seconds, peak, apiclient.ProcStatusKB(pid, "VmRSS")/1024)
		}
	}
	return nil
}

// heavySheet writes the generated clip-heavy A1 sheet (synth KIND=heavy,
// seed 1) into dir unless it is there, and returns its path.
func heavySheet(dir string) (string, error) {
	p := filepath.Join(dir, "heavy-clips-A1.pdf")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	_, g, err := synth.Embedded()
	if err != nil {
		return "", err
	}
	s, err := g.Heavy(1, 0, synth.Options{})
	if err != nil {
		return "", err
	}
	return p, os.WriteFile(p, s.Data, 0o644)
}

// denseSet writes the generated dense set into dir unless it is there, and
// returns its files: an A1 sheet of thousands of clip paths around small
// content (the clip-heavy ArchiCAD export), and dense A1 and A0 plans
// (walls, hatching, fills, arcs, text on every room).
func denseSet(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sets := []struct {
		name string
		pdf  func() []byte
	}{
		{"dense-clips-A1.pdf", func() []byte { return documenttest.ClipHeavyPDF(documenttest.A1, 4700, 1) }},
		{"dense-plan-A1.pdf", func() []byte { return documenttest.DensePlanPDF(documenttest.A1, 1, 2) }},
		{"dense-plan-A0.pdf", func() []byte { return documenttest.DensePlanPDF(documenttest.A0, 1, 3) }},
	}
	var out []string
	for _, s := range sets {
		p := filepath.Join(dir, s.name)
		if _, err := os.Stat(p); err != nil {
			if err := os.WriteFile(p, s.pdf(), 0o644); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}
