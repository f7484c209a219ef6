package drawing

import (
	"math"
	"slices"
)

// Dense hatching: families of stroked parallel segments of one length
// packed into a small area, over a region of many such areas (CAD fill
// patterns exported as one stroked path per line: tiles, brick bonds,
// insulation dashes). A symbol matcher or a legend reader finds nothing in
// them, and their corners, ends and lines would fill its index with
// anchors and cover every pose laid over them (docs/page-reading.md,
// "Heavy sheets").
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

// WithoutHatching returns pg without the segments of dense hatching (see
// hatchCellPx), or pg itself when it has none. A symbol's own lines do
// not repeat a dozen times in a cell over a region, and a symbol drawn
// over hatching is drawn apart from it. The copy shares everything but
// its Segments with pg.
func (pg *Page) WithoutHatching() *Page {
	hatch := Hatching(pg)
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
	out.Segments = make([]Segment, 0, n)
	for i, s := range pg.Segments {
		if !hatch[i] {
			out.Segments = append(out.Segments, s)
		}
	}
	return &out
}

// Hatching marks the segments of dense hatching, nil when there are none.
// Each stroked segment shorter than a cell gets a key of its midpoint's
// cell, direction class and length class; keys are sorted (index in the
// low bits) and counted, which costs 8 bytes a segment.
func Hatching(pg *Page) []bool {
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
