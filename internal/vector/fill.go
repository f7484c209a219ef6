package vector

import (
	"math"
	"strconv"

	"blueprint/internal/glyph"
)

// Filled look-alikes: a glyph partly filled (a distribution board: a box,
// half of it solid) is covered whole by a solid shape of its size (a wall
// pier exported as filled triangles: its outline and its diagonal are the
// glyph's lines). What tells them apart is the part the glyph leaves
// empty: a pose whose empty inside the page fills solid is not the glyph.
const (
	// emptyStepMM is the spacing of the probes of a glyph's empty inside,
	// widened so that a glyph has at most about maxEmptyProbes.
	emptyStepMM    = 0.25
	maxEmptyProbes = 48
	// emptyClearMM is how far a probe keeps from the glyph's lines.
	emptyClearMM = 0.2
	// maxFilledEmpty is the largest share of a glyph's empty probes that
	// page fills may cover for the pose to stand (a symbol pushed into a
	// solid wall has some of its inside in the wall).
	maxFilledEmpty = 0.7
	// inkMaxRGB: fills lighter than this (summed channels, of 765) are
	// background masks (wipeouts, white table cells), not ink.
	inkMaxRGB = 600
)

// emptyProbes returns points inside the template's hull, clear of its
// lines, that its fills do not cover; none where the template has no
// fill (the look-alikes here are of filled glyphs).
func emptyProbes(p *prepared, samples []sample) []glyph.Point {
	var fills [][2]glyph.Point
	for _, s := range p.g.Shapes {
		if !s.Fill {
			continue
		}
		for _, pl := range (glyph.Glyph{Shapes: []glyph.Shape{s}}).Polylines(0.05) {
			for i := 1; i < len(pl); i++ {
				fills = append(fills, [2]glyph.Point{pl[i-1], pl[i]})
			}
		}
	}
	if len(fills) == 0 || len(p.hull) < 3 {
		return nil
	}
	lo := glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi := glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, q := range p.hull {
		lo, hi = glyph.MinPoint(lo, q), glyph.MaxPoint(hi, q)
	}
	reach := math.Max(hi.X-lo.X, hi.Y-lo.Y)
	// At most about maxEmptyProbes probes: the test is a share.
	step := math.Max(emptyStepMM, math.Sqrt((hi.X-lo.X)*(hi.Y-lo.Y)/maxEmptyProbes))
	var out []glyph.Point
	for y := lo.Y + step/2; y < hi.Y; y += step {
		for x := lo.X + step/2; x < hi.X; x += step {
			q := glyph.Point{X: x, Y: y}
			if !insideBy(p.hull, q, emptyClearMM) {
				continue
			}
			clear := true
			for _, s := range samples {
				if math.Hypot(s.P.X-q.X, s.P.Y-q.Y) < emptyClearMM {
					clear = false
					break
				}
			}
			if clear && !enclosed(q, reach, func(fn func(a, b glyph.Point) bool) {
				for _, f := range fills {
					if !fn(f[0], f[1]) {
						return
					}
				}
			}) {
				out = append(out, q)
			}
		}
	}
	return out
}

// rayDirs are the four directions a point is looked at from.
var rayDirs = [4]glyph.Point{{X: 1}, {X: -1}, {Y: 1}, {Y: -1}}

// enclosed reports whether edges (visited by each) cross all four axis
// rays from p within reach: p lies inside a filled shape.
func enclosed(p glyph.Point, reach float64, each func(fn func(a, b glyph.Point) bool)) bool {
	var hit [4]bool
	n := 0
	each(func(a, b glyph.Point) bool {
		for k, d := range rayDirs {
			if !hit[k] && rayHits(p, d, reach, a, b) {
				hit[k] = true
				n++
			}
		}
		return n < 4
	})
	return n == 4
}

// rayHits reports whether the segment a–b crosses the ray from p along
// the axis direction d within reach.
func rayHits(p, d glyph.Point, reach float64, a, b glyph.Point) bool {
	if d.X != 0 {
		if (a.Y-p.Y)*(b.Y-p.Y) > 0 || a.Y == b.Y {
			return false
		}
		x := a.X + (p.Y-a.Y)/(b.Y-a.Y)*(b.X-a.X)
		t := (x - p.X) * d.X
		return t >= 0 && t <= reach
	}
	if (a.X-p.X)*(b.X-p.X) > 0 || a.X == b.X {
		return false
	}
	y := a.Y + (p.X-a.X)/(b.X-a.X)*(b.Y-a.Y)
	t := (y - p.Y) * d.Y
	return t >= 0 && t <= reach
}

// inkFill reports whether a style's fill is ink (not none, not a light
// background mask).
func inkFill(fill string) bool {
	if len(fill) != 7 || fill[0] != '#' {
		return fill != ""
	}
	v, err := strconv.ParseUint(fill[1:], 16, 32)
	if err != nil {
		return true
	}
	return int(v>>16&255)+int(v>>8&255)+int(v&255) <= inkMaxRGB
}

// filledEmpty returns the share of the pose's empty probes that page
// fills cover (0 where the template has none), counted only as far as
// needed to tell whether it exceeds maxFilledEmpty.
func (ix *pageIndex) filledEmpty(h hypothesis) float64 {
	t := h.t
	if len(t.empty) == 0 {
		return 0
	}
	m := h.pl.Matrix(PixelsPerMM)
	k := h.pl.Scale * PixelsPerMM
	lo := glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi := glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, q := range t.hull {
		q = m.Apply(q)
		lo, hi = glyph.MinPoint(lo, q), glyph.MaxPoint(hi, q)
	}
	reach := math.Max(hi.X-lo.X, hi.Y-lo.Y) + tolBasePx + tolRel*k
	ns := int32(len(ix.pg.Segments))
	// The page's ink fill edges around the pose, once each.
	var edges [][2]glyph.Point
	seen := map[int32]bool{}
	ix.pieces.inBox(glyph.Point{X: lo.X - reach, Y: lo.Y - reach}, glyph.Point{X: hi.X + reach, Y: hi.Y + reach}, func(i int32) bool {
		if i >= ns || seen[i] {
			return true
		}
		seen[i] = true
		s := ix.pg.Segments[i]
		if inkFill(ix.pg.Styles[s.Style].Fill) {
			edges = append(edges, [2]glyph.Point{s.A, s.B})
		}
		return true
	})
	if len(edges) == 0 {
		return 0
	}
	// Stops as soon as the share is known to be above maxFilledEmpty or
	// at most it.
	n := float64(len(t.empty))
	filled, open := 0, 0
	for _, q := range t.empty {
		if enclosed(m.Apply(q), reach, func(fn func(a, b glyph.Point) bool) {
			for _, e := range edges {
				if !fn(e[0], e[1]) {
					return
				}
			}
		}) {
			filled++
		} else {
			open++
		}
		if float64(filled) > maxFilledEmpty*n || float64(open) >= (1-maxFilledEmpty)*n {
			break
		}
	}
	return float64(filled) / n
}
