package vector

import (
	"context"
	"math"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// Nested glyphs: a legend may draw one device inside another (sockets and
// a data outlet inside a floor box). An instance of the outer glyph then
// explains most of each inner device's drawing, and suppression would
// drop the inner devices as mere parts of it. Where the legend's own
// drawing of the outer glyph holds the inner glyph, an inner match inside
// an outer match is a device of its own and stays.

// nestedGlyphPx is the size, in pixels, at which an outer glyph is drawn
// to look for other templates inside it.
const nestedGlyphPx = 240.0

// nestedMinCoverage is how much of an inner template the outer glyph's
// drawing must cover for the inner glyph to be nested in it: what a
// match on a page must cover to count.
const nestedMinCoverage = OperatingCoverage

// nestedMaxArea: a glyph nested in another covers at most this fraction
// of the other's box, and stands apart from the rest of its drawing
// (touchesRest).
const nestedMaxArea = 0.5

// findNested records, for each legend template (priority above 0), the
// other legend templates drawn inside its own glyph.
func (mt *Matcher) findNested() {
	var legend []*prepared
	for _, t := range mt.tpls {
		if t.priority > 0 {
			legend = append(legend, t)
		}
	}
	if len(legend) < 2 {
		return
	}
	for _, outer := range legend {
		if len(outer.g.Shapes) < 2 {
			continue
		}
		pg, zoom := glyphPage(outer.g)
		if pg == nil {
			continue
		}
		lo, hi := outer.g.Bounds()
		outerArea := (hi.X - lo.X) * (hi.Y - lo.Y) * zoom * zoom
		ix := newPageIndex(pg)
		ix.hashCorners()
		for _, inner := range legend {
			if inner == outer {
				continue
			}
			probe := *inner
			probe.minScale, probe.maxScale = 0.02, 50
			found, _ := ix.matchTemplate(context.Background(), &probe)
			for _, s := range found {
				if s.cov < nestedMinCoverage {
					continue
				}
				// A device nested in another is smaller than it: a pose
				// as large as the outer glyph is the same glyph drawn
				// otherwise (filled, another pen), or most of it.
				b := boxOf(&probe, s.pl, pg.Width, pg.Height)
				if b.W*b.H > nestedMaxArea*outerArea || touchesRest(pg, s.hypothesis) {
					continue
				}
				if outer.nested == nil {
					outer.nested = map[*prepared]bool{}
				}
				outer.nested[inner] = true
				break
			}
		}
	}
}

// touchesRest reports whether drawing of the page that the pose does not
// explain comes near the pose's own: a device nested in another stands
// apart from the rest of it, while a glyph that is part of a larger one
// (a one-way switch in a two-pole switch, a socket in an earthed socket)
// is joined to the rest.
func touchesRest(pg *drawing.Page, h hypothesis) bool {
	pts := posedSamples(h)
	k := h.pl.Scale * PixelsPerMM
	tol := tolBasePx + tolRel*k
	own := tol + sampleStepMM*k/2
	gap := own + tol
	near := func(q glyph.Point, r float64) bool {
		for _, p := range pts {
			if math.Hypot(p.X-q.X, p.Y-q.Y) <= r {
				return true
			}
		}
		return false
	}
	rest := func(chain []glyph.Point) bool {
		for i := 1; i < len(chain); i++ {
			a, b := chain[i-1], chain[i]
			n := max(1, int(math.Ceil(math.Hypot(b.X-a.X, b.Y-a.Y))))
			for j := 0; j <= n; j++ {
				f := float64(j) / float64(n)
				q := glyph.Point{X: a.X + f*(b.X-a.X), Y: a.Y + f*(b.Y-a.Y)}
				if !near(q, own) && near(q, gap) {
					return true
				}
			}
		}
		return false
	}
	for _, sg := range pg.Segments {
		if rest([]glyph.Point{sg.A, sg.B}) {
			return true
		}
	}
	for _, a := range pg.Arcs {
		if rest(arcPoints(a)) {
			return true
		}
	}
	return false
}

// glyphPage draws a glyph's strokes and fills as a page, the glyph's
// larger side nestedGlyphPx pixels long; zoom is the pixels per glyph
// millimetre. Text is left out.
func glyphPage(g glyph.Glyph) (*drawing.Page, float64) {
	lo, hi := g.Bounds()
	size := math.Max(hi.X-lo.X, hi.Y-lo.Y)
	if size <= 0 || math.IsInf(size, 0) || math.IsNaN(size) {
		return nil, 0
	}
	zoom := nestedGlyphPx / size
	pg, _ := drawGlyph(g, lo, hi, zoom)
	return pg, zoom
}

// drawGlyph draws g's strokes and fills as a page of its box, lo to hi in
// glyph millimetres, zoom pixels a millimetre, with a margin; at maps
// glyph millimetres to the page's pixels.
func drawGlyph(g glyph.Glyph, lo, hi glyph.Point, zoom float64) (pg *drawing.Page, at func(glyph.Point) glyph.Point) {
	const margin = 20.0
	at = func(p glyph.Point) glyph.Point {
		return glyph.Point{X: (p.X-lo.X)*zoom + margin, Y: (p.Y-lo.Y)*zoom + margin}
	}
	pg = &drawing.Page{
		Width:  (hi.X-lo.X)*zoom + 2*margin,
		Height: (hi.Y-lo.Y)*zoom + 2*margin,
		Styles: []drawing.Style{{Stroke: "#000000", Width: 1}, {Stroke: "#000000", Fill: "#000000", Width: 1}},
	}
	addGlyph(pg, g, at, zoom)
	return pg, at
}

// addGlyph adds a glyph's shapes to a page whose Styles are a stroke (0)
// and a fill (1): at maps glyph millimetres to page pixels, an unrotated
// scaling by zoom and a shift.
func addGlyph(pg *drawing.Page, g glyph.Glyph, at func(glyph.Point) glyph.Point, zoom float64) {
	for _, s := range g.Shapes {
		style := int32(0)
		if s.Fill {
			style = 1
		}
		chain := func(pts []glyph.Point) {
			for i := 1; i < len(pts); i++ {
				pg.Segments = append(pg.Segments, drawing.Segment{A: at(pts[i-1]), B: at(pts[i]), Style: style})
			}
		}
		switch s.Kind {
		case glyph.KindLine, glyph.KindPolyline:
			chain(s.Pts)
		case glyph.KindPolygon:
			chain(append(append([]glyph.Point(nil), s.Pts...), s.Pts[0]))
		case glyph.KindRect:
			c := glyph.RectCorners(s.Pts[0], s.Pts[1])
			chain(append(c[:], c[0]))
		case glyph.KindCircle:
			pg.Arcs = append(pg.Arcs, drawing.Arc{C: at(s.Pts[0]), R: s.R * zoom, Start: 0, Sweep: 360, Style: style})
		case glyph.KindArc:
			pg.Arcs = append(pg.Arcs, drawing.Arc{C: at(s.Pts[0]), R: s.R * zoom, Start: s.Start, Sweep: s.Sweep, Style: style})
		}
	}
}

// nestedIn reports whether match f lies inside match k as a device the
// legend draws nested in k's glyph.
func nestedIn(f, k scored) bool {
	if !k.t.nested[f.t] || f.cov < OperatingCoverage {
		return false
	}
	c := glyph.Point{X: f.box.X + f.box.W/2, Y: f.box.Y + f.box.H/2}
	return c.X > k.box.X && c.X < k.box.X+k.box.W && c.Y > k.box.Y && c.Y < k.box.Y+k.box.H &&
		f.box.W*f.box.H < nestedMaxArea*k.box.W*k.box.H
}
