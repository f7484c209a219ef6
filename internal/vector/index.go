package vector

import (
	"math"

	"blueprint/internal/glyph"
)

// cellPx is the side of a spatial index cell in raster pixels. Small cells
// keep dense areas (hatching, stroked CAD fonts) cheap to query.
const cellPx = 4.0

// grid is a compressed spatial index of items over a page: for each cell, the
// items passing through it.
type grid struct {
	nx, ny int
	start  []int32 // per cell, offset into items; len nx*ny+1
	items  []int32
}

// buildGrid indexes n items; cells(i, add) must call add for every cell
// (cx, cy) item i passes through (duplicates are allowed but wasteful).
func buildGrid(w, h float64, n int, cells func(i int, add func(cx, cy int))) *grid {
	g := &grid{nx: max(1, int(w/cellPx)+2), ny: max(1, int(h/cellPx)+2)}
	count := make([]int32, g.nx*g.ny+1)
	last := -1
	for i := 0; i < n; i++ {
		last = -1
		cells(i, func(cx, cy int) {
			if c := g.cell(cx, cy); c >= 0 && c != last {
				count[c+1]++
				last = c
			}
		})
	}
	for c := 1; c < len(count); c++ {
		count[c] += count[c-1]
	}
	g.start = count
	g.items = make([]int32, count[len(count)-1])
	fill := make([]int32, g.nx*g.ny)
	for i := 0; i < n; i++ {
		last = -1
		cells(i, func(cx, cy int) {
			if c := g.cell(cx, cy); c >= 0 && c != last {
				g.items[g.start[c]+fill[c]] = int32(i)
				fill[c]++
				last = c
			}
		})
	}
	return g
}

func (g *grid) cell(cx, cy int) int {
	if cx < 0 || cy < 0 || cx >= g.nx || cy >= g.ny {
		return -1
	}
	return cy*g.nx + cx
}

// near calls fn for items in the 3×3 cells around p (an item may be seen
// more than once); fn returns false to stop.
func (g *grid) near(p glyph.Point, fn func(i int32) bool) {
	cx, cy := int(math.Floor(p.X/cellPx)), int(math.Floor(p.Y/cellPx))
	for y := cy - 1; y <= cy+1; y++ {
		for x := cx - 1; x <= cx+1; x++ {
			c := g.cell(x, y)
			if c < 0 {
				continue
			}
			for _, it := range g.items[g.start[c]:g.start[c+1]] {
				if !fn(it) {
					return
				}
			}
		}
	}
}

// inBox calls fn for the items of every cell overlapping the box; items
// indexed in exactly one cell (points) are seen once. fn returns false to
// stop.
func (g *grid) inBox(lo, hi glyph.Point, fn func(i int32) bool) {
	x0, y0 := max(0, int(math.Floor(lo.X/cellPx))), max(0, int(math.Floor(lo.Y/cellPx)))
	x1, y1 := min(g.nx-1, int(math.Floor(hi.X/cellPx))), min(g.ny-1, int(math.Floor(hi.Y/cellPx)))
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			c := y*g.nx + x
			for _, it := range g.items[g.start[c]:g.start[c+1]] {
				if !fn(it) {
					return
				}
			}
		}
	}
}

// walkCells calls add for the cells along the chain of points.
func walkCells(pts []glyph.Point, add func(cx, cy int)) {
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		n := int(math.Hypot(b.X-a.X, b.Y-a.Y)/(cellPx/4)) + 1
		for k := 0; k <= n; k++ {
			t := float64(k) / float64(n)
			add(int(math.Floor((a.X+t*(b.X-a.X))/cellPx)), int(math.Floor((a.Y+t*(b.Y-a.Y))/cellPx)))
		}
	}
}

// arcPoints samples an arc every few pixels.
func arcPoints(a Arc) []glyph.Point {
	n := int(math.Abs(a.Sweep)*math.Pi/180*a.R/(cellPx/4)) + 2
	pts := make([]glyph.Point, n+1)
	for i := 0; i <= n; i++ {
		t := (a.Start + a.Sweep*float64(i)/float64(n)) * math.Pi / 180
		pts[i] = glyph.Point{X: a.C.X + a.R*math.Cos(t), Y: a.C.Y + a.R*math.Sin(t)}
	}
	return pts
}

// inSweep reports whether angle deg lies on the arc's sweep, with slack
// degrees either side.
func inSweep(a Arc, deg, slack float64) bool {
	if math.Abs(a.Sweep) >= 360-2*slack {
		return true
	}
	d := deg - a.Start
	if a.Sweep < 0 {
		d = -d
	}
	d = math.Mod(d+720+slack, 360) - slack
	return d >= -slack && d <= math.Abs(a.Sweep)+slack
}
