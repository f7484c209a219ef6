package vector

import (
	"math"
	"sync"

	"blueprint/internal/glyph"
)

// Stretched glyphs: a linear luminaire's legend glyph is a bar, and the
// plan draws each fitting at its own length (a 600 mm batten and a
// 1500 mm one under one legend row). A template marked Stretch whose
// glyph is elongated is also searched stretched along its long axis,
// minStretch to maxStretch times its length at the pose's scale, the
// scale taken from the short axis. Each stretch is verified as strictly
// as any pose: the stretched glyph is prepared as a template of its own.
const (
	// minStretchAspect: a glyph is elongated when its long side is at
	// least this many times its short side.
	minStretchAspect = 2.0
	minStretch       = 0.5
	maxStretch       = 4.0
	// maxFittingAspect: a tube fitting (tubes.go) is searched up to
	// this long for its width, however squat its legend glyph (a
	// 1500 × 100 mm batten under a 600 × 1200 troffer's glyph).
	maxFittingAspect = 16.0
	// stretchStep quantises the stretch (natural log) so that nearby
	// poses share one prepared variant: ±0.75 % of the length, within
	// the verification tolerance of any bar a plan draws.
	stretchStep = 0.015
)

// stretchable is what a template searched stretched keeps: the template
// to stretch, its long axis, the corner that anchors the search and the
// variants prepared so far.
type stretchable struct {
	t      Template
	alongY bool // the long axis is y
	// maxF is the longest stretch searched: maxStretch, more for a
	// tube fitting.
	maxF float64
	// fitting: the glyph is a tube fitting (tubes.go), also searched
	// from the page's rectangles of two parallel sides.
	fitting bool
	// v is a corner of the glyph whose arm to l lies along the long
	// axis and whose arm to w along the short one.
	v, l, w glyph.Point

	mu       sync.Mutex
	variants map[int]*prepared
}

// newStretchable returns how template t is searched stretched, nil where
// it is not (not marked, not elongated, not drawn only along its axes,
// or without a square corner whose arms run along both). tubes is t's
// glyph read as a tube fitting (readTubes), nil where it is not one: a
// fitting is stretched along its tubes, however squat.
func newStretchable(t Template, segs [][2]glyph.Point, tubes *tubeFitting) *stretchable {
	if !t.Stretch {
		return nil
	}
	lo, hi := t.Glyph.Bounds()
	w, h := hi.X-lo.X, hi.Y-lo.Y
	if math.Min(w, h) <= 0 {
		return nil
	}
	alongY := h > w
	maxF := maxStretch
	fitting := tubes != nil
	if fitting {
		// A tube fitting stretches along its tubes, whatever its
		// proportions (a 600 × 1200 troffer's glyph stands for battens).
		alongY = tubes.alongY
		long, short := w, h
		if alongY {
			long, short = h, w
		}
		maxF = max(maxF, maxFittingAspect*short/long)
	} else if math.Max(w, h) < minStretchAspect*math.Min(w, h) {
		return nil
	}
	// A bar and its tubes: every piece straight and along an axis (no
	// diagonal, arc or text, which would not stretch so).
	for _, sh := range t.Glyph.Shapes {
		switch sh.Kind {
		case glyph.KindText, glyph.KindCircle, glyph.KindArc:
			return nil
		}
	}
	for _, pl := range t.Glyph.Polylines(0.05) {
		for i := 1; i < len(pl); i++ {
			dx, dy := math.Abs(pl[i].X-pl[i-1].X), math.Abs(pl[i].Y-pl[i-1].Y)
			if math.Min(dx, dy) > 0.02*math.Max(dx, dy) {
				return nil
			}
		}
	}
	s := &stretchable{t: t, alongY: alongY, maxF: maxF, fitting: fitting, variants: map[int]*prepared{}}
	along := func(d glyph.Point) float64 { // |component| along the long axis, of a unit vector
		if s.alongY {
			return math.Abs(d.Y)
		}
		return math.Abs(d.X)
	}
	best := 0.0
	for i, a := range segs {
		for _, b := range segs[i+1:] {
			for _, ea := range [2][2]glyph.Point{{a[0], a[1]}, {a[1], a[0]}} {
				for _, eb := range [2][2]glyph.Point{{b[0], b[1]}, {b[1], b[0]}} {
					if math.Hypot(ea[0].X-eb[0].X, ea[0].Y-eb[0].Y) > 1e-6 {
						continue
					}
					u := glyph.Point{X: ea[1].X - ea[0].X, Y: ea[1].Y - ea[0].Y}
					x := glyph.Point{X: eb[1].X - eb[0].X, Y: eb[1].Y - eb[0].Y}
					lu, lx := math.Hypot(u.X, u.Y), math.Hypot(x.X, x.Y)
					if lu == 0 || lx == 0 {
						continue
					}
					u, x = glyph.Point{X: u.X / lu, Y: u.Y / lu}, glyph.Point{X: x.X / lx, Y: x.Y / lx}
					long, short := ea[1], eb[1]
					ll := lu
					switch {
					case along(u) > 0.99 && along(x) < 0.01:
					case along(x) > 0.99 && along(u) < 0.01:
						long, short, ll = eb[1], ea[1], lx
					default:
						continue
					}
					if ll > best {
						best, s.v, s.l, s.w = ll, ea[0], long, short
					}
				}
			}
		}
	}
	if best == 0 {
		return nil
	}
	return s
}

// stretch maps a glyph point to the glyph stretched f times along the
// long axis.
func (s *stretchable) stretch(p glyph.Point, f float64) glyph.Point {
	if s.alongY {
		return glyph.Point{X: p.X, Y: p.Y * f}
	}
	return glyph.Point{X: p.X * f, Y: p.Y}
}

// variant returns the template stretched by about f (quantised), and
// the stretch it stands for.
func (s *stretchable) variant(f float64) (*prepared, float64, error) {
	k := int(math.Round(math.Log(f) / stretchStep))
	q := math.Exp(float64(k) * stretchStep)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.variants[k]; ok {
		return p, q, nil
	}
	t := s.t
	t.Stretch = false
	m := glyph.Affine{A: q, D: 1}
	if s.alongY {
		m = glyph.Affine{A: 1, D: q}
	}
	t.Glyph = t.Glyph.Transform(m)
	p, err := prepare(t)
	if err != nil {
		return nil, 0, err
	}
	s.variants[k] = p
	return p, q, nil
}

// stretchHypotheses tries the template stretched: each page corner of
// the anchor corner's angle gives the scale (its short arm) and the
// stretch (its long arm), whatever the ratio of its arms.
func (ix *pageIndex) stretchHypotheses(t *prepared, try func(hypothesis) float64) {
	s := t.stretch
	if ix.cornerStart == nil {
		ix.hashCorners()
	}
	u := glyph.Point{X: s.l.X - s.v.X, Y: s.l.Y - s.v.Y}
	w := glyph.Point{X: s.w.X - s.v.X, Y: s.w.Y - s.v.Y}
	lu, lw := math.Hypot(u.X, u.Y), math.Hypot(w.X, w.Y)
	tAng := glyph.Turn(u, w)
	const angTol = 5.0
	a0 := max(0, int(math.Floor((math.Abs(tAng)-angTol)/cornerAngStep)))
	a1 := min(int(180/cornerAngStep), int(math.Floor((math.Abs(tAng)+angTol)/cornerAngStep)))
	// tryCorner tries the pose that puts the anchor corner on page
	// corner c; exact (a rectangle's corner, which the unstretched search
	// does not visit) tries it unstretched too.
	tryCorner := func(c *cornerArms, exact bool) bool {
		sc := math.Hypot(c.b.X, c.b.Y) / (lw * PixelsPerMM)
		if sc < t.minScale || sc > t.maxScale {
			return true
		}
		f := c.la / (lu * sc * PixelsPerMM)
		if f < minStretch || f > s.maxF || (!exact && math.Abs(math.Log(f)) < stretchStep) {
			return true // f ≈ 1: the unstretched search's
		}
		mir := false
		switch {
		case math.Abs(c.ang-tAng) < angTol:
		case math.Abs(c.ang+tAng) < angTol:
			mir = true
		default:
			return true
		}
		v, q, err := s.variant(f)
		if err != nil {
			return false
		}
		vv := s.stretch(s.v, q)
		rot := deg(c.a) - deg(u)
		if mir {
			rot = deg(c.a) - (180 - deg(u))
		}
		try(hypothesis{v, placeFor(vv, c.v, rot, sc, mir)})
		return true
	}
	if s.fitting {
		// A tube fitting is found stretched by its sides and tubes
		// (hashFittingCorners), whatever its corners.
		for i := range ix.fittingArms {
			if !tryCorner(&ix.fittingArms[i], true) {
				return
			}
		}
		return
	}
	rb := 2*cornerRatioBuckets + 1
	for ai := a0; ai <= a1; ai++ {
		for i := ix.cornerStart[ai*rb]; i < ix.cornerStart[(ai+1)*rb]; i++ {
			if !tryCorner(&ix.cornerArms[i], false) {
				return
			}
		}
	}
}
