package drawing

import (
	"math"
	"slices"
	"strings"

	"blueprint/internal/glyph"
)

// A rectangle filled in the paper's colour hides what was drawn before
// it where it covers it: CAD masks the plan under a table, a title block
// or a tag with one (a wipeout), and what it hides is not on the sheet.
// Read anyway, the words of a plan under a bill of quantities ran
// through its rows (building2's bill, its words drawn as outlines, read
// "ELECTRICAL" across "S2-2 Lever Switch"), and a plan's symbols under
// a legend would be counted.

// mask is a paper-coloured rectangle and how much had been drawn before
// it: the pieces it may hide.
type mask struct {
	min, max          glyph.Point
	segs, arcs, chars int
}

// maskCell is the side, in pixels, of the grid masks are looked up in.
const maskCell = 128

// maskEdge is how far inside a mask's edges a piece must lie to be
// hidden: a table's rules drawn before its cells' fills lie on their
// edges, and stay.
const maskEdge = 0.5

// paperRect returns the box of a fill that hides what lies under it: a
// fill in the paper's colour whose path, mapped by tf, is one
// axis-aligned rectangle, cut by the clip in force.
func paperRect(cmds []PathCmd, tf glyph.Affine, fill string, clip *clipBox) (glyph.Point, glyph.Point, bool) {
	if !strings.EqualFold(fill, PaperColour) || len(cmds) < 4 || len(cmds) > 6 || cmds[0].Op != 'M' {
		return glyph.Point{}, glyph.Point{}, false
	}
	var pts []glyph.Point
	for i, c := range cmds {
		switch {
		case c.Op == 'L' || (c.Op == 'M' && i == 0):
			pts = append(pts, tf.Apply(c.P[0]))
		case c.Op == 'Z' && i == len(cmds)-1:
		default:
			return glyph.Point{}, glyph.Point{}, false
		}
	}
	if n := len(pts); n == 5 && pts[4] == pts[0] {
		pts = pts[:4]
	}
	if len(pts) != 4 {
		return glyph.Point{}, glyph.Point{}, false
	}
	mn, mx := pts[0], pts[0]
	for _, p := range pts {
		mn, mx = glyph.MinPoint(mn, p), glyph.MaxPoint(mx, p)
	}
	const eps = 0.01
	for i, p := range pts {
		q := pts[(i+1)%4]
		if math.Abs(p.X-q.X) > eps && math.Abs(p.Y-q.Y) > eps {
			return glyph.Point{}, glyph.Point{}, false // a side not along an axis
		}
		if (math.Abs(p.X-mn.X) > eps && math.Abs(p.X-mx.X) > eps) || (math.Abs(p.Y-mn.Y) > eps && math.Abs(p.Y-mx.Y) > eps) {
			return glyph.Point{}, glyph.Point{}, false // a corner off the box
		}
	}
	if clip != nil {
		mn, mx = glyph.MaxPoint(mn, clip.min), glyph.MinPoint(mx, clip.max)
	}
	if mx.X-mn.X <= 2*maskEdge || mx.Y-mn.Y <= 2*maskEdge || !finite(mn.X, mn.Y, mx.X, mx.Y) {
		return glyph.Point{}, glyph.Point{}, false
	}
	return mn, mx, true
}

// addMask records a paper-coloured rectangle over what the page holds
// now.
func (b *Builder) addMask(mn, mx glyph.Point) {
	pg := b.page
	if len(pg.Segments)+len(pg.Arcs)+len(pg.Chars) == 0 {
		return
	}
	b.masks = append(b.masks, mask{min: mn, max: mx, segs: len(pg.Segments), arcs: len(pg.Arcs), chars: len(pg.Chars)})
}

// occlude drops from pg the pieces and characters that a mask drawn after
// them covers whole, and forgets the masks.
func (b *Builder) occlude() {
	if len(b.masks) == 0 {
		return
	}
	ms := b.masks
	b.masks = nil
	grid := map[[2]int32][]int32{}
	cell := func(v float64) int32 { return int32(math.Floor(v / maskCell)) }
	for i, m := range ms {
		for y := cell(m.min.Y); y <= cell(m.max.Y); y++ {
			for x := cell(m.min.X); x <= cell(m.max.X); x++ {
				grid[[2]int32{x, y}] = append(grid[[2]int32{x, y}], int32(i))
			}
		}
	}
	// hidden reports whether the box mn–mx of the n-th item of a kind lies
	// inside a mask drawn after it (drawnBefore: how many of the kind
	// were drawn before the mask).
	hidden := func(mn, mx glyph.Point, n int, drawnBefore func(m *mask) int) bool {
		for _, i := range grid[[2]int32{cell(mn.X), cell(mn.Y)}] {
			m := &ms[i]
			if n < drawnBefore(m) && mn.X >= m.min.X+maskEdge && mn.Y >= m.min.Y+maskEdge && mx.X <= m.max.X-maskEdge && mx.Y <= m.max.Y-maskEdge {
				return true
			}
		}
		return false
	}
	pg := b.page
	n := -1
	pg.Segments = slices.DeleteFunc(pg.Segments, func(s Segment) bool {
		n++
		return hidden(glyph.MinPoint(s.A, s.B), glyph.MaxPoint(s.A, s.B), n, func(m *mask) int { return m.segs })
	})
	n = -1
	pg.Arcs = slices.DeleteFunc(pg.Arcs, func(a Arc) bool {
		n++
		mn, mx := glyph.Point{X: a.C.X - a.R, Y: a.C.Y - a.R}, glyph.Point{X: a.C.X + a.R, Y: a.C.Y + a.R}
		return hidden(mn, mx, n, func(m *mask) int { return m.arcs })
	})
	n = -1
	pg.Chars = slices.DeleteFunc(pg.Chars, func(c Char) bool {
		n++
		return hidden(c.Min, c.Max, n, func(m *mask) int { return m.chars })
	})
}
