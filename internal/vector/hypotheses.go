package vector

import (
	"math"

	"blueprint/internal/glyph"
)

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

// circleHypotheses tries the poses of a circle-anchored template on the
// page's circles of a radius in its scale range: first the poses it was
// found whole with on other circles of that radius (try, one by one),
// then those its secondary keypoint gives on the circle's ring (tryAll,
// in order, which may verify them ahead on every core).
func (ix *pageIndex) circleHypotheses(t *prepared, try func(hypothesis) float64, tryAll func([]hypothesis) []float64) {
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
	var ring []hypothesis // the poses of one circle's keypoints
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
		ring = ring[:0]
		ix.keysInRing(f.c, dq, tol, func(k glyph.Point) {
			v := glyph.Point{X: k.X - f.c.X, Y: k.Y - f.c.Y}
			sk := math.Hypot(v.X, v.Y) / (dqMM * PixelsPerMM)
			phiK := deg(v)
			ring = append(ring,
				hypothesis{t, placeFor(t.c, f.c, phiK-phiQ, sk, false)},
				hypothesis{t, placeFor(t.c, f.c, phiK-(180-phiQ), sk, true)})
		})
		for j, cov := range tryAll(ring) {
			if cov >= wholeCoverage {
				remember(f.r, ring[j])
			}
		}
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
			ang := glyph.Turn(a, b)
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

// cornerHypotheses tries the poses that put the template's anchor corner
// on a page corner of the same angle and arm ratio; on a traced page
// (drawing.Page.Traced), whose corners thinning and junctions may break,
// its other long-armed corners (prepared.alts) too.
func (ix *pageIndex) cornerHypotheses(t *prepared, try func(hypothesis)) {
	if ix.cornerStart == nil {
		ix.hashCorners()
	}
	ix.cornerHypothesesAt(t, corner{t.v, t.a1, t.a2}, try)
	if ix.pg.Traced {
		for _, c := range t.alts {
			ix.cornerHypothesesAt(t, c, try)
		}
	}
}

// cornerHypothesesAt tries the poses that put the template's corner c on
// a page corner of the same angle and arm ratio.
func (ix *pageIndex) cornerHypothesesAt(t *prepared, c0 corner, try func(hypothesis)) {
	u := glyph.Point{X: c0.a1.X - c0.v.X, Y: c0.a1.Y - c0.v.Y}
	w := glyph.Point{X: c0.a2.X - c0.v.X, Y: c0.a2.Y - c0.v.Y}
	lu, lw := math.Hypot(u.X, u.Y), math.Hypot(w.X, w.Y)
	tAng := glyph.Turn(u, w)
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
					try(hypothesis{t, placeFor(c0.v, c.v, deg(c.a)-deg(u), s, false)})
				case math.Abs(c.ang+tAng) < angTol:
					try(hypothesis{t, placeFor(c0.v, c.v, deg(c.a)-(180-deg(u)), s, true)})
				}
			}
		}
	}
}

func (ix *pageIndex) segmentHypotheses(t *prepared, try func(hypothesis)) {
	u := glyph.Point{X: t.a2.X - t.a1.X, Y: t.a2.Y - t.a1.Y}
	lu := math.Hypot(u.X, u.Y) * PixelsPerMM
	for i, sg := range ix.pg.Segments {
		s := ix.segs[i].l / lu
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
