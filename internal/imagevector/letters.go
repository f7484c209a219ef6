package imagevector

import (
	"image"
	"math"
	"slices"

	"blueprint/internal/glyph"
	"blueprint/internal/ink"
)

// Letter-sized ink, in image pixels.
const (
	// minLetterSide and maxLetterSide bound a letter's height (its
	// extent across the line) and its larger side: a dash of a line is
	// no letter.
	minLetterSide = 5
	maxLetterSide = 80
	// lineGap is the most space between two letters of a line, in
	// letter heights; letterRatio the most one letter's height may be
	// of its neighbour's.
	lineGap = 0.35
	// overlapShare is how far, in letter heights, neighbouring letters
	// may reach over each other (kerned or italic type).
	overlapShare = 0.15
	// columnRatio and minRowLetters: where a page writes at least
	// minRowLetters letters along its rows, a column of pieces is text
	// turned 90° only where they are at most columnRatio times as wide
	// as its letters' median height.
	columnRatio   = 1.6
	minRowLetters = 40
	letterRatio   = 1.7
)

// letters reports which pieces are letters of a line of text: letter
// sized, and beside another of about their height along a row (or beside
// another of about their width along a column: text turned 90°). A lone
// letter-sized piece is more often part of a symbol than a one-letter
// word, and stays drawing.
func letters(ps []ink.Piece) []bool {
	out, _ := letterLines(ps)
	return out
}

// letterLines is letters, also returning each letter's neighbours in its
// line (the pieces it was found a letter beside, and a speck's letter).
func letterLines(ps []ink.Piece) ([]bool, [][]int) {
	out := make([]bool, len(ps))
	adj := make([][]int, len(ps))
	const cell = 2 * maxLetterSide
	grid := map[[2]int][]int{}
	var cand []int
	for i, p := range ps {
		w, h := p.Box.Dx(), p.Box.Dy()
		if max(w, h) < minLetterSide || max(w, h) > maxLetterSide {
			continue
		}
		cand = append(cand, i)
		k := [2]int{p.Box.Min.X / cell, p.Box.Min.Y / cell}
		grid[k] = append(grid[k], i)
	}
	near := func(a, b image.Rectangle, along bool) bool {
		// along: a row (x); else a column (y).
		ha, hb := float64(a.Dy()), float64(b.Dy())
		lo, hi := max(a.Min.Y, b.Min.Y), min(a.Max.Y, b.Max.Y)
		gap := float64(max(a.Min.X-b.Max.X, b.Min.X-a.Max.X))
		if !along {
			ha, hb = float64(a.Dx()), float64(b.Dx())
			lo, hi = max(a.Min.X, b.Min.X), min(a.Max.X, b.Max.X)
			gap = float64(max(a.Min.Y-b.Max.Y, b.Min.Y-a.Max.Y))
		}
		if math.Min(ha, hb) < minLetterSide || math.Max(ha, hb) > letterRatio*math.Min(ha, hb) {
			return false
		}
		// Letters stand side by side: a piece reaching over another
		// (a stroke inside a symbol's outline) is no neighbour.
		return float64(hi-lo) >= 0.5*math.Min(ha, hb) && gap <= lineGap*math.Max(ha, hb) && gap >= -overlapShare*math.Min(ha, hb)
	}
	// Pairs side by side along a row, then along a column.
	type pair struct{ i, j int }
	var rows, cols []pair
	for _, i := range cand {
		b := ps[i].Box
		k := [2]int{b.Min.X / cell, b.Min.Y / cell}
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				for _, j := range grid[[2]int{k[0] + dx, k[1] + dy}] {
					switch {
					case j <= i:
					case near(b, ps[j].Box, true):
						rows = append(rows, pair{i, j})
					case near(b, ps[j].Box, false):
						cols = append(cols, pair{i, j})
					}
				}
			}
		}
	}
	// A column of pieces much wider than the page's letters are high is
	// a legend's column of glyphs, not a line of text turned 90°.
	var heights []int
	for _, p := range rows {
		heights = append(heights, ps[p.i].Box.Dy(), ps[p.j].Box.Dy())
	}
	maxAcross := math.Inf(1)
	if len(heights) >= minRowLetters {
		slices.Sort(heights)
		maxAcross = columnRatio * float64(heights[len(heights)/2])
	}
	for _, p := range rows {
		out[p.i], out[p.j] = true, true
		adj[p.i], adj[p.j] = append(adj[p.i], p.j), append(adj[p.j], p.i)
	}
	for _, p := range cols {
		if float64(max(ps[p.i].Box.Dx(), ps[p.j].Box.Dx())) > maxAcross {
			continue
		}
		out[p.i], out[p.j] = true, true
		adj[p.i], adj[p.j] = append(adj[p.i], p.j), append(adj[p.j], p.i)
	}
	// Specks beside a letter (the dot of an i, a full stop, an accent)
	// are drawn with it.
	for i, p := range ps {
		w, h := p.Box.Dx(), p.Box.Dy()
		if out[i] || max(w, h) >= minLetterSide {
			continue
		}
		b := p.Box
		k := [2]int{b.Min.X / cell, b.Min.Y / cell}
		for dy := -1; dy <= 1 && !out[i]; dy++ {
			for dx := -1; dx <= 1 && !out[i]; dx++ {
				for _, j := range grid[[2]int{k[0] + dx, k[1] + dy}] {
					lb := ps[j].Box
					reach := max(lb.Dx(), lb.Dy()) / 2
					if out[j] && b.Overlaps(lb.Inset(-reach)) {
						out[i] = true
						adj[i], adj[j] = append(adj[i], j), append(adj[j], i)
						break
					}
				}
			}
		}
	}
	return out, adj
}

// contours returns the outlines of the ink of mask (w × h, true for ink)
// as closed polygons of pixel corners, ink on the right going round
// (clockwise on screen round ink, anticlockwise round holes), offset by
// org. Where two pixels touch only at a corner the outline turns into
// the ink, so 8-connected ink is one outline.
func contours(mask []bool, w, h int, org glyph.Point) [][]glyph.Point {
	in := func(x, y int) bool { return x >= 0 && y >= 0 && x < w && y < h && mask[y*w+x] }
	type corner struct{ x, y int }
	type step struct{ dx, dy int }
	out := map[corner][]step{}
	var order []corner // corners in the order first met, for a stable result
	add := func(c corner, s step) {
		if _, ok := out[c]; !ok {
			order = append(order, c)
		}
		out[c] = append(out[c], s)
	}
	n := 0
	for y := range h {
		for x := range w {
			if !in(x, y) {
				continue
			}
			if !in(x, y-1) {
				add(corner{x, y}, step{1, 0})
				n++
			}
			if !in(x+1, y) {
				add(corner{x + 1, y}, step{0, 1})
				n++
			}
			if !in(x, y+1) {
				add(corner{x + 1, y + 1}, step{-1, 0})
				n++
			}
			if !in(x-1, y) {
				add(corner{x, y + 1}, step{0, -1})
				n++
			}
		}
	}
	var loops [][]glyph.Point
	next := 0 // into order: corners before it have no step left
	for n > 0 {
		for len(out[order[next]]) == 0 {
			next++
		}
		c := order[next]
		start := c
		var loop []glyph.Point
		var d step
		for first := true; ; first = false {
			ss := out[c]
			if len(ss) == 0 {
				break
			}
			pick := 0
			// turn right (into the ink) where two ways go on
			right := step{-d.dy, d.dx}
			for k, s := range ss {
				if s == right {
					pick = k
				}
			}
			s := ss[pick]
			out[c] = append(ss[:pick], ss[pick+1:]...)
			n--
			if s != d || first {
				loop = append(loop, glyph.Point{X: org.X + float64(c.x), Y: org.Y + float64(c.y)})
			}
			d = s
			c = corner{c.x + s.dx, c.y + s.dy}
			if c == start {
				break
			}
		}
		loop = corners(loop)
		if len(loop) >= 3 {
			loops = append(loops, loop)
		}
	}
	return loops
}

// corners returns a closed loop without the points where it runs on
// straight (the start of a loop traced from the middle of a side).
func corners(loop []glyph.Point) []glyph.Point {
	out := loop[:0:0]
	n := len(loop)
	for i, p := range loop {
		a, b := loop[(i+n-1)%n], loop[(i+1)%n]
		if (p.X-a.X)*(b.Y-p.Y)-(p.Y-a.Y)*(b.X-p.X) != 0 {
			out = append(out, p)
		}
	}
	return out
}
