package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/docfiles"
	"blueprint/internal/drawing"
	"blueprint/internal/glyphsearch"
	"blueprint/internal/job"
	"blueprint/internal/legend"
	"blueprint/internal/ocr"
	"blueprint/internal/ocrtext"
	"blueprint/internal/search"
)

// doc is an upload opened as the service opens it (package docfiles), its
// pages' drawings read once and kept, and the legend rows the job reads
// from them (package legend, as the engine's document pass reads them).
type doc struct {
	f      job.OpenFile
	pd     job.PageDrawings
	pages  map[int]*drawing.Page
	legend []job.LegendRow
	// offPlan are the PDF's tables and title blocks as the document pass
	// finds them (job.Job.OffPlan).
	offPlan []job.OffPlanRegion
	// labels are the symbols the take-off named by a code, per page
	// (labeller); nil where no labeller ran.
	labels map[int][]search.Label
	// reads are the drawing reads, seconds each, with the page's pixels.
	reads []pageRead
}

type pageRead struct {
	secs, px float64
}

// mimeOf is the type of a drawing by its name, as an upload names it.
func mimeOf(path string) (string, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pdf":
		return job.MimePDF, true
	case ".png":
		return job.MimePNG, true
	case ".jpg", ".jpeg":
		return job.MimeJPEG, true
	case ".webp":
		return job.MimeWebP, true
	}
	return "", false
}

// openDoc opens path. A PDF's legend is read from every page's drawing,
// and, with lab, its symbols named by codes are taken off.
func openDoc(ctx context.Context, path string, lab *labeller) (*doc, error) {
	mime, ok := mimeOf(path)
	if !ok {
		return nil, fmt.Errorf("%s: not a PDF or an image", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := docfiles.New(0, 0).Open(ctx, data, mime)
	if err != nil {
		return nil, fmt.Errorf("%s: open: %w", path, err)
	}
	d := &doc{f: f, pages: map[int]*drawing.Page{}}
	if mime != job.MimePDF {
		return d, nil
	}
	d.pd = f.(job.PageDrawings)
	vocab, err := legend.DefaultVocabulary()
	if err != nil {
		f.Close()
		return nil, err
	}
	// The legend as the service reads it: words drawn as outlines read by
	// OCR where Tesseract is installed.
	var lopt legend.Options
	if outl, err := ocr.Open(ctx, true, ""); err != nil {
		f.Close()
		return nil, err
	} else if outl != nil {
		lopt.Outlines = ocrtext.New(outl, ocrtext.Options{})
	}
	ld, err := legend.ReadWith(ctx, d, vocab, lopt)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: legend: %w", path, err)
	}
	for _, r := range ld.Rows {
		g := r.GlyphBox
		if g.Max.X <= g.Min.X || g.Max.Y <= g.Min.Y {
			continue
		}
		d.legend = append(d.legend, job.LegendRow{PageIndex: r.Page, Description: r.Description,
			GlyphBox: &detect.Box{X: g.Min.X, Y: g.Min.Y, W: g.Max.X - g.Min.X, H: g.Max.Y - g.Min.Y}})
	}
	for _, r := range ld.OffPlanRegions() {
		d.offPlan = append(d.offPlan, job.OffPlanRegion{PageIndex: r.Page, Box: r.Box})
	}
	if lab != nil {
		if d.labels, err = lab.labels(ctx, data); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return d, nil
}

func (d *doc) Close() error { return d.f.Close() }

func (d *doc) NumPages() int { return d.f.NumPages() }

// Drawing is page i's drawing, read once (nil for an image).
func (d *doc) Drawing(ctx context.Context, i int) (*drawing.Page, error) {
	if pg, ok := d.pages[i]; ok {
		return pg, nil
	}
	if d.pd == nil {
		return nil, nil
	}
	t0 := time.Now()
	pg, err := d.pd.Drawing(ctx, i)
	if err != nil {
		return nil, err
	}
	if pg != nil {
		d.reads = append(d.reads, pageRead{secs: time.Since(t0).Seconds(), px: pg.Width * pg.Height})
	}
	d.pages[i] = pg
	return pg, nil
}

// fresh is the document as the service's search reads it: every page's
// drawing read from the open file again.
func (d *doc) fresh() detect.Drawings { return freshDrawings{d.f, d.pd} }

type freshDrawings struct {
	job.OpenFile
	job.PageDrawings
}

// budget is how long a search may take (-budget): the service's
// (job.DefaultSearchBudget) unless a loaded machine calls for more.
var budget = job.DefaultSearchBudget

// A search past the budget ends as the
// service's does, with the pages it finished: searchVector and
// searchImages then end their list with a page -1, and the pages not
// reached find nothing.

// searchVector is the service's search on vector pages: the drawing inside
// box on page query found on pages (search.InDocumentWith, drawings from
// from, in any colour with anyColour as the request's any_colour), less the matches on a legend row's glyph or in a table or title block (job.OffPlan)
// and read with the take-off as the service reads it: matches on symbols
// of another class's code are near misses (search.SplitByTag), near
// misses for colour on symbols of the exemplar's class matches
// (search.JoinSameClass). A box
// the service refuses (no drawing, more than a symbol) is no matches and
// its reason.
func (d *doc) searchVector(ctx context.Context, from detect.Drawings, query int, box detect.Box, pages []int, anyColour bool) ([]search.PageMatches, string, error) {
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	found, err := search.InDocumentWith(sctx, from, query, box, pages, search.Options{AnyColour: anyColour})
	if err != nil && sctx.Err() != nil && ctx.Err() == nil {
		err, found = nil, append(found, search.PageMatches{Page: -1}) // out of time
	}
	if refused(err) {
		return nil, err.Error(), nil
	}
	if err != nil {
		return nil, "", err
	}
	ex, on := search.ExemplarLabel(box, d.labels[query])
	for i, pm := range found {
		search.SplitByTag(&found[i], ex, on, d.labels[pm.Page])
		search.JoinSameClass(&found[i], ex, on, d.labels[pm.Page])
		found[i].Matches = d.keep(pm.Page, found[i].Matches, d.offPlan)
	}
	return found, "", nil
}

// searchImages is the service's search on page images: the ink inside box
// on image query found on each of pages (search.Images, one page at a
// time as the service does), less the matches on a legend row's glyph.
func (d *doc) searchImages(ctx context.Context, imgs map[int]image.Image, query int, box detect.Box, pages []int, minScore float64, anyColour bool) ([]search.PageMatches, string, error) {
	s := search.Images{Options: glyphsearch.Options{MinScore: minScore}, Darkness: anyColour, PageSize: true}
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	var out []search.PageMatches
	for _, p := range pages {
		ms, err := s.Search(sctx, imgs[query], box, []image.Image{imgs[p]})
		if err != nil && sctx.Err() != nil && ctx.Err() == nil {
			return append(out, search.PageMatches{Page: -1}), "", nil // out of time
		}
		if refused(err) {
			return nil, err.Error(), nil
		}
		if err != nil {
			return nil, "", err
		}
		// The PDF's tables and title blocks are not known to an image
		// job (its legend is read only with image legends on): only the
		// legend rows' glyphs are left out, as before.
		out = append(out, search.PageMatches{Page: p, Matches: d.keep(p, ms[0], nil)})
	}
	return out, "", nil
}

func refused(err error) bool {
	return errors.Is(err, search.ErrEmptyRegion) || errors.Is(err, search.ErrRegionTooLarge)
}

// keep leaves out the matches on page that are a legend row's glyph or
// lie in one of regions (job.OffPlan), as the service's search does.
func (d *doc) keep(page int, ms []search.Match, regions []job.OffPlanRegion) []search.Match {
	out := ms[:0]
	for _, m := range ms {
		if !job.OffPlan(d.legend, regions, page, m.Box) {
			out = append(out, m)
		}
	}
	return out
}

// padBox grows b by pad of its longer side (at least minPx) on every side
// and clips it to the page, as a reviewer's box round a symbol.
func padBox(b detect.Box, pad, minPx, w, h float64) detect.Box {
	g := math.Max(minPx, pad*math.Max(b.W, b.H))
	x0, y0 := math.Max(0, b.X-g), math.Max(0, b.Y-g)
	x1, y1 := math.Min(w, b.X+b.W+g), math.Min(h, b.Y+b.H+g)
	return detect.Box{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}
