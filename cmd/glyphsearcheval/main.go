// Command glyphsearcheval measures the glyph search on images (package
// glyphsearch) on a labelled dataset of scans (make synth KIND=raster):
// on each page, for each class, it picks one instance at random (seeded)
// as the exemplar, boxes it as a reviewer would (its truth box grown by
// -pad), searches the page, and scores the matches against the page's
// truth of that class, one to one at IoU >= 0.5 as docs/evaluation.md
// matches detections. A false match that lies on an instance of another
// class (IoU >= 0.5) is counted apart, per pair of classes: some catalog
// classes differ only by a small detail (socket variants). It prints recall
// and precision per class and overall, the look-alike pairs, and the time
// per search.
//
//	go run ./cmd/glyphsearcheval -data /tmp/g1
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	_ "image/jpeg" // scans are JPEG or PNG (or WebP)
	_ "image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	_ "golang.org/x/image/webp"

	"blueprint/internal/detect"
	"blueprint/internal/eval"
	"blueprint/internal/eval/dataset"
	"blueprint/internal/glyphsearch"
)

// errUsage marks a command line that cannot run; main exits 2 for it.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, errUsage) {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "glyphsearcheval:", err)
		}
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "glyphsearcheval:", err)
		os.Exit(1)
	}
}

// options of one run.
type options struct {
	seed      uint64  // exemplar choice
	pad       float64 // box growth on each side, fraction of the instance's size
	padMinPx  float64 // and at least this many pixels
	maxSheets int
	classes   map[string]bool // only these (nil: all)
	search    glyphsearch.Options
	quiet     bool
	misses    io.Writer // nil: none written
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("glyphsearcheval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "dataset directory: scans (PNG, JPEG, WebP) with <stem>.json ground truth beside them (required)")
	var o options
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the exemplar choice")
	fs.Float64Var(&o.pad, "pad", 0.1, "grow each exemplar box by this fraction of the instance's size on every side")
	fs.Float64Var(&o.padMinPx, "pad-min", 2, "and by at least this many pixels")
	fs.IntVar(&o.maxSheets, "max-sheets", 0, "score at most this many sheets (0: all)")
	classes := fs.String("classes", "", "comma-separated classes to search for (default: every class)")
	fs.Float64Var(&o.search.MinScore, "min-score", 0, "least match score (0: glyphsearch.DefaultMinScore)")
	fs.BoolVar(&o.quiet, "quiet", false, "no per-sheet progress on stderr")
	jsonOut := fs.String("json", "", "also write the figures as JSON here")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the searches here")
	missesPath := fs.String("misses", "", "write every missed instance and false match here, one JSON object per line")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if *data == "" || fs.NArg() > 0 || o.pad < 0 || o.padMinPx < 0 || o.maxSheets < 0 {
		return fmt.Errorf("%w: -data DIR is required; -pad, -pad-min, -max-sheets not negative", errUsage)
	}
	if *classes != "" {
		o.classes = map[string]bool{}
		for _, c := range strings.Split(*classes, ",") {
			o.classes[strings.TrimSpace(c)] = true
		}
	}
	sheets, skipped, err := dataset.Load(*data)
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintln(stderr, "glyphsearcheval: skipped (not ground truth):", s)
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
	var tot tally
	perClass := map[string]*tally{}
	done := 0
	for _, s := range sheets {
		if !isImage(s.Path) || len(s.Pages) == 0 {
			continue
		}
		if o.maxSheets > 0 && done == o.maxSheets {
			break
		}
		done++
		start := time.Now()
		var st tally
		if err := evalSheet(ctx, s, o, &st, perClass); err != nil {
			return err
		}
		tot.add(st)
		if !o.quiet {
			fmt.Fprintf(stderr, "%s (%s, %d DPI): %d searches, recall %s, precision %s, %.1f s\n", s.File, s.Paper, s.DPI,
				st.searches, ratio(st.tp, st.tp+st.fn), ratio(st.tp, st.tp+st.fp), time.Since(start).Seconds())
		}
	}
	if tot.searches == 0 {
		return fmt.Errorf("%s: no scan with labelled symbols", *data)
	}
	report(stdout, tot, perClass)
	if *jsonOut != "" {
		return writeJSON(*jsonOut, tot, perClass)
	}
	return nil
}

func isImage(path string) bool {
	switch strings.ToLower(path[strings.LastIndex(path, ".")+1:]) {
	case "png", "jpg", "jpeg", "webp":
		return true
	}
	return false
}

// tally adds up searches.
type tally struct {
	searches   int
	tp, fp, fn int
	// lookalike counts the false matches that lie on an instance of
	// another class, by that class.
	lookalike map[string]int
	times     []float64 // template and search, seconds
	prepare   []float64 // page preparation (ink), seconds, once a page
	pixels    []float64 // page pixels of each search
	scores    []scoredMatch
}

func (t *tally) add(o tally) {
	t.searches += o.searches
	t.tp, t.fp, t.fn = t.tp+o.tp, t.fp+o.fp, t.fn+o.fn
	for c, n := range o.lookalike {
		if t.lookalike == nil {
			t.lookalike = map[string]int{}
		}
		t.lookalike[c] += n
	}
	t.times = append(t.times, o.times...)
	t.prepare = append(t.prepare, o.prepare...)
	t.pixels = append(t.pixels, o.pixels...)
	t.scores = append(t.scores, o.scores...)
}

func (t *tally) lookalikes() int {
	n := 0
	for _, v := range t.lookalike {
		n += v
	}
	return n
}

// scoredMatch is one match's score and whether it was a true positive.
type scoredMatch struct {
	score float64
	tp    bool
}

// evalSheet runs the searches of one scan.
func evalSheet(ctx context.Context, s dataset.Sheet, o options, st *tally, perClass map[string]*tally) error {
	f, err := os.Open(s.Path)
	if err != nil {
		return fmt.Errorf("read scan: %w", err)
	}
	img, _, err := image.Decode(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: decode: %w", s.Path, err)
	}
	b := img.Bounds()
	var truth dataset.Page
	for _, p := range s.Pages {
		if p.PageIndex == 0 {
			truth = p
		}
	}
	objs, err := truth.Objects(b.Dx(), b.Dy())
	if err != nil {
		return fmt.Errorf("%s: %w", s.Label, err)
	}
	t0 := time.Now()
	page, err := glyphsearch.NewPage(ctx, img)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	st.prepare = append(st.prepare, time.Since(t0).Seconds())
	byClass := map[string][]int{}
	for i, ob := range objs {
		byClass[ob.Class] = append(byClass[ob.Class], i)
	}
	classes := make([]string, 0, len(byClass))
	for c := range byClass {
		if o.classes == nil || o.classes[c] {
			classes = append(classes, c)
		}
	}
	sort.Strings(classes)
	rng := rand.New(rand.NewPCG(o.seed, s.Seed^hash(s.File)))
	for _, class := range classes {
		var whole []int
		for _, i := range byClass[class] {
			if !truth.Symbols[i].Clipped {
				whole = append(whole, i)
			}
		}
		if len(whole) == 0 {
			continue
		}
		q := objs[whole[rng.IntN(len(whole))]].Box
		pad := math.Max(o.padMinPx, o.pad*math.Max(q.W, q.H))
		r := image.Rect(int(math.Floor(q.X-pad)), int(math.Floor(q.Y-pad)), int(math.Ceil(q.X+q.W+pad)), int(math.Ceil(q.Y+q.H+pad))).Add(b.Min)
		t1 := time.Now()
		tmpl, err := page.Template(r)
		var found []glyphsearch.Match
		if err == nil {
			found, err = page.Search(ctx, tmpl, o.search)
		}
		secs := time.Since(t1).Seconds()
		if err != nil && !errors.Is(err, glyphsearch.ErrNoGlyph) {
			return fmt.Errorf("%s: %s at %v: %w", s.File, class, q, err)
		}
		one := tally{searches: 1, times: []float64{secs}, pixels: []float64{float64(b.Dx() * b.Dy())}}
		score(s, class, q, objs, found, b.Min, &one, o.misses)
		st.add(one)
		if perClass[class] == nil {
			perClass[class] = &tally{}
		}
		perClass[class].add(one)
	}
	return nil
}

func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// score matches one search's results against the truth of its class.
func score(s dataset.Sheet, class string, q detect.Box, objs []eval.Object, found []glyphsearch.Match, off image.Point, t *tally, misses io.Writer) {
	var gt []detect.Box
	for _, ob := range objs {
		if ob.Class == class {
			gt = append(gt, ob.Box)
		}
	}
	preds := make([]detect.Detection, len(found))
	for i, m := range found {
		b := m.Box
		b.X -= float64(off.X)
		b.Y -= float64(off.Y)
		preds[i] = detect.Detection{Class: class, Confidence: m.Score, Box: b}
	}
	tp := eval.Match(gt, preds)
	hit := make([]bool, len(gt))
	for i, ok := range tp {
		t.scores = append(t.scores, scoredMatch{score: preds[i].Confidence, tp: ok})
		if ok {
			t.tp++
			best, bi := 0.0, -1
			for j, g := range gt {
				if v := eval.IoU(preds[i].Box, g); !hit[j] && v > best {
					best, bi = v, j
				}
			}
			if bi >= 0 {
				hit[bi] = true
			}
			continue
		}
		t.fp++
		near := ""
		for _, ob := range objs {
			if ob.Class != class && eval.IoU(ob.Box, preds[i].Box) >= eval.IoUThreshold {
				near = ob.Class
				break
			}
		}
		if near != "" {
			if t.lookalike == nil {
				t.lookalike = map[string]int{}
			}
			t.lookalike[near]++
		}
		writeMiss(misses, s, class, q, "fp", preds[i].Box, preds[i].Confidence, found[i], near)
	}
	for j, g := range gt {
		if !hit[j] {
			t.fn++
			writeMiss(misses, s, class, q, "fn", g, 0, glyphsearch.Match{}, "")
		}
	}
}

func writeMiss(w io.Writer, s dataset.Sheet, class string, q detect.Box, kind string, b detect.Box, score float64, m glyphsearch.Match, near string) {
	if w == nil {
		return
	}
	rec := map[string]any{"file": s.File, "class": class, "query_box": q, "kind": kind, "box": b}
	if kind == "fp" {
		rec["score"] = score
		rec["angle"], rec["mirrored"], rec["scale"] = m.Angle, m.Mirrored, m.Scale
		rec["on_class"] = near
	}
	line, _ := json.Marshal(rec)
	fmt.Fprintf(w, "%s\n", line)
}

func ratio(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func report(w io.Writer, tot tally, perClass map[string]*tally) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tsearches\ttp\tfp\tfp on another class\tfn\trecall\tprecision\tprecision, look-alikes right")
	classes := make([]string, 0, len(perClass))
	for c := range perClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		t := perClass[c]
		la := t.lookalikes()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", c, t.searches, t.tp, t.fp, la, t.fn,
			ratio(t.tp, t.tp+t.fn), ratio(t.tp, t.tp+t.fp), ratio(t.tp+la, t.tp+t.fp))
	}
	la := tot.lookalikes()
	fmt.Fprintf(tw, "ALL\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", tot.searches, tot.tp, tot.fp, la, tot.fn,
		ratio(tot.tp, tot.tp+tot.fn), ratio(tot.tp, tot.tp+tot.fp), ratio(tot.tp+la, tot.tp+tot.fp))
	tw.Flush()

	type pair struct {
		from, to string
		n        int
	}
	var pairs []pair
	for _, c := range classes {
		for o, n := range perClass[c].lookalike {
			pairs = append(pairs, pair{c, o, n})
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].n != pairs[j].n {
			return pairs[i].n > pairs[j].n
		}
		return pairs[i].from+pairs[i].to < pairs[j].from+pairs[j].to
	})
	if len(pairs) > 0 {
		fmt.Fprint(w, "false matches on another class (exemplar -> instance found):")
		for i, p := range pairs {
			if i == 15 {
				fmt.Fprintf(w, " … (%d pairs)", len(pairs))
				break
			}
			fmt.Fprintf(w, " %s->%s %d;", p.from, p.to, p.n)
		}
		fmt.Fprintln(w)
	}
	mpx := 0.0
	for _, p := range tot.pixels {
		mpx = max(mpx, p/1e6)
	}
	fmt.Fprintf(w, "search (template + search of its page, page prepared): median %.3f s, p95 %.3f s, max %.3f s; pages up to %.1f Mpx; GOMAXPROCS %d\n",
		quantile(tot.times, 0.5), quantile(tot.times, 0.95), quantile(tot.times, 1), mpx, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "page preparation (ink, once a page): median %.3f s, max %.3f s\n", quantile(tot.prepare, 0.5), quantile(tot.prepare, 1))
	fmt.Fprint(w, "matches kept at a score floor (true / false):")
	floors := []float64{0.7, 0.75, 0.8, 0.85, 0.9, 0.92, 0.94, 0.96, 0.98}
	if !slices.Contains(floors, glyphsearch.DefaultMinScore) {
		floors = append(floors, glyphsearch.DefaultMinScore)
		slices.Sort(floors)
	}
	for _, floor := range floors {
		tp, fp := 0, 0
		for _, m := range tot.scores {
			if m.score >= floor-1e-9 {
				if m.tp {
					tp++
				} else {
					fp++
				}
			}
		}
		fmt.Fprintf(w, " %.2f: %d / %d;", floor, tp, fp)
	}
	fmt.Fprintln(w)
}

// figures is the JSON form of a run.
type figures struct {
	Searches     int                `json:"searches"`
	TP           int                `json:"tp"`
	FP           int                `json:"fp"`
	FPLookalike  int                `json:"fp_on_another_class"`
	FN           int                `json:"fn"`
	Recall       float64            `json:"recall"`
	Precision    float64            `json:"precision"`
	SearchMedian float64            `json:"search_median_s"`
	SearchP95    float64            `json:"search_p95_s"`
	SearchMax    float64            `json:"search_max_s"`
	PerClass     map[string]figures `json:"per_class,omitempty"`
}

func figuresOf(t tally) figures {
	f := figures{Searches: t.searches, TP: t.tp, FP: t.fp, FPLookalike: t.lookalikes(), FN: t.fn,
		SearchMedian: quantile(t.times, 0.5), SearchP95: quantile(t.times, 0.95), SearchMax: quantile(t.times, 1)}
	if t.tp+t.fn > 0 {
		f.Recall = float64(t.tp) / float64(t.tp+t.fn)
	}
	if t.tp+t.fp > 0 {
		f.Precision = float64(t.tp) / float64(t.tp+t.fp)
	}
	return f
}

func writeJSON(path string, tot tally, perClass map[string]*tally) error {
	f := figuresOf(tot)
	f.PerClass = map[string]figures{}
	for c, t := range perClass {
		f.PerClass[c] = figuresOf(*t)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
