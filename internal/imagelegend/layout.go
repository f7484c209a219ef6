package imagelegend

import (
	"image"
	"math"
	"slices"
	"sort"

	"blueprint/internal/unionfind"
)

// textLine is a chain of character-sized pieces.
type textLine struct {
	box   image.Rectangle
	chars int
}

// glyphPiece is a cluster of non-text ink of glyph size.
type glyphPiece struct {
	box image.Rectangle
}

// pageLayout is what finding knows of a page: its text height, text
// lines and glyph-sized clusters.
type pageLayout struct {
	h      float64
	lines  []textLine
	glyphs []glyphPiece
}

// layout chains character pieces into lines and clusters the other
// pieces of ink into glyph candidates.
func layout(cs []component, h float64, m *inkMap) *pageLayout {
	// byX: the boxes of the pieces larger than a speck by left edge, to
	// find pieces inside another.
	byX := make([]image.Rectangle, 0, len(cs))
	for _, c := range cs {
		if !speck(c.box, h) {
			byX = append(byX, c.box)
		}
	}
	sort.Slice(byX, func(a, b int) bool { return byX[a].Min.X < byX[b].Min.X })
	encloses := func(r image.Rectangle) bool {
		i := sort.Search(len(byX), func(i int) bool { return byX[i].Min.X > r.Min.X })
		for ; i < len(byX) && byX[i].Min.X < r.Max.X; i++ {
			if o := byX[i]; o != r && o.In(r) && o.Min.Y > r.Min.Y && o.Max.Y < r.Max.Y && o.Max.X < r.Max.X {
				return true
			}
		}
		return false
	}
	isChar := func(c component) bool {
		if !letterHigh(c.box, h) {
			return false
		}
		// A frame round a letter (a hexagon round "S", a box round
		// "F", as high as a line of text once whole) is a glyph.
		if encloses(c.box) {
			return false
		}
		cw := float64(c.box.Dx())
		// Letters run together by blur or bold type: a flat piece
		// crossed by many strokes along its middle is text; a frame
		// round text (a boxed tag, a glyph such as "FACP" in a
		// rectangle) is crossed by the letters inside it, and is not.
		return cw <= maxLetterW*h || float64(m.crossings(c.box)) >= textStrokes*cw/h
	}
	// inside reports whether the box of another piece of glyph size holds
	// r (a frame round it: text inside a glyph is the glyph's).
	inside := func(r image.Rectangle) bool {
		i := sort.Search(len(byX), func(i int) bool { return byX[i].Min.X > r.Min.X })
		for j := i - 1; j >= 0 && float64(r.Min.X-byX[j].Min.X) <= maxGlyphW*h; j-- {
			if o := byX[j]; o != r && r.In(o) && o.Dy() > r.Dy() && float64(o.Dy()) <= maxGlyphH*h {
				return true
			}
		}
		return false
	}
	small := smallText(cs, h, inside)
	var chars, other []image.Rectangle
	for _, c := range cs {
		switch {
		case small[c.box]:
			// a tag or rating in small type beside a glyph: not the glyph
		case isChar(c):
			chars = append(chars, c.box)
		case speck(c.box, h):
			// specks and dots: neither text nor glyph
		case float64(max(c.box.Dx(), c.box.Dy())) > 15*h:
			// rules, walls, table grids
		default:
			other = append(other, c.box)
		}
	}
	lay := &pageLayout{h: h}
	lay.lines = chainLines(chars, h)
	// Glyphs: the other pieces, with character pieces inside them (text
	// drawn inside a glyph), joined when close.
	lay.glyphs = clusterGlyphs(other, chars, h)
	return lay
}

// smallText returns the pieces of a line of text in small type (a
// device's rating or tag printed beside its glyph, "15CD 0.25W"): pieces
// lower than a letter of text height h, at least smallMinH of it, no
// wider than maxLetterW of their own height, that chain into a line of
// at least smallMinChars, and that no other piece encloses.
func smallText(cs []component, h float64, inside func(image.Rectangle) bool) map[image.Rectangle]bool {
	var cand []image.Rectangle
	var hs []int
	for _, c := range cs {
		ch := float64(c.box.Dy())
		if ch >= smallMinH*h && ch < minLetterH*h && float64(c.box.Dx()) <= maxLetterW*ch && !inside(c.box) {
			cand = append(cand, c.box)
			hs = append(hs, c.box.Dy())
		}
	}
	if len(cand) < 3 {
		return nil
	}
	sort.Ints(hs)
	out := map[image.Rectangle]bool{}
	for _, l := range chainLines(slices.Clone(cand), float64(hs[len(hs)/2])) {
		if l.chars < smallMinChars {
			continue
		}
		for _, c := range cand {
			if c.In(l.box) {
				out[c] = true
			}
		}
	}
	return out
}

// chainLines joins character boxes that overlap vertically by half their
// height and lie within wordGap heights horizontally into lines of two
// or more characters.
func chainLines(chars []image.Rectangle, h float64) []textLine {
	sort.Slice(chars, func(a, b int) bool { return chars[a].Min.X < chars[b].Min.X })
	sets := unionfind.New[int](len(chars))
	// Bucket by band of rows so each char looks only at its neighbours.
	band := int(math.Max(h, 4))
	buckets := map[int][]int{}
	for i, c := range chars {
		buckets[(c.Min.Y+c.Max.Y)/2/band] = append(buckets[(c.Min.Y+c.Max.Y)/2/band], i)
	}
	gap := int(wordGap * h)
	for i, a := range chars {
		cb := (a.Min.Y + a.Max.Y) / 2 / band
		for b := cb - 1; b <= cb+1; b++ {
			for _, j := range buckets[b] {
				if j <= i {
					continue
				}
				c := chars[j]
				if c.Min.X > a.Max.X+gap || c.Max.X < a.Min.X {
					continue
				}
				ov := min(a.Max.Y, c.Max.Y) - max(a.Min.Y, c.Min.Y)
				if float64(ov) < 0.5*float64(min(a.Dy(), c.Dy())) {
					continue
				}
				sets.Join(i, j)
			}
		}
	}
	index := map[int]int{}
	var lines []textLine
	for i, c := range chars {
		r := sets.Find(i)
		k, ok := index[r]
		if !ok {
			k = len(lines)
			index[r] = k
			lines = append(lines, textLine{box: c})
		} else {
			lines[k].box = lines[k].box.Union(c)
		}
		lines[k].chars++
	}
	kept := lines[:0]
	for _, l := range lines {
		if l.chars >= 2 && float64(l.box.Dy()) <= 2.2*h {
			kept = append(kept, l)
		}
	}
	return kept
}

// clusterGlyphs joins non-text pieces lying within glyphJoin heights of
// each other, with the character pieces inside them, and keeps clusters
// of glyph size.
func clusterGlyphs(other, chars []image.Rectangle, h float64) []glyphPiece {
	join := int(math.Ceil(glyphJoin * h))
	sets := unionfind.New[int](len(other))
	// A grid of cells 4 text heights wide: each piece is listed in every
	// cell its box (grown by join) touches, and meets only those pieces.
	cell := max(int(4*h), 8)
	grid := map[[2]int][]int{}
	// Pieces spanning the same rows, at least a text height high, join
	// further apart: a faint outline broken where it fades (a light box
	// beside the dark mark it holds) keeps its pieces' tops and bottoms.
	// (reach is g for a lower piece, so only tall pieces join this way.)
	band := func(a, b image.Rectangle) bool {
		return abs(a.Min.Y-b.Min.Y) <= bandSlack && abs(a.Max.Y-b.Max.Y) <= bandSlack
	}
	for i, b := range other {
		g := b.Inset(-join)
		reach := g
		if float64(b.Dy()) >= h {
			reach.Min.X = min(reach.Min.X, b.Min.X-int(bandJoin*float64(b.Dy())))
			reach.Max.X = max(reach.Max.X, b.Max.X+int(bandJoin*float64(b.Dy())))
		}
		for cy := reach.Min.Y / cell; cy <= reach.Max.Y/cell; cy++ {
			for cx := reach.Min.X / cell; cx <= reach.Max.X/cell; cx++ {
				k := [2]int{cx, cy}
				for _, j := range grid[k] {
					if g.Overlaps(other[j]) || (reach.Overlaps(other[j]) && band(b, other[j])) {
						sets.Join(i, j)
					}
				}
				grid[k] = append(grid[k], i)
			}
		}
	}
	union := map[int]image.Rectangle{}
	for i, b := range other {
		r := sets.Find(i)
		union[r] = union[r].Union(b)
	}
	boxes := make([]image.Rectangle, 0, len(union))
	for _, b := range union {
		boxes = append(boxes, b)
	}
	sort.Slice(boxes, func(a, b int) bool {
		if boxes[a].Min.Y != boxes[b].Min.Y {
			return boxes[a].Min.Y < boxes[b].Min.Y
		}
		return boxes[a].Min.X < boxes[b].Min.X
	})
	var out []glyphPiece
	for _, b := range boxes {
		gw, gh := float64(b.Dx())/h, float64(b.Dy())/h
		if gh < minGlyphH || gh > maxGlyphH || gw < minGlyphW || gw > maxGlyphW {
			continue
		}
		for _, c := range chars {
			if c.In(b.Inset(-1)) {
				b = b.Union(c)
			}
		}
		out = append(out, glyphPiece{box: b})
	}
	return out
}

// candidate is a text line with the glyph left of it.
type candidate struct {
	line  int
	glyph int
	tags  []int // text lines between the glyph and the line
	// more are the further lines beside the same glyph (a description
	// wrapped beside a tall glyph), in order down the page.
	more []int
}

// rowsOf pairs each text line with the nearest glyph to its left on its
// height, passing over tag lines between them.
func (lay *pageLayout) rowsOf() []candidate {
	h := lay.h
	var out []candidate
	for li, l := range lay.lines {
		if l.chars < 3 {
			continue
		}
		cy := float64(l.box.Min.Y+l.box.Max.Y) / 2
		best, bestGap := -1, math.Inf(1)
		for gi, g := range lay.glyphs {
			gap := float64(l.box.Min.X - g.box.Max.X)
			gcy := float64(g.box.Min.Y+g.box.Max.Y) / 2
			if gap < -0.5*h || gap > farGlyphGap*h || math.Abs(gcy-cy) > math.Max(h, float64(g.box.Dy())/2) {
				continue
			}
			if gap > maxGlyphGap*h && !lay.clearBetween(g.box, l.box) {
				continue
			}
			if g.box.Overlaps(l.box) && g.box.Max.X > l.box.Min.X+int(h) {
				continue
			}
			if gap < bestGap {
				best, bestGap = gi, gap
			}
		}
		if best < 0 {
			continue
		}
		g := lay.glyphs[best].box
		var tags []int
		clear := true
		for oi, o := range lay.lines {
			if oi == li {
				continue
			}
			ocy := float64(o.box.Min.Y+o.box.Max.Y) / 2
			if o.box.Min.X >= g.Max.X-1 && o.box.Max.X <= l.box.Min.X+1 && math.Abs(ocy-cy) < h {
				if o.chars > 8 {
					clear = false // another description between: not this line's glyph
				}
				tags = append(tags, oi)
			}
		}
		if clear {
			out = append(out, candidate{line: li, glyph: best, tags: tags})
		}
	}
	// Lines beside one glyph are one row, read from the top.
	sort.Slice(out, func(a, b int) bool { return lay.lines[out[a].line].box.Min.Y < lay.lines[out[b].line].box.Min.Y })
	first := map[int]int{}
	kept := out[:0]
	for _, c := range out {
		if k, ok := first[c.glyph]; ok {
			kept[k].more = append(kept[k].more, c.line)
			continue
		}
		first[c.glyph] = len(kept)
		kept = append(kept, c)
	}
	return kept
}

// clearBetween reports whether no text line and no other glyph stands
// between glyph g and text line l, on l's height.
func (lay *pageLayout) clearBetween(g, l image.Rectangle) bool {
	band := image.Rect(g.Max.X, l.Min.Y, l.Min.X, l.Max.Y)
	for _, o := range lay.lines {
		if o.box != l && o.box.Overlaps(band) {
			return false
		}
	}
	for _, o := range lay.glyphs {
		if o.box != g && o.box.Overlaps(band) {
			return false
		}
	}
	return true
}

// columns groups rows whose glyphs and text starts line up, in order down
// the page, splitting where rows lie more than maxPitch apart.
func (lay *pageLayout) columns() [][]candidate {
	h := lay.h
	rows := lay.rowsOf()
	sort.Slice(rows, func(a, b int) bool {
		return lay.lines[rows[a].line].box.Min.Y < lay.lines[rows[b].line].box.Min.Y
	})
	used := make([]bool, len(rows))
	var out [][]candidate
	for i := range rows {
		if used[i] {
			continue
		}
		col := []candidate{rows[i]}
		used[i] = true
		last := rows[i]
		for j := i + 1; j < len(rows); j++ {
			if used[j] {
				continue
			}
			a, b := lay.glyphs[last.glyph].box, lay.glyphs[rows[j].glyph].box
			la, lb := lay.lines[last.line].box, lay.lines[rows[j].line].box
			if float64(lb.Min.Y-la.Max.Y) > maxPitch*h {
				break
			}
			gx := math.Abs(float64(a.Min.X+a.Max.X-b.Min.X-b.Max.X) / 2)
			// text starts line up, or (centred text) their middles
			tx := math.Min(math.Abs(float64(la.Min.X-lb.Min.X)), math.Abs(float64(la.Min.X+la.Max.X-lb.Min.X-lb.Max.X)/2))
			if gx <= align*h && tx <= align*h {
				col = append(col, rows[j])
				used[j] = true
				last = rows[j]
			}
		}
		if len(col) >= minRows {
			out = append(out, col)
		}
	}
	return out
}
