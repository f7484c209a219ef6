package vector

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// Verification and acceptance parameters.
const (
	// minCoverage is the least fraction of a template's geometry (text
	// characters included) that page geometry must explain for a match.
	minCoverage = 0.8
	// tolBasePx and tolRel set how far (pixels) page geometry may lie
	// from a transformed template sample: tolBasePx + tolRel × the
	// symbol's drawn size in pixels per glyph millimetre.
	tolBasePx = 1.0
	tolRel    = 0.06
	// maxTurnSin is the sine of the largest angle between a sample's
	// tangent and the page geometry covering it.
	maxTurnSin = 0.42 // 25°
	// textCentreTol is how far, in cap heights, the centre of a glyph
	// text's characters may lie from where the glyph puts it.
	textCentreTol = 0.8
	// wholeCoverage: a pose covering this much of its template is a
	// whole find (no other pose of it is needed there).
	wholeCoverage = 0.995
	// maxOffPage is the largest fraction of a template's geometry that
	// may lie beyond the sheet edge (symbols clipped by the sheet).
	maxOffPage = 0.5
	// extensionPenalty is taken off coverage for each open template end
	// that page geometry runs on past.
	extensionPenalty = 0.04
	// endpointTolPx: segment ends closer than this meet at a corner.
	endpointTolPx = 0.75
	// maxEndsNear: a segment end with more than this many ends in the
	// cells around it (a hub where hatching or a repeated XObject draws
	// the same point over and over) forms no corners: no symbol's corner
	// is drawn that way, and pairing every end there with every other
	// would hold memory quadratic in their number.
	maxEndsNear = 32
	// A pose whose first quickChecks samples on the page (spread over
	// the whole template: spreadOrder) miss quickMisses or more is
	// rejected there, without checking the rest. A pose that covers
	// minCoverage misses about a fifth of any spread-out sample set: on
	// the real drawings no pose that passed missed more than 5 of its
	// first 16, while the poses that fail miss about half and took some
	// 54 samples each to reach the whole-template bound (docs/vector.md).
	quickChecks = 16
	quickMisses = 8
	// ownLineSlack is how far, as a fraction of a template line's
	// length, the page segment drawing it may end short of or past the
	// line's ends: a block drawn a hair otherwise than its legend (a
	// wire or a wall is longer by far).
	ownLineSlack = 0.05
)

// Match is one symbol instance found on a page.
type Match struct {
	Class      string
	Box        detect.Box // raster pixels, clipped to the page
	Confidence float64
	Coverage   float64 // fraction of the template explained, 0..1
	Placement  glyph.Placement
	// Legend is set on a glyph shown in a legend table (a column of
	// different symbols, each with its description to the right): a key
	// to the drawing, not an instance.
	Legend bool
	// Row is the matched template's Row.
	Row int
}

// Matcher finds its templates on pages. It is immutable after NewMatcher
// and safe for concurrent use.
type Matcher struct {
	tpls []*prepared
	// cornered: some template is looked for from page corners (a
	// corner anchor, a stretched glyph), which a page's index then
	// finds; a search for a circle or a lone line skips them.
	cornered bool
}

// NewMatcher prepares templates for matching.
func NewMatcher(tpls []Template) (*Matcher, error) {
	m := &Matcher{}
	for _, t := range tpls {
		p, err := prepare(t)
		if err != nil {
			return nil, err
		}
		m.tpls = append(m.tpls, p)
		m.cornered = m.cornered || p.kind == anchorCorner || p.stretch != nil
	}
	m.findNested()
	return m, nil
}

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
	pg      *drawing.Page
	segDir  []glyph.Point // unit direction per segment
	segLen  []float64
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
	// verified counts pose verifications (the matcher's unit of work).
	verified atomic.Int64
}

func newPageIndex(pg *drawing.Page) *pageIndex {
	pg = withoutHatching(pg)
	ix := &pageIndex{pg: pg}
	ns := len(pg.Segments)
	ix.segDir = make([]glyph.Point, ns)
	ix.segLen = make([]float64, ns)
	for i, s := range pg.Segments {
		l := math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y)
		ix.segLen[i] = l
		if l > 0 {
			ix.segDir[i] = glyph.Point{X: (s.B.X - s.A.X) / l, Y: (s.B.Y - s.A.Y) / l}
		}
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
		if ix.segLen[i] < 2 {
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
	s := &ix.pg.Segments[i]
	d := ix.segDir[i]
	l := ix.segLen[i]
	px, py := p.X-s.A.X, p.Y-s.A.Y
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
	return fill.covers(ix.pg.Styles[s.Style])
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
		if !inSweep(*a, ang, tol/a.R*180/math.Pi+1) {
			return false
		}
	}
	return fill.covers(ix.pg.Styles[a.Style])
}

// arcContinues reports whether a page arc on the circle (c, r) covers p
// with tangent t.
func (ix *pageIndex) arcContinues(p, t, c glyph.Point, r, tol float64) bool {
	g := ix.pieces
	ns := int32(len(ix.pg.Segments))
	x0, x1 := max(0, int((p.X-tol)/g.cell)), min(g.nx-1, int((p.X+tol)/g.cell))
	y0, y1 := max(0, int((p.Y-tol)/g.cell)), min(g.ny-1, int((p.Y+tol)/g.cell))
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			cell := y*g.nx + x
			for _, i := range g.items[g.start[cell]:g.start[cell+1]] {
				if i < ns {
					continue
				}
				a := &ix.pg.Arcs[i-ns]
				if math.Hypot(a.C.X-c.X, a.C.Y-c.Y) <= tol && math.Abs(a.R-r) <= tol && ix.arcCovers(i-ns, p, t, tol, fillNone) {
					return true
				}
			}
		}
	}
	return false
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

// hypothesis is a candidate pose of a template.
type hypothesis struct {
	t  *prepared
	pl glyph.Placement
}

type scored struct {
	hypothesis
	cov      float64
	explains float64 // explained geometry, mm at the page's size
	box      detect.Box
}

// priorityBoost is how much more geometry a match of a template with
// priority 1 counts as explaining when overlapping matches are ranked: a
// drawing's own legend glyph wins over a catalog glyph that explains
// about as much there, not over one that explains clearly more (a
// symbol that contains the legend glyph's shape).
const priorityBoost = 0.15

// rank orders overlapping matches: explained geometry times confidence,
// boosted by the template's priority for good matches (a weak find of a
// preferred template must not hide a strong one of another).
func (s scored) rank() float64 {
	r := s.explains * rankWeight(s.cov)
	if s.t.priority > 0 && rankWeight(s.cov) >= 0.5 { // covers OperatingCoverage
		r *= 1 + priorityBoost*float64(s.t.priority)
	}
	return r
}

// verify scores a pose: the fraction of template samples (and text
// characters) that page geometry explains. It stops early once the pose
// cannot reach minCoverage.
func (ix *pageIndex) verify(h hypothesis) (scored, bool) {
	ix.verified.Add(1)
	t := h.t
	m := h.pl.Matrix(PixelsPerMM)
	k := h.pl.Scale * PixelsPerMM
	tol := tolBasePx + tolRel*k
	total := t.lenMM + textCharWeightMM*float64(t.nChars)
	allowMiss := (1 - minCoverage) * total
	step := t.lenMM / float64(len(t.samples))
	lin := glyph.Affine{A: m.A, B: m.B, C: m.C, D: m.D}
	missed, off := 0.0, 0.0
	charsFound := 0
	checked, early := 0, 0 // samples checked on the page; of those, missed among the first quickChecks
	onPage := func(p glyph.Point) bool {
		return p.X >= -tol && p.Y >= -tol && p.X <= ix.pg.Width+tol && p.Y <= ix.pg.Height+tol
	}
	for _, s := range t.samples {
		p := m.Apply(s.P)
		if !onPage(p) {
			// Cut off by the sheet edge: neither seen nor missed.
			off += step
			if off > maxOffPage*t.lenMM {
				return scored{}, false
			}
			continue
		}
		d := lin.Apply(s.T)
		n := math.Hypot(d.X, d.Y)
		d = glyph.Point{X: d.X / n, Y: d.Y / n}
		checked++
		switch {
		case ix.covered(p, d, tol, needOf(t, s.Fill)):
		case s.Opt:
			// A stub the page does not draw: neither seen nor missed.
			off += step
		default:
			missed += step
			if missed > allowMiss {
				return scored{}, false
			}
			if checked <= quickChecks {
				early++
			}
		}
		if checked == quickChecks && early >= quickMisses {
			return scored{}, false
		}
	}
	for _, tx := range t.texts {
		if !onPage(m.Apply(glyph.Point{X: tx.at.X, Y: tx.at.Y - tx.size/2})) {
			off += textCharWeightMM * float64(len([]rune(tx.text)))
			continue
		}
		miss := ix.missingChars(tx, m, k)
		missed += textCharWeightMM * float64(miss)
		charsFound += len([]rune(strings.ReplaceAll(tx.text, " ", ""))) - miss
		if missed > allowMiss {
			return scored{}, false
		}
	}
	cov := 1 - missed/(total-off)
	// A page arc running on past a template arc's end: the pose explains
	// only part of a larger circle.
	for _, e := range t.arcEnds {
		d := lin.Apply(e.T)
		n := math.Hypot(d.X, d.Y)
		d = glyph.Point{X: d.X / n, Y: d.Y / n}
		q := m.Apply(e.P)
		probe := glyph.Point{X: q.X + (2*tol+1)*d.X, Y: q.Y + (2*tol+1)*d.Y}
		if onPage(probe) && ix.arcContinues(probe, d, m.Apply(e.C), e.R*k, tol) {
			cov -= extensionPenalty
		}
	}
	// Template lines covered only by longer page lines (a wire, a wall, a
	// dashed line) rather than by a segment of their own: CAD draws each
	// symbol line as its own segment.
	//
	// Each template line needs a page segment of its own: two template
	// lines closer than the tolerance (the twin stems of a double socket)
	// are not both found in one page segment (a single socket's stem).
	var own []int32
	for i, l := range t.lines {
		a, b := m.Apply(l[0]), m.Apply(l[1])
		if !onPage(a) || !onPage(b) {
			continue
		}
		// The page segment may end a little short of or past the
		// template line's ends (ownLineSlack), or where its optional
		// stubs start (known to within the stub margin).
		slack := ownLineSlack * math.Hypot(b.X-a.X, b.Y-a.Y)
		if t.inner[i] != l {
			slack = math.Max(slack, 2*stubMarginMM*k)
		}
		if c, ok := ix.ownSegment(own, a, b, m.Apply(t.inner[i][0]), m.Apply(t.inner[i][1]), tol, slack); ok {
			own = append(own, c)
		} else {
			cov -= extensionPenalty
		}
	}
	if cov < minCoverage {
		return scored{}, false
	}
	// What the pose explains, for ranking overlapping matches: drawn
	// geometry in full, text found near it at a quarter weight (a label
	// beside a symbol may read like a glyph's text). It is measured at the
	// size the pose draws it: a legend glyph drawn twice the plan's size
	// explains no more of a plan symbol than the plan draws.
	textMM := textCharWeightMM * float64(charsFound)
	geomMM := total - missed - off - textMM
	return scored{hypothesis: h, cov: cov, explains: (geomMM + textMM/4) * h.pl.Scale}, true
}

// missingChars counts the characters of a template text that the page does
// not show where the pose puts them.
func (ix *pageIndex) missingChars(tx tplText, m glyph.Affine, k float64) int {
	centre := m.Apply(glyph.Point{X: tx.at.X, Y: tx.at.Y - tx.size/2})
	radius := (textWidthMM(tx.text, tx.size)/2 + 0.6*tx.size) * k
	capPx := tx.size * k
	missing, found := 0, 0
	var sum glyph.Point
	used := map[int32]bool{}
	for _, r := range tx.text {
		if r == ' ' {
			continue
		}
		want := string(r)
		// The nearest unused character of that letter: a label beside
		// the symbol may repeat the glyph's letters.
		best, bestD := int32(-1), math.Inf(1)
		ix.charsWithin(centre, radius, func(i int32) bool {
			c := ix.pg.Chars[i]
			if used[i] || c.Text != want {
				return true
			}
			// Em size vs cap height: fonts put caps at 0.65–0.75 em.
			if ratio := c.Size * 0.7 / capPx; ratio < 0.75 || ratio > 1.35 {
				return true
			}
			if d := math.Hypot((c.Min.X+c.Max.X)/2-centre.X, (c.Min.Y+c.Max.Y)/2-centre.Y); d < bestD {
				best, bestD = i, d
			}
			return true
		})
		if best < 0 {
			missing++
			continue
		}
		c := ix.pg.Chars[best]
		used[best] = true
		found++
		sum.X += (c.Min.X + c.Max.X) / 2
		sum.Y += (c.Min.Y + c.Max.Y) / 2
	}
	// The text found must be centred where the glyph puts it, whatever
	// its direction: a label beside the symbol that happens to read the
	// same is off centre.
	if found > 1 {
		c := glyph.Point{X: sum.X / float64(found), Y: sum.Y / float64(found)}
		if math.Hypot(c.X-centre.X, c.Y-centre.Y) > textCentreTol*tx.size*k+tolBasePx {
			return missing + found
		}
	}
	return missing
}

func (ix *pageIndex) charsWithin(p glyph.Point, radius float64, fn func(i int32) bool) {
	r := glyph.Point{X: radius, Y: radius}
	ix.chars.inBox(glyph.Point{X: p.X - r.X, Y: p.Y - r.Y}, glyph.Point{X: p.X + r.X, Y: p.Y + r.Y}, func(i int32) bool {
		c := ix.pg.Chars[i]
		m := glyph.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}
		if math.Hypot(m.X-p.X, m.Y-p.Y) > radius {
			return true
		}
		return fn(i)
	})
}

// Match finds the matcher's templates on one page.
func (mt *Matcher) Match(ctx context.Context, pg *drawing.Page) ([]Match, error) {
	ms, _, err := mt.match(ctx, pg)
	return ms, err
}

// match is Match, also returning the page index (for its counters). The
// templates are shared out to one goroutine per core; each template's poses
// are tried as before (its own seen and done sets: their keys hold the
// template), and the poses found are gathered in template order, so the
// result is the one of a single goroutine.
func (mt *Matcher) match(ctx context.Context, pg *drawing.Page) ([]Match, *pageIndex, error) {
	ix := newPageIndex(pg)
	if mt.cornered {
		ix.hashCorners() // built before the goroutines share the index
	}
	perTpl := make([][]scored, len(mt.tpls))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(mt.tpls))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1)) - 1
				if n >= len(mt.tpls) || ctx.Err() != nil {
					return
				}
				perTpl[n] = ix.matchTemplate(ctx, mt.tpls[n])
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("vector: match: %w", err)
	}
	var found []scored
	for _, f := range perTpl {
		found = append(found, f...)
	}
	ms, err := mt.finish(ctx, ix, found)
	if err != nil {
		return nil, nil, err
	}
	return ms, ix, nil
}

// poseCheckEvery is how many poses matchTemplate verifies between looks
// at its context.
const poseCheckEvery = 256

// matchTemplate tries the poses of one template's anchors on the page and
// returns those that verify. Once ctx ends it verifies no more poses (a
// plain glyph on a real sheet has hundreds of thousands) and returns what
// it found; the caller reports ctx's error.
//
// The poses are tried one after another: where the template was found
// whole, other poses there are not verified (done), and a circle's
// search starts from the poses found whole before. The poses of corners,
// lines and stretches do not depend on what was found, so they are
// taken in batches whose verifications run on every core (verifyAhead)
// and are then tried in order with those verifications: the result is
// the sequential one, and a template that floods a sheet with poses is
// no longer one core's work while the other waits.
func (ix *pageIndex) matchTemplate(ctx context.Context, t *prepared) []scored {
	seen := map[hypKey]bool{}
	// done marks where the template was already found whole: other poses
	// of it there (symmetries, other anchors of the same instance) need
	// no verification.
	done := map[int64]bool{}
	isDone := func(c cell) bool {
		for dy := int32(-1); dy <= 1; dy++ {
			for dx := int32(-1); dx <= 1; dx++ {
				if done[c.near(dx, dy)] {
					return true
				}
			}
		}
		return false
	}
	inScale := func(h hypothesis) bool { return h.pl.Scale >= h.t.minScale && h.pl.Scale <= h.t.maxScale }
	var found []scored
	tried, stopped := 0, false
	// tryWith verifies a pose (of key k, in cell c), or takes its
	// verification v where v is not nil, and returns its coverage (1
	// where the template was already found whole there, 0 where the pose
	// fails).
	tryWith := func(h hypothesis, k hypKey, c cell, v *verification) float64 {
		if stopped || !inScale(h) {
			return 0
		}
		if tried++; tried%poseCheckEvery == 0 && ctx.Err() != nil {
			stopped = true
			return 0
		}
		if isDone(c) {
			return 1
		}
		if seen[k] {
			return 0
		}
		seen[k] = true
		if v == nil {
			r := ix.verifyRefined(h)
			v = &r
		}
		if !v.ok {
			return 0
		}
		found = append(found, v.s)
		if v.s.cov >= wholeCoverage {
			done[c.near(0, 0)] = true
		}
		return v.s.cov
	}
	try := func(h hypothesis) float64 { return tryWith(h, keyOf(h), cellOf(h), nil) }
	// batch holds poses not tried yet (corners, lines, stretches).
	type pending struct {
		h hypothesis
		k hypKey
		c cell
	}
	var batch []pending
	var hs []hypothesis
	var need []int
	keys := map[hypKey]bool{}
	flush := func() {
		if stopped {
			batch = batch[:0]
			return
		}
		// Verified ahead: the poses that, as things stand, are to be
		// verified (their key's first in the batch). A find earlier in
		// the batch may yet spare some of them: that work is lost, and
		// the batch is small so that little is.
		hs, need = hs[:0], need[:0]
		clear(keys)
		for j, b := range batch {
			hs = append(hs, b.h)
			if !seen[b.k] && !keys[b.k] && !isDone(b.c) {
				keys[b.k] = true
				need = append(need, j)
			}
		}
		vs := ix.verifyAhead(ctx, hs, need)
		for j, b := range batch {
			tryWith(b.h, b.k, b.c, vs[j])
		}
		batch = batch[:0]
	}
	poses := 0
	collect := func(h hypothesis) {
		if !inScale(h) {
			return // tried, it is 0 without a look
		}
		if poses++; poses <= soloPoses {
			try(h)
			return
		}
		if batch = append(batch, pending{h, keyOf(h), cellOf(h)}); len(batch) == poseBatch {
			flush()
		}
	}
	switch t.kind {
	case anchorCircle:
		ix.circleHypotheses(t, try)
	case anchorCorner:
		ix.cornerHypotheses(t, collect)
	default:
		ix.segmentHypotheses(t, collect)
	}
	if t.stretch != nil {
		ix.stretchHypotheses(t, func(h hypothesis) float64 { collect(h); return 0 })
	}
	flush()
	return found
}

// refineFrom is the least coverage of a pose that refine tries to
// improve: one that already covers nearly all of its template.
const refineFrom = 0.95

// refineSteps are refine's step sizes, coarse to fine: degrees, relative
// scale, pixels.
var refineSteps = [...]struct{ rot, scale, px float64 }{{4, 0.04, 1}, {2, 0.02, 0.5}, {1, 0.01, 0.25}}

// maxRefine bounds the poses refine verifies for one match.
const maxRefine = 48

// refine improves a pose that covers most but not all of its template by
// small steps of angle, scale and position about the template's centre:
// a symbol inserted at an odd angle or scale gets its pose from keypoints
// a few degrees or per cent off (a filled glyph's triangulated fill moves
// them), and the verification's tolerance is tighter than that. Each step
// is kept when the coverage grows; the pose's mirror is kept.
func (ix *pageIndex) refine(s scored) scored {
	t := s.t
	var ctr glyph.Point
	for _, p := range t.hull {
		ctr.X += p.X / float64(len(t.hull))
		ctr.Y += p.Y / float64(len(t.hull))
	}
	best := s
	at := s.pl.Matrix(PixelsPerMM).Apply(ctr)
	rot, scale := s.pl.Rotation, s.pl.Scale
	tries := 0
	for _, st := range refineSteps {
		for improved := true; improved && tries < maxRefine; {
			improved = false
			for _, d := range [...][4]float64{
				{st.rot, 0, 0, 0}, {-st.rot, 0, 0, 0}, {0, st.scale, 0, 0}, {0, -st.scale, 0, 0},
				{0, 0, st.px, 0}, {0, 0, -st.px, 0}, {0, 0, 0, st.px}, {0, 0, 0, -st.px},
			} {
				r, sc, p := rot+d[0], scale*(1+d[1]), glyph.Point{X: at.X + d[2], Y: at.Y + d[3]}
				if sc < t.minScale || sc > t.maxScale || tries >= maxRefine {
					continue
				}
				tries++
				c, ok := ix.verify(hypothesis{t, placeFor(ctr, p, r, sc, s.pl.Mirrored)})
				if ok && c.cov > best.cov {
					best, rot, scale, at, improved = c, r, sc, p, true
				}
			}
		}
	}
	return best
}

type hypKey struct {
	t            *prepared
	x, y, rot, s int
	mir          bool
}

func keyOf(h hypothesis) hypKey {
	rot := math.Mod(h.pl.Rotation+720, 360)
	return hypKey{h.t, int(math.Round(h.pl.At.X)), int(math.Round(h.pl.At.Y)),
		int(math.Round(rot/3)) % 120, int(math.Round(math.Log(h.pl.Scale) * 40)), h.pl.Mirrored}
}

// placeFor returns the placement that maps template point tp to page point
// pp with the given rotation, scale and mirror.
func placeFor(tp, pp glyph.Point, rot, scale float64, mir bool) glyph.Placement {
	pl := glyph.Placement{Scale: scale, Rotation: rot, Mirrored: mir}
	o := pl.Matrix(PixelsPerMM).Apply(tp)
	pl.At = glyph.Point{X: pp.X - o.X, Y: pp.Y - o.Y}
	return pl
}

func deg(v glyph.Point) float64 { return math.Atan2(v.Y, v.X) * 180 / math.Pi }

// blockPose is how a template was found whole on one circle of the page:
// CAD blocks repeat, so the next circle of that radius is tried with the
// same rotation, mirror and scale before any ring search.
type blockPose struct {
	r, rot, scale float64
	mir           bool
}

// maxBlockPoses bounds the remembered poses per template and page.
const maxBlockPoses = 16

func (ix *pageIndex) circleHypotheses(t *prepared, try func(hypothesis) float64) {
	var blocks []blockPose
	remember := func(r float64, h hypothesis) {
		for _, b := range blocks {
			if b.mir == h.pl.Mirrored && glyph.AngleDiff(b.rot, h.pl.Rotation) < 0.5 && math.Abs(b.r-r) < 0.1 {
				return
			}
		}
		if len(blocks) < maxBlockPoses {
			blocks = append(blocks, blockPose{r, h.pl.Rotation, h.pl.Scale, h.pl.Mirrored})
		}
	}
	// A stubbed legend glyph's half circle (its arc end the secondary
	// keypoint) is not looked for on whole circles: the page arc would
	// run on past both its ends.
	partial := t.stubbed() && t.circleSweep < 300
	for _, f := range ix.circles {
		if f.sweep < math.Min(t.sweep, 360)*0.7 || (partial && f.sweep >= 359) {
			continue
		}
		s := f.r / (t.r * PixelsPerMM)
		if s < t.minScale || s > t.maxScale {
			continue
		}
		if !t.hasQ {
			try(hypothesis{t, placeFor(t.c, f.c, 0, s, false)})
			continue
		}
		// A repeat of a block found whole before: cheap to find again.
		hit := false
		for _, b := range blocks {
			if math.Abs(b.r-f.r) <= 0.3 && try(hypothesis{t, placeFor(t.c, f.c, b.rot, b.scale, b.mir)}) >= wholeCoverage {
				hit = true
				break
			}
		}
		if hit {
			continue
		}
		// The radius of a small circle is known to about half a pixel,
		// so the ring where the secondary keypoint may lie is widened
		// accordingly, and the scale is then taken from the keypoint's
		// distance, which is the longer and more precise measure.
		dqMM := math.Hypot(t.q.X-t.c.X, t.q.Y-t.c.Y)
		dq := dqMM * s * PixelsPerMM
		tol := tolBasePx + tolRel*s*PixelsPerMM + dq*(math.Min(0.5/f.r, 0.1)+0.02)
		phiQ := deg(glyph.Point{X: t.q.X - t.c.X, Y: t.q.Y - t.c.Y})
		ix.keysInRing(f.c, dq, tol, func(k glyph.Point) {
			v := glyph.Point{X: k.X - f.c.X, Y: k.Y - f.c.Y}
			sk := math.Hypot(v.X, v.Y) / (dqMM * PixelsPerMM)
			phiK := deg(v)
			for _, h := range [2]hypothesis{
				{t, placeFor(t.c, f.c, phiK-phiQ, sk, false)},
				{t, placeFor(t.c, f.c, phiK-(180-phiQ), sk, true)},
			} {
				if try(h) >= wholeCoverage {
					remember(f.r, h)
				}
			}
		})
	}
}

// keysInRing calls fn for keypoints at distance d±tol from c.
func (ix *pageIndex) keysInRing(c glyph.Point, d, tol float64, fn func(glyph.Point)) {
	reach := d + tol
	ix.keyGrid.inBox(glyph.Point{X: c.X - reach, Y: c.Y - reach}, glyph.Point{X: c.X + reach, Y: c.Y + reach}, func(i int32) bool {
		k := ix.keys[i]
		if r := math.Hypot(k.X-c.X, k.Y-c.Y); math.Abs(r-d) <= tol {
			fn(k)
		}
		return true
	})
}

// Corner hash quantisation: angle between the arms in degrees, and the
// log ratio of the arm lengths.
const (
	cornerAngStep   = 4.0
	cornerRatioStep = 0.08
)

// Corner hash extent: angle buckets over 0–180° and log-ratio buckets
// clamped to ±cornerRatioBuckets.
const cornerRatioBuckets = 40

func cornerBucket(ang, logRatio float64) int {
	a := min(int(180/cornerAngStep), max(0, int(math.Floor(math.Abs(ang)/cornerAngStep))))
	r := min(cornerRatioBuckets, max(-cornerRatioBuckets, int(math.Floor(logRatio/cornerRatioStep))))
	return a*(2*cornerRatioBuckets+1) + r + cornerRatioBuckets
}

// cornerArms is one ordered reading of a page corner: arms a (first) and b.
type cornerArms struct {
	v, a, b glyph.Point
	la      float64
	ang     float64 // signed angle from a to b, degrees
}

// hashCorners finds the page's corners (buildCorners) and indexes both
// readings of every corner by the unsigned angle and the log arm ratio,
// in buckets stored contiguously.
func (ix *pageIndex) hashCorners() {
	ix.buildCorners()
	nb := (int(180/cornerAngStep) + 1) * (2*cornerRatioBuckets + 1)
	arms := make([]cornerArms, 0, 2*len(ix.corners))
	keys := make([]int, 0, 2*len(ix.corners))
	count := make([]int32, nb+1)
	for _, c := range ix.corners {
		for _, order := range [2]bool{false, true} {
			p1, p2 := c.a1, c.a2
			if order {
				p1, p2 = p2, p1
			}
			a := glyph.Point{X: p1.X - c.v.X, Y: p1.Y - c.v.Y}
			b := glyph.Point{X: p2.X - c.v.X, Y: p2.Y - c.v.Y}
			la, lb := math.Hypot(a.X, a.Y), math.Hypot(b.X, b.Y)
			ang := math.Atan2(a.X*b.Y-a.Y*b.X, a.X*b.X+a.Y*b.Y) * 180 / math.Pi
			k := cornerBucket(ang, math.Log(lb/la))
			keys = append(keys, k)
			arms = append(arms, cornerArms{v: c.v, a: a, b: b, la: la, ang: ang})
			count[k+1]++
		}
	}
	for i := 1; i <= nb; i++ {
		count[i] += count[i-1]
	}
	ix.cornerStart = count
	ix.cornerArms = make([]cornerArms, len(arms))
	fill := make([]int32, nb)
	for i, k := range keys {
		ix.cornerArms[count[k]+fill[k]] = arms[i]
		fill[k]++
	}
}

func (ix *pageIndex) cornerHypotheses(t *prepared, try func(hypothesis)) {
	if ix.cornerStart == nil {
		ix.hashCorners()
	}
	u := glyph.Point{X: t.a1.X - t.v.X, Y: t.a1.Y - t.v.Y}
	w := glyph.Point{X: t.a2.X - t.v.X, Y: t.a2.Y - t.v.Y}
	lu, lw := math.Hypot(u.X, u.Y), math.Hypot(w.X, w.Y)
	tAng := math.Atan2(u.X*w.Y-u.Y*w.X, u.X*w.X+u.Y*w.Y) * 180 / math.Pi
	lr := math.Log(lw / lu)
	const angTol, ratioTol = 5.0, 0.1
	a0 := max(0, int(math.Floor((math.Abs(tAng)-angTol)/cornerAngStep)))
	a1 := min(int(180/cornerAngStep), int(math.Floor((math.Abs(tAng)+angTol)/cornerAngStep)))
	r0 := max(-cornerRatioBuckets, int(math.Floor((lr-ratioTol)/cornerRatioStep)))
	r1 := min(cornerRatioBuckets, int(math.Floor((lr+ratioTol)/cornerRatioStep)))
	for ai := a0; ai <= a1; ai++ {
		for ri := r0; ri <= r1; ri++ {
			bk := ai*(2*cornerRatioBuckets+1) + ri + cornerRatioBuckets
			for i := ix.cornerStart[bk]; i < ix.cornerStart[bk+1]; i++ {
				c := &ix.cornerArms[i]
				s := c.la / (lu * PixelsPerMM)
				if s < t.minScale || s > t.maxScale {
					continue
				}
				if r := math.Hypot(c.b.X, c.b.Y) / (lw * PixelsPerMM) / s; r < 0.9 || r > 1.1 {
					continue
				}
				switch {
				case math.Abs(c.ang-tAng) < angTol:
					try(hypothesis{t, placeFor(t.v, c.v, deg(c.a)-deg(u), s, false)})
				case math.Abs(c.ang+tAng) < angTol:
					try(hypothesis{t, placeFor(t.v, c.v, deg(c.a)-(180-deg(u)), s, true)})
				}
			}
		}
	}
}

func (ix *pageIndex) segmentHypotheses(t *prepared, try func(hypothesis)) {
	u := glyph.Point{X: t.a2.X - t.a1.X, Y: t.a2.Y - t.a1.Y}
	lu := math.Hypot(u.X, u.Y) * PixelsPerMM
	for i, sg := range ix.pg.Segments {
		s := ix.segLen[i] / lu
		if s < t.minScale || s > t.maxScale {
			continue
		}
		for _, ends := range [2][2]glyph.Point{{sg.A, sg.B}, {sg.B, sg.A}} {
			a := glyph.Point{X: ends[1].X - ends[0].X, Y: ends[1].Y - ends[0].Y}
			try(hypothesis{t, placeFor(t.a1, ends[0], deg(a)-deg(u), s, false)})
			try(hypothesis{t, placeFor(t.a1, ends[0], deg(a)-(180-deg(u)), s, true)})
		}
	}
}

// OperatingCoverage is the least coverage the catalog's default
// thresholds keep: a match covering this much of its template reports
// confidence OperatingConfidence. On generated sheets every true match
// covers at least 0.995 of its template and false ones mostly 0.8–0.97.
const OperatingCoverage = 0.975

// OperatingConfidence is the catalog's default threshold (every class's
// in the embedded catalog; engine.TestDefaultThresholds holds them
// equal), measured as the raster calibration set's break-even
// (docs/raster.md): the confidence a match covering OperatingCoverage of
// its template reports, so the default thresholds keep the same vector
// matches whatever number they are.
const OperatingConfidence = 0.32

// confidence maps coverage to the match's reported confidence: piecewise
// linear through coverageKnots, OperatingCoverage at OperatingConfidence
// (see docs/vector.md).
func confidence(cov float64) float64 {
	return knotted(cov, coverageKnots(OperatingConfidence))
}

// rankWeight maps coverage to the weight of a match's explained geometry
// when overlapping matches are ranked (scored.rank): the knots the
// confidence had before the default thresholds were measured, when
// OperatingCoverage read 0.5; the ranking they gave is kept as it was.
func rankWeight(cov float64) float64 {
	return knotted(cov, coverageKnots(0.5))
}

// coverageKnots are the (coverage, value) knots of confidence and
// rankWeight, which differ only in the value at OperatingCoverage.
func coverageKnots(atOperating float64) [5][2]float64 {
	return [5][2]float64{{minCoverage, 0.10}, {0.9, 0.2}, {OperatingCoverage, atOperating}, {0.995, 0.97}, {1, 0.99}}
}

// knotted is the piecewise linear function through the knots at cov, the
// first knot's value below them and the last's above, rounded to 0.001.
func knotted(cov float64, knots [5][2]float64) float64 {
	c := knots[0][1]
	for i := 1; i < len(knots); i++ {
		a, b := knots[i-1], knots[i]
		if cov >= a[0] {
			f := math.Min(1, (cov-a[0])/(b[0]-a[0]))
			c = a[1] + f*(b[1]-a[1])
		}
	}
	return math.Round(c*1000) / 1000
}

// finishCell is the side, in raster pixels, of the grid cells finish files
// kept matches in: a pose is compared only with the kept matches whose
// boxes share a cell with its own (boxes that do not intersect are never
// duplicates), so a page of a hundred thousand poses (a plain glyph on a
// real sheet) is not compared pairwise.
const finishCell = 128

// finishCheckEvery is how many poses finish looks at between looks at its
// context.
const finishCheckEvery = 256

// finish computes boxes, suppresses overlapping matches preferring the one
// that explains the most geometry, and returns the survivors; it stops
// with ctx's error when ctx ends.
func (mt *Matcher) finish(ctx context.Context, ix *pageIndex, found []scored) ([]Match, error) {
	for i := range found {
		found[i].box = boxOf(found[i].t, found[i].pl, ix.pg.Width, ix.pg.Height)
	}
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i], found[j]
		sa, sb := a.rank(), b.rank()
		if sa != sb {
			return sa > sb
		}
		return a.t.class < b.t.class
	})
	// A weaker match is dropped when a stronger one sits in the same place
	// or explains most of its geometry (a socket inside an earthed
	// socket); symbols that merely overlap one another both stay.
	var kept []scored
	var keptPts [][]glyph.Point
	grid := map[[2]int][]int{} // cell -> indices of kept matches, ascending
	cells := func(b detect.Box, fn func(c [2]int)) {
		x0, y0 := int(math.Floor(b.X/finishCell)), int(math.Floor(b.Y/finishCell))
		x1, y1 := int(math.Floor((b.X+b.W)/finishCell)), int(math.Floor((b.Y+b.H)/finishCell))
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				fn([2]int{x, y})
			}
		}
	}
	seen := map[int]bool{}
	var near []int
	for n, f := range found {
		if n%finishCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("vector: match: %w", err)
			}
		}
		dup := false
		var fPts []glyph.Point
		near = near[:0]
		clear(seen)
		cells(f.box, func(c [2]int) {
			for _, j := range grid[c] {
				if !seen[j] {
					seen[j] = true
					near = append(near, j)
				}
			}
		})
		sort.Ints(near)
		for _, j := range near {
			k := kept[j]
			inter := intersect(f.box, k.box)
			if inter <= 0 {
				continue
			}
			union := f.box.W*f.box.H + k.box.W*k.box.H - inter
			if inter/union > 0.7 {
				dup = true
				break
			}
			if fPts == nil {
				fPts = posedSamples(f.hypothesis)
			}
			tol := tolBasePx + tolRel*math.Max(f.pl.Scale, k.pl.Scale)*PixelsPerMM
			if explainedBy(fPts, keptPts[j], tol) >= 0.7 && !nestedIn(f, k) {
				dup = true
				break
			}
		}
		// A pose whose inside holds drawing of its own is another
		// symbol; it neither stays nor suppresses others. (Checked only
		// here: a pose a kept match suppresses needs no check.)
		// Filled look-alikes are looked for among the poses the default
		// thresholds would keep; a weaker pose is no count either way.
		if !dup && ix.foreignInterior(f.hypothesis) <= maxForeignInterior &&
			(f.cov < OperatingCoverage || ix.filledEmpty(f.hypothesis) <= maxFilledEmpty) {
			if fPts == nil {
				fPts = posedSamples(f.hypothesis)
			}
			kept = append(kept, f)
			keptPts = append(keptPts, fPts)
			cells(f.box, func(c [2]int) { grid[c] = append(grid[c], len(kept)-1) })
		}
	}
	legend := ix.legendRows(kept)
	out := make([]Match, 0, len(kept))
	for i, k := range kept {
		out = append(out, Match{Class: k.t.class, Box: k.box, Confidence: confidence(k.cov), Coverage: k.cov, Placement: k.pl, Legend: legend[i], Row: k.t.row})
	}
	return out, nil
}

// Legend table heuristics.
const (
	legendMinRows  = 3   // glyphs in one column
	legendAlignPx  = 4.0 // alignment of glyph centres, description starts and row pitch
	legendMinChars = 3   // description characters to the right
)

// legendRows marks matches that form a legend table: at least
// legendMinRows upright glyphs, nearly all of different classes, centred in one
// column at a constant row pitch, each with a description whose text starts
// at one common x to their right.
// Instances in a drawing may line up, but their labels do not start at one
// x and their spacing is not a table's.
func (ix *pageIndex) legendRows(ms []scored) []bool {
	out := make([]bool, len(ms))
	// descStart is the x where the text right of a glyph starts, or -1.
	descStart := func(b detect.Box) float64 {
		n := 0
		start := math.Inf(1)
		lo := glyph.Point{X: b.X + b.W, Y: b.Y - 0.3*b.H}
		hi := glyph.Point{X: b.X + b.W + 8*b.H + 100, Y: b.Y + 1.3*b.H}
		ix.chars.inBox(lo, hi, func(i int32) bool {
			c := ix.pg.Chars[i]
			m := glyph.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}
			if m.X > lo.X && m.X < hi.X && m.Y > lo.Y && m.Y < hi.Y {
				n++
				start = math.Min(start, c.Min.X)
			}
			return true
		})
		if n < legendMinChars {
			return -1
		}
		return start
	}
	type row struct {
		i         int
		cx, cy, d float64
	}
	// Legend glyphs are drawn upright: the pose must look like the glyph
	// at rotation 0, unmirrored (a symmetric glyph may be found at an
	// equivalent pose).
	upright := func(h hypothesis) bool {
		u := h
		u.pl.Rotation, u.pl.Mirrored = 0, false
		tol := tolBasePx + tolRel*h.pl.Scale*PixelsPerMM
		return explainedBy(posedSamples(u), posedSamples(h), tol) >= 0.9
	}
	var rows []row
	for i := range ms {
		if !upright(ms[i].hypothesis) {
			continue
		}
		b := ms[i].box
		if d := descStart(b); d >= 0 {
			rows = append(rows, row{i, b.X + b.W/2, b.Y + b.H/2, d})
		}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].cx < rows[b].cx })
	for a := 0; a < len(rows); {
		b := a + 1
		for b < len(rows) && rows[b].cx-rows[b-1].cx <= legendAlignPx {
			b++
		}
		col := append([]row(nil), rows[a:b]...)
		a = b
		sort.Slice(col, func(p, q int) bool { return col[p].cy < col[q].cy })
		// Runs of constant pitch whose descriptions start at one x.
		for r := 0; r+legendMinRows <= len(col); {
			e := r + 2
			pitch := col[r+1].cy - col[r].cy
			for e < len(col) && math.Abs(col[e].cy-col[e-1].cy-pitch) <= legendAlignPx &&
				math.Abs(col[e].d-col[r].d) <= legendAlignPx {
				e++
			}
			classes := map[string]bool{}
			for _, x := range col[r:e] {
				classes[ms[x.i].t.class] = true
			}
			distinct := len(classes) >= legendMinRows && 5*len(classes) >= 4*(e-r)
			if e-r >= legendMinRows && distinct && math.Abs(col[r+1].d-col[r].d) <= legendAlignPx && pitch > 0 {
				for _, x := range col[r:e] {
					out[x.i] = true
				}
				r = e
				continue
			}
			r++
		}
	}
	return out
}

// posedSamples maps the template's samples to the page.
func posedSamples(h hypothesis) []glyph.Point {
	m := h.pl.Matrix(PixelsPerMM)
	out := make([]glyph.Point, len(h.t.samples))
	for i, s := range h.t.samples {
		out[i] = m.Apply(s.P)
	}
	return out
}

// explainedBy is the fraction of points a that lie within tol (plus half a
// sample step) of a point of b.
func explainedBy(a, b []glyph.Point, tol float64) float64 {
	if len(a) == 0 {
		return 0
	}
	r := tol + sampleStepMM*MaxScale*PixelsPerMM/2
	r2 := r * r
	n := 0
	for _, p := range a {
		for _, q := range b {
			if dx, dy := p.X-q.X, p.Y-q.Y; dx*dx+dy*dy <= r2 {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(a))
}

func intersect(a, b detect.Box) float64 {
	w := math.Min(a.X+a.W, b.X+b.W) - math.Max(a.X, b.X)
	h := math.Min(a.Y+a.H, b.Y+b.H) - math.Max(a.Y, b.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// boxOf is the axis-aligned box of the posed template, clipped to the page.
func boxOf(t *prepared, pl glyph.Placement, w, h float64) detect.Box {
	m := pl.Matrix(PixelsPerMM)
	lo := glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi := glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range t.outline {
		q := m.Apply(p)
		lo, hi = glyph.MinPoint(lo, q), glyph.MaxPoint(hi, q)
	}
	lo.X, lo.Y = math.Max(lo.X, 0), math.Max(lo.Y, 0)
	hi.X, hi.Y = math.Min(hi.X, w), math.Min(hi.Y, h)
	return detect.Box{X: lo.X, Y: lo.Y, W: math.Max(0, hi.X-lo.X), H: math.Max(0, hi.Y-lo.Y)}
}
