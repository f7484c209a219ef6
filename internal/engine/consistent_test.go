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
