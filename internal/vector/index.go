package vector

import (
	"math"

	"blueprint/internal/drawing"

	"blueprint/internal/glyph"
)

// Spatial index cell sides in raster pixels. Small cells keep geometry
// queries cheap in dense areas (hatching, stroked CAD fonts); points
// (keypoints, characters) are sparser and searched over larger areas.
const (
	cellPx      = 4.0
	pointCellPx = 16.0
)

// grid is a compressed spatial index of items over a page: for each cell, the
// items passing through it.
type grid struct {
	cell   float64
	nx, ny int
	start  []int32 // per cell, offset into items; len nx*ny+1
	items  []int32
}

// buildGrid indexes n items in cells of the given side; cells(i, add)
// must call add with points of item i close enough together that every
// cell it passes through gets one (see walkCells).
func buildGrid(w, h, cell float64, n int, cells func(i int, add func(p glyph.Point))) *grid {
	g := &grid{cell: cell, nx: max(1, int(w/cell)+2), ny: max(1, int(h/cell)+2)}
	count := make([]int32, g.nx*g.ny+1)
	last := -1
	for i := 0; i < n; i++ {
		last = -1
		cells(i, func(p glyph.Point) {
			if c := g.cellOf(p); c >= 0 && c != last {
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
		cells(i, func(p glyph.Point) {
			if c := g.cellOf(p); c >= 0 && c != last {
				g.items[g.start[c]+fill[c]] = int32(i)
				fill[c]++
				last = c
			}
		})
	}
	return g
}

func (g *grid) cellOf(p glyph.Point) int {
	cx, cy := int(math.Floor(p.X/g.cell)), int(math.Floor(p.Y/g.cell))
	if cx < 0 || cy < 0 || cx >= g.nx || cy >= g.ny {
		return -1
	}
	return cy*g.nx + cx
}

// inBox calls fn for the items of every cell overlapping the box; items
// indexed in exactly one cell (points) are seen once. fn returns false to
// stop.
func (g *grid) inBox(lo, hi glyph.Point, fn func(i int32) bool) {
	x0, y0 := max(0, int(math.Floor(lo.X/g.cell))), max(0, int(math.Floor(lo.Y/g.cell)))
	x1, y1 := min(g.nx-1, int(math.Floor(hi.X/g.cell))), min(g.ny-1, int(math.Floor(hi.Y/g.cell)))
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

// walkCells calls add with one point inside every cellPx cell that the
// chain of points passes through (a grid traversal, Amanatides–Woo).
func walkCells(pts []glyph.Point, add func(p glyph.Point)) {
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		cx, cy := int(math.Floor(a.X/cellPx)), int(math.Floor(a.Y/cellPx))
		ex, ey := int(math.Floor(b.X/cellPx)), int(math.Floor(b.Y/cellPx))
		dx, dy := b.X-a.X, b.Y-a.Y
		stepX, stepY := 1, 1
		if dx < 0 {
			stepX = -1
		}
		if dy < 0 {
			stepY = -1
		}
		// Parameter t along the segment at the next vertical and
		// horizontal cell borders, and its increment per cell.
		tMaxX, tMaxY := math.Inf(1), math.Inf(1)
		tDX, tDY := math.Inf(1), math.Inf(1)
		if dx != 0 {
			nx := float64(cx) * cellPx
			if dx > 0 {
				nx += cellPx
			}
			tMaxX, tDX = (nx-a.X)/dx, cellPx/math.Abs(dx)
		}
		if dy != 0 {
			ny := float64(cy) * cellPx
			if dy > 0 {
				ny += cellPx
			}
			tMaxY, tDY = (ny-a.Y)/dy, cellPx/math.Abs(dy)
		}
		centre := func() glyph.Point {
			return glyph.Point{X: (float64(cx) + 0.5) * cellPx, Y: (float64(cy) + 0.5) * cellPx}
		}
		add(centre())
		for n := 0; (cx != ex || cy != ey) && n < 1<<20; n++ {
			if tMaxX < tMaxY {
				cx += stepX
				tMaxX += tDX
			} else {
				cy += stepY
				tMaxY += tDY
			}
			add(centre())
		}
	}
}

// arcPoints samples an arc every few pixels.
func arcPoints(a drawing.Arc) []glyph.Point {
	n := int(math.Abs(a.Sweep)*math.Pi/180*a.R/(cellPx/4)) + 2
	pts := make([]glyph.Point, n+1)
	for i := 0; i <= n; i++ {
		t := (a.Start + a.Sweep*float64(i)/float64(n)) * math.Pi / 180
		pts[i] = glyph.Point{X: a.C.X + a.R*math.Cos(t), Y: a.C.Y + a.R*math.Sin(t)}
	}
	return pts
}

// withoutHatching is the page the matcher indexes: pg without its dense
// hatching (drawing.Page.WithoutHatching), pg itself when it has none.
func withoutHatching(pg *drawing.Page) *drawing.Page { return pg.WithoutHatching() }
