package engine

import (
	"blueprint/internal/median"
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
const (
	// consistentMinWhole is the least number of whole matches
	// (vector.OperatingCoverage or more) a row needs on the page.
	consistentMinWhole = 5
	// consistentMinCoverage is the least coverage of a near match.
	consistentMinCoverage = 0.9
	// consistentScaleTol is how far, as a share, a near match's scale may
	// be from the median scale of the row's whole matches.
	consistentScaleTol = 0.03
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
	medians := median.ByKey(scales, consistentMinWhole) // of the rows found whole often enough
	lifted := 0
	for i, m := range ms {
		med, ok := medians[m.Row]
		if !ok || m.Coverage >= vector.OperatingCoverage || m.Coverage < consistentMinCoverage ||
			m.Confidence >= vector.OperatingConfidence || !on(m) {
			continue
		}
		if d := m.Placement.Scale/med - 1; d > consistentScaleTol || d < -consistentScaleTol {
			continue
		}
		ms[i].Confidence = vector.OperatingConfidence
		lifted++
	}
	return lifted
}
