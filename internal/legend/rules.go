package legend

import (
	"math"
	"sort"
)

// outsideRules reports whether the drawing box lies left of the table that
// holds text run r: the nearest horizontal rules above and below the text
// (within 3 em) both run under the text's start and both end to the right
// of the drawing. A bill of quantities whose code column holds no drawing
// would otherwise lend its descriptions whatever stands left of the table
// (a grid bubble, a plan symbol).
func (ix *pageIndex) outsideRules(box Rect, r *run, em float64) bool {
	cy := (r.min.Y + r.max.Y) / 2
	x := r.min.X
	above, below := -1, -1
	lo := sort.Search(len(ix.hrules), func(i int) bool { return ix.hrules[i].y >= cy-3*em })
	for i := lo; i < len(ix.hrules) && ix.hrules[i].y <= cy+3*em; i++ {
		h := ix.hrules[i]
		if h.x0 > x || h.x1 < x {
			continue
		}
		if h.y < r.min.Y {
			above = i // the last above is the nearest
		} else if h.y > r.max.Y && below < 0 {
			below = i
		}
	}
	if above < 0 || below < 0 {
		return false
	}
	edge := math.Min(ix.hrules[above].x0, ix.hrules[below].x0)
	return box.Max.X < edge-0.25*em
}

// cellSide reports whether piece p is the side of a table cell ruled
// cell by cell: a vertical line at least 1.5 em long from one horizontal
// rule to another. Drawn close beside a glyph it would join the glyph's
// drawing.
func (ix *pageIndex) cellSide(p piece, em float64) bool {
	if p.seg < 0 || p.box.w() > 0.5 || p.box.h() < 1.5*em {
		return false
	}
	// Rules run on past a cell's side on both sides of it (one rule
	// across, or one cell's edge and the next one's); a glyph's own box
	// ends at its sides.
	x := p.box.centre().X
	meets := func(y float64) bool {
		lo := sort.Search(len(ix.hrules), func(i int) bool { return ix.hrules[i].y >= y-1.5 })
		left, right := false, false
		for _, r := range ix.hrules[lo:] {
			if r.y > y+1.5 {
				break
			}
			if r.x0 <= x+1.5 && r.x1 >= x-1.5 {
				left = left || r.x0 <= x-em
				right = right || r.x1 >= x+em
			}
		}
		return left && right
	}
	return meets(p.box.Min.Y) && meets(p.box.Max.Y)
}

// rulesAround returns how far up and down from the band [y0, y1] a row's
// glyph may reach: to the nearest rule above and below the band's middle,
// at most 3 em away. A rule runs past both sides of what the band found
// of the glyph (core, when found; tables ruled cell by cell have short
// rules), or, without a core, is a long line reaching the description's
// start x1.
func (ix *pageIndex) rulesAround(x1, y0, y1, em float64, core cluster, found bool) (top, bottom float64) {
	top, bottom = y0-3*em, y1+3*em
	lo := sort.Search(len(ix.hrules), func(i int) bool { return ix.hrules[i].y >= top })
	for _, r := range ix.hrules[lo:] {
		if r.y > bottom {
			break
		}
		rule := r.x1-r.x0 >= maxPieceEm*em && r.x0 <= x1-em && r.x1 >= x1
		if found {
			rule = r.x1-r.x0 >= em && r.x0 <= core.box.Min.X-0.2*em && r.x1 >= core.box.Max.X+0.2*em
		}
		if !rule {
			continue
		}
		// Tight rows: a rule may run through the edge of the band.
		switch mid := (y0 + y1) / 2; {
		case r.y < mid-0.25*em:
			top = math.Max(top, r.y)
		case r.y > mid+0.25*em:
			bottom = math.Min(bottom, r.y)
		}
	}
	return top, bottom
}

// ruledEnd returns where the rules of a ruled table end on the right
// around the row whose glyph is g and whose band is [y0, y1]: the nearest
// horizontal rules above and below the glyph's middle, in the band give
// or take a quarter em, that run under the glyph, each followed along
// its line through the breaks of a table ruled cell by cell. ok is false
// where the row is not ruled above and below.
func (ix *pageIndex) ruledEnd(g Rect, y0, y1, em float64) (end float64, ok bool) {
	cx, cy := g.centre().X, g.centre().Y
	above, below := -1, -1
	lo := sort.Search(len(ix.hrules), func(i int) bool { return ix.hrules[i].y >= y0-0.25*em })
	for i := lo; i < len(ix.hrules) && ix.hrules[i].y <= y1+0.25*em; i++ {
		h := ix.hrules[i]
		if h.x0 > cx || h.x1 < cx {
			continue
		}
		if h.y < cy {
			above = i // the last above is the nearest
		} else if below < 0 {
			below = i
		}
	}
	if above < 0 || below < 0 {
		return 0, false
	}
	return math.Min(ix.ruleEnd(above, em), ix.ruleEnd(below, em)), true
}

// ruleEnd follows rule i rightwards along its line (rules within 1.5 px
// of its y) across gaps of at most half an em, and returns where it ends.
func (ix *pageIndex) ruleEnd(i int, em float64) float64 {
	y := ix.hrules[i].y
	lo := sort.Search(len(ix.hrules), func(k int) bool { return ix.hrules[k].y >= y-1.5 })
	var line []hrule
	for k := lo; k < len(ix.hrules) && ix.hrules[k].y <= y+1.5; k++ {
		line = append(line, ix.hrules[k])
	}
	sort.Slice(line, func(a, b int) bool { return line[a].x0 < line[b].x0 })
	end := ix.hrules[i].x1
	for _, h := range line {
		if h.x0 <= end+0.5*em {
			end = math.Max(end, h.x1)
		}
	}
	return end
}
