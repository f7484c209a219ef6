// Command searcheval measures "find more like this" (POST
// /v1/jobs/{id}/search) as the service runs it: a box drawn round one
// instance of a class, the same search the service runs for it (package
// search: the vector matcher on a page drawn as vectors, search.Images'
// glyph search on a page image), matches on a legend row's glyph left out
// as the service leaves them out, and the matches scored against the truth
// of that class. It measures two kinds of truth:
//
//   - generated sets (-data DIR, make synth): every PDF is searched by the
//     vector search, every scan (PNG, JPEG, WebP) by the glyph search; for
//     each class on each sheet -queries instances are boxed (their truth box
//     grown by -pad) and a match is right when it overlaps an instance of
//     the class one to one at IoU >= 0.5 (docs/evaluation.md);
//   - real sets (-real DIR, testdata/realtruth): for each set whose truth
//     keeps positions and each class with at least two, the class's
//     exemplar box (its first instance, measured by eye) is searched for,
//     by the vector search on the PDF and by the glyph search on each
//     page's 200-DPI render (-modes), and on image sets by the glyph search
//     on the image; a match is right when its centre lies within the
//     class's tolerance of a position of the class, each position matched
//     once.
//
// It prints recall and precision per class (per set and class for real
// sets) and overall, and the time a search takes.
//
//	go run ./cmd/searcheval -data /tmp/s1
//	go run ./cmd/searcheval -real ../shared/realdata
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
)

// errUsage marks a command line that cannot run; main exits 2 for it.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, errUsage) {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "searcheval:", err)
		}
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "searcheval:", err)
		os.Exit(1)
	}
}

// options of one run.
type options struct {
	queries   int     // instances searched from per class and sheet (generated sets)
	seed      uint64  // which instances (generated sets)
	pad       float64 // box growth on each side, fraction of the instance's size
	padMinPx  float64 // and at least this many pixels
	maxSheets int
	classes   map[string]bool // only these (nil: all)
	minScore  float64         // glyph search floor (0: its default)
	vector    bool            // real sets: search the PDF's drawing
	image     bool            // real sets: search the pages' renders
	quiet     bool
	anyColour bool // searches take matches of any colour, black included (the request's any_colour)
	// perClass: real sets searched from each class's one exemplar even
	// where the truth splits the class by glyph (realset.ClassTruth.Glyphs).
	perClass bool
	stderr   io.Writer
	misses   io.Writer // nil: none written
	// labeller takes off each PDF for the symbols named by codes, whose
	// matches of another code than the exemplar's the service leaves out.
	labeller *labeller
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("searcheval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "generated dataset: PDFs and scans with <stem>.json ground truth beside them")
	real := fs.String("real", "", "real-data folder: the drawings of -truth's sets")
	truthDir := fs.String("truth", "testdata/realtruth", "count-truth fixtures of the real sets (with -real)")
	modes := fs.String("modes", "vector,image", "with -real: vector (the PDF's drawing), image (200-DPI renders of PDF pages; image sets always)")
	o := options{stderr: stderr}
	fs.IntVar(&o.queries, "queries", 1, "generated sets: instances of each class on each sheet to search from")
	fs.Uint64Var(&o.seed, "seed", 1, "generated sets: seed of the choice of instances")
	fs.Float64Var(&o.pad, "pad", 0.1, "grow each exemplar box by this fraction of its longer side on every side")
	fs.Float64Var(&o.padMinPx, "pad-min", 3, "and by at least this many pixels")
	fs.IntVar(&o.maxSheets, "max-sheets", 0, "generated sets: score at most this many sheets (0: all)")
	classes := fs.String("classes", "", "comma-separated classes to search for (default: every class)")
	fs.Float64Var(&o.minScore, "min-score", 0, "least glyph-search score (0: glyphsearch.DefaultMinScore)")
	fs.BoolVar(&o.quiet, "quiet", false, "no per-sheet progress on stderr")
	fs.BoolVar(&o.anyColour, "any-colour", false, "searches take matches drawn in any colour (the request's any_colour): vector searches any colour's drawing, image searches of a coloured exemplar the page's darkness, black included")
	fs.BoolVar(&o.perClass, "per-class", false, "with -real: search each class from its one exemplar, where the truth splits a class drawn by several glyphs (default: each glyph from its own)")
	jsonOut := fs.String("json", "", "also write the figures as JSON here")
	missesPath := fs.String("misses", "", "write every missed instance and false match here, one JSON object per line")
	fs.DurationVar(&budget, "budget", budget, "a search's time; past it the search answers with the pages it finished, as the service does")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run here")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if (*data == "") == (*real == "") || fs.NArg() > 0 || o.queries < 1 || o.pad < 0 || o.padMinPx < 0 || o.maxSheets < 0 {
		return fmt.Errorf("%w: one of -data DIR and -real DIR is required; -queries at least 1; -pad, -pad-min, -max-sheets not negative", errUsage)
	}
	for _, m := range strings.Split(*modes, ",") {
		switch strings.TrimSpace(m) {
		case "vector":
			o.vector = true
		case "image":
			o.image = true
		default:
			return fmt.Errorf("%w: -modes takes vector and image, not %q", errUsage, m)
		}
	}
	if *classes != "" {
		o.classes = map[string]bool{}
		for _, c := range strings.Split(*classes, ",") {
			o.classes[strings.TrimSpace(c)] = true
		}
	}
	if *missesPath != "" {
		f, err := os.Create(*missesPath)
		if err != nil {
			return err
		}
		defer f.Close()
		o.misses = f
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var rep *report
	var err error
	if o.labeller, err = newLabeller(ctx); err != nil {
		return err
	}
	if *data != "" {
		rep, err = generated(ctx, *data, o)
	} else {
		rep, err = realSets(ctx, *real, *truthDir, o)
	}
	if err != nil || rep == nil {
		return err
	}
	rep.write(stdout)
	if *jsonOut != "" {
		return rep.writeJSON(*jsonOut)
	}
	return nil
}
