package vector

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// circleFeat is a set of page arcs on one circle.
type circleFeat struct {
	c     glyph.Point
	r     float64
	sweep float64 // total, degrees
}

type cornerFeat struct {
	v      glyph.Point
	a1, a2 glyph.Point // far ends of the two arms
}

// pageIndex is one page's geometry prepared for queries. It lives only
// while the page is matched.
type pageIndex struct {
	pg *drawing.Page
	// segs holds, per segment of pg, what coverage tests read of it,
	// side by side in memory (segCovers is the matcher's hottest loop).
	segs    []segGeom
	pieces  *grid // segments 0..n-1, then arcs
	keys    []glyph.Point
	keyGrid *grid
	circles []circleFeat
	corners []cornerFeat
	chars   *grid
	// cornerArms are the corner readings bucketed by cornerBucket;
	// bucket k is cornerArms[cornerStart[k]:cornerStart[k+1]]. Built on
	// first use (hashCorners), with corners.
	cornerStart []int32
	cornerArms  []cornerArms
	// fittingArms are the corners of rectangles outlined by two parallel
	// segments (hashFittingCorners), for tube fittings' stretched search.
	fittingArms []cornerArms
	// verified counts pose verifications (the matcher's unit of work).
	verified atomic.Int64
}

func newPageIndex(pg *drawing.Page) *pageIndex {
	pg = withoutHatching(pg)
	ix := &pageIndex{pg: pg}
	ns := len(pg.Segments)
	ix.segs = make([]segGeom, ns)
	for i, s := range pg.Segments {
		l := math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y)
		g := segGeom{a: s.A, l: l, style: s.Style}
		if l > 0 {
			g.dir = glyph.Point{X: (s.B.X - s.A.X) / l, Y: (s.B.Y - s.A.Y) / l}
		}
		ix.segs[i] = g
	}
	ix.pieces = buildGrid(pg.Width, pg.Height, cellPx, ns+len(pg.Arcs), func(i int, add func(glyph.Point)) {
		if i < ns {
			s := pg.Segments[i]
			walkCells([]glyph.Point{s.A, s.B}, add)
			return
		}
		walkCells(arcPoints(pg.Arcs[i-ns]), add)
	})
	for _, s := range pg.Segments {
		ix.keys = append(ix.keys, s.A, s.B)
	}
	for _, a := range pg.Arcs {
		if math.Abs(a.Sweep) < 359 {
			s, e := a.Start*math.Pi/180, (a.Start+a.Sweep)*math.Pi/180
			ix.keys = append(ix.keys,
				glyph.Point{X: a.C.X + a.R*math.Cos(s), Y: a.C.Y + a.R*math.Sin(s)},
				glyph.Point{X: a.C.X + a.R*math.Cos(e), Y: a.C.Y + a.R*math.Sin(e)})
		}
	}
	ix.keyGrid = buildGrid(pg.Width, pg.Height, pointCellPx, len(ix.keys), func(i int, add func(glyph.Point)) {
		add(ix.keys[i])
	})
	ix.chars = buildGrid(pg.Width, pg.Height, pointCellPx, len(pg.Chars), func(i int, add func(glyph.Point)) {
		c := pg.Chars[i]
		add(glyph.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2})
	})
	ix.buildCircles()
	return ix
}

// buildCircles groups arcs that lie on one circle (a circle written as
// separate curves, or split by an exporter) into circle features.
func (ix *pageIndex) buildCircles() {
	arcs := ix.pg.Arcs
	type key struct{ x, y int }
	byCentre := map[key][]int{}
	for i, a := range arcs {
		k := key{int(math.Floor(a.C.X / 2)), int(math.Floor(a.C.Y / 2))}
		byCentre[k] = append(byCentre[k], i)
	}
	used := make([]bool, len(arcs))
	for i, a := range arcs {
		if used[i] {
			continue
		}
		used[i] = true
		f := circleFeat{c: a.C, r: a.R, sweep: math.Abs(a.Sweep)}
		tol := drawing.ArcFitTol + 2*drawing.ArcFitRel*a.R + 0.5
		k := key{int(math.Floor(a.C.X / 2)), int(math.Floor(a.C.Y / 2))}
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				for _, j := range byCentre[key{k.x + dx, k.y + dy}] {
					b := arcs[j]
					if used[j] || math.Hypot(b.C.X-a.C.X, b.C.Y-a.C.Y) > tol || math.Abs(b.R-a.R) > tol {
						continue
					}
					used[j] = true
					f.sweep += math.Abs(b.Sweep)
				}
			}
		}
		f.sweep = math.Min(f.sweep, 360)
		ix.circles = append(ix.circles, f)
	}
}

// buildCorners finds pairs of segments that share an end (none at hubs of
// more than maxEndsNear ends). The ends are filed by their endpointTolPx
// cell in one sorted list (a page holds hundreds of thousands: a map
// probed nine times twice per end cost seconds on an A1 sheet) and read
// in that order, the cells around an end being three runs of the list,
// one per row, whose bounds only move forward. The corners are then put
// in the order of their first segment's end, each end's in the order of
// the rows and columns around it, as a walk over the segments would give
// them.
func (ix *pageIndex) buildCorners() {
	segs := ix.pg.Segments
	type end struct {
		key int64
		e   int32 // 2*seg + end
	}
	const off = 1 << 30
	cellOf := func(v float64) int64 {
		c := math.Floor(v / endpointTolPx)
		return int64(min(off-2, max(2-off, c))) + off // NaN reads as the low bound
	}
	keyOf := func(cx, cy int64) int64 { return cy<<32 | cx }
	ends := make([]end, 0, 2*len(segs))
	for i, s := range segs {
		if ix.segs[i].l < minCornerArmPx {
			continue
		}
		ends = append(ends,
			end{keyOf(cellOf(s.A.X), cellOf(s.A.Y)), int32(2 * i)},
			end{keyOf(cellOf(s.B.X), cellOf(s.B.Y)), int32(2*i + 1)})
	}
	slices.SortFunc(ends, func(a, b end) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return cmp.Compare(a.e, b.e)
	})
	endPt := func(e int32) (glyph.Point, glyph.Point) {
		s := segs[e/2]
		if e%2 == 0 {
			return s.A, s.B
		}
		return s.B, s.A
	}
	type found struct {
		e   int32
		seq int32 // order among e's corners
		c   cornerFeat
	}
	var out []found
	// lo[r], hi[r] bound the ends in cells cx-1..cx+1 of row cy+r-1.
	var lo, hi [3]int
	for _, me := range ends {
		for r := range lo {
			dy := int64(r-1) << 32
			for lo[r] < len(ends) && ends[lo[r]].key < me.key+dy-1 {
				lo[r]++
			}
			hi[r] = max(hi[r], lo[r])
			for hi[r] < len(ends) && ends[hi[r]].key <= me.key+dy+1 {
				hi[r]++
			}
		}
		if hi[0]-lo[0]+hi[1]-lo[1]+hi[2]-lo[2] > maxEndsNear {
			continue
		}
		v, far1 := endPt(me.e)
		seq := int32(0)
		for r := range lo {
			for _, f := range ends[lo[r]:hi[r]] {
				if f.e/2 <= me.e/2 {
					continue // each unordered pair once
				}
				w, far2 := endPt(f.e)
				if math.Hypot(v.X-w.X, v.Y-w.Y) > endpointTolPx {
					continue
				}
				out = append(out, found{me.e, seq, cornerFeat{v: v, a1: far1, a2: far2}})
				seq++
			}
		}
	}
	slices.SortFunc(out, func(a, b found) int {
		if a.e != b.e {
			return cmp.Compare(a.e, b.e)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	ix.corners = make([]cornerFeat, len(out))
	for i, f := range out {
		ix.corners[i] = f.c
	}
}

// fillNeed is what page geometry must be filled with to cover a sample.
type fillNeed uint8

const (
	fillNone fillNeed = iota // stroked or filled, anything covers
	fillAny                  // any fill, paper-coloured masks included
	fillInk                  // a fill that shows on the paper
)

// needOf is what covers a sample of t: fillNone for a stroked sample.
func needOf(t *prepared, fill bool) fillNeed {
	switch {
	case !fill:
		return fillNone
	case t.inkFill:
		return fillInk
	}
	return fillAny
}

// covers reports whether st satisfies need.
func (need fillNeed) covers(st drawing.Style) bool {
	switch need {
	case fillAny:
		return st.Fill != ""
	case fillInk:
		return st.InkFill()
	}
	return true
}

// covered reports whether page geometry passes within tol of p with a
// direction close to the unit tangent t, filled as fill needs.
func (ix *pageIndex) covered(p, t glyph.Point, tol float64, fill fillNeed) bool {
	g := ix.pieces
	ns := int32(len(ix.pg.Segments))
	x0, x1 := max(0, int((p.X-tol)/g.cell)), min(g.nx-1, int((p.X+tol)/g.cell))
	y0, y1 := max(0, int((p.Y-tol)/g.cell)), min(g.ny-1, int((p.Y+tol)/g.cell))
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			c := y*g.nx + x
			for _, i := range g.items[g.start[c]:g.start[c+1]] {
				if i < ns {
					if ix.segCovers(i, p, t, tol, fill) {
						return true
					}
				} else if ix.arcCovers(i-ns, p, t, tol, fill) {
					return true
				}
			}
		}
	}
	return false
}

func (ix *pageIndex) segCovers(i int32, p, t glyph.Point, tol float64, fill fillNeed) bool {
	s := &ix.segs[i]
	d, l := s.dir, s.l
	px, py := p.X-s.a.X, p.Y-s.a.Y
	u := px*d.X + py*d.Y
	if u < -tol || u > l+tol {
		return false
	}
	if math.Abs(px*d.Y-py*d.X) > tol {
		return false
	}
	if l > 2*tol && math.Abs(t.X*d.Y-t.Y*d.X) > maxTurnSin {
		return false
	}
	return fill.covers(ix.pg.Styles[s.style])
}

// segGeom is a page segment as coverage tests read it: its start, unit
// direction (zero for a segment of no length), length and style.
type segGeom struct {
	a, dir glyph.Point
	l      float64
	style  int32
}

func (ix *pageIndex) arcCovers(i int32, p, t glyph.Point, tol float64, fill fillNeed) bool {
	a := &ix.pg.Arcs[i]
	dx, dy := p.X-a.C.X, p.Y-a.C.Y
	if math.Abs(dx) > a.R+tol || math.Abs(dy) > a.R+tol {
		return false
	}
	r := math.Sqrt(dx*dx + dy*dy)
	if math.Abs(r-a.R) > tol || r == 0 {
		return false
	}
	// Tangent of a circle at p is perpendicular to the radius.
	if a.R > 2*tol && math.Abs(t.X*dx+t.Y*dy)/r > maxTurnSin {
		return false
	}
	if math.Abs(a.Sweep) < 359 {
		ang := math.Atan2(dy, dx) * 180 / math.Pi
		if !a.Covers(ang, tol/a.R*180/math.Pi+1) {
			return false
		}
	}
	return fill.covers(ix.pg.Styles[a.Style])
}

// arcContinues reports whether a page arc on the circle (c, r) covers p
// with tangent t.
func (ix *pageIndex) arcContinues(p, t, c glyph.Point, r, tol float64) bool {
	ns := int32(len(ix.pg.Segments))
	found := false
	ix.pieces.inBox(glyph.Point{X: p.X - tol, Y: p.Y - tol}, glyph.Point{X: p.X + tol, Y: p.Y + tol}, func(i int32) bool {
		if i < ns {
			return true
		}
		a := &ix.pg.Arcs[i-ns]
		found = math.Hypot(a.C.X-c.X, a.C.Y-c.Y) <= tol && math.Abs(a.R-r) <= tol && ix.arcCovers(i-ns, p, t, tol, fillNone)
		return !found
	})
	return found
}

// ownSegment returns a page segment not in taken that runs along the
// line a–b (within tol of it) from somewhere between a and ia to
// somewhere between ib and b, where ia–ib is the line without its
// optional stubs (a–b itself where it has none), either end within
// slack: the line as the page draws it, with or without its stubs.
func (ix *pageIndex) ownSegment(taken []int32, a, b, ia, ib glyph.Point, tol, slack float64) (int32, bool) {
	d := glyph.Point{X: b.X - a.X, Y: b.Y - a.Y}
	l := math.Hypot(d.X, d.Y)
	if l == 0 {
		return 0, false
	}
	d = glyph.Point{X: d.X / l, Y: d.Y / l}
	along := func(p glyph.Point) (u, off float64) {
		px, py := p.X-a.X, p.Y-a.Y
		return px*d.X + py*d.Y, math.Abs(px*d.Y - py*d.X)
	}
	ua, _ := along(ia)
	ub, _ := along(ib)
	mid := glyph.Point{X: (ia.X + ib.X) / 2, Y: (ia.Y + ib.Y) / 2}
	ns := int32(len(ix.pg.Segments))
	found, ok := int32(0), false
	ix.pieces.inBox(glyph.Point{X: mid.X - tol, Y: mid.Y - tol}, glyph.Point{X: mid.X + tol, Y: mid.Y + tol}, func(i int32) bool {
		if i >= ns {
			return true
		}
		s := &ix.pg.Segments[i]
		u1, o1 := along(s.A)
		u2, o2 := along(s.B)
		if o1 > tol || o2 > tol {
			return true
		}
		if u1 > u2 {
			u1, u2 = u2, u1
		}
		if u1 >= -slack-tol && u1 <= ua+slack+tol && u2 >= ub-slack-tol && u2 <= l+slack+tol && !slices.Contains(taken, i) {
			found, ok = i, true
			return false
		}
		return true
	})
	return found, ok
}
