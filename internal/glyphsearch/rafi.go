package glyphsearch

import (
	"math"
	"sort"
)

// Radial stage ("radial sampling"): the ink along rays from a candidate's
// centre turns with the glyph, so the shift that best lines the page's
// rays up with the template's is the glyph's angle, and the reversed
// order's best shift the mirrored glyph's.
const (
	rays = 72 // 5° apart
	// radialKeep: hypotheses whose correlation is within this of the best
	// one are verified too (symmetric glyphs have several equal angles,
	// and blur or clutter can put the right one second).
	radialKeep = 0.25
	// radialMaxHyp bounds the hypotheses verified per candidate.
	radialMaxHyp = 3
)

// radialSignature sums the ink along each ray from (cx, cy) out to radius
// rc (from a sixth of it, where every ray crosses the same centre). ok is
// false when the rays do not differ (a ring, a disc).
func radialSignature(sample func(x, y float64) float64, cx, cy, rc float64) (sig [rays]float64, ok bool) {
	steps := max(6, int(math.Ceil(rc)))
	for j := 0; j < rays; j++ {
		s, c := math.Sincos(2 * math.Pi * float64(j) / rays)
		sum := 0.0
		for u := 1; u <= steps; u++ {
			rho := rc * (1.0/6 + 5.0/6*float64(u)/float64(steps))
			sum += sample(cx+c*rho, cy+s*rho)
		}
		sig[j] = sum
	}
	mean, spread := 0.0, 0.0
	for _, v := range sig {
		mean += v
	}
	mean /= rays
	for _, v := range sig {
		spread += (v - mean) * (v - mean)
	}
	spread = math.Sqrt(spread / rays)
	return sig, spread > 0.08*mean && spread > 1
}

// hypothesis is an angle and mirror a candidate may stand at.
type hypothesis struct {
	angle  float64
	mirror bool
	score  float64
}

// radialHypotheses returns the angles and mirrors at which the page's
// signature p lines up with the template's t. With a flat signature
// either way, the angle cannot be told: it returns angle 0, both mirrors
// unless noMirror.
func radialHypotheses(p [rays]float64, pOK bool, t [rays]float64, tOK bool, noMirror bool) []hypothesis {
	if !pOK || !tOK {
		h := []hypothesis{{angle: 0, score: 0}}
		if !noMirror && tOK {
			h = append(h, hypothesis{angle: 0, mirror: true})
		}
		return h
	}
	pn := p
	normalise(pn[:])
	tn := t
	normalise(tn[:])
	var all []hypothesis
	for m := 0; m < 2; m++ {
		if m == 1 && noMirror {
			break
		}
		// mirrored template: direction θ becomes π − θ
		var tm [rays]float64
		for i := range tm {
			if m == 0 {
				tm[i] = tn[i]
			} else {
				tm[i] = tn[((rays/2-i)%rays+rays)%rays]
			}
		}
		var corr [rays]float64
		for j := 0; j < rays; j++ {
			c := 0.0
			for i := 0; i < rays; i++ {
				c += pn[i] * tm[((i-j)%rays+rays)%rays]
			}
			corr[j] = c
		}
		for j := 0; j < rays; j++ {
			l, r := corr[(j+rays-1)%rays], corr[(j+1)%rays]
			if corr[j] < l || corr[j] <= r {
				continue
			}
			// parabolic peak between the neighbouring shifts
			off := 0.0
			if den := l - 2*corr[j] + r; den < 0 {
				off = 0.5 * (l - r) / den
			}
			all = append(all, hypothesis{
				angle:  normAngle(2 * math.Pi * (float64(j) + off) / rays),
				mirror: m == 1,
				score:  corr[j],
			})
		}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].score > all[b].score })
	out := all[:0]
	for _, h := range all {
		if len(out) == radialMaxHyp || h.score < all[0].score-radialKeep {
			break
		}
		out = append(out, h)
	}
	return out
}
