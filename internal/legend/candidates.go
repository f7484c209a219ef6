package legend

import (
	"fmt"
	"math"
	"sort"

	"blueprint/internal/glyph"
	"blueprint/internal/unionfind"
)

// cluster is the drawing of one glyph candidate.
type cluster struct {
	pieces []int32
	box    Rect
}

// glyphLeftOf returns the cluster of small drawn pieces nearest to the
// left of x on the row whose text runs through [y0, y1], reaching at most
// reach pixels. Pieces are first taken by their centres in the band; a
// glyph taller than its text (a box, a diamond) also has pieces wholly
// above and below it, so the cluster of every piece that meets the band,
// up to the rules above and below the row (or 3 em where none is drawn),
// is taken whole.
func (ix *pageIndex) glyphLeftOf(x, y0, y1, reach, em float64, c rowCap) (cluster, bool) {
	band, ok := ix.glyphIn(Rect{glyph.Point{X: x - reach, Y: y0}, glyph.Point{X: x, Y: y1}}, y0, y1, em, false)
	top, bottom := ix.rulesAround(x, y0, y1, em, band, ok)
	// A row ends halfway to the next row's text at the latest (an
	// unruled legend's glyphs stand close above one another, and the
	// edge of one is no rule of the next), give or take capSlackEm (a
	// glyph beside a wrapped description reaches past the halfway line
	// below its first line).
	top, bottom = math.Max(top, c.top-capSlackEm*em), math.Min(bottom, c.bottom+capSlackEm*em)
	whole, wok := ix.glyphIn(Rect{glyph.Point{X: x - reach, Y: top - 0.1*em}, glyph.Point{X: x, Y: bottom + 0.1*em}}, y0, y1, em, true)
	if !wok || (ok && whole.box.Max.X < band.box.Max.X) {
		return band, ok
	}
	return whole, true
}

// glyphIn clusters the small pieces in area and returns the nearest to
// the right that is not thin and has a piece meeting [y0, y1] (with
// whole, pieces must lie wholly in area; otherwise their centres do).
func (ix *pageIndex) glyphIn(area Rect, y0, y1, em float64, whole bool) (cluster, bool) {
	var cand []int32
	ix.piecesIn(area, func(i int32) {
		p := ix.pieces[i]
		if p.size <= maxPieceEm*em && (!whole || (p.box.Min.Y >= area.Min.Y && p.box.Max.Y <= area.Max.Y)) && !ix.cellSide(p, em) {
			cand = append(cand, i)
		}
	})
	if whole {
		cand = ix.withoutEscaping(cand, area, em)
	}
	if len(cand) == 0 {
		return cluster{}, false
	}
	cs := clusterPieces(ix, cand, clusterGap*em)
	best := -1
	for k, c := range cs {
		// A thin cluster is a rule between cells or a leader line.
		if math.Min(c.box.w(), c.box.h()) < 0.25*em {
			continue
		}
		meets := false
		for _, i := range c.pieces {
			b := ix.pieces[i].box
			if b.Max.Y >= y0 && b.Min.Y <= y1 {
				meets = true
				break
			}
		}
		if !meets {
			continue
		}
		if best < 0 || c.box.Max.X > cs[best].box.Max.X {
			best = k
		}
	}
	if best < 0 {
		return cluster{}, false
	}
	return cs[best], true
}

// withoutEscaping drops from cand (pieces wholly inside area) the line
// pieces joined end to end to a small piece that runs out of area above or
// below: part of a figure the row's bounds cut, such as the top edge of
// the next row's boxed glyph reaching up past the halfway line, which
// belongs to that glyph, not to this row's.
func (ix *pageIndex) withoutEscaping(cand []int32, area Rect, em float64) []int32 {
	reach := maxPieceEm * em
	var ends []glyph.Point
	ix.piecesIn(Rect{glyph.Point{X: area.Min.X, Y: area.Min.Y - reach}, glyph.Point{X: area.Max.X, Y: area.Max.Y + reach}}, func(i int32) {
		p := ix.pieces[i]
		if p.seg < 0 || p.size > reach || (p.box.Min.Y >= area.Min.Y && p.box.Max.Y <= area.Max.Y) ||
			p.box.Max.Y < area.Min.Y || p.box.Min.Y > area.Max.Y || ix.cellSide(p, em) {
			return
		}
		s := ix.pg.Segments[p.seg]
		ends = append(ends, s.A, s.B)
	})
	if len(ends) == 0 {
		return cand
	}
	// Ends by the joinPx cell they lie in: a point meets an end in its
	// cell or a neighbouring one.
	const joinPx = 1.0
	type cellKey struct{ x, y int }
	key := func(p glyph.Point) cellKey {
		return cellKey{int(math.Floor(p.X / joinPx)), int(math.Floor(p.Y / joinPx))}
	}
	byCell := map[cellKey][]glyph.Point{}
	for _, e := range ends {
		byCell[key(e)] = append(byCell[key(e)], e)
	}
	joined := func(q glyph.Point) bool {
		k := key(q)
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				for _, e := range byCell[cellKey{k.x + dx, k.y + dy}] {
					if math.Abs(e.X-q.X) <= joinPx && math.Abs(e.Y-q.Y) <= joinPx {
						return true
					}
				}
			}
		}
		return false
	}
	out := cand[:0]
	for _, i := range cand {
		if p := ix.pieces[i]; p.seg >= 0 {
			s := ix.pg.Segments[p.seg]
			if joined(s.A) || joined(s.B) {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// clusterPieces groups pieces whose boxes come within gap of each other.
func clusterPieces(ix *pageIndex, idx []int32, gap float64) []cluster {
	set := unionfind.New[int](len(idx))
	sort.Slice(idx, func(a, b int) bool { return ix.pieces[idx[a]].box.Min.X < ix.pieces[idx[b]].box.Min.X })
	for a := range idx {
		ba := ix.pieces[idx[a]].box
		for b := a + 1; b < len(idx); b++ {
			bb := ix.pieces[idx[b]].box
			if bb.Min.X > ba.Max.X+gap {
				break
			}
			if bb.Min.Y <= ba.Max.Y+gap && ba.Min.Y <= bb.Max.Y+gap {
				set.Join(a, b)
			}
		}
	}
	groups := map[int]*cluster{}
	var order []int
	for a, i := range idx {
		r := set.Find(a)
		c, ok := groups[r]
		if !ok {
			c = &cluster{box: emptyRect()}
			groups[r] = c
			order = append(order, r)
		}
		c.pieces = append(c.pieces, i)
		c.box = c.box.union(ix.pieces[i].box)
	}
	out := make([]cluster, 0, len(order))
	for _, r := range order {
		out = append(out, *groups[r])
	}
	return out
}

// candidate is a text run with a glyph to its left.
type candidate struct {
	run   int
	glyph cluster
	em    float64
}

// glyphColumns finds the glyph candidates of ix's page, one per glyph
// (the drawing left of an upright run of two or more letters, neither
// too small for a glyph nor crossed by a long line), and groups them in
// columns (columns). Where pe is not nil it also records there the runs
// that looked for a glyph (TextRuns), those that found no drawing
// (NoGlyph), and each run that found some (Candidates), with the reason
// where it is no glyph candidate.
func (ix *pageIndex) glyphColumns(pe *PageExplanation) [][]candidate {
	caps := rowCaps(ix.runs)
	var cands []candidate
	for i := range ix.runs {
		r := &ix.runs[i]
		if !r.upright() || (r.letters() < 2 && !r.count()) {
			continue
		}
		if pe != nil {
			pe.TextRuns++
		}
		em := r.size
		cy := (r.min.Y + r.max.Y) / 2
		c, ok := ix.glyphLeftOf(r.min.X-0.2*em, cy-0.8*em, cy+0.8*em, glyphReach*em, em, caps[i])
		if !ok {
			if pe != nil {
				pe.NoGlyph++
			}
			continue
		}
		small := math.Max(c.box.w(), c.box.h()) < 0.5*em || math.Min(c.box.w(), c.box.h()) < 0.25*em
		// Drawing that runs through it: part of a plan, not a key.
		crossed := !small && ix.crossed(c.box, em)
		outside := !small && !crossed && ix.outsideRules(c.box, r, em)
		if pe != nil {
			k := Candidate{Text: clip(r.text), Glyph: c.box}
			switch {
			case small:
				k.Rejected = fmt.Sprintf("the drawing to its left is too small for a glyph (%.0f × %.0f px; the text is %.0f px high)", c.box.w(), c.box.h(), em)
			case crossed:
				k.Rejected = "a long line (a wall, a wire) runs through the drawing: a symbol on a plan, not a key"
			case outside:
				k.Rejected = "the rules above and below the text end before the drawing: it lies outside the text's table"
			}
			pe.Candidates = append(pe.Candidates, k)
		}
		if !small && !crossed && !outside {
			cands = append(cands, candidate{run: i, glyph: c, em: em})
		}
	}
	// One entry per glyph: several runs (tags, the description) may have
	// found the same drawing.
	type gkey struct{ x, y int }
	byGlyph := map[gkey]int{}
	var glyphs []candidate
	for _, c := range cands {
		k := gkey{int(math.Round(c.glyph.box.Min.X)), int(math.Round(c.glyph.box.Min.Y))}
		if j, ok := byGlyph[k]; ok {
			// The same drawing seen from another run: keep the
			// fuller view of it (text inside a glyph hides part of it).
			em := math.Max(c.em, glyphs[j].em)
			if area(c.glyph.box) > area(glyphs[j].glyph.box) {
				glyphs[j] = c
			}
			glyphs[j].em = em
			continue
		}
		byGlyph[k] = len(glyphs)
		glyphs = append(glyphs, c)
	}
	return columns(glyphs)
}

// columns groups glyph candidates into vertical runs: centres chained in x
// within columnChain em, then split where the vertical gap is unusual.
func columns(gs []candidate) [][]candidate {
	sort.Slice(gs, func(a, b int) bool { return gs[a].glyph.box.centre().X < gs[b].glyph.box.centre().X })
	var out [][]candidate
	for a := 0; a < len(gs); {
		b := a + 1
		for b < len(gs) && gs[b].glyph.box.centre().X-gs[b-1].glyph.box.centre().X <= columnChain*gs[b].em {
			b++
		}
		col := append([]candidate(nil), gs[a:b]...)
		a = b
		sort.Slice(col, func(p, q int) bool { return col[p].glyph.box.centre().Y < col[q].glyph.box.centre().Y })
		// Pieces of one glyph found from different runs of its row
		// (a strobe's rays, a speaker's horn) are one glyph.
		merged := col[:0]
		for _, c := range col {
			if k := len(merged) - 1; k >= 0 {
				p := &merged[k]
				ov := math.Min(p.glyph.box.Max.Y, c.glyph.box.Max.Y) - math.Max(p.glyph.box.Min.Y, c.glyph.box.Min.Y)
				if ov > 0.5*math.Min(p.glyph.box.h(), c.glyph.box.h()) {
					p.glyph.box = p.glyph.box.union(c.glyph.box)
					p.glyph.pieces = append(p.glyph.pieces, c.glyph.pieces...)
					p.em = math.Max(p.em, c.em)
					continue
				}
			}
			merged = append(merged, c)
		}
		col = merged
		// Split at gaps much larger than the typical pitch.
		var pitches []float64
		for i := 1; i < len(col); i++ {
			pitches = append(pitches, col[i].glyph.box.centre().Y-col[i-1].glyph.box.centre().Y)
		}
		// The typical pitch is that of the closest rows (a column may run
		// on into unrelated drawing far below); a gap of a row or two
		// (a row without a glyph) stays inside the table.
		pitch := quantile(pitches, 0.25)
		s := 0
		for i := 1; i <= len(col); i++ {
			if i == len(col) || col[i].glyph.box.centre().Y-col[i-1].glyph.box.centre().Y > math.Max(3.2*pitch, 3*col[i].em) {
				out = append(out, col[s:i])
				s = i
			}
		}
	}
	return out
}

// rowCap bounds a row of text above and below: halfway to the nearest
// text above or below it, over the row and the reach of its glyph, at
// least rowCapEm em away (a description's own wrapped line is nearer).
type rowCap struct{ top, bottom float64 }

const rowCapEm = 2.0

// capSlackEm is how far past its row's cap a glyph may reach.
const capSlackEm = 0.25

func rowCaps(rs []run) []rowCap {
	caps := make([]rowCap, len(rs))
	order := make([]int, len(rs))
	cy := make([]float64, len(rs))
	for i := range rs {
		order[i] = i
		cy[i] = (rs[i].min.Y + rs[i].max.Y) / 2
		caps[i] = rowCap{math.Inf(-1), math.Inf(1)}
	}
	sort.Slice(order, func(a, b int) bool { return cy[order[a]] < cy[order[b]] })
	// nearest finds, from position p in order going by step, the first
	// upright run over [x0, x1] at least near and at most far away.
	nearest := func(p, step int, x0, x1, near, far float64) (float64, bool) {
		i := order[p]
		for q := p + step; q >= 0 && q < len(order); q += step {
			j := order[q]
			d := math.Abs(cy[j] - cy[i])
			if d > far {
				break
			}
			o := &rs[j]
			if d < near || !o.upright() || o.max.X < x0 || o.min.X > x1 {
				continue
			}
			return (cy[i] + cy[j]) / 2, true
		}
		return 0, false
	}
	for p, i := range order {
		r := &rs[i]
		if !r.upright() {
			continue
		}
		x0, near, far := r.min.X-glyphReach*r.size, rowCapEm*r.size, maxPitchEm*r.size
		if y, ok := nearest(p, 1, x0, r.max.X, near, far); ok {
			caps[i].bottom = y
		}
		if y, ok := nearest(p, -1, x0, r.max.X, near, far); ok {
			caps[i].top = y
		}
	}
	return caps
}
