package engine

import (
	"slices"

	"blueprint/internal/vector"
)

// Near matches of a well-attested row: a CAD drawing inserts one block
// for every device of a kind, at one scale, so a legend row found whole
// many times on a page is the best witness of what its other matches
// there are. A match that covers nearly all of the row's glyph (a wire
// or a tag drawn across a stroke hides the rest) at the scale of the
// row's whole matches is one more of them, not a look-alike: look-alikes
// differ in size or leave more of the glyph unexplained, and a glyph that
// explains more of the place has already won it (vector.Matcher).
//
// "At the scale of the row's whole matches" is within consistentScaleTol
// of the band their scales span between their 10th and 90th percentiles:
// the matcher's estimate of one block's scale varies by a few per cent
// with how the page is stored (voice_alarm's speakers, whole at 1.000
// upright, at 0.969–1.008 stored turned three quarters, while its near
// matches' estimates stayed at 1.00–1.03), so a band around the median
// alone lost eight of them there.
const (
	// consistentMinWhole is the least number of whole matches
	// (vector.OperatingCoverage or more) a row needs on the page.
	consistentMinWhole = 5
	// consistentMinCoverage is the least coverage of a near match.
	consistentMinCoverage = 0.9
	// consistentScaleTol is how far, as a share, a near match's scale may
	// be outside the band of the row's whole matches' scales.
	consistentScaleTol = 0.03
	// consistentBand is the share of the whole matches' scales left out
	// at either end of the band (outliers: a block inserted at another
	// scale once).
	consistentBand = 0.1
)

// liftConsistent raises to vector.OperatingConfidence the confidence of
// each near match of a well-attested row (above), and returns how many it
// raised. on reports whether a match counts at all (not a legend's own
// glyph, not off the plan); matches of no row (catalog glyphs) are left
// as they are.
func liftConsistent(ms []vector.Match, on func(vector.Match) bool) int {
	scales := map[int][]float64{}
	for _, m := range ms {
		if m.Row > 0 && m.Coverage >= vector.OperatingCoverage && on(m) {
			scales[m.Row] = append(scales[m.Row], m.Placement.Scale)
		}
	}
	type band struct{ lo, hi float64 }
	bands := map[int]band{} // of the rows found whole often enough
	for row, sc := range scales {
		if len(sc) < consistentMinWhole {
			continue
		}
		slices.Sort(sc)
		k := int(consistentBand * float64(len(sc)-1))
		bands[row] = band{sc[k] / (1 + consistentScaleTol), sc[len(sc)-1-k] * (1 + consistentScaleTol)}
	}
	lifted := 0
	for i, m := range ms {
		b, ok := bands[m.Row]
		if !ok || m.Coverage >= vector.OperatingCoverage || m.Coverage < consistentMinCoverage ||
			m.Confidence >= vector.OperatingConfidence || !on(m) {
			continue
		}
		if s := m.Placement.Scale; s < b.lo || s > b.hi {
			continue
		}
		ms[i].Confidence = vector.OperatingConfidence
		lifted++
	}
	return lifted
}
