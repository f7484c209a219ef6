package main

import (
	"context"
	"fmt"
	"image"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"blueprint/internal/eval/dataset"
	"blueprint/internal/glyphsearch"
	"blueprint/internal/job"
	"blueprint/internal/search"
)

// Score floors whose kept matches a section prints.
var (
	vectorFloors = []float64{0.8, 0.85, 0.9, 0.95, 0.98, 1}
	imageFloors  = []float64{0.7, 0.75, 0.8, 0.85, 0.9, 0.92, 0.94, 0.96, 0.98}
)

func init() {
	if !slices.Contains(imageFloors, glyphsearch.DefaultMinScore) {
		imageFloors = append(imageFloors, glyphsearch.DefaultMinScore)
		slices.Sort(imageFloors)
	}
}

const (
	vectorTitle = "vector (search.InDocument on the drawing)"
	imageTitle  = "image (search.Images on the page image)"
)

// timing gathers a section's times apart from the searches'.
type timing struct {
	perPage map[string][]float64 // search time per page searched, by paper size
	cold    map[string][]float64 // the same with every drawing read again, once a sheet
	reads   []pageRead
	mpx     float64 // largest page searched, megapixels
}

func (t *timing) lines() []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(t.perPage)) {
		l := fmt.Sprintf("%s: search per page median %.3f s, max %.3f s (%d searches)", p, quantile(t.perPage[p], 0.5), quantile(t.perPage[p], 1), len(t.perPage[p]))
		if c := t.cold[p]; len(c) > 0 {
			l += fmt.Sprintf("; as the service runs it (drawings read again) %.3f s at most (%d sheets)", quantile(c, 1), len(c))
		}
		out = append(out, l)
	}
	if len(t.reads) > 0 {
		secs, slow, px := 0.0, 0.0, 0.0
		for _, r := range t.reads {
			secs += r.secs
			if r.secs > slow {
				slow, px = r.secs, r.px
			}
		}
		out = append(out, fmt.Sprintf("page drawing read: mean %.3f s over %d pages; slowest %.3f s (%.1f Mpx)", secs/float64(len(t.reads)), len(t.reads), slow, px/1e6))
	}
	if t.mpx > 0 {
		out = append(out, fmt.Sprintf("pages up to %.1f Mpx", t.mpx))
	}
	return out
}

// generated scores the sheets of a generated dataset: pages drawn as
// vectors by the vector search, scans by the glyph search.
func generated(ctx context.Context, dir string, o options) (*report, error) {
	sheets, skipped, err := dataset.Load(dir)
	if err != nil {
		return nil, err
	}
	for _, s := range skipped {
		fmt.Fprintln(o.stderr, "searcheval: skipped (not ground truth):", s)
	}
	rep := &report{}
	tv, ti := &timing{}, &timing{}
	done := 0
	for _, s := range sheets {
		if _, ok := mimeOf(s.Path); !ok || len(s.Pages) == 0 {
			continue
		}
		if o.maxSheets > 0 && done == o.maxSheets {
			break
		}
		done++
		start := time.Now()
		st, err := sheet(ctx, s, o, rep, tv, ti)
		if err != nil {
			return nil, err
		}
		if !o.quiet {
			fmt.Fprintf(o.stderr, "%s (%s): %d searches, recall %s, precision %s, %.1f s\n", s.File, s.Paper,
				st.searches, ratio(st.tp, st.tp+st.fn), ratio(st.tp, st.tp+st.fp), time.Since(start).Seconds())
		}
	}
	for _, s := range rep.Sections {
		if s.Title == vectorTitle {
			s.Lines = tv.lines()
		} else {
			s.Lines = ti.lines()
		}
	}
	if len(rep.Sections) == 0 {
		return nil, fmt.Errorf("%s: no sheet with labelled symbols", dir)
	}
	return rep, nil
}

// queries picks up to n whole instances (not clipped by the sheet's
// edge: a reviewer boxes a whole symbol) to search from, spread over them
// from a place seeded by the sheet.
func queries(all []instance, n int, rng *rand.Rand) []instance {
	var whole []instance
	for _, b := range all {
		if !b.clipped {
			whole = append(whole, b)
		}
	}
	if len(whole) <= n {
		return whole
	}
	first := rng.IntN(len(whole))
	out := make([]instance, 0, n)
	for i := range n {
		out = append(out, whole[(first+i*len(whole)/n)%len(whole)])
	}
	return out
}

func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// sheetTruth adds a labelled page's instances to truth, by class.
func sheetTruth(p dataset.Page, w, h int, truth map[string][]instance) error {
	objs, err := p.Objects(w, h)
	if err != nil {
		return err
	}
	for i, ob := range objs {
		truth[ob.Class] = append(truth[ob.Class], instance{page: p.PageIndex, class: ob.Class, box: ob.Box, clipped: p.Symbols[i].Clipped})
	}
	return nil
}

// classesOf is the classes of truth in order, less those -classes leaves
// out.
func classesOf(truth map[string][]instance, o options) []string {
	var out []string
	for c := range truth {
		if o.classes == nil || o.classes[c] {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

func flat(truth map[string][]instance) []instance {
	var out []instance
	for _, c := range classesOf(truth, options{}) {
		out = append(out, truth[c]...)
	}
	return out
}

// sheet runs the searches of one sheet as the service runs them: on a page
// drawn as vectors by the vector search, each on the drawings read once
// (the read timed apart) and once a sheet reading them again as the
// service does; on a scan (an image, a PDF of scanned pages) by the glyph
// search on the page images.
func sheet(ctx context.Context, s dataset.Sheet, o options, rep *report, tv, ti *timing) (tally, error) {
	var st tally
	d, err := openDoc(ctx, s.Path, o.labeller)
	if err != nil {
		return st, err
	}
	defer d.Close()
	truth := map[string][]instance{}
	var pages []int
	imgs := map[int]image.Image{}
	scan := false
	for _, p := range s.Pages {
		if p.PageIndex >= d.NumPages() {
			return st, fmt.Errorf("%s: ground truth labels page %d but the drawing has %d pages", s.Label, p.PageIndex, d.NumPages())
		}
		pg, err := d.Drawing(ctx, p.PageIndex)
		if err != nil {
			return st, fmt.Errorf("%s: %w", s.Path, err)
		}
		var w, h int
		if pg == nil || pg.Scan() {
			scan = true
			img, err := d.f.(job.PageImages).PageImage(ctx, p.PageIndex)
			if err != nil {
				return st, fmt.Errorf("%s: page %d: %w", s.Path, p.PageIndex, err)
			}
			imgs[p.PageIndex] = img
			w, h = img.Bounds().Dx(), img.Bounds().Dy()
			ti.mpx = max(ti.mpx, float64(w*h)/1e6)
		} else {
			w, h = int(math.Round(pg.Width)), int(math.Round(pg.Height))
		}
		if err := sheetTruth(p, w, h, truth); err != nil {
			return st, fmt.Errorf("%s: %w", s.Label, err)
		}
		pages = append(pages, p.PageIndex)
	}
	mode, sec, tm := "vector", rep.sectionOf(vectorTitle, vectorFloors), tv
	if scan {
		mode, sec, tm = "image", rep.sectionOf(imageTitle, imageFloors), ti
	} else {
		tv.reads = append(tv.reads, d.reads...)
	}
	all := flat(truth)
	rng := rand.New(rand.NewPCG(o.seed, s.Seed^hash(s.File)))
	cold := !scan
	for _, class := range classesOf(truth, o) {
		for _, q := range queries(truth[class], o.queries, rng) {
			var w, h float64
			if img := imgs[q.page]; img != nil {
				w, h = float64(img.Bounds().Dx()), float64(img.Bounds().Dy())
			} else {
				w, h = d.pages[q.page].Width, d.pages[q.page].Height
			}
			box := padBox(q.box, o.pad, o.padMinPx, w, h)
			t0, c0 := time.Now(), cpuSeconds()
			var found []search.PageMatches
			var why string
			if scan {
				found, why, err = d.searchImages(ctx, imgs, q.page, box, pages, o.minScore, o.anyColour)
			} else {
				found, why, err = d.searchVector(ctx, d, q.page, box, pages, o.anyColour)
			}
			secs := time.Since(t0).Seconds()
			if err != nil {
				return st, fmt.Errorf("%s: %s at page %d %v: %w", s.File, class, q.page, q.box, err)
			}
			one := tally{searches: 1, times: []float64{secs}, cpu: []float64{cpuSeconds() - c0}}
			if why != "" {
				one.refused = 1
			}
			addTime(&tm.perPage, s.Paper, secs/float64(len(pages)))
			if cold && why == "" {
				t0 := time.Now()
				if _, _, err := d.searchVector(ctx, d.fresh(), q.page, box, pages, o.anyColour); err != nil {
					return st, fmt.Errorf("%s: %s at page %d %v: %w", s.File, class, q.page, q.box, err)
				}
				addTime(&tm.cold, s.Paper, time.Since(t0).Seconds()/float64(len(pages)))
				cold = false
			}
			score(class, "", all, found, &one, miss{Set: s.File, Class: class, Mode: mode, Query: q.box}, o.misses)
			st.add(one)
			sec.add(class, "", one)
		}
	}
	return st, nil
}

func addTime(m *map[string][]float64, paper string, secs float64) {
	if *m == nil {
		*m = map[string][]float64{}
	}
	(*m)[paper] = append((*m)[paper], secs)
}
