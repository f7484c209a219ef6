package legend

import (
	"math"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/unionfind"
)

// titleWords are the words of a title block (the sheet's frame of
// project, drawing number, revision, scale and signatures).
var titleWords = []string{"DRAWING", "DRAWN", "CHECKED", "APPROVED", "SCALE", "DATE", "REV", "REV.", "REVISION",
	"PROJECT", "CLIENT", "SHEET", "TITLE", "JOB NO", "PAGE SIZE", "OWNER", "OWNERS", "ENGINEER", "ARCHITECT",
	"CONSULTANT", "SIGNED", "DESIGNED", "ISSUE", "STATUS"}

// Title block finding: at least minTitleRuns runs writing title words,
// each within titleSpanEm em of another.
const (
	minTitleRuns = 3
	titleSpanEm  = 25.0
)

// titleBlock returns the extent of the page's title block: the largest
// cluster of runs writing title words (minTitleRuns of them at least,
// chained within titleSpanEm em), grown by 2 em. Text there (a page
// size "A1", a revision "B2") is never a tag.
func titleBlock(rs []run) (Rect, bool) {
	var idx []int
	for i := range rs {
		if hasWord(rs[i].text, titleWords) {
			idx = append(idx, i)
		}
	}
	if len(idx) < minTitleRuns {
		return Rect{}, false
	}
	set := unionfind.New[int](len(idx))
	for a := range idx {
		for b := range a {
			ra, rb := &rs[idx[a]], &rs[idx[b]]
			reach := titleSpanEm * math.Max(ra.size, rb.size)
			if rectGap(Rect{ra.min, ra.max}, Rect{rb.min, rb.max}) <= reach {
				set.Join(a, b)
			}
		}
	}
	size := map[int]int{}
	best := -1
	for a := range idx {
		k := set.Find(a)
		size[k]++
		if best < 0 || size[k] > size[best] {
			best = k
		}
	}
	if size[best] < minTitleRuns {
		return Rect{}, false
	}
	box := emptyRect()
	em := 0.0
	for a, i := range idx {
		if set.Find(a) == best {
			box = box.union(Rect{rs[i].min, rs[i].max})
			em = math.Max(em, rs[i].size)
		}
	}
	return Rect{glyph.Point{X: box.Min.X - 2*em, Y: box.Min.Y - 2*em}, glyph.Point{X: box.Max.X + 2*em, Y: box.Max.Y + 2*em}}, true
}

// Where a title block stands: a cluster of title words is the sheet's
// title block only when it reaches within titleEdgeShare of the page's
// right or bottom edge (a title column or strip; the words "scale" and
// "title" under a plan's view title are not one) and spans at most
// titleSpanShare of the page across in one direction.
const (
	titleEdgeShare = 0.1
	titleSpanShare = 0.4
)

// sheetTitleBlock is titleBlock kept only where it stands as a sheet's
// title block does: at the right or bottom edge of the page, a column or
// a strip. Matches there are not devices (Document.InTitle); the stricter
// test keeps a cluster of title words in the middle of a plan from hiding
// the plan's devices.
func sheetTitleBlock(pg *drawing.Page, rs []run) (Rect, bool) {
	if pg == nil || pg.Width <= 0 || pg.Height <= 0 {
		return Rect{}, false
	}
	r, ok := titleBlock(rs)
	if !ok {
		return Rect{}, false
	}
	atEdge := r.Max.X >= (1-titleEdgeShare)*pg.Width || r.Max.Y >= (1-titleEdgeShare)*pg.Height
	narrow := r.w() <= titleSpanShare*pg.Width || r.h() <= titleSpanShare*pg.Height
	if !atEdge || !narrow {
		return Rect{}, false
	}
	return r, true
}
