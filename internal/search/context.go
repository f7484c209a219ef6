package search

import (
	"math"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/vector"
)

// A match of the template may be only part of a larger symbol: a socket
// inside an earthed or a double socket, a switch inside a two-way switch.
// The matcher checks that the page explains the template; the template
// must also explain the page around the match, as it explained the box it
// was cut from. Drawing near a match is what lies wholly inside the match's
// box grown by surroundGrow of its size (at least surroundMinPx), joined to
// the drawing the template explains there: what a reviewer's box around
// that instance would cut of the symbol. Longer pieces that pass by (walls,
// wires) and clutter standing apart are not part of it.
const (
	surroundGrow  = 0.3
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
// cover, for the drawing near each match.
type surroundings struct {
	pg     *drawing.Page
	boxes  []detect.Box // segments, then arcs
	cells  map[[2]int][]int32
	stamp  []int // per piece: the last query that visited it
	nQuery int
}

func newSurroundings(pg *drawing.Page) *surroundings {
	s := &surroundings{pg: pg, cells: map[[2]int][]int32{}}
	add := func(b detect.Box) {
		i := int32(len(s.boxes))
		s.boxes = append(s.boxes, b)
		for cy := int(b.Y / surroundCellPx); cy <= int((b.Y+b.H)/surroundCellPx); cy++ {
			for cx := int(b.X / surroundCellPx); cx <= int((b.X+b.W)/surroundCellPx); cx++ {
				s.cells[[2]int{cx, cy}] = append(s.cells[[2]int{cx, cy}], i)
			}
		}
	}
	for _, sg := range pg.Segments {
		lo, hi := glyph.MinPoint(sg.A, sg.B), glyph.MaxPoint(sg.A, sg.B)
		add(detect.Box{X: lo.X, Y: lo.Y, W: hi.X - lo.X, H: hi.Y - lo.Y})
	}
	for _, a := range pg.Arcs {
		add(arcBox(a))
	}
	s.stamp = make([]int, len(s.boxes))
	return s
}

// meeting calls fn for each piece whose box meets b and whose longer side
// is at most maxSide.
func (s *surroundings) meeting(b detect.Box, maxSide float64, fn func(i int32)) {
	s.nQuery++
	for cy := int(b.Y / surroundCellPx); cy <= int((b.Y+b.H)/surroundCellPx); cy++ {
		for cx := int(b.X / surroundCellPx); cx <= int((b.X+b.W)/surroundCellPx); cx++ {
			for _, i := range s.cells[[2]int{cx, cy}] {
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

// samePen reports whether a and b stroke with one colour and width (within
// a tenth), or fill with one colour.
func samePen(a, b drawing.Style) bool {
	if a.Stroke != "" || b.Stroke != "" {
		return a.Stroke == b.Stroke && math.Abs(a.Width-b.Width) <= 0.1*math.Max(a.Width, b.Width)
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

// foreign returns how much drawing near the match at pl (box b) the posed
// template leaves unexplained, as a fraction of the template's length.
func (s *surroundings) foreign(g glyph.Glyph, pen drawing.Style, pl glyph.Placement, b detect.Box) float64 {
	unit := pl.Scale * vector.PixelsPerMM
	posed := g.Transform(pl.Matrix(vector.PixelsPerMM))
	var tpl []glyph.Point
	for _, pts := range posed.Polylines(0.25) {
		tpl = append(tpl, sampleChain(pts)...)
	}
	if len(tpl) < 2 {
		return 0
	}
	tplLen := float64(len(tpl)) * sampleStepPx
	tol := explainTolBasePx + explainTolRel*unit
	grow := math.Max(surroundMinPx, surroundGrow*math.Max(b.W, b.H))
	area := detect.Box{X: b.X - grow, Y: b.Y - grow, W: b.W + 2*grow, H: b.H + 2*grow}
	unexplained := 0
	s.meeting(area, maxPieceRel*math.Max(b.W, b.H), func(i int32) {
		if !samePen(s.style(i), pen) {
			return // drawn with another pen: a wall's hatch, a leader
		}
		// Only drawing joined to the match counts: clutter that merely
		// stands near it (a wall's hatch, another symbol) is no part
		// of a larger symbol.
		off, touches := 0, false
		for _, p := range s.points(i) {
			if near(p, tpl, tol) {
				touches = true
			} else if area.X <= p.X && p.X <= area.X+area.W && area.Y <= p.Y && p.Y <= area.Y+area.H {
				off++
			}
		}
		if touches {
			unexplained += off
		}
	})
	return float64(unexplained) * sampleStepPx / tplLen
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
