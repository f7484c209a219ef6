package search

import (
	"math"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/vector"
)

// A match of the template may be only part of a larger symbol: a socket
// inside an earthed or a double socket, a luminaire inside an outdoor
// luminaire, a one-way switch inside a two-pole one. The matcher checks
// that the page explains the template; the template must also explain the
// page around the match, as it explained the box it was cut from. The
// drawing around a match is what lies inside its box grown by surroundGrow
// of its size (at least surroundMinPx), drawn with the match's pen, in
// pieces no longer than maxPieceRel times the match's size and joined to
// the match, directly or through one another: the rest of a symbol the
// match is part of. Walls and wires that pass by, hatching and leaders
// drawn with other pens, a neighbour that merely stands near it and the
// next instance of a row are not.
const (
	surroundGrow  = 0.5
	surroundMinPx = 2.0
	// maxPieceRel: a piece longer than this many times the match's
	// size is a wall or a wire, not part of a symbol.
	maxPieceRel = 2.0
	// maxForeign is the most drawing near a match that the posed template
	// may leave unexplained, as a fraction of the template's own length.
	maxForeign = 0.15
	// sampleStepPx is the spacing of samples along page and template
	// drawing.
	sampleStepPx = 0.5
	// explainTolBasePx and explainTolRel: page drawing within
	// explainTolBasePx + explainTolRel × the drawn size (pixels per glyph
	// mm) of the posed template is explained by it (the matcher's
	// tolerance).
	explainTolBasePx = 1.0
	explainTolRel    = 0.06
	// surroundCellPx is the cell side of the index of a page's pieces.
	surroundCellPx = 32.0
)

// surroundings indexes a page's segments and arcs by the cells their boxes
// cover, for the drawing near each match: cells of surroundCellPx over the
// page (a piece off the page filed in the border cells), each cell's
// pieces a run of one list.
type surroundings struct {
	pg     *drawing.Page
	boxes  []detect.Box // segments, then arcs
	nx, ny int
	start  []int32 // per cell, offset into items; len nx*ny+1
	items  []int32
	stamp  []int // per piece: the last query that visited it
	nQuery int
	dashes map[int32][]dashNext // dashNext's answers, by piece
}

func newSurroundings(pg *drawing.Page) *surroundings {
	s := &surroundings{pg: pg, nx: max(1, int(pg.Width/surroundCellPx)+1), ny: max(1, int(pg.Height/surroundCellPx)+1)}
	s.boxes = make([]detect.Box, 0, len(pg.Segments)+len(pg.Arcs))
	for _, sg := range pg.Segments {
		lo, hi := glyph.MinPoint(sg.A, sg.B), glyph.MaxPoint(sg.A, sg.B)
		s.boxes = append(s.boxes, detect.Box{X: lo.X, Y: lo.Y, W: hi.X - lo.X, H: hi.Y - lo.Y})
	}
	for _, a := range pg.Arcs {
		s.boxes = append(s.boxes, arcBox(a))
	}
	s.start = make([]int32, s.nx*s.ny+1)
	for _, b := range s.boxes {
		x0, y0, x1, y1 := s.cellRange(b)
		for cy := y0; cy <= y1; cy++ {
			for cx := x0; cx <= x1; cx++ {
				s.start[cy*s.nx+cx+1]++
			}
		}
	}
	for i := 1; i < len(s.start); i++ {
		s.start[i] += s.start[i-1]
	}
	s.items = make([]int32, s.start[len(s.start)-1])
	fill := make([]int32, s.nx*s.ny)
	for i, b := range s.boxes {
		x0, y0, x1, y1 := s.cellRange(b)
		for cy := y0; cy <= y1; cy++ {
			for cx := x0; cx <= x1; cx++ {
				c := cy*s.nx + cx
				s.items[s.start[c]+fill[c]] = int32(i)
				fill[c]++
			}
		}
	}
	s.stamp = make([]int, len(s.boxes))
	return s
}

// cellRange is the cells b covers, clipped to the index's.
func (s *surroundings) cellRange(b detect.Box) (x0, y0, x1, y1 int) {
	cell := func(v float64, n int) int {
		if !(v >= 0) { // negative or NaN
			return 0
		}
		return min(n-1, int(math.Min(v/surroundCellPx, float64(n))))
	}
	return cell(b.X, s.nx), cell(b.Y, s.ny), cell(b.X+b.W, s.nx), cell(b.Y+b.H, s.ny)
}

// meeting calls fn for each piece whose box meets b and whose longer side
// is at most maxSide.
func (s *surroundings) meeting(b detect.Box, maxSide float64, fn func(i int32)) {
	s.nQuery++
	x0, y0, x1, y1 := s.cellRange(b)
	for cy := y0; cy <= y1; cy++ {
		for cx := x0; cx <= x1; cx++ {
			c := cy*s.nx + cx
			for _, i := range s.items[s.start[c]:s.start[c+1]] {
				if s.stamp[i] == s.nQuery {
					continue
				}
				s.stamp[i] = s.nQuery
				p := s.boxes[i]
				if max(p.W, p.H) <= maxSide && p.X <= b.X+b.W && p.Y <= b.Y+b.H && p.X+p.W >= b.X && p.Y+p.H >= b.Y {
					fn(i)
				}
			}
		}
	}
}

// style returns the paint of piece i.
func (s *surroundings) style(i int32) drawing.Style {
	if n := int32(len(s.pg.Segments)); i < n {
		return s.pg.Styles[s.pg.Segments[i].Style]
	}
	return s.pg.Styles[s.pg.Arcs[int(i)-len(s.pg.Segments)].Style]
}

// penLess orders paints, so that ties between them are settled the same
// way every time.
func penLess(a, b drawing.Style) bool {
	if a.Stroke != b.Stroke {
		return a.Stroke < b.Stroke
	}
	if a.Fill != b.Fill {
		return a.Fill < b.Fill
	}
	return a.Width < b.Width
}

// ownPenShare: the template's own pen draws a match when the page draws
// at least this share as much of the template in it as in the pen that
// draws most (a pattern crossing the match ties with the symbol's pen;
// a copy drawn in another pen draws none of it in the template's).
const ownPenShare = 0.5

// penWidthTol: stroke widths within this fraction of each other are one
// pen (a CAD pen's width, rounded by the PDF writer); a leader drawn a
// little heavier in the symbol's colour is another.
const penWidthTol = 0.01

// samePen reports whether a and b stroke with one colour and width (within
// penWidthTol), or fill with one colour.
func samePen(a, b drawing.Style) bool {
	if a.Stroke != "" || b.Stroke != "" {
		return a.Stroke == b.Stroke && math.Abs(a.Width-b.Width) <= penWidthTol*math.Max(a.Width, b.Width)
	}
	return a.Fill == b.Fill
}

// points samples piece i along its length.
func (s *surroundings) points(i int32) []glyph.Point {
	if n := int32(len(s.pg.Segments)); i < n {
		sg := s.pg.Segments[i]
		return sampleChain([]glyph.Point{sg.A, sg.B})
	}
	a := s.pg.Arcs[int(i)-len(s.pg.Segments)]
	n := max(4, int(math.Abs(a.Sweep)*math.Pi/180*a.R/sampleStepPx))
	pts := make([]glyph.Point, n+1)
	for k := 0; k <= n; k++ {
		t := (a.Start + a.Sweep*float64(k)/float64(n)) * math.Pi / 180
		pts[k] = glyph.Point{X: a.C.X + a.R*math.Cos(t), Y: a.C.Y + a.R*math.Sin(t)}
	}
	return pts
}

// posed is a candidate match: the template's drawing sampled where the
// match puts it, and the match's box.
type posed struct {
	pts    []glyph.Point
	filled []glyph.Point // the samples of the template's filled shapes
	// stroked: the samples of its shapes drawn by a line, not a fill:
	// where the match's pen is read.
	stroked []glyph.Point
	box     detect.Box
	tol     float64 // how far page drawing may lie from pts and be explained
	// pen is the template's own pen (Template.pen), zero when unknown:
	// the match's pen when the page draws enough of the template in it.
	pen drawing.Style
	at  glyph.Point // the template's centre
	k   float64     // pixels per glyph millimetre
}

// pose samples g placed at pl.
func pose(g glyph.Glyph, pl glyph.Placement, b detect.Box) posed {
	var pts, filled, stroked []glyph.Point
	for _, sh := range g.Transform(pl.Matrix(vector.PixelsPerMM)).Shapes {
		for _, chain := range (glyph.Glyph{Shapes: []glyph.Shape{sh}}).Polylines(0.25) {
			ps := sampleChain(chain)
			pts = append(pts, ps...)
			if sh.Fill {
				filled = append(filled, ps...)
			} else {
				stroked = append(stroked, ps...)
			}
		}
	}
	k := pl.Scale * vector.PixelsPerMM
	return posed{pts: pts, filled: filled, stroked: stroked, box: b, tol: explainTolBasePx + explainTolRel*k, at: pl.At, k: k}
}

// radialBinMM is the width of the distance bins, in glyph millimetres,
// in which joined.radial keeps unexplained drawing.
const radialBinMM = 0.25

// radialBin is the bin of page point p at distance from c's centre.
func (c posed) radialBin(p glyph.Point) int {
	if c.k <= 0 {
		return 0
	}
	return int(math.Hypot(p.X-c.at.X, p.Y-c.at.Y) / c.k / radialBinMM)
}

// foreignOutside returns how much drawing near candidate c the template
// leaves unexplained, as a fraction of the template's length (foreign);
// the part of it lying outside the match's box (grown by the tolerance),
// as the same fraction (outside: the rest of a larger symbol runs on past
// the match, where an extra stroke of a variant lies within it); the part
// of it that is fill running from the posed template's drawing to its
// drawing again (outlined: the paint inside an outline the template
// draws, which a PDF writer may cut into a different set of spans at each
// copy); and the pen that draws the match. Drawing that another candidate
// explains (the next of a row of luminaires) is that instance's, not
// foreign to this one.
func (s *surroundings) foreignOutside(c posed, all []posed) (joined, drawing.Style) {
	tpl, tol, b := c.pts, c.tol, c.box
	if len(tpl) < 2 {
		return joined{}, drawing.Style{}
	}
	tplLen := float64(len(tpl)) * sampleStepPx
	grow := math.Max(surroundMinPx, surroundGrow*math.Max(b.W, b.H))
	area := detect.Box{X: b.X - grow, Y: b.Y - grow, W: b.W + 2*grow, H: b.H + 2*grow}
	var others []*pointSet
	for _, o := range all {
		// Another instance beside this one, not another reading of
		// the same place (the arms of one four-way switch).
		if o.box.IoU(b) == 0 && o.box.X <= area.X+area.W && o.box.Y <= area.Y+area.H && o.box.X+o.box.W >= area.X && o.box.Y+o.box.H >= area.Y {
			others = append(others, newPointSet(o.pts, o.tol+sampleStepPx))
		}
	}
	onTpl := newPointSet(tpl, tol+sampleStepPx)
	onFilled := newPointSet(c.filled, tol+sampleStepPx)
	// The pen of the match: the paint that draws most of the template's
	// lines there, counted along the template (the share of its line
	// samples a paint's strokes lie near), not along the page: a PDF
	// writer may cut a fill into triangles and stroke each side in the
	// fill's colour, drawing a socket's black half disc over and over
	// along its red outline. A shape the template fills is left out
	// where it has lines.
	maxSide := maxPieceRel * math.Max(b.W, b.H)
	lines := tpl
	if len(c.stroked) > 0 && len(c.filled) > 0 {
		lines = c.stroked
	}
	onLines := onTpl
	if len(lines) != len(tpl) {
		onLines = newPointSet(lines, tol+sampleStepPx)
	}
	drawnBy := map[drawing.Style][]glyph.Point{}
	s.meeting(area, maxSide, func(i int32) {
		if st := s.style(i); st.Stroke != "" {
			for _, p := range s.points(i) {
				if onLines.near(p) {
					drawnBy[st] = append(drawnBy[st], p)
				}
			}
		}
	})
	byPen := make(map[drawing.Style]int, len(drawnBy))
	drawn := make([]bool, len(lines)) // the line samples some stroke draws
	nDrawn := 0
	for st, pts := range drawnBy {
		near := newPointSet(pts, tol+sampleStepPx)
		for k, p := range lines {
			if near.near(p) {
				byPen[st]++
				if !drawn[k] {
					drawn[k] = true
					nDrawn++
				}
			}
		}
	}
	var pen drawing.Style
	for st, n := range byPen {
		if n > byPen[pen] || n == byPen[pen] && penLess(st, pen) {
			pen = st
		}
	}
	// A fine pattern drawn across the match (a floor's herringbone
	// tiles) can lie near as much of the template as the symbol's own
	// lines do; when the page draws at least ownPenShare of the most in
	// the template's own pen, that pen draws the match.
	if c.pen != (drawing.Style{}) && !samePen(pen, c.pen) {
		var own drawing.Style
		for st, n := range byPen {
			if samePen(st, c.pen) && (n > byPen[own] || n == byPen[own] && penLess(st, own)) {
				own = st
			}
		}
		if own != (drawing.Style{}) && float64(byPen[own]) >= ownPenShare*float64(byPen[pen]) {
			pen = own
		}
	}
	// The pieces near the match drawn with its pen; a fill the template
	// only outlines (a downlight's dot where a push button draws a ring)
	// is not explained by that outline.
	type piece struct {
		pts      []glyph.Point
		off      int // samples in the area the template leaves unexplained
		out      int // of those, the samples outside the match's box
		joined   bool
		fillOnly bool
		outlined bool  // fill from the template's drawing to its drawing
		bins     []int // radialBin of each sample counted in off
	}
	var ps []piece
	s.meeting(area, maxSide, func(i int32) {
		st := s.style(i)
		fillOnly := st.Stroke == "" && st.Fill != ""
		if fillOnly && st.Fill != pen.Stroke && st.Fill != pen.Fill || !fillOnly && !samePen(st, pen) {
			return // drawn with another pen: a wall's hatch, a leader
		}
		if !fillOnly && s.dash(i, b, tol) {
			return // a dash of a dashed wire running past the match
		}
		pc := piece{pts: s.points(i), fillOnly: fillOnly}
		pc.outlined = fillOnly && onTpl.near(pc.pts[0]) && onTpl.near(pc.pts[len(pc.pts)-1])
		// shared, sharedOut: samples another candidate explains, of a
		// piece this one explains too (one circle read as two halves).
		shared, sharedOut := 0, 0
		for _, p := range pc.pts {
			on := onTpl.near(p)
			pc.joined = pc.joined || on
			if fillOnly {
				on = onFilled.near(p)
			}
			if on || p.X < area.X || p.X > area.X+area.W || p.Y < area.Y || p.Y > area.Y+area.H {
				continue
			}
			outOfBox := p.X < b.X-tol || p.X > b.X+b.W+tol || p.Y < b.Y-tol || p.Y > b.Y+b.H+tol
			if explained(p, others) {
				shared++
				if outOfBox {
					sharedOut++
				}
				pc.bins = append(pc.bins, -1-c.radialBin(p)) // counted only if shared
				continue
			}
			pc.bins = append(pc.bins, c.radialBin(p))
			pc.off++
			if outOfBox {
				pc.out++
			}
		}
		// An arc drawn on from this match into another is one round
		// figure read twice (the two halves of a spotlight's ring, each
		// a weatherproof socket's double arc): the other's part of it is
		// the rest of a larger symbol, not the next instance of a row.
		// A straight piece may be a row's shared base line or wire.
		if pc.joined && !fillOnly && i >= int32(len(s.pg.Segments)) {
			pc.off += shared
			pc.out += sharedOut
			for k, b := range pc.bins {
				if b < 0 {
					pc.bins[k] = -1 - b
				}
			}
		}
		ps = append(ps, pc)
	})
	// Drawing joined to the match, directly or through other such
	// drawing, is part of the symbol there (the bar under an outdoor
	// luminaire's stem); another symbol that merely stands near it is
	// not.
	sets := make([]*pointSet, len(ps)) // of joined pieces, made when first asked
	touches := func(i, j int) bool {
		if sets[j] == nil {
			sets[j] = newPointSet(ps[j].pts, tol+sampleStepPx)
		}
		for _, p := range ps[i].pts {
			if sets[j].near(p) {
				return true
			}
		}
		return false
	}
	for grew := true; grew; {
		grew = false
		for i := range ps {
			if ps[i].joined {
				continue
			}
			for j := range ps {
				if ps[j].joined && touches(i, j) {
					ps[i].joined, grew = true, true
					break
				}
			}
		}
	}
	unexplained, outside, outlined := 0, 0, 0
	share := func(n int) float64 { return float64(n) * sampleStepPx / tplLen }
	var radial []float64
	for _, pc := range ps {
		if !pc.joined {
			continue
		}
		unexplained += pc.off
		outside += pc.out
		if pc.outlined {
			outlined += pc.off
			continue
		}
		for _, b := range pc.bins {
			if b < 0 {
				continue
			}
			for len(radial) <= b {
				radial = append(radial, 0)
			}
			radial[b] += share(1)
		}
	}
	penShare := 0.0
	if nDrawn > 0 {
		penShare = float64(byPen[pen]) / float64(nDrawn)
	}
	return joined{foreign: share(unexplained), outside: share(outside), outlined: share(outlined), radial: radial, penShare: penShare}, pen
}

// explained reports whether p lies near one of the sets (the samples of
// other candidates).
func explained(p glyph.Point, sets []*pointSet) bool {
	for _, s := range sets {
		if s.near(p) {
			return true
		}
	}
	return false
}

// pointSet answers whether a point lies within r of one of a set of
// points (near's test, r being its tol + sampleStepPx), looking only at
// the points in the cells around it: a candidate's surroundings hold
// thousands of samples of walls and hatching, each tested against the
// hundreds of the posed template.
type pointSet struct {
	r2     float64
	cell   float64
	x0, y0 float64
	nx, ny int
	start  []int32 // per cell, offset into pts; len nx*ny+1
	pts    []glyph.Point
}

// maxCellsPerPoint bounds a pointSet's cells: a sparse set over a large
// extent gets larger cells (any cell of at least r finds every point
// within r in the cells around).
const maxCellsPerPoint = 4

func newPointSet(pts []glyph.Point, r float64) *pointSet {
	s := &pointSet{r2: r * r, cell: math.Max(r, 1e-9)}
	if len(pts) == 0 {
		return s
	}
	lo := glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi := glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range pts {
		lo, hi = glyph.MinPoint(lo, p), glyph.MaxPoint(hi, p)
	}
	if math.IsInf(lo.X, 0) || math.IsInf(hi.X, 0) || math.IsNaN(lo.X+lo.Y+hi.X+hi.Y) {
		s.cell = math.Inf(1) // one cell holds them all
	}
	for (hi.X-lo.X)/s.cell*(hi.Y-lo.Y)/s.cell > float64(maxCellsPerPoint*len(pts)) {
		s.cell *= 2
	}
	s.x0, s.y0 = lo.X, lo.Y
	s.nx, s.ny = 1, 1
	if !math.IsInf(s.cell, 0) {
		s.nx, s.ny = int((hi.X-lo.X)/s.cell)+1, int((hi.Y-lo.Y)/s.cell)+1
	}
	cellOf := func(p glyph.Point) int {
		if s.nx == 1 && s.ny == 1 {
			return 0
		}
		cx := min(s.nx-1, max(0, int((p.X-s.x0)/s.cell)))
		cy := min(s.ny-1, max(0, int((p.Y-s.y0)/s.cell)))
		return cy*s.nx + cx
	}
	s.start = make([]int32, s.nx*s.ny+1)
	for _, p := range pts {
		s.start[cellOf(p)+1]++
	}
	for i := 1; i < len(s.start); i++ {
		s.start[i] += s.start[i-1]
	}
	s.pts = make([]glyph.Point, len(pts))
	fill := make([]int32, s.nx*s.ny)
	for _, p := range pts {
		c := cellOf(p)
		s.pts[s.start[c]+fill[c]] = p
		fill[c]++
	}
	return s
}

// near reports whether p lies within r of a point of the set.
func (s *pointSet) near(p glyph.Point) bool {
	if len(s.pts) == 0 {
		return false
	}
	x0, y0 := 0, 0
	x1, y1 := s.nx-1, s.ny-1
	if s.nx > 1 || s.ny > 1 {
		fx, fy := (p.X-s.x0)/s.cell, (p.Y-s.y0)/s.cell
		if fx < -1 || fy < -1 || fx >= float64(s.nx+1) || fy >= float64(s.ny+1) {
			return false // more than a cell (at least r) outside the extent
		}
		cx, cy := int(math.Floor(fx)), int(math.Floor(fy))
		x0, y0 = max(0, cx-1), max(0, cy-1)
		x1, y1 = min(s.nx-1, cx+1), min(s.ny-1, cy+1)
	}
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			c := y*s.nx + x
			for _, q := range s.pts[s.start[c]:s.start[c+1]] {
				if dx, dy := p.X-q.X, p.Y-q.Y; dx*dx+dy*dy <= s.r2 {
					return true
				}
			}
		}
	}
	return false
}

// near reports whether p lies within tol of a point of pts.
func near(p glyph.Point, pts []glyph.Point, tol float64) bool {
	r2 := (tol + sampleStepPx) * (tol + sampleStepPx)
	for _, q := range pts {
		if dx, dy := p.X-q.X, p.Y-q.Y; dx*dx+dy*dy <= r2 {
			return true
		}
	}
	return false
}

// sampleChain returns points every sampleStepPx along a chain.
func sampleChain(pts []glyph.Point) []glyph.Point {
	var out []glyph.Point
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		l := math.Hypot(b.X-a.X, b.Y-a.Y)
		n := max(1, int(math.Ceil(l/sampleStepPx)))
		for k := range n {
			f := float64(k) / float64(n)
			out = append(out, glyph.Point{X: a.X + f*(b.X-a.X), Y: a.Y + f*(b.Y-a.Y)})
		}
	}
	if len(pts) > 0 {
		out = append(out, pts[len(pts)-1])
	}
	return out
}

func arcBox(a drawing.Arc) detect.Box {
	lo := glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi := glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	n := max(4, int(math.Abs(a.Sweep)/10))
	for k := 0; k <= n; k++ {
		t := (a.Start + a.Sweep*float64(k)/float64(n)) * math.Pi / 180
		p := glyph.Point{X: a.C.X + a.R*math.Cos(t), Y: a.C.Y + a.R*math.Sin(t)}
		lo, hi = glyph.MinPoint(lo, p), glyph.MaxPoint(hi, p)
	}
	return detect.Box{X: lo.X, Y: lo.Y, W: hi.X - lo.X, H: hi.Y - lo.Y}
}
