package engine

import (
	"testing"

	"blueprint/internal/glyph"
	"blueprint/internal/vector"
)

func match(row int, cov, scale float64) vector.Match {
	conf := 0.99
	if cov < vector.OperatingCoverage {
		conf = 0.2
	}
	return vector.Match{Row: row, Coverage: cov, Confidence: conf, Placement: glyph.Placement{Scale: scale}}
}

// TestLiftConsistent: a near match at the scale of its row's many whole
// matches is counted as one of them; one at another scale, one covering
// too little, one of a row found whole too rarely, one off the plan and
// a catalog glyph's are not.
func TestLiftConsistent(t *testing.T) {
	var ms []vector.Match
	for range consistentMinWhole {
		ms = append(ms, match(1, 1, 2.0))
	}
	ms = append(ms,
		match(1, 0.95, 2.02), // lifted
		match(1, 0.95, 1.5),  // another size
		match(1, 0.85, 2.0),  // too little of the glyph
		match(0, 0.95, 2.0),  // a catalog glyph
	)
	for range consistentMinWhole - 1 {
		ms = append(ms, match(2, 1, 1.0))
	}
	ms = append(ms, match(2, 0.95, 1.0)) // row 2 is found whole too rarely
	off := match(1, 0.95, 2.0)
	off.Legend = true
	ms = append(ms, off)
	n := liftConsistent(ms, func(m vector.Match) bool { return !m.Legend })
	if n != 1 {
		t.Fatalf("lifted %d, want 1", n)
	}
	for i, m := range ms {
		lifted := m.Confidence == vector.OperatingConfidence
		if want := i == consistentMinWhole; lifted != want {
			t.Errorf("match %d (row %d, coverage %.2f, scale %.2f): lifted %v, want %v", i, m.Row, m.Coverage, m.Placement.Scale, lifted, want)
		}
	}
}

// TestLiftConsistentSpread: where the matcher's estimates of a row's
// whole matches spread over a few per cent (0.96 to 1.01, most at 0.97),
// a near match at 1.03 is still at their scale, one at 1.06 is not.
func TestLiftConsistentSpread(t *testing.T) {
	var ms []vector.Match
	for _, s := range []float64{0.96, 0.97, 0.97, 0.97, 0.97, 0.97, 0.97, 0.98, 1.0, 1.01} {
		ms = append(ms, match(1, 1, s))
	}
	near, far := len(ms), len(ms)+1
	ms = append(ms, match(1, 0.95, 1.03), match(1, 0.95, 1.06))
	if n := liftConsistent(ms, func(vector.Match) bool { return true }); n != 1 || ms[near].Confidence != vector.OperatingConfidence || ms[far].Confidence == vector.OperatingConfidence {
		t.Errorf("lifted %d (at 1.03: %v, at 1.06: %v), want the one at 1.03", n, ms[near].Confidence, ms[far].Confidence)
	}
}
