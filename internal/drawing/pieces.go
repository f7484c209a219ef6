package drawing

import (
	"math"

	"blueprint/internal/glyph"
)

// Normalisation tolerances, in raster pixels.
const (
	// ArcFitTol is how far a curve or a run of short segments may stray
	// from a circle (plus ArcFitRel of its radius) to be taken as an arc.
	ArcFitTol = 0.35
	ArcFitRel = 0.01
	// maxArcRadius: flatter curves are treated as straight pieces.
	maxArcRadius = 5000.0
	// flattenTol is the chord error allowed when a non-circular curve is
	// flattened to segments.
	flattenTol = 0.25
)

// appendPieces maps the commands by tf and appends them to the page as
// segments and arcs: circular Bézier curves become arcs (consecutive ones on
// one circle merge, so a circle written as four curves is one 360° arc),
// other curves are flattened, and runs of short segments that follow a
// circle (curves exported as polylines) become arcs as well.
func appendPieces(pg *Page, cmds []PathCmd, tf glyph.Affine, st int32) {
	// One straight segment (hatching exports millions of them): what the
	// loop below makes of it, without its scratch slices.
	if len(cmds) == 2 && cmds[0].Op == 'M' && cmds[1].Op == 'L' {
		if a, b := tf.Apply(cmds[0].P[0]), tf.Apply(cmds[1].P[0]); a != b {
			pg.Segments = append(pg.Segments, Segment{A: a, B: b, Style: st})
		}
		return
	}
	var cur, start glyph.Point
	var chain []glyph.Point // vertices of the current run of straight pieces
	var arcs []Arc          // arcs of the current subpath, in order
	flushChain := func() {
		emitChain(pg, chain, st)
		chain = chain[:0]
	}
	flushArcs := func() {
		pg.Arcs = append(pg.Arcs, mergeArcs(arcs)...)
		arcs = arcs[:0]
	}
	lineTo := func(q glyph.Point) {
		if len(chain) == 0 {
			chain = append(chain, cur)
		}
		if q != chain[len(chain)-1] {
			chain = append(chain, q)
		}
		cur = q
	}
	for _, c := range cmds {
		switch c.Op {
		case 'M':
			flushChain()
			flushArcs()
			cur = tf.Apply(c.P[0])
			start = cur
		case 'L':
			lineTo(tf.Apply(c.P[0]))
		case 'Z':
			if cur != start {
				lineTo(start)
			}
			flushChain()
			cur = start
		case 'C':
			p0 := cur
			p1, p2, p3 := tf.Apply(c.P[0]), tf.Apply(c.P[1]), tf.Apply(c.P[2])
			if a, ok := cubicArc(p0, p1, p2, p3); ok {
				flushChain()
				a.Style = st
				arcs = append(arcs, a)
				cur = p3
				continue
			}
			for _, q := range flattenCubic(p0, p1, p2, p3) {
				lineTo(q)
			}
		}
	}
	flushChain()
	flushArcs()
}

// emitChain appends the chain's pieces: runs that follow a circle as arcs,
// the rest as segments.
func emitChain(pg *Page, chain []glyph.Point, st int32) {
	if len(chain) < 2 {
		return
	}
	i := 0
	for i < len(chain)-1 {
		if j, a, ok := polylineArc(chain, i); ok {
			a.Style = st
			pg.Arcs = append(pg.Arcs, a)
			i = j
			continue
		}
		pg.Segments = append(pg.Segments, Segment{A: chain[i], B: chain[i+1], Style: st})
		i++
	}
}

// polylineArc looks for a run of at least five short, evenly turning
// segments starting at vertex i that lies on one circle. It returns the index
// of the run's last vertex and the arc.
func polylineArc(ch []glyph.Point, i int) (int, Arc, bool) {
	const minSegs = 5
	if len(ch)-i-1 < minSegs {
		return 0, Arc{}, false
	}
	turn := func(k int) float64 { // turn at vertex k, radians, signed
		a, b, c := ch[k-1], ch[k], ch[k+1]
		t := math.Atan2((b.X-a.X)*(c.Y-b.Y)-(b.Y-a.Y)*(c.X-b.X), (b.X-a.X)*(c.X-b.X)+(b.Y-a.Y)*(c.Y-b.Y))
		return t
	}
	segLen := func(k int) float64 { return math.Hypot(ch[k+1].X-ch[k].X, ch[k+1].Y-ch[k].Y) }
	l0 := segLen(i)
	t0 := turn(i + 1)
	if math.Abs(t0) < 1e-3 || math.Abs(t0) > math.Pi/4 {
		return 0, Arc{}, false
	}
	j := i + 1
	for j < len(ch)-1 {
		l := segLen(j)
		if l > 1.6*l0+0.5 || l < l0/1.6-0.5 {
			break
		}
		if j+1 < len(ch)-1 {
			t := turn(j + 1)
			if t*t0 <= 0 || math.Abs(t-t0) > 0.5*math.Abs(t0)+0.02 {
				j++
				break
			}
		}
		j++
	}
	if j-i < minSegs {
		return 0, Arc{}, false
	}
	c, r, ok := FitCircle(ch[i : j+1])
	if !ok || r > maxArcRadius {
		return 0, Arc{}, false
	}
	tol := ArcFitTol + ArcFitRel*r
	for _, p := range ch[i : j+1] {
		if math.Abs(math.Hypot(p.X-c.X, p.Y-c.Y)-r) > tol {
			return 0, Arc{}, false
		}
	}
	a := arcThrough(c, r, ch[i], ch[(i+j)/2], ch[j])
	return j, a, true
}

// FitCircle is the algebraic (Kåsa) least-squares circle through pts:
// its centre and radius, ok false where the points lie on a line.
func FitCircle(pts []glyph.Point) (glyph.Point, float64, bool) {
	var mx, my float64
	for _, p := range pts {
		mx += p.X
		my += p.Y
	}
	n := float64(len(pts))
	mx, my = mx/n, my/n
	var suu, svv, suv, suuu, svvv, suvv, svuu float64
	for _, p := range pts {
		u, v := p.X-mx, p.Y-my
		suu += u * u
		svv += v * v
		suv += u * v
		suuu += u * u * u
		svvv += v * v * v
		suvv += u * v * v
		svuu += v * u * u
	}
	det := suu*svv - suv*suv
	if math.Abs(det) < 1e-12 {
		return glyph.Point{}, 0, false
	}
	bu := (suuu + suvv) / 2
	bv := (svvv + svuu) / 2
	uc := (bu*svv - bv*suv) / det
	vc := (suu*bv - suv*bu) / det
	r := math.Sqrt(uc*uc + vc*vc + (suu+svv)/n)
	return glyph.Point{X: uc + mx, Y: vc + my}, r, true
}

// arcThrough returns the arc of circle (c, r) from p0 through pm to p1.
func arcThrough(c glyph.Point, r float64, p0, pm, p1 glyph.Point) Arc {
	a0 := math.Atan2(p0.Y-c.Y, p0.X-c.X) * 180 / math.Pi
	a1 := math.Atan2(p1.Y-c.Y, p1.X-c.X) * 180 / math.Pi
	cross := (pm.X-p0.X)*(p1.Y-pm.Y) - (pm.Y-p0.Y)*(p1.X-pm.X)
	var sweep float64
	if cross >= 0 {
		sweep = math.Mod(a1-a0+720, 360)
		if sweep < 1e-6 {
			sweep = 360
		}
	} else {
		sweep = -math.Mod(a0-a1+720, 360)
		if sweep > -1e-6 {
			sweep = -360
		}
	}
	return Arc{C: c, R: r, Start: a0, Sweep: sweep}
}

func bez(p0, p1, p2, p3 glyph.Point, t float64) glyph.Point {
	u := 1 - t
	a, b, c, d := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
	return glyph.Point{X: a*p0.X + b*p1.X + c*p2.X + d*p3.X, Y: a*p0.Y + b*p1.Y + c*p2.Y + d*p3.Y}
}

// circumcircle returns the circle through three points.
func circumcircle(a, b, c glyph.Point) (glyph.Point, float64, bool) {
	d := 2 * (a.X*(b.Y-c.Y) + b.X*(c.Y-a.Y) + c.X*(a.Y-b.Y))
	if math.Abs(d) < 1e-9 {
		return glyph.Point{}, 0, false
	}
	a2, b2, c2 := a.X*a.X+a.Y*a.Y, b.X*b.X+b.Y*b.Y, c.X*c.X+c.Y*c.Y
	ux := (a2*(b.Y-c.Y) + b2*(c.Y-a.Y) + c2*(a.Y-b.Y)) / d
	uy := (a2*(c.X-b.X) + b2*(a.X-c.X) + c2*(b.X-a.X)) / d
	o := glyph.Point{X: ux, Y: uy}
	return o, math.Hypot(a.X-ux, a.Y-uy), true
}

// cubicArc reports whether the cubic curve is a circular arc within the fit
// tolerance, and returns it.
func cubicArc(p0, p1, p2, p3 glyph.Point) (Arc, bool) {
	pm := bez(p0, p1, p2, p3, 0.5)
	if p0 == p3 {
		return Arc{}, false
	}
	c, r, ok := circumcircle(p0, pm, p3)
	if !ok || r > maxArcRadius || r < 0.05 {
		return Arc{}, false
	}
	tol := ArcFitTol + ArcFitRel*r
	for _, t := range []float64{0.125, 0.25, 0.375, 0.625, 0.75, 0.875} {
		q := bez(p0, p1, p2, p3, t)
		if math.Abs(math.Hypot(q.X-c.X, q.Y-c.Y)-r) > tol {
			return Arc{}, false
		}
	}
	return arcThrough(c, r, p0, pm, p3), true
}

// flattenCubic returns points along the curve after p0 (p3 last) with chord
// error below flattenTol.
func flattenCubic(p0, p1, p2, p3 glyph.Point) []glyph.Point {
	// Control polygon length bounds the curve; the second differences
	// bound the chord error: n = sqrt(0.75·max|Δ²| / tol).
	d1 := math.Hypot(p0.X-2*p1.X+p2.X, p0.Y-2*p1.Y+p2.Y)
	d2 := math.Hypot(p1.X-2*p2.X+p3.X, p1.Y-2*p2.Y+p3.Y)
	n := int(math.Ceil(math.Sqrt(0.75 * math.Max(d1, d2) / flattenTol)))
	n = min(max(n, 1), 64)
	out := make([]glyph.Point, n)
	for i := 1; i <= n; i++ {
		out[i-1] = bez(p0, p1, p2, p3, float64(i)/float64(n))
	}
	return out
}

// mergeArcs joins consecutive arcs that continue one another on one circle.
func mergeArcs(arcs []Arc) []Arc {
	if len(arcs) == 0 {
		return nil
	}
	out := []Arc{arcs[0]}
	for _, a := range arcs[1:] {
		l := &out[len(out)-1]
		tol := ArcFitTol + 2*ArcFitRel*math.Max(l.R, a.R)
		sameCircle := math.Hypot(l.C.X-a.C.X, l.C.Y-a.C.Y) < tol && math.Abs(l.R-a.R) < tol
		endDeg := l.Start + l.Sweep
		contiguous := glyph.AngleDiff(endDeg, a.Start) < 3 && (l.Sweep > 0) == (a.Sweep > 0)
		if sameCircle && contiguous && math.Abs(l.Sweep+a.Sweep) <= 361 {
			w := math.Abs(l.Sweep) / (math.Abs(l.Sweep) + math.Abs(a.Sweep))
			l.C = glyph.Point{X: w*l.C.X + (1-w)*a.C.X, Y: w*l.C.Y + (1-w)*a.C.Y}
			l.R = w*l.R + (1-w)*a.R
			l.Sweep += a.Sweep
			if math.Abs(l.Sweep) > 357 {
				l.Sweep = math.Copysign(360, l.Sweep)
			}
			continue
		}
		out = append(out, a)
	}
	return out
}
