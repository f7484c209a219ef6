// Command searcheval measures "find more like this" (package search) on a
// labelled dataset of vector sheets: for each class on each sheet it takes
// a few of its instances, draws a box around each as a reviewer would (the
// instance's truth box grown by -pad on every side), searches the sheet's
// labelled pages for what the box holds, and scores the matches against
// the sheet's truth of that class (one to one at IoU >= 0.5, as
// docs/evaluation.md matches detections). It prints recall and precision
// over every search, per class, and the time a search takes.
//
//	go run ./cmd/searcheval -data testdata/synth
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/drawing"
	"blueprint/internal/eval"
	"blueprint/internal/eval/dataset"
	"blueprint/internal/search"
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
	queries  int     // instances searched from per class and sheet
	pad      float64 // box growth on each side, fraction of the instance's size
	padMinPx float64 // and at least this many pixels
	quiet    bool
	misses   io.Writer // nil: none written
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("searcheval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "dataset directory: vector PDFs with <stem>.json ground truth beside them (required)")
	var o options
	fs.IntVar(&o.queries, "queries", 2, "instances of each class on each sheet to search from")
	fs.Float64Var(&o.pad, "pad", 0.15, "grow each query box by this fraction of the instance's size on every side")
	fs.Float64Var(&o.padMinPx, "pad-min", 3, "and by at least this many pixels")
	fs.BoolVar(&o.quiet, "quiet", false, "no per-sheet progress on stderr")
	jsonOut := fs.String("json", "", "also write the figures as JSON here")
	missesPath := fs.String("misses", "", "write every missed instance and false match here, one JSON object per line")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if *data == "" || fs.NArg() > 0 || o.queries < 1 || o.pad < 0 || o.padMinPx < 0 {
		return fmt.Errorf("%w: -data DIR is required; -queries at least 1; -pad, -pad-min not negative", errUsage)
	}
	sheets, skipped, err := dataset.Load(*data)
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintln(stderr, "searcheval: skipped (not ground truth):", s)
	}
	if *missesPath != "" {
		f, err := os.Create(*missesPath)
		if err != nil {
			return err
		}
		defer f.Close()
		o.misses = f
	}
	var tot tally
	perClass := map[string]*tally{}
	for _, s := range sheets {
		if !strings.HasSuffix(strings.ToLower(s.Path), ".pdf") {
			continue
		}
		start := time.Now()
		var st tally
		if err := evalSheet(ctx, s, o, &st, perClass); err != nil {
			return err
		}
		tot.add(st)
		if !o.quiet {
			fmt.Fprintf(stderr, "%s: %d searches, recall %s, precision %s, %.1f s\n", s.File, st.searches, ratio(st.tp, st.tp+st.fn), ratio(st.tp, st.tp+st.fp), time.Since(start).Seconds())
		}
	}
	if tot.searches == 0 {
		return fmt.Errorf("%s: no vector sheet with labelled symbols", *data)
	}
	report(stdout, tot, perClass)
	if *jsonOut != "" {
		return writeJSON(*jsonOut, tot, perClass)
	}
	return nil
}

// tally adds up searches.
type tally struct {
	searches   int
	tp, fp, fn int
	// cut and find time of every search, seconds
	times []float64
	// scores of the matches, and whether each was a true positive
	scores []scoredMatch
	// drawing reads: pages and their time, seconds (the largest page's
	// alone in maxRead, with its size)
	reads      int
	readSecs   float64
	maxRead    float64
	maxReadPx  float64
	maxReadPpr string
	// colds are searches as the service runs them: every page's drawing
	// read from the open document again, per paper size
	colds map[string][]float64
	// byPaper are the times of searches, per paper size
	byPaper map[string][]float64
}

func (t *tally) add(o tally) {
	t.searches += o.searches
	t.tp, t.fp, t.fn = t.tp+o.tp, t.fp+o.fp, t.fn+o.fn
	t.times = append(t.times, o.times...)
	t.scores = append(t.scores, o.scores...)
	t.reads += o.reads
	t.readSecs += o.readSecs
	for p, v := range o.byPaper {
		if t.byPaper == nil {
			t.byPaper = map[string][]float64{}
		}
		t.byPaper[p] = append(t.byPaper[p], v...)
	}
	for p, v := range o.colds {
		if t.colds == nil {
			t.colds = map[string][]float64{}
		}
		t.colds[p] = append(t.colds[p], v...)
	}
	if o.maxRead > t.maxRead {
		t.maxRead, t.maxReadPx, t.maxReadPpr = o.maxRead, o.maxReadPx, o.maxReadPpr
	}
}

// evalSheet runs the searches of one sheet.
func evalSheet(ctx context.Context, s dataset.Sheet, o options, st *tally, perClass map[string]*tally) error {
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return fmt.Errorf("read drawing: %w", err)
	}
	doc, err := document.Open(ctx, data, "application/pdf", document.DefaultLimits())
	if err != nil {
		return fmt.Errorf("%s: open: %w", s.Path, err)
	}
	defer doc.Close()
	// Each labelled page's drawing is read once and kept for the
	// sheet's searches: the read is timed on its own.
	drawings := cachedDrawings{n: doc.NumPages(), pages: map[int]*drawing.Page{}}
	truth := map[string][]pageBox{}
	var pages []int
	for _, p := range s.Pages {
		if p.PageIndex >= doc.NumPages() {
			return fmt.Errorf("%s: ground truth labels page %d but the drawing has %d pages", s.Label, p.PageIndex, doc.NumPages())
		}
		t0 := time.Now()
		pg, err := doc.Drawing(ctx, p.PageIndex)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Path, err)
		}
		secs := time.Since(t0).Seconds()
		st.reads++
		st.readSecs += secs
		if pg != nil && secs > st.maxRead {
			st.maxRead, st.maxReadPx, st.maxReadPpr = secs, pg.Width*pg.Height, s.Paper
		}
		drawings.pages[p.PageIndex] = pg
		pages = append(pages, p.PageIndex)
		w, h := 0, 0
		if pg != nil {
			w, h = int(math.Round(pg.Width)), int(math.Round(pg.Height))
		}
		objs, err := p.Objects(w, h)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Label, err)
		}
		for i, ob := range objs {
			truth[ob.Class] = append(truth[ob.Class], pageBox{page: p.PageIndex, box: ob.Box, clipped: p.Symbols[i].Clipped})
		}
	}
	classes := make([]string, 0, len(truth))
	for c := range truth {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	cold := true
	for _, class := range classes {
		for _, q := range queries(truth[class], o.queries) {
			pad := math.Max(o.padMinPx, o.pad*math.Max(q.box.W, q.box.H))
			box := detect.Box{X: q.box.X - pad, Y: q.box.Y - pad, W: q.box.W + 2*pad, H: q.box.H + 2*pad}
			pg := drawings.pages[q.page]
			box = clip(box, pg.Width, pg.Height)
			t0 := time.Now()
			found, err := search.InDocument(ctx, drawings, q.page, box, pages)
			secs := time.Since(t0).Seconds()
			if err != nil && !errors.Is(err, search.ErrEmptyRegion) {
				return fmt.Errorf("%s: %s at page %d %v: %w", s.File, class, q.page, q.box, err)
			}
			var one tally
			one.searches = 1
			one.times = []float64{secs}
			one.byPaper = map[string][]float64{s.Paper: {secs / float64(len(pages))}}
			if cold && err == nil {
				// Once a sheet, the search as the service runs it:
				// page drawings read from the document each time.
				t0 := time.Now()
				if _, err := search.InDocument(ctx, doc, q.page, box, pages); err != nil {
					return fmt.Errorf("%s: %s at page %d %v: %w", s.File, class, q.page, q.box, err)
				}
				one.colds = map[string][]float64{s.Paper: {time.Since(t0).Seconds() / float64(len(pages))}}
				cold = false
			}
			score(s, class, q, truth, found, &one, o.misses)
			st.add(one)
			if perClass[class] == nil {
				perClass[class] = &tally{}
			}
			perClass[class].add(one)
		}
	}
	return nil
}

// scoredMatch is one match's score and whether it was a true positive.
type scoredMatch struct {
	score float64
	tp    bool
}

// pageBox is a truth box on a page.
type pageBox struct {
	page    int
	box     detect.Box
	clipped bool
}

// queries picks up to n instances to search from, spread over the list,
// preferring those the sheet edge does not clip (a reviewer boxes a whole
// symbol).
func queries(all []pageBox, n int) []pageBox {
	var whole []pageBox
	for _, b := range all {
		if !b.clipped {
			whole = append(whole, b)
		}
	}
	if len(whole) == 0 {
		return nil
	}
	if len(whole) <= n {
		return whole
	}
	out := make([]pageBox, 0, n)
	for i := range n {
		out = append(out, whole[i*len(whole)/n])
	}
	return out
}

// score matches one search's results against the truth of its class.
func score(s dataset.Sheet, class string, q pageBox, truth map[string][]pageBox, found []search.PageMatches, t *tally, misses io.Writer) {
	byPage := map[int][]detect.Box{}
	for _, b := range truth[class] {
		byPage[b.page] = append(byPage[b.page], b.box)
	}
	for _, pm := range found {
		preds := make([]detect.Detection, len(pm.Matches))
		for i, m := range pm.Matches {
			preds[i] = detect.Detection{Class: class, Confidence: m.Score, Box: m.Box}
		}
		gt := byPage[pm.Page]
		tp := eval.Match(gt, preds)
		hit := make([]bool, len(gt))
		for i, ok := range tp {
			t.scores = append(t.scores, scoredMatch{score: preds[i].Confidence, tp: ok})
			if ok {
				t.tp++
				for j, g := range gt {
					if !hit[j] && eval.IoU(preds[i].Box, g) >= eval.IoUThreshold {
						hit[j] = true
						break
					}
				}
				continue
			}
			t.fp++
			writeMiss(misses, s, class, q, pm.Page, "fp", preds[i].Box, nearest(truth, pm.Page, preds[i].Box))
		}
		for j, g := range gt {
			if !hit[j] {
				t.fn++
				writeMiss(misses, s, class, q, pm.Page, "fn", g, "")
			}
		}
		delete(byPage, pm.Page)
	}
	for page, gt := range byPage { // pages not searched (a failed cut)
		t.fn += len(gt)
		for _, g := range gt {
			writeMiss(misses, s, class, q, page, "fn", g, "")
		}
	}
}

// nearest names the class of the truth box that b overlaps most, "" for
// none.
func nearest(truth map[string][]pageBox, page int, b detect.Box) string {
	best, bestIoU := "", 0.0
	for c, bs := range truth {
		for _, t := range bs {
			if v := eval.IoU(t.box, b); t.page == page && v > bestIoU {
				best, bestIoU = c, v
			}
		}
	}
	return best
}

func writeMiss(w io.Writer, s dataset.Sheet, class string, q pageBox, page int, kind string, b detect.Box, near string) {
	if w == nil {
		return
	}
	line, _ := json.Marshal(map[string]any{"file": s.File, "class": class, "query_page": q.page, "query_box": q.box,
		"page_index": page, "kind": kind, "box": b, "nearest_class": near})
	fmt.Fprintf(w, "%s\n", line)
}

func clip(b detect.Box, w, h float64) detect.Box {
	x0, y0 := math.Max(0, b.X), math.Max(0, b.Y)
	x1, y1 := math.Min(w, b.X+b.W), math.Min(h, b.Y+b.H)
	return detect.Box{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// cachedDrawings serves the drawings read once per sheet.
type cachedDrawings struct {
	n     int
	pages map[int]*drawing.Page
}

func (c cachedDrawings) NumPages() int { return c.n }

func (c cachedDrawings) Drawing(_ context.Context, i int) (*drawing.Page, error) {
	pg, ok := c.pages[i]
	if !ok {
		return nil, fmt.Errorf("page %d is not labelled", i)
	}
	return pg, nil
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
	fmt.Fprintln(tw, "class\tsearches\ttp\tfp\tfn\trecall\tprecision")
	classes := make([]string, 0, len(perClass))
	for c := range perClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		t := perClass[c]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\n", c, t.searches, t.tp, t.fp, t.fn, ratio(t.tp, t.tp+t.fn), ratio(t.tp, t.tp+t.fp))
	}
	fmt.Fprintf(tw, "ALL\t%d\t%d\t%d\t%d\t%s\t%s\n", tot.searches, tot.tp, tot.fp, tot.fn, ratio(tot.tp, tot.tp+tot.fn), ratio(tot.tp, tot.tp+tot.fp))
	tw.Flush()
	fmt.Fprintf(w, "search (cut + match over the sheet's pages, drawings already read): median %.3f s, p95 %.3f s, max %.3f s\n",
		quantile(tot.times, 0.5), quantile(tot.times, 0.95), quantile(tot.times, 1))
	fmt.Fprint(w, "matches kept at a score floor (true / false):")
	for _, floor := range []float64{0.8, 0.85, 0.9, 0.95, 0.98, 1} {
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
		fmt.Fprintf(w, " %.2f: %d/%d", floor, tp, fp)
	}
	fmt.Fprintln(w)
	papers := make([]string, 0, len(tot.colds))
	for p := range tot.colds {
		papers = append(papers, p)
	}
	sort.Strings(papers)
	for _, p := range papers {
		fmt.Fprintf(w, "%s: search per page median %.3f s, max %.3f s (%d searches); as the service runs it (drawings read again) %.3f s at most (%d sheets)\n",
			p, quantile(tot.byPaper[p], 0.5), quantile(tot.byPaper[p], 1), len(tot.byPaper[p]), quantile(tot.colds[p], 1), len(tot.colds[p]))
	}
	if tot.reads > 0 {
		fmt.Fprintf(w, "page drawing read: mean %.3f s over %d pages; slowest %.3f s (%s, %.1f Mpx)\n",
			tot.readSecs/float64(tot.reads), tot.reads, tot.maxRead, tot.maxReadPpr, tot.maxReadPx/1e6)
	}
}

func writeJSON(path string, tot tally, perClass map[string]*tally) error {
	type fig struct {
		Searches  int      `json:"searches"`
		TP        int      `json:"tp"`
		FP        int      `json:"fp"`
		FN        int      `json:"fn"`
		Recall    *float64 `json:"recall"`
		Precision *float64 `json:"precision"`
	}
	f := func(t tally) fig {
		out := fig{Searches: t.searches, TP: t.tp, FP: t.fp, FN: t.fn}
		if d := t.tp + t.fn; d > 0 {
			v := float64(t.tp) / float64(d)
			out.Recall = &v
		}
		if d := t.tp + t.fp; d > 0 {
			v := float64(t.tp) / float64(d)
			out.Precision = &v
		}
		return out
	}
	rep := map[string]any{"all": f(tot), "classes": map[string]fig{},
		"search_seconds": map[string]float64{"median": quantile(tot.times, 0.5), "p95": quantile(tot.times, 0.95), "max": quantile(tot.times, 1)}}
	for c, t := range perClass {
		rep["classes"].(map[string]fig)[c] = f(*t)
	}
	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
