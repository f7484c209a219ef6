package imagevector

import (
	"math"
	"slices"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// Fitting tolerances, in image pixels.
const (
	// simplifyTol is how far a traced line's pixels may lie from the
	// straight segments that replace them (Douglas–Peucker).
	simplifyTol = 0.9
	// circleTol and circleTolShare bound how far a run's pixels may lie
	// from the circle fitted to it: the centres of a thinned circle's
	// pixels wander half a pixel either side of it.
	circleTol      = 0.8
	circleTolShare = 0.03
	// minArcSweep is the least turn, in degrees, a run of segments is
	// taken for an arc with; minArcRadius and maxArcRadius bound its
	// radius.
	minArcSweep  = 60.0
	minArcRadius = 2.5
	maxArcRadius = 400.0
)

// shape is what a polyline becomes: segments and arcs in image pixels.
type shape struct {
	segs [][2]glyph.Point
	arcs []drawing.Arc
}

// fit replaces a traced polyline by straight segments and circular arcs:
// a closed line that fits one circle is a circle; otherwise the line is
// simplified to segments, and runs of three or more segments turning one
// way that fit a circle become arcs.
func fit(p polyline) shape {
	var s shape
	pts := p.pts
	if len(pts) < 2 {
		return s
	}
	if p.closed && len(pts) >= 8 {
		if c, r, ok := circleFit(pts); ok && r >= minArcRadius && r <= maxArcRadius {
			s.arcs = append(s.arcs, drawing.Arc{C: c, R: r, Start: 0, Sweep: 360})
			return s
		}
		pts = append(pts[:len(pts):len(pts)], pts[0])
	}
	idx := simplify(pts, simplifyTol)
	// turn[k]: the sign of the turn from segment k to k+1.
	turn := func(k int) float64 {
		a, b, c := pts[idx[k]], pts[idx[k+1]], pts[idx[k+2]]
		return (b.X-a.X)*(c.Y-b.Y) - (b.Y-a.Y)*(c.X-b.X)
	}
	n := len(idx) - 1 // segments
	lastArcEnd := -1  // the segment after the last arc, where it ended
	for k := 0; k < n; {
		// The longest run from k of three or more segments turning one
		// way that fits a circle: a run past a corner (the straight side
		// of a D) fits none, so the run stops before it.
		best, arc := -1, drawing.Arc{}
		for j := k + 2; j < n && turn(j-2)*turn(k) > 0 && turn(j-1)*turn(k) > 0; j++ {
			a, ok := arcOf(pts[idx[k] : idx[j+1]+1])
			if ok {
				best, arc = j, a
			} else if best >= 0 {
				break
			}
		}
		if best >= 0 {
			// An arc that runs on from the last on its circle (a stroke
			// meeting the arc bent the line a pixel where they meet) is
			// one arc with it.
			if n := len(s.arcs); n > 0 && lastArcEnd == k && sameCircle(s.arcs[n-1], arc) {
				s.arcs[n-1] = joinArcs(s.arcs[n-1], arc)
			} else {
				s.arcs = append(s.arcs, arc)
			}
			k = best + 1
			lastArcEnd = k
			continue
		}
		s.segs = append(s.segs, [2]glyph.Point{pts[idx[k]], pts[idx[k+1]]})
		k++
	}
	s.segs = sharpen(s.segs, p.closed)
	return s
}

// Corners cut by thinning: maxChamfer is the longest segment taken for
// the cut across a corner (a diagonal step of a thinned hairline is 1.4
// pixels; a stroke 3 pixels wide thins to a cut of about 4), its
// neighbours at least chamferRatio times as long; minCorner and
// maxCorner bound the corner's turn, degrees.
const (
	maxChamfer   = 5.0
	chamferRatio = 1.3
	minCorner    = 45.0
	maxCorner    = 135.0
)

// sharpen gives back the corners thinning cut: where a short segment
// joins two longer ones turning a corner (a square's side, a letter's
// stroke), the two run on to where their lines meet and the short one
// goes. A CAD corner is sharp, and the matcher anchors its poses on
// corners by their arms' lengths: cut, cp4's pull-station square read as
// sides with 1.4-pixel arms, in its legend and on its plans alike, and
// no pose was tried. closed says segs run round a loop (the last ends
// where the first starts).
func sharpen(segs [][2]glyph.Point, closed bool) [][2]glyph.Point {
	n := len(segs)
	if n < 3 {
		return segs
	}
	joined := func(a, b [2]glyph.Point) bool { return a[1] == b[0] }
	gone := func(s [2]glyph.Point) bool { return s[0] == s[1] } // a cut taken out
	for k := range n {
		i, j := k-1, k+1
		if closed {
			i, j = (k+n-1)%n, (k+1)%n
		}
		if i < 0 || j >= n || gone(segs[i]) || gone(segs[j]) || !joined(segs[i], segs[k]) || !joined(segs[k], segs[j]) {
			continue
		}
		c := segs[k]
		lc := dist(c[0], c[1])
		if lc > maxChamfer || dist(segs[i][0], segs[i][1]) < chamferRatio*lc || dist(segs[j][0], segs[j][1]) < chamferRatio*lc {
			continue
		}
		u := sub(segs[i][1], segs[i][0])
		w := sub(segs[j][1], segs[j][0])
		t1, t2 := glyph.Turn(u, sub(c[1], c[0])), glyph.Turn(sub(c[1], c[0]), w)
		total := t1 + t2
		if t1*t2 <= 0 || math.Abs(total) < minCorner || math.Abs(total) > maxCorner {
			continue
		}
		x, ok := meet(segs[i][0], u, segs[j][0], w)
		if !ok || dist(x, c[0]) > 1.5*lc+1 || dist(x, c[1]) > 1.5*lc+1 {
			continue
		}
		segs[i][1], segs[j][0], segs[k] = x, x, [2]glyph.Point{x, x}
	}
	return slices.DeleteFunc(segs, gone)
}

func sub(a, b glyph.Point) glyph.Point { return glyph.Point{X: a.X - b.X, Y: a.Y - b.Y} }

func dist(a, b glyph.Point) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

// meet is where the line through p along u meets the line through q
// along w; ok false for lines near parallel.
func meet(p, u, q, w glyph.Point) (glyph.Point, bool) {
	den := u.X*w.Y - u.Y*w.X
	if math.Abs(den) < 1e-9*math.Hypot(u.X, u.Y)*math.Hypot(w.X, w.Y) {
		return glyph.Point{}, false
	}
	t := ((q.X-p.X)*w.Y - (q.Y-p.Y)*w.X) / den
	return glyph.Point{X: p.X + t*u.X, Y: p.Y + t*u.Y}, true
}

// sameCircle reports whether two arcs lie on one circle, within the
// wander of a traced line's pixels.
func sameCircle(a, b drawing.Arc) bool {
	tol := 2*circleTol + 2*circleTolShare*math.Max(a.R, b.R)
	return math.Hypot(a.C.X-b.C.X, a.C.Y-b.C.Y) <= tol && math.Abs(a.R-b.R) <= tol && a.Sweep*b.Sweep > 0
}

// joinArcs is arc a continued by b: their circles averaged by sweep, from
// a's start through both sweeps.
func joinArcs(a, b drawing.Arc) drawing.Arc {
	wa, wb := math.Abs(a.Sweep), math.Abs(b.Sweep)
	f := wb / (wa + wb)
	c := glyph.Point{X: a.C.X + f*(b.C.X-a.C.X), Y: a.C.Y + f*(b.C.Y-a.C.Y)}
	sweep := a.Sweep + b.Sweep
	if math.Abs(sweep) > 360 {
		sweep = math.Copysign(360, sweep)
	}
	return drawing.Arc{C: c, R: a.R + f*(b.R-a.R), Start: a.Start, Sweep: sweep}
}

// arcOf fits an arc to pts, ok when they lie on one circle and turn at
// least minArcSweep about it.
func arcOf(pts []glyph.Point) (drawing.Arc, bool) {
	c, r, ok := circleFit(pts)
	if !ok || r < minArcRadius || r > maxArcRadius {
		return drawing.Arc{}, false
	}
	angle := func(p glyph.Point) float64 { return math.Atan2(p.Y-c.Y, p.X-c.X) * 180 / math.Pi }
	start := angle(pts[0])
	sweep, prev := 0.0, start
	for _, p := range pts[1:] {
		a := angle(p)
		d := math.Mod(a-prev+540, 360) - 180
		sweep += d
		prev = a
	}
	if math.Abs(sweep) < minArcSweep || math.Abs(sweep) > 360 {
		return drawing.Arc{}, false
	}
	return drawing.Arc{C: c, R: r, Start: start, Sweep: sweep}, true
}

// circleFit fits a circle to pts (drawing.FitCircle) and reports
// whether every point lies within circleTol (and circleTolShare of the
// radius) of it.
func circleFit(pts []glyph.Point) (glyph.Point, float64, bool) {
	c, r, ok := drawing.FitCircle(pts)
	if !ok {
		return c, r, false
	}
	tol := circleTol + circleTolShare*r
	for _, p := range pts {
		if math.Abs(math.Hypot(p.X-c.X, p.Y-c.Y)-r) > tol {
			return c, r, false
		}
	}
	return c, r, true
}

// simplify returns the indexes of the points of pts kept by
// Douglas–Peucker within tol: the first, the last, and those that keep
// every point within tol of the segments between them.
func simplify(pts []glyph.Point, tol float64) []int {
	keep := make([]bool, len(pts))
	keep[0], keep[len(pts)-1] = true, true
	type span struct{ a, b int }
	stack := []span{{0, len(pts) - 1}}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.b-s.a < 2 {
			continue
		}
		a, b := pts[s.a], pts[s.b]
		dx, dy := b.X-a.X, b.Y-a.Y
		l := math.Hypot(dx, dy)
		far, fd := -1, tol
		for i := s.a + 1; i < s.b; i++ {
			p := pts[i]
			var d float64
			if l == 0 {
				d = math.Hypot(p.X-a.X, p.Y-a.Y)
			} else {
				d = math.Abs(dx*(p.Y-a.Y)-dy*(p.X-a.X)) / l
			}
			if d > fd {
				far, fd = i, d
			}
		}
		if far >= 0 {
			keep[far] = true
			stack = append(stack, span{s.a, far}, span{far, s.b})
		}
	}
	var out []int
	for i, k := range keep {
		if k {
			out = append(out, i)
		}
	}
	return out
}
