package vector

import (
	"math"
	"slices"

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

// inSweep reports whether angle deg lies on the arc's sweep, with slack
// degrees either side.
func inSweep(a drawing.Arc, deg, slack float64) bool {
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

// Dense hatching: families of stroked parallel segments of one length
// packed into a small area, over a region of many such areas (CAD fill
// patterns exported as one stroked path per line: tiles, brick bonds,
// insulation dashes). Their corners, ends and lines would otherwise fill
// the index with anchors and cover every pose laid over them.
const (
	// hatchCellPx is the side of the cells families are counted in.
	hatchCellPx = 32.0
	// hatchFamily is the least number of stroked segments of one
	// direction (within hatchDirDeg) and length (within hatchLenStep)
	// whose midpoints share a cell for them to be hatching.
	hatchFamily = 12
	// hatchRegionCells is the least number of cells, joined side by side
	// or corner to corner, that hold families for their families to be
	// hatching: hatching covers a region (16 cells, about 16 mm square
	// or a 65 mm band), where a symbol or a logo filled with strokes
	// stands alone.
	hatchRegionCells = 16
	hatchDirDeg      = 2.0
	hatchLenStep     = 1.1 // ratio between length classes
)

// withoutHatching returns pg without the segments of dense hatching (see
// hatchCellPx), or pg itself when it has none. A symbol's own lines do
// not repeat a dozen times in a cell over a region, and a symbol drawn
// over hatching is drawn apart from it. The copy shares everything but
// its Segments with pg.
func withoutHatching(pg *drawing.Page) *drawing.Page {
	hatch := hatching(pg)
	if hatch == nil {
		return pg
	}
	n := 0
	for _, h := range hatch {
		if !h {
			n++
		}
	}
	out := *pg
	out.Segments = make([]drawing.Segment, 0, n)
	for i, s := range pg.Segments {
		if !hatch[i] {
			out.Segments = append(out.Segments, s)
		}
	}
	return &out
}

// hatching marks the segments of dense hatching, nil when there are none.
// Each stroked segment shorter than a cell gets a key of its midpoint's
// cell, direction class and length class; keys are sorted (index in the
// low bits) and counted, which costs 8 bytes a segment.
func hatching(pg *drawing.Page) []bool {
	const idxBits, lenBits, dirBits = 23, 7, 7
	const cellShift = idxBits + lenBits + dirBits
	if len(pg.Segments) < hatchFamily*hatchRegionCells || len(pg.Segments) >= 1<<idxBits {
		return nil
	}
	nx := int(pg.Width/hatchCellPx) + 1
	ny := int(pg.Height/hatchCellPx) + 1
	if nx*ny >= 1<<(64-cellShift) {
		return nil
	}
	keys := make([]uint64, 0, len(pg.Segments))
	for i, s := range pg.Segments {
		if st := pg.Styles[s.Style]; st.Fill != "" || st.Stroke == "" {
			continue
		}
		dx, dy := s.B.X-s.A.X, s.B.Y-s.A.Y
		l := math.Hypot(dx, dy)
		if !(l > 0.5 && l < hatchCellPx) {
			continue
		}
		mx, my := (s.A.X+s.B.X)/2, (s.A.Y+s.B.Y)/2
		if !(mx >= 0 && my >= 0 && mx < pg.Width && my < pg.Height) {
			continue
		}
		ang := math.Atan2(dy, dx) * 180 / math.Pi
		dir := int(math.Round(ang/hatchDirDeg)) % int(180/hatchDirDeg)
		if dir < 0 {
			dir += int(180 / hatchDirDeg)
		}
		lc := min(1<<lenBits-1, max(0, int(math.Round(math.Log(l)/math.Log(hatchLenStep)))+8))
		cell := int(my/hatchCellPx)*nx + int(mx/hatchCellPx)
		keys = append(keys, uint64(cell)<<cellShift|uint64(dir)<<(idxBits+lenBits)|uint64(lc)<<idxBits|uint64(i))
	}
	if len(keys) < hatchFamily*hatchRegionCells {
		return nil
	}
	slices.Sort(keys)
	// Family runs of keys, and the cells that hold one.
	type run struct{ from, to int }
	var runs []run
	family := make([]bool, nx*ny)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j]>>idxBits == keys[i]>>idxBits {
			j++
		}
		if j-i >= hatchFamily {
			runs = append(runs, run{i, j})
			family[keys[i]>>cellShift] = true
		}
		i = j
	}
	if len(runs) < hatchRegionCells {
		return nil
	}
	// Regions: cells with families joined 8-ways; large ones are hatching.
	region := make([]bool, nx*ny)
	seen := make([]bool, nx*ny)
	var comp, stack []int
	for c, f := range family {
		if !f || seen[c] {
			continue
		}
		comp, stack = comp[:0], append(stack[:0], c)
		seen[c] = true
		for len(stack) > 0 {
			d := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			comp = append(comp, d)
			dx0, dy0 := d%nx, d/nx
			for y := max(0, dy0-1); y <= min(ny-1, dy0+1); y++ {
				for x := max(0, dx0-1); x <= min(nx-1, dx0+1); x++ {
					if e := y*nx + x; family[e] && !seen[e] {
						seen[e] = true
						stack = append(stack, e)
					}
				}
			}
		}
		if len(comp) >= hatchRegionCells {
			for _, d := range comp {
				region[d] = true
			}
		}
	}
	var hatch []bool
	for _, r := range runs {
		if !region[keys[r.from]>>cellShift] {
			continue
		}
		if hatch == nil {
			hatch = make([]bool, len(pg.Segments))
		}
		for _, k := range keys[r.from:r.to] {
			hatch[k&(1<<idxBits-1)] = true
		}
	}
	return hatch
}
