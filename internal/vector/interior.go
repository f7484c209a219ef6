package vector

import (
	"math"
	"sort"

	"blueprint/internal/glyph"
)

// Foreign interior drawing: a pose whose inside holds drawing that the
// template does not explain is a different symbol that contains the
// template's shape (concentric circles with marks inside are a luminaire,
// not a push button).
const (
	// maxForeignInterior is the most unexplained page geometry lying
	// wholly inside a match, as a fraction of the template's own drawn
	// length, that the match tolerates.
	maxForeignInterior = 0.45
	// interiorMarginMM is how far inside the template's convex hull, in
	// glyph millimetres beyond the verification tolerance, page geometry
	// must lie to count as the match's interior: wires and walls touching
	// the outline stay out.
	interiorMarginMM = 0.25
	// interiorStepPx is the spacing of the points at which interior page
	// geometry is tested against the template.
	interiorStepPx = 1.0
	// ownColourShare is the least share of a pose's looked-at samples
	// that page drawing of one colour must cover for the colour to be the
	// pose's own (poseColours); ownColourSamples is about how many
	// samples are looked at.
	ownColourShare   = 0.5
	ownColourSamples = 32
)

// convexHull returns the convex hull of pts, counter-clockwise in a y-up
// frame (Andrew's monotone chain); collinear points are dropped.
func convexHull(pts []glyph.Point) []glyph.Point {
	p := append([]glyph.Point(nil), pts...)
	sort.Slice(p, func(i, j int) bool {
		if p[i].X != p[j].X {
			return p[i].X < p[j].X
		}
		return p[i].Y < p[j].Y
	})
	if len(p) < 3 {
		return p
	}
	cross := func(o, a, b glyph.Point) float64 {
		return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X)
	}
	h := make([]glyph.Point, 0, 2*len(p))
	for _, q := range p {
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	lower := len(h) + 1
	for i := len(p) - 2; i >= 0; i-- {
		q := p[i]
		for len(h) >= lower && cross(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	return h[:len(h)-1]
}

// insideBy reports whether p lies inside the counter-clockwise convex
// polygon hull at least margin from every edge.
func insideBy(hull []glyph.Point, p glyph.Point, margin float64) bool {
	if len(hull) < 3 {
		return false
	}
	for i := range hull {
		a, b := hull[i], hull[(i+1)%len(hull)]
		ex, ey := b.X-a.X, b.Y-a.Y
		l := math.Hypot(ex, ey)
		if l == 0 {
			continue
		}
		if (ex*(p.Y-a.Y)-ey*(p.X-a.X))/l < margin {
			return false
		}
	}
	return true
}

// hullEdge is one edge of a counter-clockwise convex hull: its start and
// its unit inward normal.
type hullEdge struct {
	a      glyph.Point
	nx, ny float64
}

// edgesOf returns hull's edges with their inward normals, so that a point
// is tested against the hull without a square root per edge (insideEdges).
// Edges of no length are left out, as insideBy skips them.
func edgesOf(hull []glyph.Point) []hullEdge {
	if len(hull) < 3 {
		return nil
	}
	out := make([]hullEdge, 0, len(hull))
	for i := range hull {
		a, b := hull[i], hull[(i+1)%len(hull)]
		ex, ey := b.X-a.X, b.Y-a.Y
		l := math.Hypot(ex, ey)
		if l == 0 {
			continue
		}
		out = append(out, hullEdge{a: a, nx: -ey / l, ny: ex / l})
	}
	return out
}

// insideEdges is insideBy over a hull's precomputed edges (edgesOf).
func insideEdges(edges []hullEdge, p glyph.Point, margin float64) bool {
	if len(edges) == 0 {
		return false
	}
	for _, e := range edges {
		if e.nx*(p.X-e.a.X)+e.ny*(p.Y-e.a.Y) < margin {
			return false
		}
	}
	return true
}

// foreignInterior returns the length of page geometry (segments and arcs;
// text is never a symbol's drawing) lying wholly inside the posed
// template's shrunk hull that no template geometry explains, as a fraction
// of the template's drawn length. Wires crossing the symbol enter and leave
// the hull, so they never lie wholly inside it. Overlapping pieces count
// each time: a solid fill written as fans of filled and stroked triangles
// is heavy drawing, and counting each pixel of ink once would rate it as
// light as a stray mark. Where the measure is over maxForeignInterior,
// only drawing in the pose's own colours counts (poseColours; every colour
// where none is its own): a room label's outlined letters or a grey door
// swing crossing a blue socket are another layer's, while a symbol holding
// the template's shape draws its marks with the same pen.
func (ix *pageIndex) foreignInterior(h hypothesis) float64 {
	t := h.t
	if len(t.hull) < 3 {
		return 0
	}
	m := h.pl.Matrix(PixelsPerMM)
	det := m.A*m.D - m.B*m.C
	if det == 0 {
		return 0
	}
	// Page pixels to glyph millimetres.
	inv := glyph.Affine{A: m.D / det, B: -m.B / det, C: -m.C / det, D: m.A / det}
	inv.E = -(inv.A*m.E + inv.C*m.F)
	inv.F = -(inv.B*m.E + inv.D*m.F)
	k := h.pl.Scale * PixelsPerMM
	tolMM := (tolBasePx + tolRel*k) / k
	margin := tolMM + interiorMarginMM
	// A page point is explained when a template sample lies within the
	// verification tolerance plus half the sample spacing.
	reach := tolMM + sampleStepMM/2
	explained := func(q glyph.Point) bool {
		for _, s := range t.samples {
			if dx, dy := s.P.X-q.X, s.P.Y-q.Y; dx*dx+dy*dy <= reach*reach {
				return true
			}
		}
		return false
	}
	lo := glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi := glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range t.hull {
		q := m.Apply(p)
		lo, hi = glyph.MinPoint(lo, q), glyph.MaxPoint(hi, q)
	}
	// unexplainedPx measures the unexplained length of a polyline in page
	// pixels, or returns false when any of it leaves the interior.
	unexplainedPx := func(pts []glyph.Point) (float64, bool) {
		for _, p := range pts {
			if !insideEdges(t.hullEdges, inv.Apply(p), margin) {
				return 0, false
			}
		}
		sum := 0.0
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			l := math.Hypot(b.X-a.X, b.Y-a.Y)
			n := max(1, int(math.Ceil(l/interiorStepPx)))
			for j := 0; j < n; j++ {
				f := (float64(j) + 0.5) / float64(n)
				if !explained(inv.Apply(glyph.Point{X: a.X + f*(b.X-a.X), Y: a.Y + f*(b.Y-a.Y)})) {
					sum += l / float64(n)
				}
			}
		}
		return sum, true
	}
	// The unexplained interior drawing by colour: drawing of another
	// colour than the pose's own inside a symbol (a room label's outlined
	// letters, a door swing, a dimension) is another layer's.
	foreignBy := map[string]float64{}
	add := func(style int32, pts []glyph.Point) {
		un, ok := unexplainedPx(pts)
		if !ok || un == 0 {
			return
		}
		foreignBy[ix.pg.Styles[style].Paint()] += un
	}
	ns := int32(len(ix.pg.Segments))
	g := ix.pieces
	x0, y0 := max(0, int(math.Floor(lo.X/g.cell))), max(0, int(math.Floor(lo.Y/g.cell)))
	x1, y1 := min(g.nx-1, int(math.Floor(hi.X/g.cell))), min(g.ny-1, int(math.Floor(hi.Y/g.cell)))
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			c := y*g.nx + x
			for _, i := range g.items[g.start[c]:g.start[c+1]] {
				// A piece lies in every cell it passes: it is measured in
				// the cell of its first point only.
				if i < ns {
					s := ix.pg.Segments[i]
					if g.cellOf(s.A) != c || math.Min(s.A.X, s.B.X) < lo.X || math.Min(s.A.Y, s.B.Y) < lo.Y ||
						math.Max(s.A.X, s.B.X) > hi.X || math.Max(s.A.Y, s.B.Y) > hi.Y {
						continue
					}
					add(s.Style, []glyph.Point{s.A, s.B})
					continue
				}
				a := ix.pg.Arcs[i-ns]
				st := a.Start * math.Pi / 180
				if g.cellOf(glyph.Point{X: a.C.X + a.R*math.Cos(st), Y: a.C.Y + a.R*math.Sin(st)}) != c {
					continue
				}
				add(a.Style, arcPoints(a))
			}
		}
	}
	total := 0.0
	for _, l := range foreignBy {
		total += l
	}
	if total <= maxForeignInterior*t.lenMM*k {
		return total / (t.lenMM * k) // within bounds whatever its colours
	}
	own := ix.poseColours(h)
	foreign := 0.0
	for colour, l := range foreignBy {
		if len(own) == 0 || own[colour] {
			foreign += l
		}
	}
	return foreign / (t.lenMM * k)
}

// poseColours returns the colours of the page drawing that covers the
// posed template: those covering at least ownColourShare of about
// ownColourSamples of its samples.
func (ix *pageIndex) poseColours(h hypothesis) map[string]bool {
	t := h.t
	if len(t.samples) == 0 {
		return nil
	}
	m := h.pl.Matrix(PixelsPerMM)
	lin := glyph.Affine{A: m.A, B: m.B, C: m.C, D: m.D}
	k := h.pl.Scale * PixelsPerMM
	tol := tolBasePx + tolRel*k
	step := max(1, len(t.samples)/ownColourSamples)
	ns := int32(len(ix.pg.Segments))
	g := ix.pieces
	count := map[string]int{}
	looked := 0
	seen := map[string]bool{}
	for i := 0; i < len(t.samples); i += step {
		smp := t.samples[i]
		p := m.Apply(smp.P)
		d := lin.Apply(smp.T)
		if n := math.Hypot(d.X, d.Y); n > 0 {
			d = glyph.Point{X: d.X / n, Y: d.Y / n}
		}
		looked++
		clear(seen)
		x0, x1 := max(0, int((p.X-tol)/g.cell)), min(g.nx-1, int((p.X+tol)/g.cell))
		y0, y1 := max(0, int((p.Y-tol)/g.cell)), min(g.ny-1, int((p.Y+tol)/g.cell))
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				c := y*g.nx + x
				for _, j := range g.items[g.start[c]:g.start[c+1]] {
					var style int32
					if j < ns {
						if !ix.segCovers(j, p, d, tol, fillNone) {
							continue
						}
						style = ix.pg.Segments[j].Style
					} else {
						if !ix.arcCovers(j-ns, p, d, tol, fillNone) {
							continue
						}
						style = ix.pg.Arcs[j-ns].Style
					}
					if colour := ix.pg.Styles[style].Paint(); !seen[colour] {
						seen[colour] = true
						count[colour]++
					}
				}
			}
		}
	}
	own := map[string]bool{}
	for colour, n := range count {
		if float64(n) >= ownColourShare*float64(looked) {
			own[colour] = true
		}
	}
	return own
}
