// Command realeval measures the take-off on the real drawing sets: for
// every count-truth fixture (testdata/realtruth/<set>.json) whose drawing
// is in the real-data folder, it runs `blueprint takeoff --json` on the
// drawing (the job service's whole path, in its own process) and prints,
// per set and per class, the truth, the count, whether it is within
// tolerance and its error; per set the within-tolerance share and median
// error; and the same over every set. docs/evaluation.md ("Real sets")
// defines them.
//
//	go run ./cmd/realeval [-data ../shared/realdata] [-truth testdata/realtruth] [-blueprint bin/blueprint] [-turn DEG] [-scale F] [-outline] [-json] [-report FILE] [SET...]
//
// With -turn 90, 180 or 270 each drawing is measured as a copy stored
// turned, with -scale F each PDF as a copy plotted F times its size, with
// -outline each PDF as a copy whose words are drawn as outlines, no text
// layer left (turn.go): the take-off must not depend on how a sheet is
// stored, on the paper it was plotted on, or on whether its CAD export
// kept its text as text.
//
// SET names fixtures to run (file name, with or without extension); none
// runs them all. Where the data folder is absent it says so and exits 0.
//
// With -calibrate it measures instead the floors of detections of classes
// no legend row names (detect.UnnamedFloor; calibrate.go says how), and
// -report writes its samples, which -from reads again:
//
//	go run ./cmd/realeval -calibrate [-renders /tmp/realeval-renders] [-report FILE | -from FILE] [SET...]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"blueprint/internal/eval/realset"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "realeval:", err)
		}
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("realeval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "../shared/realdata", "folder of the real drawings")
	truthDir := fs.String("truth", "testdata/realtruth", "folder of the count-truth fixtures")
	bin := fs.String("blueprint", "bin/blueprint", "blueprint CLI whose takeoff is measured")
	asJSON := fs.Bool("json", false, "write the report as JSON instead of tables")
	report := fs.String("report", "", "also write the report as JSON to `FILE`")
	target := fs.Float64("target", 0.9, "within-tolerance share a set should reach (reported, not enforced)")
	timeout := fs.Duration("timeout", 10*time.Minute, "time allowed for one drawing")
	cal := fs.Bool("calibrate", false, "instead of the take-off, measure the confidences of detections of classes no legend names (right and wrong class) and the floors they give (detect.UnnamedFloor)")
	renders := fs.String("renders", filepath.Join(os.TempDir(), "realeval-renders"), "with -calibrate: `folder` for the 200-DPI renders of the plan pages (outside the repository)")
	mutool := fs.String("mutool", "mutool", "mutool binary that renders the pages (-calibrate) or turns the PDFs (-turn)")
	scale := fs.Float64("scale", 1, "measure each PDF plotted on paper this many times its size (0.5: an A1 sheet on A3; 0.25 to 4), content and page alike (turn.go)")
	outline := fs.Bool("outline", false, "measure each PDF as a copy whose words are drawn as outlines, its text layer gone, as CAD exports often draw them (turn.go)")
	turnDeg := fs.Int("turn", 0, "measure each drawing stored turned this many `degrees` clockwise (90, 180 or 270): a PDF's every page /Rotate raised by it, an image turned (turn.go)")
	from := fs.String("from", "", "with -calibrate: read the samples of an earlier run's -report `FILE` instead of running the engine")
	calScales := fs.String("calibrate-scales", "", "with -calibrate: also measure each PDF's vector pages plotted at these `sizes` (comma-separated, 0.25 to 4: \"0.5,0.7,1.41\"), as -scale plots it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !validTurn(*turnDeg) {
		return fmt.Errorf("-turn %d: want 0, 90, 180 or 270", *turnDeg)
	}
	if !(*scale >= 0.25 && *scale <= 4) {
		return fmt.Errorf("-scale %g: want 0.25 to 4", *scale)
	}
	if fi, err := os.Stat(*data); err != nil || !fi.IsDir() {
		fmt.Fprintf(stdout, "realeval: skipped: no real-data folder at %s (the real sets are not redistributed; see docs/evaluation.md)\n", *data)
		return nil
	}
	truths, err := realset.LoadTruths(*truthDir)
	if err != nil {
		return err
	}
	if len(truths) == 0 {
		return fmt.Errorf("no count truth in %s", *truthDir)
	}
	truths, err = pick(truths, fs.Args())
	if err != nil {
		return err
	}
	if *cal {
		scales, err := parseScales(*calScales)
		if err != nil {
			return err
		}
		return calibrate(ctx, truths, *data, *renders, *mutool, *from, *report, scales, stdout, stderr)
	}
	var sets []realset.SetResult
	var skipped []string
	var turned string // the folder of the turned, scaled or outlined copies (-turn, -scale, -outline)
	if *turnDeg != 0 || *scale != 1 || *outline {
		if turned, err = os.MkdirTemp("", "realeval-turned-"); err != nil {
			return err
		}
		defer os.RemoveAll(turned)
	}
	for _, t := range truths {
		path := filepath.Join(*data, t.File)
		if _, err := os.Stat(path); err != nil {
			skipped = append(skipped, t.File)
			continue
		}
		fmt.Fprintf(stderr, "realeval: %s ...\n", t.File)
		if *outline {
			if path, err = outlinedCopy(ctx, *mutool, path, turned); err != nil {
				return err
			}
		}
		if *scale != 1 {
			if path, err = scaledCopy(ctx, *mutool, path, turned, *scale); err != nil {
				return err
			}
		}
		if *turnDeg != 0 {
			if path, err = turnedCopy(ctx, *mutool, path, turned, *turnDeg); err != nil {
				return err
			}
		}
		start := time.Now()
		counted, err := takeoff(ctx, *bin, path, *timeout)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r := realset.Score(t, counted)
		r.Seconds = time.Since(start).Seconds()
		if err != nil {
			r.Error = err.Error()
			fmt.Fprintf(stderr, "realeval: %s: %v\n", t.File, err)
		}
		sets = append(sets, r)
	}
	rep := realset.Summarise(sets, skipped, *target)
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	if *report != "" {
		if err := os.WriteFile(*report, js, 0o644); err != nil {
			return err
		}
	}
	if *asJSON {
		_, err = stdout.Write(js)
		return err
	}
	_, err = io.WriteString(stdout, rep.Text())
	return err
}

// pick keeps the truths named (by file name, with or without extension);
// all of them when none is named.
func pick(truths []realset.Truth, names []string) ([]realset.Truth, error) {
	if len(names) == 0 {
		return truths, nil
	}
	var out []realset.Truth
	for _, n := range names {
		found := false
		for _, t := range truths {
			if t.File == n || strings.TrimSuffix(t.File, filepath.Ext(t.File)) == n {
				out = append(out, t)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no count truth for %q", n)
		}
	}
	return out, nil
}

// takeoff runs `bin takeoff --json path` and returns its count per class
// (the summary's by_symbol: what the API reports at the default
// thresholds).
func takeoff(ctx context.Context, bin, path string, timeout time.Duration) (map[string]int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "takeoff", "--json", path)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return map[string]int{}, fmt.Errorf("%s takeoff: %w: %s", bin, err, msg)
	}
	return parseTakeoff(out.Bytes())
}

// parseTakeoff reads the count per class of one file's `takeoff --json`.
func parseTakeoff(b []byte) (map[string]int, error) {
	var files []struct {
		Summary struct {
			BySymbol []struct {
				Class string `json:"class"`
				Count int    `json:"count"`
			} `json:"by_symbol"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(b, &files); err != nil {
		return map[string]int{}, fmt.Errorf("read the take-off: %w", err)
	}
	if len(files) != 1 {
		return map[string]int{}, fmt.Errorf("take-off of %d files, want 1", len(files))
	}
	counted := map[string]int{}
	for _, s := range files[0].Summary.BySymbol {
		counted[s.Class] += s.Count
	}
	return counted, nil
}

// parseScales reads -calibrate-scales: sizes from 0.25 to 4, comma-separated.
func parseScales(list string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v >= 0.25 && v <= 4) {
			return nil, fmt.Errorf("-calibrate-scales: %q: want sizes from 0.25 to 4", f)
		}
		out = append(out, v)
	}
	return out, nil
}
