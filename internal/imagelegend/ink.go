package imagelegend

import (
	"image"

	"blueprint/internal/ink"
)

// inkMap is a page image binarised (ink.Binarise): true where ink is.
type inkMap struct {
	w, h int
	ink  []bool
	gray []uint8
}

// component is a connected piece of ink (8-connected).
type component struct {
	box  image.Rectangle
	area int // ink pixels
}

// components labels the ink's connected pieces (ink.LabelRuns).
func components(m *inkMap) []component {
	runs, root := ink.LabelRuns(m.ink, m.w, m.h)
	ps := ink.Pieces(runs, root)
	out := make([]component, len(ps))
	for k, p := range ps {
		out[k] = component{box: p.Box, area: p.Area(runs)}
	}
	return out
}

// crossings counts the runs of ink along the middle row of r, the most
// of the rows at a third, a half and two thirds of its height.
func (m *inkMap) crossings(r image.Rectangle) int {
	best := 0
	for _, f := range [...]int{1, 2} {
		y := r.Min.Y + r.Dy()*f/3
		if y < 0 || y >= m.h {
			continue
		}
		n, in := 0, false
		for x := max(r.Min.X, 0); x < min(r.Max.X, m.w); x++ {
			v := m.ink[y*m.w+x]
			if v && !in {
				n++
			}
			in = v
		}
		best = max(best, n)
	}
	return best
}

// binarise is g's ink map.
func binarise(g *image.Gray) *inkMap {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	return &inkMap{w: w, h: h, gray: g.Pix, ink: ink.Binarise(g)}
}
