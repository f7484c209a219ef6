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
	// nearest pixels: the climb's steps end at a quarter pixel, and the
	// likeness that judges the result allows a pixel
	cx, cy = cx+0.5, cy+0.5
	for _, p := range fg {
		x, y := m.apply(p.x, p.y)
		xi, yi := int(cx+x), int(cy+y)
		if cx+x >= 0 && cy+y >= 0 && xi < fgInk.w && yi < fgInk.h {
			cover += float64(fgInk.pix[yi*fgInk.w+xi])
		}
	}
	cover = min(1, cover/float64(len(fg))/coverFull)
	ink := vf.lv.ink
	reach := vf.pl.vwidth/2 + 1
	n := 0
	for _, p := range bg {
		if p.w*scale < reach {
			continue
		}
		x, y := m.apply(p.x, p.y)
		xi, yi := int(cx+x), int(cy+y)
		if cx+x >= 0 && cy+y >= 0 && xi < ink.w && yi < ink.h {
			clear += float64(ink.pix[yi*ink.w+xi])
		}
		n++
	}
	if n == 0 {
		return cover, 1
	}
	return cover, 1 - min(1, clear/float64(n)/255)
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
			cover, clear := vf.fit(pl.vfgSparse, pl.vbgSparse, vf.dil, m, s.scale, c.x, c.y)
			if f := cover * clear; f > bf {
				best, bf = c, f
			}
		}
	}
	return best, bf
}

// climb moves s while a step in one of its dimensions raises the fit,
// halving the steps (from step pixels) three times, and returns the pose
// reached and its fit.
func (vf *verifier) climb(s state, fg, bg []tpoint, step float64) (state, float64) {
	pl := vf.pl
	fitOf := func(s state) float64 {
		cover, clear := vf.fit(fg, bg, vf.lv.ink, vf.linear(s), s.scale, s.x, s.y)
		return cover * clear
	}
	best, bf := s, fitOf(s)
	r := 0.0
	for _, p := range pl.vfg {
		r = max(r, math.Hypot(p.x, p.y))
	}
	r = max(r*best.scale, 4)
	steps := []float64{step, step, 1.5 * step / r, 1.5 * step / r, 1.5 * step / r} // x, y, angle, log scale, log stretch
	dims := 4
	if pl.t.Elongated() && pl.opt.maxStretch() > 1 {
		dims = 5
	}
	loS, hiS := pl.opt.minScale()/1.08, pl.opt.maxScale()*1.08
	loT, hiT := 1/pl.opt.maxStretch()/1.08, pl.opt.maxStretch()*1.08
	move := func(c state, d int, sign float64) (state, bool) {
		switch d {
		case 0:
			c.x += sign * steps[0]
		case 1:
			c.y += sign * steps[1]
		case 2:
			c.angle += sign * steps[2]
		case 3:
			c.scale *= math.Exp(sign * steps[3])
			if c.scale < loS || c.scale > hiS {
				return c, false
			}
		case 4:
			c.stretch *= math.Exp(sign * steps[4])
			if c.stretch < loT || c.stretch > hiT {
				return c, false
			}
		}
		return c, true
	}
	for halvings := 0; halvings < 2; {
		improved := false
		for d := 0; d < dims; d++ {
			for _, sign := range []float64{1, -1} {
				c, ok := move(best, d, sign)
				if !ok {
					continue
				}
				if f := fitOf(c); f > bf+1e-9 {
					best, bf, improved = c, f, true
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
	best.angle = normAngle(best.angle)
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
			e := min(1, pl.vink.bilinear(tx, ty)/coverFull)
			ed := min(1, pl.vinkDil.bilinear(tx, ty)/coverFull)
			i := py*ink.w + px
			p := min(1, float64(ink.pix[i])/coverFull)
			pd := min(1, float64(dil.pix[i])/coverFull)
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
