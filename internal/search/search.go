// Package search finds every instance of what a box on a page holds: "find
// more like this". On a page drawn as vectors the drawing inside the box is
// cut into a glyph template (as a legend row's glyph is cut) and the vector
// matcher finds it on each page searched, at any rotation, mirrored, and
// from half to twice its size; a match must not be part of a larger symbol
// and must be drawn in the template's colour. Image pages (scans and
// photos) are searched by an ImageSearcher: Images, package glyphsearch's
// search of the ink inside the box.
package search

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/glyphsearch"
	"blueprint/internal/legend"
	"blueprint/internal/vector"
)

// ErrEmptyRegion is the error of a box that holds no drawing to search for.
var ErrEmptyRegion = errors.New("the box holds no drawing to search for")

// ErrRegionTooLarge is the error of a box that holds far more drawing than
// one symbol (legend.MaxCutPieces, legend.MaxCutChars): a room, a sheet.
var ErrRegionTooLarge = errors.New("the box holds more drawing than one symbol")

// MaxBoxSide is the longest side, in raster pixels of its page, of a box
// searched for: more is never one symbol (glyphsearch.MaxExemplarSide: a
// 40 mm panel is 470 pixels at 300 DPI), and is refused before any work.
const MaxBoxSide = glyphsearch.MaxExemplarSide

// Match is one instance found on a page.
type Match struct {
	Box detect.Box // raster pixels of the page, clipped to it
	// Score is the fraction of the template's drawing that the page's
	// drawing explains at the instance (0..1).
	Score float64
}

// Scale ranges searched, relative to the size the box's drawing is drawn
// at. A drawing with little to tell it apart (a lone circle, a bare box) is
// searched only near its own size, as the engine does with such legend
// glyphs: at another size it is any circle or any box.
const (
	minScale     = vector.MinScale
	maxScale     = vector.MaxScale
	weakMinScale = 0.8
	weakMaxScale = 1.25
)

// minScore is the least fraction of the template that the page must
// explain for a match. The matcher takes 0.8 (a symbol drawn slightly
// differently from its catalog glyph); the template of a search is cut
// from the drawing itself, whose copies explain it whole, while another
// symbol sharing most of its drawing leaves a stroke of it unexplained.
const minScore = 0.9

// Template is the drawing of a box, ready to be found on pages. It is
// immutable and safe for concurrent use.
type Template struct {
	glyph glyph.Glyph
	pen   drawing.Style // the paint that draws most of it
	drawn detect.Box
	m     *vector.Matcher
}

// templateClass is the class the matcher reports; search reports none.
const templateClass = "search"

// Cut cuts the drawing that lies wholly inside box on pg (raster pixels)
// into a template (legend.CutGlyph): drawing that crosses the box's edge
// (wires, walls) or is drawn in another colour than most of it is left
// out, and text counts only where it touches the drawing kept. It returns
// ErrEmptyRegion when the box holds no drawing and ErrRegionTooLarge when
// it holds far more than one symbol.
func Cut(pg *drawing.Page, box detect.Box) (*Template, error) {
	r := legend.Rect{Min: glyph.Point{X: box.X, Y: box.Y}, Max: glyph.Point{X: box.X + box.W, Y: box.Y + box.H}}
	c, err := legend.CutGlyph(pg, r)
	switch {
	case errors.Is(err, legend.ErrCutEmpty):
		return nil, ErrEmptyRegion
	case errors.Is(err, legend.ErrCutTooLarge):
		return nil, ErrRegionTooLarge
	case err != nil:
		return nil, fmt.Errorf("search: cut: %w", err)
	}
	g, drawn := c.Glyph, c.Drawn
	t := vector.Template{Class: templateClass, Glyph: g, MinScale: minScale, MaxScale: maxScale}
	if g.Weak() {
		t.MinScale, t.MaxScale = weakMinScale, weakMaxScale
	}
	m, err := vector.NewMatcher([]vector.Template{t})
	if err != nil {
		return nil, fmt.Errorf("search: template: %w", err)
	}
	return &Template{glyph: g, pen: c.Pen, m: m, drawn: detect.Box{X: drawn.Min.X, Y: drawn.Min.Y, W: drawn.Max.X - drawn.Min.X, H: drawn.Max.Y - drawn.Min.Y}}, nil
}

// Glyph returns the template's drawing in the glyph frame (millimetres at
// the drawn size, centred on the drawing).
func (t *Template) Glyph() glyph.Glyph { return t.glyph }

// Drawn returns the extent of the drawing the template was cut from, in
// raster pixels of its page.
func (t *Template) Drawn() detect.Box { return t.drawn }

// Find returns every instance of the template on pg, best first: where the
// page explains at least minScore of the template, the template explains
// the drawing joined to it there (it is not part of a larger symbol), and
// that drawing is in the template's colour (devices that share a glyph
// and differ by colour stay apart). Glyphs shown in a legend table (a key
// to the drawing, not an instance) are left out, as the engine leaves
// them out.
func (t *Template) Find(ctx context.Context, pg *drawing.Page) ([]Match, error) {
	if pg == nil {
		return nil, nil
	}
	ms, err := t.m.Match(ctx, pg)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var cands []vector.Match
	var poses []posed
	for _, m := range ms {
		if m.Legend || m.Box.W <= 0 || m.Box.H <= 0 || m.Coverage < minScore {
			continue
		}
		cands = append(cands, m)
		poses = append(poses, pose(t.glyph, m.Placement, m.Box))
	}
	out := make([]Match, 0, len(cands))
	if len(cands) == 0 {
		return out, nil
	}
	around := newSurroundings(pg)
	for i, m := range cands {
		if len(poses[i].pts) < 2 {
			continue
		}
		extra, pen := around.foreign(poses[i], poses)
		if extra > maxForeign {
			continue // part of a larger symbol
		}
		if a, b := paint(t.pen), paint(pen); a != "" && b != "" && a != b {
			continue // another device drawn with the same glyph
		}
		out = append(out, Match{Box: m.Box, Score: math.Round(m.Coverage*1000) / 1000})
	}
	return out, nil
}

// ImageSearcher finds, on page images, every instance of what a box on one
// of them holds (the raster glyph search of scans and photos). query is
// the page the box is on, box its region in query's pixels; the result
// holds one list of matches per page of pages, in their pixels.
type ImageSearcher interface {
	Search(ctx context.Context, query image.Image, box detect.Box, pages []image.Image) ([][]Match, error)
}

// PageMatches are the instances found on one page.
type PageMatches struct {
	Page    int
	Matches []Match
}

// InDocument cuts the drawing inside box on page query of doc into a
// template (Cut) and finds it on each page of pages, in the order given.
// A page without a drawing of its own (an image, a scanned sheet) is
// searched by no template and gets no matches; so is the query page when
// it is one, which returns ErrImagePage. The next page's drawing is read
// on another goroutine while a page is searched (MuPDF reads, the matcher
// matches: two cores), so at most two pages' drawings besides the
// query's are held. On an error (ctx's end among them) it returns the
// pages searched before it with the error; nothing reads doc after it
// returns.
func InDocument(ctx context.Context, doc detect.Drawings, query int, box detect.Box, pages []int) ([]PageMatches, error) {
	qpg, err := doc.Drawing(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("search: page %d: %w", query, err)
	}
	if qpg == nil || qpg.Scan() {
		return nil, ErrImagePage
	}
	t, err := Cut(qpg, box)
	if err != nil {
		return nil, err
	}
	type read struct {
		page int
		pg   *drawing.Page
		err  error
	}
	rctx, cancel := context.WithCancel(ctx)
	next := make(chan read, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(next)
		for _, p := range pages {
			r := read{page: p, pg: qpg}
			if p != query {
				r.pg, r.err = doc.Drawing(rctx, p)
			}
			select {
			case next <- r:
			case <-rctx.Done():
				return
			}
			if r.err != nil {
				return
			}
		}
	}()
	defer func() {
		cancel()
		<-done
	}()
	out := make([]PageMatches, 0, len(pages))
	for r := range next {
		if r.err != nil {
			return out, fmt.Errorf("search: page %d: %w", r.page, r.err)
		}
		pm := PageMatches{Page: r.page}
		if r.pg != nil && !r.pg.Scan() {
			if pm.Matches, err = t.Find(ctx, r.pg); err != nil {
				return out, fmt.Errorf("search: page %d: %w", r.page, err)
			}
		}
		out = append(out, pm)
	}
	if err := ctx.Err(); err != nil && len(out) < len(pages) {
		return out, fmt.Errorf("search: page %d: %w", pages[len(out)], err)
	}
	return out, nil
}

// ErrImagePage is the error of a box on a page that has no drawing of its
// own to cut (an image upload, a scanned sheet): an ImageSearcher reads
// such pages.
var ErrImagePage = errors.New("the page is an image: it has no drawing to cut a template from")

// paint is the colour of a pen: its stroke, else its fill.
func paint(st drawing.Style) string {
	if st.Stroke != "" {
		return st.Stroke
	}
	return st.Fill
}
