package engine

import (
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/vector"
)

// TestDefaultThresholds: the embedded catalog's default thresholds are one
// measured number (the raster calibration set's break-even,
// docs/raster.md) that the vector matcher's confidence is anchored at
// (vector.OperatingConfidence), so the defaults keep the vector matches
// covering vector.OperatingCoverage of their template; and a raster
// detection no vector match confirms on a page the matcher read stays
// under every one of them, whatever its own confidence (up to 1).
func TestDefaultThresholds(t *testing.T) {
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cat.Symbols() {
		if s.Threshold != vector.OperatingConfidence {
			t.Errorf("%s: default threshold %v, the vector matcher's operating confidence is %v", s.Class, s.Threshold, vector.OperatingConfidence)
		}
		if 1*secondOpinionWeight >= s.Threshold {
			t.Errorf("%s: default threshold %v, not above the second opinion's weight %v", s.Class, s.Threshold, secondOpinionWeight)
		}
	}
}
