package ocrtext

import (
	"math"
	"slices"

	"blueprint/internal/glyph"
	"blueprint/internal/unionfind"
)

// Line grouping parameters, in text heights (a component's extent across
// its line).
const (
	// linkGap is the largest gap along a line between two letters of one
	// word or of words of one phrase (a word space is about a third of a
	// height, a table's column gap more than one).
	linkGap = 0.9
	// linkOverlap is how much of the smaller letter's extent across the
	// line two letters of one line share.
	linkOverlap = 0.5
	// linkSize: two letters of one line differ in height at most this
	// many times (capitals and lower case, not a letter and a symbol).
	linkSize = 2.2
)

// line is a run of letter-like components along one axis: vertical lines
// read along y.
type line struct {
	members  []int // indexes into the components
	vertical bool
	min, max glyph.Point
	height   float64 // median extent across the line
	cap      float64 // its capitals' height: the 80th percentile extent
	// boxes are the letters' boxes (min, max), kept when members are
	// given up for the ink.
	boxes [][2]glyph.Point
}

// grid indexes component centres in square cells.
type grid struct {
	cell  float64
	cells map[[2]int32][]int
}

func newGrid(cs []component, cell float64) *grid {
	g := &grid{cell: cell, cells: map[[2]int32][]int{}}
	for i := range cs {
		k := g.key(cs[i].centre())
		g.cells[k] = append(g.cells[k], i)
	}
	return g
}

func (g *grid) key(p glyph.Point) [2]int32 {
	return [2]int32{int32(math.Floor(p.X / g.cell)), int32(math.Floor(p.Y / g.cell))}
}

// near calls f with every component whose centre lies in the box
// [mn, mx] (and some just outside it).
func (g *grid) near(mn, mx glyph.Point, f func(int)) {
	a, b := g.key(mn), g.key(mx)
	for x := a[0]; x <= b[0]; x++ {
		for y := a[1]; y <= b[1]; y++ {
			for _, i := range g.cells[[2]int32{x, y}] {
				f(i)
			}
		}
	}
}

// along and across are a component's extents along and across an axis.
func along(c *component, vertical bool) (float64, float64) {
	if vertical {
		return c.min.Y, c.max.Y
	}
	return c.min.X, c.max.X
}

func across(c *component, vertical bool) (float64, float64) {
	if vertical {
		return c.min.X, c.max.X
	}
	return c.min.Y, c.max.Y
}

// chain links each component to its nearest follower along the axis
// that could be the next letter of its line, and returns the groups
// (union-find roots per component).
func chain(cs []component, g *grid, vertical bool) []int32 {
	set := unionfind.New[int32](len(cs))
	for i := range cs {
		a := &cs[i]
		a0, a1 := along(a, vertical)
		c0, c1 := across(a, vertical)
		h := c1 - c0
		reach := linkGap * h
		var mn, mx glyph.Point
		if vertical {
			mn, mx = glyph.Point{X: c0 - h, Y: a0}, glyph.Point{X: c1 + h, Y: a1 + reach + 2*h}
		} else {
			mn, mx = glyph.Point{X: a0, Y: c0 - h}, glyph.Point{X: a1 + reach + 2*h, Y: c1 + h}
		}
		best, bestGap := -1, math.Inf(1)
		g.near(mn, mx, func(j int) {
			if j == i {
				return
			}
			b := &cs[j]
			b0, b1 := along(b, vertical)
			d0, d1 := across(b, vertical)
			hb := d1 - d0
			if hb > linkSize*h || h > linkSize*hb {
				return
			}
			if math.Min(c1, d1)-math.Max(c0, d0) < linkOverlap*math.Min(h, hb) {
				return
			}
			// b follows a: starts after a's middle, gap within reach.
			if b0 <= (a0+a1)/2 || b1 <= a1 {
				return
			}
			gap := b0 - a1
			if gap > linkGap*math.Max(h, hb) || gap >= bestGap {
				return
			}
			best, bestGap = j, gap
		})
		if best >= 0 {
			set.Join(int32(i), int32(best))
		}
	}
	return set.Roots()
}

// lines groups letter-like components into lines: each component goes
// to the axis along which its group is longer (a column of stacked
// lines links a few letters vertically, each line many horizontally),
// and groups of fewer than minLetters are dropped.
func lines(cs []component, g *grid, minLetters int) []line {
	hr := chain(cs, g, false)
	vr := chain(cs, g, true)
	hn, vn := map[int32]int{}, map[int32]int{}
	for i := range cs {
		hn[hr[i]]++
		vn[vr[i]]++
	}
	byRoot := map[[2]int32][]int{} // (axis, root) → members
	for i := range cs {
		if hn[hr[i]] >= vn[vr[i]] {
			byRoot[[2]int32{0, hr[i]}] = append(byRoot[[2]int32{0, hr[i]}], i)
		} else {
			byRoot[[2]int32{1, vr[i]}] = append(byRoot[[2]int32{1, vr[i]}], i)
		}
	}
	var out []line
	for k, ms := range byRoot {
		if len(ms) < minLetters {
			continue
		}
		l := line{members: ms, vertical: k[0] == 1, min: glyph.Point{X: math.Inf(1), Y: math.Inf(1)}, max: glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}}
		hs := make([]float64, 0, len(ms))
		for _, i := range ms {
			c := &cs[i]
			l.min, l.max = glyph.MinPoint(l.min, c.min), glyph.MaxPoint(l.max, c.max)
			c0, c1 := across(c, l.vertical)
			hs = append(hs, c1-c0)
			l.boxes = append(l.boxes, [2]glyph.Point{c.min, c.max})
		}
		slices.Sort(hs)
		l.height = hs[len(hs)/2]
		l.cap = hs[len(hs)*4/5]
		out = append(out, l)
	}
	// A stable order: top to bottom, left to right.
	slices.SortFunc(out, func(a, b line) int {
		if a.min.Y != b.min.Y {
			if a.min.Y < b.min.Y {
				return -1
			}
			return 1
		}
		if a.min.X < b.min.X {
			return -1
		}
		if a.min.X > b.min.X {
			return 1
		}
		return 0
	})
	return out
}
