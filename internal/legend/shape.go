package legend

import (
	"math"

	"blueprint/internal/glyph"
)

// Glyph shapes compared: whether two legend rows draw one glyph (then one
// template finds both and tags or pens tell them apart), or one draws
// another's glyph and more.

// sameCover is how much of each glyph's drawing the other must cover for
// two rows to draw the same glyph: a switch with one more lever (a
// tenth more drawing) is another glyph.
const sameCover = 0.97

// sameGlyph reports whether two rows draw the same glyph: the same text
// inside, each one's drawing within a small tolerance of the other's, in
// one colour. (Stroke widths alone do not part them: rows a legend tells
// apart by their tags may be drawn with a bolder pen by chance.)
func sameGlyph(a, b Row) bool {
	return colourClose(a.Color, b.Color) && sameShape(a, b)
}

// sameShape is sameGlyph without the colour: rows drawing one shape in
// different colours (ArchiCAD pens) keep a template each, and Assign
// gives a match to the one whose pen draws it.
func sameShape(a, b Row) bool {
	if a.GlyphText != b.GlyphText || len(a.Glyph.Shapes) == 0 || len(b.Glyph.Shapes) == 0 {
		return false
	}
	pa, pb := glyphPoints(a.Glyph), glyphPoints(b.Glyph)
	// Each sheet may draw its legend at its own size: compare at one.
	sa, sb := spread(pa), spread(pb)
	if sa == 0 || sb == 0 || sa > 3*sb || sb > 3*sa {
		return false
	}
	k := sa / sb
	for i := range pb {
		pb[i] = glyph.Point{X: pb[i].X * k, Y: pb[i].Y * k}
	}
	tol := 0.06 * sa
	// One CAD block drawn twice has the same make-up of curves and
	// straight lines: a hexagon is not a circle, however close.
	if math.Abs(curvedShare(a.Glyph)-curvedShare(b.Glyph)) > 0.15 {
		return false
	}
	if coversAtLeast(pa, pb, tol, sameCover) && coversAtLeast(pb, pa, tol, sameCover) {
		return true
	}
	return sameTurned(pa, pb, tol)
}

// widerShape reports whether row big's glyph draws all of row small's and
// more (a switch with one more lever), at the size both are drawn in one
// legend: a plan drawing the larger symbol with a stroke left out is
// matched by the smaller glyph, and only its pen then tells whose it is
// (byPen). Rows of one page only, with the same text inside; small's
// drawing is laid on big's with their boxes aligned at a corner or the
// centre.
func widerShape(big, small Row) bool {
	if big.Page != small.Page || big.GlyphText != small.GlyphText || len(big.Glyph.Shapes) == 0 || len(small.Glyph.Shapes) == 0 {
		return false
	}
	pb, ps := glyphPoints(big.Glyph), glyphPoints(small.Glyph)
	if float64(len(ps)) >= sameCover*float64(len(pb)) {
		return false // not less drawing
	}
	bMin, bMax := big.Glyph.Bounds()
	sMin, sMax := small.Glyph.Bounds()
	tol := 0.06 * spread(pb)
	shifted := make([]glyph.Point, len(ps))
	for _, off := range []glyph.Point{
		{X: bMin.X - sMin.X, Y: bMin.Y - sMin.Y}, {X: bMax.X - sMax.X, Y: bMax.Y - sMax.Y},
		{X: bMin.X - sMin.X, Y: bMax.Y - sMax.Y}, {X: bMax.X - sMax.X, Y: bMin.Y - sMin.Y},
		{X: (bMin.X + bMax.X - sMin.X - sMax.X) / 2, Y: (bMin.Y + bMax.Y - sMin.Y - sMax.Y) / 2},
	} {
		for i, p := range ps {
			shifted[i] = glyph.Point{X: p.X + off.X, Y: p.Y + off.Y}
		}
		if coversAtLeast(shifted, pb, tol, sameCover) {
			return true
		}
	}
	return false
}

// turnStep is the angle step, in degrees, at which sameTurned compares two
// glyphs turned against each other.
const turnStep = 15

// sameTurned reports whether b, turned about its centre by a multiple of
// turnStep (mirrored or not), draws a's points within tol: the matcher
// finds a glyph at any angle, so two rows drawing one shape turned (a
// hexagon standing on a corner or on a side) are one glyph to it, which
// only their tags can tell apart (Assign).
func sameTurned(pa, pb []glyph.Point, tol float64) bool {
	ca, cb := centred(pa), centred(pb)
	turned := make([]glyph.Point, len(cb))
	for _, mirror := range []bool{false, true} {
		for deg := 0; deg < 360; deg += turnStep {
			if deg == 0 && !mirror {
				continue // the plain comparison
			}
			sin, cos := math.Sincos(float64(deg) * math.Pi / 180)
			for i, p := range cb {
				if mirror {
					p.X = -p.X
				}
				turned[i] = glyph.Point{X: p.X*cos - p.Y*sin, Y: p.X*sin + p.Y*cos}
			}
			if coversAtLeast(ca, turned, tol, sameCover) && coversAtLeast(turned, ca, tol, sameCover) {
				return true
			}
		}
	}
	return false
}

// centred is ps moved so that their mean is the origin.
func centred(ps []glyph.Point) []glyph.Point {
	var m glyph.Point
	for _, p := range ps {
		m.X += p.X / float64(len(ps))
		m.Y += p.Y / float64(len(ps))
	}
	out := make([]glyph.Point, len(ps))
	for i, p := range ps {
		out[i] = glyph.Point{X: p.X - m.X, Y: p.Y - m.Y}
	}
	return out
}

// coversAtLeast reports whether at least the fraction frac of a's points
// lie within tol of some point of b (none does when a is empty), stopping
// at the first miss too many.
func coversAtLeast(a, b []glyph.Point, tol, frac float64) bool {
	if len(a) == 0 {
		return false
	}
	allowed := int((1 - frac) * float64(len(a)))
	missed := 0
	for _, p := range a {
		hit := false
		for _, q := range b {
			if math.Abs(p.X-q.X) <= tol && math.Abs(p.Y-q.Y) <= tol {
				hit = true
				break
			}
		}
		if !hit {
			if missed++; missed > allowed {
				return false
			}
		}
	}
	return true
}

// curvedShare is the fraction of a glyph's drawn length that is arcs and
// circles.
func curvedShare(g glyph.Glyph) float64 {
	var curved, all float64
	for _, s := range g.Shapes {
		var l float64
		switch s.Kind {
		case glyph.KindCircle:
			l = 2 * math.Pi * s.R
			curved += l
		case glyph.KindArc:
			l = math.Abs(s.Sweep) * math.Pi / 180 * s.R
			curved += l
		case glyph.KindText:
		default:
			for _, pl := range (glyph.Glyph{Shapes: []glyph.Shape{s}}).Polylines(0.05) {
				for i := 1; i < len(pl); i++ {
					l += math.Hypot(pl[i].X-pl[i-1].X, pl[i].Y-pl[i-1].Y)
				}
			}
		}
		all += l
	}
	if all == 0 {
		return 0
	}
	return curved / all
}

func glyphPoints(g glyph.Glyph) []glyph.Point {
	var out []glyph.Point
	for _, pl := range g.Polylines(0.05) {
		for i := 1; i < len(pl); i++ {
			a, b := pl[i-1], pl[i]
			n := max(1, int(math.Hypot(b.X-a.X, b.Y-a.Y)/0.1))
			for k := range n {
				f := float64(k) / float64(n)
				out = append(out, glyph.Point{X: a.X + f*(b.X-a.X), Y: a.Y + f*(b.Y-a.Y)})
			}
		}
	}
	return out
}

// spread is the root mean square distance of the points from their mean.
func spread(ps []glyph.Point) float64 {
	if len(ps) == 0 {
		return 0
	}
	var m glyph.Point
	for _, p := range ps {
		m.X += p.X
		m.Y += p.Y
	}
	m.X /= float64(len(ps))
	m.Y /= float64(len(ps))
	var s float64
	for _, p := range ps {
		s += (p.X-m.X)*(p.X-m.X) + (p.Y-m.Y)*(p.Y-m.Y)
	}
	return math.Sqrt(s / float64(len(ps)))
}
