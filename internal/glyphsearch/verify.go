package glyphsearch

import (
	"math"
)

// Verification: each hypothesis is placed on the page at the verification
// level and refined by hill climbing over position, angle, size and
// stretch. A pose is judged by what a placed template predicts: the centre
// lines of its strokes lie on ink (cover), and the points of its box away
// from its strokes lie on paper (clear); a dense patch of drawing or text
// covers any template but is not clear. The refined pose is then also
// judged by how much of the page's ink inside the placed box the
// template's strokes explain (a look-alike's extra detail, or clutter,
// lowers it).
const (
	// startCover: a hypothesis whose best start (cover times clear) is
	// under this is dropped before refining.
	startCover = 0.4
	// startKeep: hypotheses whose start is within this of the best one's
	// are refined.
	startKeep = 0.1
	// climbFit: a pose whose fit on the sparse points, refined, is under
	// this is dropped before the refinement on all points.
	climbFit = 0.6
)

// verifier scores poses of a plan on one level of a page.
type verifier struct {
	pl  *plan
	lv  *level
	dil *plane
}

// fit returns cover times clear for the pose's map m at level centre
// (cx, cy): the mean page ink under fg (on ink, a dilated ink plane when
// starting) and the mean paper under the bg points a page stroke cannot
// reach at this scale.
func (vf *verifier) fit(fg, bg []tpoint, fgInk *plane, m mat2, scale, cx, cy float64) (cover, clear float64) {
	if len(fg) == 0 {
		return 0, 0
	}
	return vf.cover(fg, fgInk, m, cx, cy), vf.clear(bg, m, scale, cx, cy)
}

// cover is fit's cover: the mean ink of fgInk under the fg points.
func (vf *verifier) cover(fg []tpoint, fgInk *plane, m mat2, cx, cy float64) float64 {
	c, _ := vf.coverOver(fg, fgInk, m, cx, cy, -1)
	return c
}

// coverOver is cover where it may exceed need; where the points left
// unread cannot take it over need, it stops early and reports false (the
// value returned is then no cover).
func (vf *verifier) coverOver(fg []tpoint, fgInk *plane, m mat2, cx, cy, need float64) (float64, bool) {
	if len(fg) == 0 {
		return 0, 0 > need
	}
	// nearest pixels: the climb's steps end at a quarter pixel, and the
	// likeness that judges the result allows a pixel
	cx, cy = cx+0.5, cy+0.5
	cover := 0.0
	// cover exceeds need only while the ink read, with the most ink at
	// every point left, does: above bound
	bound := need * float64(len(fg)) * coverFull
	for i, p := range fg {
		x, y := m.apply(p.x, p.y)
		xi, yi := int(cx+x), int(cy+y)
		if cx+x >= 0 && cy+y >= 0 && xi < fgInk.w && yi < fgInk.h {
			cover += float64(fgInk.v(yi*fgInk.w + xi))
		}
		if i&7 == 7 && cover+255*float64(len(fg)-1-i) <= bound {
			return 0, false
		}
	}
	c := min(1, cover/float64(len(fg))/coverFull)
	return c, c > need
}

// clear is fit's clear: 1 less the mean page ink under the bg points a
// page stroke cannot reach at this scale (1 with none).
func (vf *verifier) clear(bg []tpoint, m mat2, scale, cx, cy float64) float64 {
	cx, cy = cx+0.5, cy+0.5
	ink := vf.lv.ink
	reach := vf.pl.vwidth/2 + 1
	clear := 0.0
	n := 0
	for _, p := range bg {
		if p.w*scale < reach {
			continue
		}
		x, y := m.apply(p.x, p.y)
		xi, yi := int(cx+x), int(cy+y)
		if cx+x >= 0 && cy+y >= 0 && xi < ink.w && yi < ink.h {
			clear += float64(ink.v(yi*ink.w + xi))
		}
		n++
	}
	if n == 0 {
		return 1
	}
	return 1 - min(1, clear/float64(n)/255)
}

// coverFull: page ink at which a centre-line point counts fully.
const coverFull = 192

// state is a pose in the verification level's pixels.
type state struct {
	x, y, angle, scale, stretch float64
	mirror                      bool
}

func (vf *verifier) linear(s state) mat2 {
	return pose{angle: s.angle, mirror: s.mirror, scale: s.scale, stretch: s.stretch}.linear(vf.pl.t.axis)
}

// start returns the best position in a window of ±posSlack pixels around
// s (the coarse stages place the centre within about one coarse pixel),
// judged on the sparse points, with its fit.
func (vf *verifier) start(s state, posSlack int) (state, float64) {
	m := vf.linear(s)
	pl := vf.pl
	best, bf := s, -1.0
	for dy := -posSlack; dy <= posSlack; dy++ {
		for dx := -posSlack; dx <= posSlack; dx++ {
			c := s
			c.x += float64(dx)
			c.y += float64(dy)
			// clear ≤ 1: a place whose cover alone cannot beat the
			// best so far, nor reach startCover (under which examine
			// drops a start), is not looked at further.
			cover, ok := vf.coverOver(pl.vfgSparse, vf.dil, m, c.x, c.y, max(bf, math.Nextafter(startCover, 0)))
			if !ok {
				continue
			}
			if f := cover * vf.clear(pl.vbgSparse, m, s.scale, c.x, c.y); f > bf {
				best, bf = c, f
			}
		}
	}
	return best, bf
}

// climb moves s while a step in one of its dimensions raises the fit,
// halving the steps (from step pixels) twice, and returns the pose
// reached and its fit. Size and stretch stay within the options' range
// give or take 8 %.
func (vf *verifier) climb(s state, fg, bg []tpoint, step float64) (state, float64) {
	pl := vf.pl
	fitOf := func(s state) float64 {
		cover, clear := vf.fit(fg, bg, vf.lv.ink, vf.linear(s), s.scale, s.x, s.y)
		return cover * clear
	}
	a := 1.5 * step / vf.poseRadius(s.scale)
	loS, hiS := pl.opt.minScale()/1.08, pl.opt.maxScale()*1.08
	loT, hiT := 1/pl.opt.maxStretch()/1.08, pl.opt.maxStretch()*1.08
	within := func(c state, d int) bool {
		switch d {
		case 3:
			return c.scale >= loS && c.scale <= hiS
		case 4:
			return c.stretch >= loT && c.stretch <= hiT
		}
		return true
	}
	best, bf := vf.ascend(s, []float64{step, step, a, a, a}, within, fitOf)
	best.angle = normAngle(best.angle)
	return best, bf
}

// poseRadius is the farthest the template's fine foreground reaches from
// its centre at scale, in pixels, at least 4: angle steps are taken so
// that its edge moves by a set distance.
func (vf *verifier) poseRadius(scale float64) float64 {
	r := 0.0
	for _, p := range vf.pl.vfg {
		r = max(r, math.Hypot(p.x, p.y))
	}
	return max(r*scale, 4)
}

// ascend is the hill climb of climb and bestCorrelation: from s it takes
// the first step (x, y, angle, log scale, log stretch: steps; stretch
// only for an elongated template the options let stretch) that raises f
// and that within allows for the dimension stepped (nil: every step), and
// halves every step twice when none does. It returns the pose reached and
// f there.
func (vf *verifier) ascend(s state, steps []float64, within func(c state, dim int) bool, f func(state) float64) (state, float64) {
	pl := vf.pl
	dims := 4
	if pl.t.Elongated() && pl.opt.maxStretch() > 1 {
		dims = 5
	}
	best, bf := s, f(s)
	for halvings := 0; halvings < 2; {
		improved := false
		for d := 0; d < dims; d++ {
			for _, sign := range []float64{1, -1} {
				c := best
				switch d {
				case 0:
					c.x += sign * steps[0]
				case 1:
					c.y += sign * steps[1]
				case 2:
					c.angle += sign * steps[2]
				case 3:
					c.scale *= math.Exp(sign * steps[3])
				case 4:
					c.stretch *= math.Exp(sign * steps[4])
				}
				if within != nil && !within(c, d) {
					continue
				}
				if v := f(c); v > bf+1e-9 {
					best, bf, improved = c, v, true
					break
				}
			}
		}
		if !improved {
			for i := range steps {
				steps[i] /= 2
			}
			halvings++
		}
	}
	return best, bf
}

// likeness compares the placed template with the page over the placed
// template box, each within a pixel of the other (a pose is never exact to
// the pixel): found is the share of the template's ink that has page ink
// within a pixel, explained the share of the page's ink that has template
// ink within a pixel. It returns their geometric mean.
func (vf *verifier) likeness(s state) (found, explained float64) {
	pl := vf.pl
	m := vf.linear(s)
	inv := m.inv()
	ink, dil := vf.lv.ink, vf.dil
	x0, y0, x1, y1 := pl.vrect[0], pl.vrect[1], pl.vrect[2], pl.vrect[3]
	lo, hi := vec{math.Inf(1), math.Inf(1)}, vec{math.Inf(-1), math.Inf(-1)}
	for _, c := range [4]vec{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		x, y := m.apply(c.x, c.y)
		lo.x, lo.y = min(lo.x, x), min(lo.y, y)
		hi.x, hi.y = max(hi.x, x), max(hi.y, y)
	}
	var eSum, pSum, eFound, pExpl float64
	for py := max(0, int(math.Floor(s.y+lo.y))); py <= min(ink.h-1, int(math.Ceil(s.y+hi.y))); py++ {
		for px := max(0, int(math.Floor(s.x+lo.x))); px <= min(ink.w-1, int(math.Ceil(s.x+hi.x))); px++ {
			ox, oy := inv.apply(float64(px)-s.x, float64(py)-s.y)
			if ox < x0 || ox > x1 || oy < y0 || oy > y1 {
				continue
			}
			tx, ty := pl.vcx+ox, pl.vcy+oy
			if pl.ignored(tx, ty) {
				continue
			}
			e := min(1, pl.vink.bilinear(tx, ty)/coverFull)
			ed := min(1, pl.vinkDil.bilinear(tx, ty)/coverFull)
			i := py*ink.w + px
			p := min(1, float64(ink.v(i))/coverFull)
			pd := min(1, float64(dil.v(i))/coverFull)
			eSum += e
			pSum += p
			eFound += min(e, pd)
			pExpl += min(p, ed)
		}
	}
	if eSum == 0 || pSum == 0 {
		return 0, 0
	}
	return eFound / eSum, pExpl / pSum
}

// blurSigma is the Gaussian blur (verification-level pixels) under which
// the correlation compares a pose: it absorbs the pose's sub-pixel error
// and the strokes' edge noise, and keeps a small inner sign's shape (a
// blur of a pixel let text and look-alike signs correlate as well).
const blurSigma = 0.6

// corrGrow: the correlation is taken over the placed template box grown
// by this share of its larger side on every side. A glyph stands on
// paper: ink the template lacks just outside its box (a wall's lines
// running on, the rest of a larger symbol) counts against the pose. It
// trades recall for precision (real renders, docs/raster.md: 0.05 gives
// 0.866 / 0.652, 0 gives 0.891 / 0.432, this 0.788 / 0.759): sockets
// drawn in pairs against a wall lose to it, a lever against its wall
// would match every wall without it.
const corrGrow = 0.1

// gaussKernel returns the normalised 1-D Gaussian of sigma, to 3 sigma.
func gaussKernel(sigma float64) []float64 {
	r := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*r+1)
	sum := 0.0
	for i := range k {
		d := float64(i - r)
		k[i] = math.Exp(-d * d / (2 * sigma * sigma))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	return k
}

// blurFloat returns src (w×h) blurred separably by kernel k, zero outside.
func blurFloat(src []float64, w, h int, k []float64) []float64 {
	r := len(k) / 2
	tmp := make([]float64, w*h)
	for y := 0; y < h; y++ {
		row := src[y*w : (y+1)*w]
		for x := 0; x < w; x++ {
			s := 0.0
			for i, kv := range k {
				if xx := x + i - r; xx >= 0 && xx < w {
					s += kv * row[xx]
				}
			}
			tmp[y*w+x] = s
		}
	}
	out := make([]float64, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			s := 0.0
			for i, kv := range k {
				if yy := y + i - r; yy >= 0 && yy < h {
					s += kv * tmp[yy*w+x]
				}
			}
			out[y*w+x] = s
		}
	}
	return out
}

// corrPatch is the page's ink around a pose, blurred by blurSigma, that
// the correlation of nearby poses reads.
type corrPatch struct {
	x0, y0, w, h int // level pixels
	pix          []float64
}

// newCorrPatch cuts and blurs the page's ink around pose s, wide enough for
// the grown box of poses within about two pixels of it.
func (vf *verifier) newCorrPatch(s state) *corrPatch {
	x0, y0, x1, y1 := vf.grownRect()
	m := vf.linear(s)
	lo, hi := vec{math.Inf(1), math.Inf(1)}, vec{math.Inf(-1), math.Inf(-1)}
	for _, c := range [4]vec{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		x, y := m.apply(c.x, c.y)
		lo.x, lo.y = min(lo.x, x), min(lo.y, y)
		hi.x, hi.y = max(hi.x, x), max(hi.y, y)
	}
	// room for the blur and for the refinement's moves
	pad := int(math.Ceil(3*blurSigma)) + 2 + int(math.Ceil(0.08*max(hi.x-lo.x, hi.y-lo.y)))
	p := &corrPatch{x0: int(math.Floor(s.x+lo.x)) - pad, y0: int(math.Floor(s.y+lo.y)) - pad}
	p.w = int(math.Ceil(s.x+hi.x)) + pad - p.x0 + 1
	p.h = int(math.Ceil(s.y+hi.y)) + pad - p.y0 + 1
	p.pix = make([]float64, p.w*p.h)
	ink := vf.lv.ink
	for y := 0; y < p.h; y++ {
		for x := 0; x < p.w; x++ {
			p.pix[y*p.w+x] = float64(ink.at(p.x0+x, p.y0+y))
		}
	}
	p.pix = blurFloat(p.pix, p.w, p.h, gaussKernel(blurSigma))
	return p
}

// grownRect returns the template box, grown by corrGrow, around the
// template's centre (level pixels).
func (vf *verifier) grownRect() (x0, y0, x1, y1 float64) {
	r := vf.pl.vrect
	g := corrGrow * max(r[2]-r[0], r[3]-r[1])
	return r[0] - g, r[1] - g, r[2] + g, r[3] + g
}

// correlation returns the Pearson correlation, over the placed template
// box grown by corrGrow, of the page's ink (p, blurred) and the template's
// ink placed by pose s and blurred alike (0 when negative): a pose a
// pixel off still correlates, an inner sign present on one side and not
// the other does not, nor does ink running on outside the box.
func (vf *verifier) correlation(p *corrPatch, s state) float64 {
	pl := vf.pl
	m := vf.linear(s)
	inv := m.inv()
	x0, y0, x1, y1 := vf.grownRect()
	lo, hi := vec{math.Inf(1), math.Inf(1)}, vec{math.Inf(-1), math.Inf(-1)}
	for _, c := range [4]vec{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		x, y := m.apply(c.x, c.y)
		lo.x, lo.y = min(lo.x, x), min(lo.y, y)
		hi.x, hi.y = max(hi.x, x), max(hi.y, y)
	}
	var n, sa, sb, saa, sbb, sab float64
	for py := max(p.y0, int(math.Floor(s.y+lo.y))); py <= min(p.y0+p.h-1, int(math.Ceil(s.y+hi.y))); py++ {
		row := p.pix[(py-p.y0)*p.w:]
		for px := max(p.x0, int(math.Floor(s.x+lo.x))); px <= min(p.x0+p.w-1, int(math.Ceil(s.x+hi.x))); px++ {
			ox, oy := inv.apply(float64(px)-s.x, float64(py)-s.y)
			if ox < x0 || ox > x1 || oy < y0 || oy > y1 {
				continue
			}
			if pl.ignored(pl.vcx+ox, pl.vcy+oy) {
				continue
			}
			a := row[px-p.x0]
			b := pl.vblur.bilinear(pl.vcx+ox, pl.vcy+oy)
			n++
			sa += a
			sb += b
			saa += a * a
			sbb += b * b
			sab += a * b
		}
	}
	if n < 2 {
		return 0
	}
	va, vb := saa-sa*sa/n, sbb-sb*sb/n
	if va <= 1e-9 || vb <= 1e-9 {
		return 0
	}
	return max(0, (sab-sa*sb/n)/math.Sqrt(va*vb))
}

// corrRefineGap: a pose whose score from its first correlation is this
// far under the floor is not refined for correlation.
const corrRefineGap = 0.05

// bestCorrelation returns the correlation of the pose s (of likeness
// like), refined by hill climbing over position, angle, size and stretch
// in steps from half a pixel: the likeness's pose is only as exact as its
// one-pixel tolerance, and a small inner detail needs better.
func (vf *verifier) bestCorrelation(s state, like, floor float64) float64 {
	p := vf.newCorrPatch(s)
	if first := vf.correlation(p, s); math.Sqrt(like*first) < floor-corrRefineGap {
		return first
	}
	a := 0.75 / vf.poseRadius(s.scale)
	_, best := vf.ascend(s, []float64{0.5, 0.5, a, a, a}, nil, func(c state) float64 { return vf.correlation(p, c) })
	return best
}
