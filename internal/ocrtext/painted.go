package ocrtext

import (
	"math"
	"slices"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// A symbol's painted parts: a filled outline drawn on the lines of a
// stroked drawing (a luminaire's black quarters between its red cross
// and inside its red ring; a board's black half inside its outline) is
// no letter, though it is filled, unstroked and letter-sized. A font's
// letter is drawn on its own: hatching or a wire may cross it, but no
// stroke follows its outline. Taken for letters, the quarters chained
// with the tag above them into a line read "=O", and the tag was lost
// (building2 with its words outlined: 9 of its 20 "L4" tags).
const (
	// paintedTol is how far, in pixels, a stroke may lie from the
	// outline it follows (both drawn on one CAD line).
	paintedTol = 1.0
	// paintedSin is the sine of the largest angle between the outline
	// and the stroke following it (15°).
	paintedSin = 0.26
	// paintedShare is the least share of the outline's length that
	// strokes of its own colour must follow for it to be a painted part;
	// strokes of any colour must follow paintedShareOther of it (a
	// luminaire's black quarters on its red ring and cross: all of it).
	// A letter on a hatch of tiles (building2's P4 tags, black on grey)
	// may have a straight edge or two lying along hatch lines by chance:
	// 0.62 of a P.
	paintedShare      = 0.6
	paintedShareOther = 0.9
	// paintedBeyond is how far, in pixels, the strokes following the
	// outline must reach past its box: a letter filled and then stroked
	// along its own outline (some exports draw text twice) is followed
	// by strokes wholly inside its box, a symbol's quarter by a ring and
	// a cross that run on past it.
	paintedBeyond = 1.5
	// paintedStep is the spacing, in pixels, of the points the outline
	// is checked at, or more where that would be over paintedChecks of
	// them.
	paintedStep   = 1.0
	paintedChecks = 64
	// strokeCell is the side, in pixels, of the cells strokes are
	// indexed in; only cells that a candidate's box touches are kept.
	strokeCell = 8.0
)

// dropPainted returns the components of cs that are not a symbol's
// painted parts (see paintedShare). Only those that could pass for
// letters (letterLike) are looked at: a dot or a sliver alone is read
// with its letters or not at all.
func dropPainted(pg *drawing.Page, cs []component) []component {
	var candidates []component
	for _, c := range cs {
		if letterLike(c) {
			candidates = append(candidates, c)
		}
	}
	if len(candidates) == 0 {
		return cs
	}
	ix := newStrokeIndex(pg, candidates)
	return slices.DeleteFunc(cs, func(c component) bool { return letterLike(c) && ix.follows(c) })
}

// strokeIndex holds the page's stroked pieces by the cells they pass
// through, for the cells near candidate outlines only.
type strokeIndex struct {
	pg *drawing.Page
	// slot maps each strokeCell-sided cell of the page, row by row
	// (cellsW a row), to its list in lists, or -1 where no candidate is
	// near: a slice, not a map, for the hundreds of thousands of
	// look-ups a page of hatching takes.
	slot   []int32
	cellsW int
	lists  [][]piece
	// coarse marks the coarseCell-sided cells within one of a kept
	// cell, row by row (coarseW a row): a stroke is walked cell by cell
	// only where it passes through a marked one (hatching far from any
	// text is skipped in one look a piece).
	coarse  []bool
	coarseW int
}

// coarseCell is the side, in pixels, of the cells that tell which
// strokes are worth indexing.
const coarseCell = 64.0

// slotOf is the index into slot of cell k, -1 off the page.
func (ix *strokeIndex) slotOf(k [2]int32) int {
	if k[0] < 0 || k[1] < 0 || int(k[0]) >= ix.cellsW {
		return -1
	}
	if i := int(k[1])*ix.cellsW + int(k[0]); i < len(ix.slot) {
		return i
	}
	return -1
}

// list is the index into lists of cell k's strokes, -1 where no
// candidate is near it.
func (ix *strokeIndex) list(k [2]int32) int32 {
	if i := ix.slotOf(k); i >= 0 {
		return ix.slot[i]
	}
	return -1
}

// nearText reports whether p lies in a marked coarse cell: within a
// coarse cell of some candidate outline.
func (ix *strokeIndex) nearText(p glyph.Point) bool {
	x, y := int(math.Floor(p.X/coarseCell)), int(math.Floor(p.Y/coarseCell))
	if x < 0 || y < 0 || x >= ix.coarseW || y*ix.coarseW+x >= len(ix.coarse) {
		return false
	}
	return ix.coarse[y*ix.coarseW+x]
}

// cellOf is the strokeCell-sided cell holding p.
func cellOf(p glyph.Point) [2]int32 {
	return [2]int32{int32(math.Floor(p.X / strokeCell)), int32(math.Floor(p.Y / strokeCell))}
}

// newStrokeIndex indexes the stroked pieces of pg that pass within a
// cell of the boxes of cs.
func newStrokeIndex(pg *drawing.Page, cs []component) *strokeIndex {
	ix := &strokeIndex{pg: pg, cellsW: int(pg.Width/strokeCell) + 2}
	ix.slot = make([]int32, ix.cellsW*(int(pg.Height/strokeCell)+2))
	for k := range ix.slot {
		ix.slot[k] = -1
	}
	ix.coarseW = int(pg.Width/coarseCell) + 2
	ix.coarse = make([]bool, ix.coarseW*(int(pg.Height/coarseCell)+2))
	for _, c := range cs {
		lo := glyph.Point{X: c.min.X - paintedTol, Y: c.min.Y - paintedTol}
		hi := glyph.Point{X: c.max.X + paintedTol, Y: c.max.Y + paintedTol}
		a, b := cellOf(lo), cellOf(hi)
		for x := a[0]; x <= b[0]; x++ {
			for y := a[1]; y <= b[1]; y++ {
				if k := ix.slotOf([2]int32{x, y}); k >= 0 && ix.slot[k] < 0 {
					ix.slot[k] = int32(len(ix.lists))
					ix.lists = append(ix.lists, nil)
				}
			}
		}
		// The coarse cells of those cells' extent, and one round them.
		x0, y0 := int(math.Floor(float64(a[0])*strokeCell/coarseCell)), int(math.Floor(float64(a[1])*strokeCell/coarseCell))
		x1, y1 := int(math.Floor(float64(b[0])*strokeCell/coarseCell)), int(math.Floor(float64(b[1])*strokeCell/coarseCell))
		for x := max(x0-1, 0); x <= min(x1+1, ix.coarseW-1); x++ {
			for y := max(y0-1, 0); y <= y1+1; y++ {
				if k := y*ix.coarseW + x; k < len(ix.coarse) {
					ix.coarse[k] = true
				}
			}
		}
	}
	add := func(p piece, pts func(step float64, f func(glyph.Point))) {
		// Every point of the piece lies within step/2 of a point walked,
		// so a cell within reach of one holds each piece passing within
		// paintedTol of any of its points.
		const step = strokeCell / 2
		const reach = step/2 + paintedTol
		pts(step, func(q glyph.Point) {
			if !ix.nearText(q) {
				return // a long wall's stretch far from any letter
			}
			a := cellOf(glyph.Point{X: q.X - reach, Y: q.Y - reach})
			b := cellOf(glyph.Point{X: q.X + reach, Y: q.Y + reach})
			for x := a[0]; x <= b[0]; x++ {
				for y := a[1]; y <= b[1]; y++ {
					if l := ix.list([2]int32{x, y}); l >= 0 && (len(ix.lists[l]) == 0 || ix.lists[l][len(ix.lists[l])-1] != p) {
						ix.lists[l] = append(ix.lists[l], p)
					}
				}
			}
		})
	}
	for i, s := range pg.Segments {
		p := piece{i: int32(i)}
		if !ix.segmentNearText(s) || filledPiece(pg, p) {
			continue
		}
		add(p, func(step float64, f func(glyph.Point)) { segmentPoints(s, step, f) })
	}
	for i, a := range pg.Arcs {
		p := piece{i: int32(i), arc: true}
		near := false
		arcPoints(a, coarseCell/2, func(q glyph.Point) { near = near || ix.nearText(q) })
		if !near || filledPiece(pg, p) {
			continue
		}
		add(p, func(step float64, f func(glyph.Point)) { arcPoints(a, step, f) })
	}
	return ix
}

// segmentNearText reports whether s passes through a marked coarse cell.
func (ix *strokeIndex) segmentNearText(s drawing.Segment) bool {
	// Points half a cell apart along either axis (no Hypot: hatching
	// passes here by the hundred thousand).
	n := int(max(math.Abs(s.B.X-s.A.X), math.Abs(s.B.Y-s.A.Y))/(coarseCell/2)) + 1
	for k := 0; k <= n; k++ {
		t := float64(k) / float64(n)
		if ix.nearText(glyph.Point{X: s.A.X + t*(s.B.X-s.A.X), Y: s.A.Y + t*(s.B.Y-s.A.Y)}) {
			return true
		}
	}
	return false
}

// segmentPoints calls f with points along s about step apart, both ends
// included.
func segmentPoints(s drawing.Segment, step float64, f func(glyph.Point)) {
	n := max(1, int(math.Ceil(math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y)/step)))
	for k := 0; k <= n; k++ {
		t := float64(k) / float64(n)
		f(glyph.Point{X: s.A.X + t*(s.B.X-s.A.X), Y: s.A.Y + t*(s.B.Y-s.A.Y)})
	}
}

// arcPoints calls f with points along a about step apart, both ends
// included.
func arcPoints(a drawing.Arc, step float64, f func(glyph.Point)) {
	n := max(1, int(math.Ceil(math.Abs(a.Sweep)*math.Pi/180*a.R/step)))
	for k := 0; k <= n; k++ {
		s, c := math.Sincos((a.Start + a.Sweep*float64(k)/float64(n)) * math.Pi / 180)
		f(glyph.Point{X: a.C.X + a.R*c, Y: a.C.Y + a.R*s})
	}
}

// follows reports whether strokes follow c's outline (paintedShare,
// paintedShareOther) and reach paintedBeyond past its box.
func (ix *strokeIndex) follows(c component) bool {
	// No stroke near: a letter on clear paper (most of them).
	a, b := cellOf(c.min), cellOf(c.max)
	any := false
	for x := a[0]; x <= b[0] && !any; x++ {
		for y := a[1]; y <= b[1] && !any; y++ {
			l := ix.list([2]int32{x, y})
			any = l >= 0 && len(ix.lists[l]) > 0
		}
	}
	if !any {
		return false
	}
	// The walk stops once what no stroke follows rules the share out.
	perimeter := 0.0
	for _, p := range c.pieces {
		if p.arc {
			a := ix.pg.Arcs[p.i]
			perimeter += math.Abs(a.Sweep) * math.Pi / 180 * a.R
		} else {
			s := ix.pg.Segments[p.i]
			perimeter += math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y)
		}
	}
	step := max(paintedStep, perimeter/paintedChecks)
	paint := styleOf(ix.pg, c.pieces[0]).Fill
	var total, along, alongSame float64
	beyond, lost := false, false
	lo := glyph.Point{X: c.min.X - paintedBeyond, Y: c.min.Y - paintedBeyond}
	hi := glyph.Point{X: c.max.X + paintedBeyond, Y: c.max.Y + paintedBeyond}
	outside := func(q glyph.Point) bool { return q.X < lo.X || q.Y < lo.Y || q.X > hi.X || q.Y > hi.Y }
	check := func(q, d glyph.Point, w float64) {
		if lost {
			return
		}
		total += w
		if l := ix.list(cellOf(q)); l >= 0 {
			followed := false
			for _, sp := range ix.lists[l] {
				ok, out := ix.near(sp, q, d, outside)
				if !ok {
					continue
				}
				if !followed {
					along += w
					followed = true
				}
				beyond = beyond || out
				if styleOf(ix.pg, sp).Stroke == paint {
					alongSame += w
					break
				}
			}
		}
		lost = total-along > (1-paintedShare)*perimeter
	}
	for _, p := range c.pieces {
		if p.arc {
			a := ix.pg.Arcs[p.i]
			n := max(2, int(math.Ceil(math.Abs(a.Sweep)*math.Pi/180*a.R/step)))
			w := math.Abs(a.Sweep) * math.Pi / 180 * a.R / float64(n)
			for k := range n {
				ang := (a.Start + a.Sweep*(float64(k)+0.5)/float64(n)) * math.Pi / 180
				s, co := math.Sincos(ang)
				check(glyph.Point{X: a.C.X + a.R*co, Y: a.C.Y + a.R*s}, glyph.Point{X: -s, Y: co}, w)
			}
			continue
		}
		s := ix.pg.Segments[p.i]
		l := math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y)
		if l == 0 {
			continue
		}
		n := max(2, int(math.Ceil(l/step)))
		d := glyph.Point{X: (s.B.X - s.A.X) / l, Y: (s.B.Y - s.A.Y) / l}
		for k := range n {
			t := (float64(k) + 0.5) / float64(n)
			check(glyph.Point{X: s.A.X + t*(s.B.X-s.A.X), Y: s.A.Y + t*(s.B.Y-s.A.Y)}, d, l/float64(n))
		}
	}
	return !lost && total > 0 && beyond && (alongSame >= paintedShare*total || along >= paintedShareOther*total)
}

// near reports whether the stroked piece sp passes within paintedTol of
// q running along d (within paintedSin), and whether it reaches outside
// (a point of it for which outside is true).
func (ix *strokeIndex) near(sp piece, q, d glyph.Point, outside func(glyph.Point) bool) (ok, out bool) {
	if sp.arc {
		a := ix.pg.Arcs[sp.i]
		dx, dy := q.X-a.C.X, q.Y-a.C.Y
		r := math.Hypot(dx, dy)
		if r == 0 || math.Abs(r-a.R) > paintedTol {
			return false, false
		}
		if !a.Covers(math.Atan2(dy, dx)*180/math.Pi, 0) {
			return false, false
		}
		// The arc's tangent at q is across its radius.
		if math.Abs(dx/r*d.X+dy/r*d.Y) > paintedSin {
			return false, false
		}
		return true, outside(glyph.Point{X: a.C.X - a.R, Y: a.C.Y - a.R}) || outside(glyph.Point{X: a.C.X + a.R, Y: a.C.Y + a.R})
	}
	s := ix.pg.Segments[sp.i]
	l := math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y)
	if l == 0 {
		return false, false
	}
	u := glyph.Point{X: (s.B.X - s.A.X) / l, Y: (s.B.Y - s.A.Y) / l}
	if math.Abs(u.X*d.Y-u.Y*d.X) > paintedSin {
		return false, false
	}
	px, py := q.X-s.A.X, q.Y-s.A.Y
	t := px*u.X + py*u.Y
	if t < -paintedTol || t > l+paintedTol || math.Abs(px*u.Y-py*u.X) > paintedTol {
		return false, false
	}
	return true, outside(s.A) || outside(s.B)
}
