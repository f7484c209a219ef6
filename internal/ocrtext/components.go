package ocrtext

import (
	"cmp"
	"math"
	"slices"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/unionfind"
)

// piece is one segment or arc of the page: index into Segments when
// arc is false, into Arcs when true.
type piece struct {
	i   int32
	arc bool
}

// component is a set of pieces joined end to end (one letter's outline,
// a closed contour or a stroke-font letter's strokes), with its box in
// page pixels.
type component struct {
	pieces   []piece
	min, max glyph.Point
}

func (c *component) w() float64 { return c.max.X - c.min.X }
func (c *component) h() float64 { return c.max.Y - c.min.Y }
func (c *component) centre() glyph.Point {
	return glyph.Point{X: (c.min.X + c.max.X) / 2, Y: (c.min.Y + c.max.Y) / 2}
}

// arcEnds returns an arc's end points.
func arcEnds(a drawing.Arc) (glyph.Point, glyph.Point) {
	p := func(deg float64) glyph.Point {
		s, c := math.Sincos(deg * math.Pi / 180)
		return glyph.Point{X: a.C.X + a.R*c, Y: a.C.Y + a.R*s}
	}
	return p(a.Start), p(a.Start + a.Sweep)
}

// endKey is a point rounded to a half-pixel grid, packed for sorting: an
// arc fitted to a letter's curve ends within a fraction of a pixel of
// its neighbours.
func endKey(p glyph.Point) uint64 {
	return cellKey(int32(math.Round(p.X*2)), int32(math.Round(p.Y*2)))
}

// cellKey is the key of the half-pixel cell (x, y).
func cellKey(x, y int32) uint64 { return uint64(uint32(x))<<32 | uint64(uint32(y)) }

// components joins the page's pieces no longer than maxLen pixels that
// meet end to end into components, and returns those whose box is at
// most maxSize pixels on each side (a letter's outline, not a wall). A
// letter drawn as a filled outline is one or a few closed contours of
// short pieces; the pieces of a plan's walls and wires chain into
// components far larger than any letter.
func components(pg *drawing.Page, maxLen, maxSize float64) []component {
	type end struct {
		key    uint64
		p      int32  // index into ps
		filled bool   // the piece is a filled outline's (filledPiece)
		paint  string // the colour it draws in
	}
	var ps []piece
	var ends []end
	for i, s := range pg.Segments {
		if math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y) > maxLen {
			continue
		}
		k := int32(len(ps))
		ps = append(ps, piece{i: int32(i)})
		f, c := filledPiece(pg, ps[k]), styleOf(pg, ps[k]).Paint()
		ends = append(ends, end{endKey(s.A), k, f, c}, end{endKey(s.B), k, f, c})
	}
	for i, a := range pg.Arcs {
		if 2*a.R > maxLen {
			continue
		}
		k := int32(len(ps))
		ps = append(ps, piece{i: int32(i), arc: true})
		p, q := arcEnds(a)
		f, c := filledPiece(pg, ps[k]), styleOf(pg, ps[k]).Paint()
		ends = append(ends, end{endKey(p), k, f, c}, end{endKey(q), k, f, c})
	}
	// Ends in one cell join, but a filled outline's (a letter drawn as
	// paths) joins a stroke's only where both draw in one colour: a
	// symbol's filled parts and its strokes (which keep it from passing
	// for a letter), not a pale hatch drawn behind a table whose lines
	// happen to end on its words' outlines. Joined to the hatch, a letter
	// was no letter at all (building2's bill of quantities with its words
	// as outlines read "Dousle ocke" for "Double Socket").
	set := unionfind.New[int32](len(ps))
	slices.SortFunc(ends, func(a, b end) int { return cmp.Compare(a.key, b.key) })
	// A filled outline's end alone in its half-pixel cell meets another's
	// alone in a cell beside it: a curve fitted as arcs ends a fraction of
	// a pixel off its neighbour, and split there, an O's outline was two
	// characters to the letter shapes (read "OG" wherever an O was spelled
	// from them). A stroke's end is left where it is: joined to a letter
	// beside it, it made the letter drawing (building2's tags converted to
	// outlines, where its linear luminaires fell from 33 to 12).
	alone := map[uint64]int32{}
	var byPaint []end
	for i := 0; i < len(ends); {
		j := i + 1
		for j < len(ends) && ends[j].key == ends[i].key {
			j++
		}
		// Each end joins the first of the cell's ends of its kind and the
		// first of its colour: the same sets as joining every two that
		// may join.
		if j > i+1 {
			byKind := [2]int32{-1, -1}
			byPaint = byPaint[:0]
			for _, e := range ends[i:j] {
				k := 0
				if e.filled {
					k = 1
				}
				if byKind[k] >= 0 {
					set.Join(e.p, byKind[k])
				} else {
					byKind[k] = e.p
				}
				if at := slices.IndexFunc(byPaint, func(x end) bool { return x.paint == e.paint }); at >= 0 {
					set.Join(e.p, byPaint[at].p)
				} else {
					byPaint = append(byPaint, e)
				}
			}
		}
		if j == i+1 && ends[i].filled {
			alone[ends[i].key] = ends[i].p
		}
		i = j
	}
	for k, p := range alone {
		x, y := int32(uint32(k>>32)), int32(uint32(k))
		for dy := int32(-1); dy <= 1; dy++ {
			for dx := int32(-1); dx <= 1; dx++ {
				if q, ok := alone[cellKey(x+dx, y+dy)]; ok && (dx != 0 || dy != 0) {
					set.Join(p, q)
				}
			}
		}
	}
	ends = nil
	idx := map[int32]int{}
	var out []component
	for k, p := range ps {
		r := set.Find(int32(k))
		j, ok := idx[r]
		if !ok {
			j = len(out)
			idx[r] = j
			out = append(out, component{min: glyph.Point{X: math.Inf(1), Y: math.Inf(1)}, max: glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}})
		}
		c := &out[j]
		c.pieces = append(c.pieces, p)
		mn, mx := pieceBox(pg, p)
		c.min, c.max = glyph.MinPoint(c.min, mn), glyph.MaxPoint(c.max, mx)
	}
	return slices.DeleteFunc(out, func(c component) bool {
		return c.w() > maxSize || c.h() > maxSize
	})
}

// pieceBox is a piece's bounding box (an arc's, conservatively, its
// circle's).
func pieceBox(pg *drawing.Page, p piece) (glyph.Point, glyph.Point) {
	if p.arc {
		a := pg.Arcs[p.i]
		if math.Abs(a.Sweep) >= 360 {
			return glyph.Point{X: a.C.X - a.R, Y: a.C.Y - a.R}, glyph.Point{X: a.C.X + a.R, Y: a.C.Y + a.R}
		}
		mn, mx := arcEnds(a)
		lo, hi := glyph.MinPoint(mn, mx), glyph.MaxPoint(mn, mx)
		for deg := -360.0; deg <= 720; deg += 90 {
			if between(deg, a.Start, a.Start+a.Sweep) {
				s, c := math.Sincos(deg * math.Pi / 180)
				q := glyph.Point{X: a.C.X + a.R*c, Y: a.C.Y + a.R*s}
				lo, hi = glyph.MinPoint(lo, q), glyph.MaxPoint(hi, q)
			}
		}
		return lo, hi
	}
	s := pg.Segments[p.i]
	return glyph.MinPoint(s.A, s.B), glyph.MaxPoint(s.A, s.B)
}

// filledPiece reports whether p belongs to a filled, unstroked path: a
// font's letters drawn as paths are their filled glyph outlines.
func filledPiece(pg *drawing.Page, p piece) bool {
	st := styleOf(pg, p)
	return st.Fill != "" && st.Stroke == ""
}

func between(x, a, b float64) bool {
	if a > b {
		a, b = b, a
	}
	return x > a && x < b
}
