package drawing

import (
	"math"
	"slices"

	"blueprint/internal/glyph"
)

// A CAD writer cuts a filled area (a ceiling light's black bow tie, a
// socket's half disc) into triangles or strips, and may stroke each
// piece in the fill's colour as well: the sides of those pieces inside
// the area draw nothing that the fill does not, and each copy of the
// symbol is cut into other pieces.

// hiddenSide is how far beside a stroke's middle (pixels) the fill must
// reach on every side for the stroke to be hidden.
const hiddenSide = 0.5

// HiddenStrokes returns those of pg's segments idx (any order) that are
// stroked and lie under an ink fill (Style.InkFill) of their own stroke's
// paint: the fill paths among idx (runs of consecutive segments of one
// fill-only style, each starting where the last ended, back to its
// start) hold the stroke's middle on every side, so even a side two of
// those paths share is hidden, and an outline's stroke is not. Each
// stroke is tried against each fill path: idx is meant to be one
// symbol's pieces (CutGlyph's at most 2 000), not a whole sheet's.
func HiddenStrokes(pg *Page, idx []int) map[int]bool {
	type poly struct {
		paint string
		pts   []glyph.Point
	}
	idx = slices.Sorted(slices.Values(idx))
	const eps = 1e-3
	same := func(p, q glyph.Point) bool { return math.Abs(p.X-q.X) <= eps && math.Abs(p.Y-q.Y) <= eps }
	var polys []poly
	var run []glyph.Point
	last := -2
	for _, k := range idx {
		s := pg.Segments[k]
		st := pg.Styles[s.Style]
		if st.Stroke != "" || !st.InkFill() {
			run, last = nil, -2
			continue
		}
		if len(run) == 0 || k != last+1 || s.Style != pg.Segments[last].Style || !same(run[len(run)-1], s.A) {
			run = []glyph.Point{s.A, s.B}
		} else {
			run = append(run, s.B)
		}
		last = k
		if len(run) >= 4 && same(run[0], run[len(run)-1]) {
			polys = append(polys, poly{st.Fill, run[:len(run)-1]})
			run = nil
		}
	}
	if len(polys) == 0 {
		return nil
	}
	under := func(paint string, p glyph.Point) bool {
		for _, d := range [...]glyph.Point{{X: hiddenSide}, {X: -hiddenSide}, {Y: hiddenSide}, {Y: -hiddenSide}} {
			q := glyph.Point{X: p.X + d.X, Y: p.Y + d.Y}
			in := false
			for _, pl := range polys {
				if pl.paint == paint && glyph.InPolygon(pl.pts, q) {
					in = true
					break
				}
			}
			if !in {
				return false
			}
		}
		return true
	}
	out := map[int]bool{}
	for _, k := range idx {
		s := pg.Segments[k]
		if st := pg.Styles[s.Style]; st.Stroke != "" && under(st.Stroke, glyph.Point{X: (s.A.X + s.B.X) / 2, Y: (s.A.Y + s.B.Y) / 2}) {
			out[k] = true
		}
	}
	return out
}
