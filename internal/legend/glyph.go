package legend

import (
	"math"
	"slices"
	"sort"
	"strings"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

type drawingSegment = drawing.Segment

// pxPerMM converts raster pixels to the glyph frame's millimetres.
const pxPerMM = float64(detect.RenderDPI) / 25.4

// glyphOf builds the canonical glyph of a legend row from its pieces and
// the characters inside it: millimetres at the legend's drawn size,
// centred on the drawing's box. Pieces drawn twice (a filled path stroked
// again) are kept once. It also returns the inside text and the pen that
// draws most of it: the stroke colour with the most length (the fills'
// colour where nothing is stroked: a half-filled box outlined in red is
// red), and its width.
func (ix *pageIndex) glyphOf(pieces []int32, inside []int32, box Rect) (glyph.Glyph, string, string, float64) {
	c := box.centre()
	mm := func(p glyph.Point) glyph.Point {
		return glyph.Point{X: (p.X - c.X) / pxPerMM, Y: (p.Y - c.Y) / pxPerMM}
	}
	type key = segKey
	const perPx = 4 // pieces drawn twice: ends within a quarter pixel
	q := func(v float64) int64 { return int64(math.Round(v * perPx)) }
	segKey := func(s drawingSegment) key { return keyOfSegment(s, perPx) }
	// A fill drawn as many small polygons (a hatched or fanned region)
	// shares its inner edges between two of them: those edges are not
	// drawing anyone sees and only make the template dear to match.
	fillEdges, stroked := map[key]int{}, map[key]bool{}
	for _, i := range pieces {
		if p := ix.pieces[i]; p.seg >= 0 {
			s := ix.pg.Segments[p.seg]
			st := ix.pg.Styles[s.Style]
			k := segKey(s)
			if st.Stroke != "" {
				stroked[k] = true
			} else if st.Fill != "" {
				fillEdges[k]++
			}
		}
	}
	seen := map[key]int{}
	var g glyph.Glyph
	colourLen := map[string]float64{}
	var pens penLengths
	for _, i := range pieces {
		p := ix.pieces[i]
		var k key
		var sh glyph.Shape
		var style int32
		var length float64
		if p.seg >= 0 {
			s := ix.pg.Segments[p.seg]
			a, b := s.A, s.B
			if b.X < a.X || (b.X == a.X && b.Y < a.Y) {
				a, b = b, a
			}
			k = segKey(s)
			if fillEdges[k] >= 2 && !stroked[k] {
				continue
			}
			sh = glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{mm(a), mm(b)}}
			style = s.Style
			length = math.Hypot(b.X-a.X, b.Y-a.Y)
		} else {
			a := ix.pg.Arcs[p.arc]
			k = key{q(a.C.X), q(a.C.Y), q(a.R), q(math.Mod(a.Start+720, 360)*10 + a.Sweep)}
			if math.Abs(a.Sweep) >= 359.5 {
				sh = glyph.Shape{Kind: glyph.KindCircle, Pts: []glyph.Point{mm(a.C)}, R: a.R / pxPerMM}
			} else {
				sh = glyph.Shape{Kind: glyph.KindArc, Pts: []glyph.Point{mm(a.C)}, R: a.R / pxPerMM, Start: a.Start, Sweep: a.Sweep}
			}
			style = a.Style
			length = math.Abs(a.Sweep) * math.Pi / 180 * a.R
		}
		st := ix.pg.Styles[style]
		fill := st.Fill != ""
		if st.Stroke != "" && length >= 0.5 {
			// Every stroke counts for the pen, drawn twice or not: an
			// outline stroked over a fill of another colour is the pen.
			pens.add(st.Stroke, st.Width, length)
		}
		if j, ok := seen[k]; ok {
			g.Shapes[j].Fill = g.Shapes[j].Fill || fill
			continue
		}
		if length < 0.5 { // specks
			continue
		}
		sh.Fill = fill
		seen[k] = len(g.Shapes)
		g.Shapes = append(g.Shapes, sh)
		colourLen[st.Paint()] += length
	}
	g.Shapes = thinFills(g.Shapes)
	// Inside text: one text shape per line of characters.
	sort.Slice(inside, func(a, b int) bool {
		ca, cb := ix.pg.Chars[inside[a]], ix.pg.Chars[inside[b]]
		if math.Abs(ca.Origin.Y-cb.Origin.Y) > 0.3*ca.Size {
			return ca.Origin.Y < cb.Origin.Y
		}
		return ca.Origin.X < cb.Origin.X
	})
	var texts []string
	for s := 0; s < len(inside); {
		e := s + 1
		first := ix.pg.Chars[inside[s]]
		lo, hi := first.Min, first.Max
		str := first.Text
		for e < len(inside) {
			ch := ix.pg.Chars[inside[e]]
			prev := ix.pg.Chars[inside[e-1]]
			if math.Abs(ch.Origin.Y-first.Origin.Y) > 0.3*first.Size || ch.Min.X-prev.Max.X > 0.6*first.Size {
				break
			}
			str += ch.Text
			lo, hi = glyph.MinPoint(lo, ch.Min), glyph.MaxPoint(hi, ch.Max)
			e++
		}
		str = strings.TrimSpace(str)
		if str != "" {
			at := glyph.Point{X: (lo.X + hi.X) / 2, Y: (lo.Y+hi.Y)/2 + 0.35*first.Size}
			g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindText, Text: str, Pts: []glyph.Point{mm(at)}, Size: 0.7 * first.Size / pxPerMM})
			texts = append(texts, str)
		}
		s = e
	}
	best := pens.colour()
	if best == "" { // nothing stroked: the fills' colour
		best = mostLength(colourLen)
	}
	return g, strings.Join(texts, " "), best, pens.width(best)
}

// thinFill is the width under which a filled strip is drawn as a line: a
// hatch line exported as a thin filled polygon (mm).
const thinFill = 1.5 / pxPerMM

// thinFills draws each thin filled strip (a hatch line exported as a
// polygon: two long edges and two short ends) as one line: its short
// ends and all but one of its long edges are dropped, which keeps hatched
// glyphs cheap to match. Of a strip's long edges the shortest is kept:
// a strip exported as two triangles also draws its diagonal, which is
// longer than its sides and runs askew to them.
func thinFills(shapes []glyph.Shape) []glyph.Shape {
	all := slices.Clone(shapes)
	continued := func(s glyph.Shape) bool {
		for _, o := range all {
			if o.Kind == glyph.KindLine && o.Fill && runsOn(s, o) {
				return true
			}
		}
		return false
	}
	out := shapes[:0]
	var kept []int // indices into out
	for _, s := range all {
		if s.Kind != glyph.KindLine || !s.Fill {
			out = append(out, s)
			continue
		}
		a, b := s.Pts[0], s.Pts[1]
		l := math.Hypot(b.X-a.X, b.Y-a.Y)
		if l < thinFill && !continued(s) {
			continue // the end of a strip
		}
		dup := -1
		for _, k := range kept {
			if !alongside(s, out[k]) {
				continue
			}
			if nearLine(a, out[k], thinFill) && nearLine(b, out[k], thinFill) ||
				nearLine(out[k].Pts[0], s, thinFill) && nearLine(out[k].Pts[1], s, thinFill) {
				dup = k
				break
			}
		}
		if dup >= 0 {
			if k := out[dup].Pts; l < math.Hypot(k[1].X-k[0].X, k[1].Y-k[0].Y)-1e-9 {
				out[dup] = s
			}
			continue
		}
		kept = append(kept, len(out))
		out = append(out, s)
	}
	return out
}

// segKey names a segment whichever way it is drawn, its ends rounded
// (keyOfSegment): a piece drawn twice has one key.
type segKey struct{ a, b, c, d int64 }

// keyOfSegment is s's key, its ends rounded to 1/perPx of a pixel.
func keyOfSegment(s drawingSegment, perPx float64) segKey {
	q := func(v float64) int64 { return int64(math.Round(v * perPx)) }
	a, b := s.A, s.B
	if b.X < a.X || (b.X == a.X && b.Y < a.Y) {
		a, b = b, a
	}
	return segKey{q(a.X), q(a.Y), q(b.X), q(b.Y)}
}

// fillRunTurn is the largest turn (degrees) between two filled lines
// that meet end to end for them to be one straight edge (runsOn).
const fillRunTurn = 2.0

// runsOn reports whether filled lines s and o meet end to end and run
// on in one direction: the straight side of a filled area that a PDF
// writer cut into triangles is drawn in as many pieces as triangles meet
// it, some shorter than a strip's end, none of them a strip's end or
// another edge of a strip.
func runsOn(s, o glyph.Shape) bool {
	const eps = 1e-6
	same := func(p, q glyph.Point) bool { return math.Abs(p.X-q.X) <= eps && math.Abs(p.Y-q.Y) <= eps }
	a, b := s.Pts[0], s.Pts[1]
	c, d := o.Pts[0], o.Pts[1]
	for _, e := range [4][3]glyph.Point{{a, b, d}, {a, b, c}, {b, a, d}, {b, a, c}} {
		// e: s's far end, the end the two share, o's far end
		in := glyph.Point{X: e[1].X - e[0].X, Y: e[1].Y - e[0].Y}
		on := glyph.Point{X: e[2].X - e[1].X, Y: e[2].Y - e[1].Y}
		if (same(e[1], c) && same(e[2], d) || same(e[1], d) && same(e[2], c)) &&
			math.Abs(glyph.Turn(in, on)) <= fillRunTurn {
			return true
		}
	}
	return false
}

// stripSkew is the largest angle (degrees) between two edges of one thin
// strip: its sides are parallel, and its diagonal runs askew to them by
// at most this where the strip is at least twice as long as it is wide.
const stripSkew = 30.0

// alongside reports whether lines s and o could be edges of one thin
// strip: near parallel, and lying beside each other over at least half
// the shorter one's length, not end to end (pieces of one straight side)
// nor across each other (a side and the chord at its end).
func alongside(s, o glyph.Shape) bool {
	a, b := s.Pts[0], s.Pts[1]
	c, d := o.Pts[0], o.Pts[1]
	ls, lo := math.Hypot(b.X-a.X, b.Y-a.Y), math.Hypot(d.X-c.X, d.Y-c.Y)
	if ls == 0 || lo == 0 {
		return false
	}
	turn := math.Abs(glyph.Turn(glyph.Point{X: b.X - a.X, Y: b.Y - a.Y}, glyph.Point{X: d.X - c.X, Y: d.Y - c.Y}))
	if math.Min(turn, 180-turn) > stripSkew {
		return false
	}
	// The overlap of the two along o's direction.
	ux, uy := (d.X-c.X)/lo, (d.Y-c.Y)/lo
	p0, p1 := (a.X-c.X)*ux+(a.Y-c.Y)*uy, (b.X-c.X)*ux+(b.Y-c.Y)*uy
	overlap := math.Min(math.Max(p0, p1), lo) - math.Max(math.Min(p0, p1), 0)
	return overlap >= 0.5*math.Min(ls, lo)
}

// nearLine reports whether p lies within d of line shape k's segment.
func nearLine(p glyph.Point, k glyph.Shape, d float64) bool {
	a, b := k.Pts[0], k.Pts[1]
	dx, dy := b.X-a.X, b.Y-a.Y
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = math.Max(0, math.Min(1, ((p.X-a.X)*dx+(p.Y-a.Y)*dy)/l2))
	}
	return math.Hypot(p.X-a.X-t*dx, p.Y-a.Y-t*dy) <= d
}
