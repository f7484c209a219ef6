package raster

import (
	"testing"

	"blueprint/internal/detect"
)

// TestPairBoxes: the two end boxes of a drawn beam detector, proposed one
// by one, give one pair box over the whole beam; the same boxes on blank
// paper give none (no ink joins them), and so do boxes too far apart, out
// of line, of different sizes or not square.
func TestPairBoxes(t *testing.T) {
	img, truth := drawGlyph(t, "beam_detector", 12, 2.5, 480, 240)
	g := luma(img)
	side := truth.H // the end boxes are as high as the beam
	left := detect.Box{X: truth.X - 1, Y: truth.Y - 1, W: side + 2, H: side + 2}
	right := detect.Box{X: truth.X + truth.W - side - 1, Y: truth.Y - 1, W: side + 2, H: side + 2}
	got := pairBoxes(g, []cand{{box: left}, {box: right}})
	if len(got) != 1 || got[0].IoU(truth) < 0.8 {
		t.Fatalf("pair boxes %+v, want one over the beam %+v", got, truth)
	}
	blank := luma(newBlank(480, 240))
	if got := pairBoxes(blank, []cand{{box: left}, {box: right}}); len(got) != 0 {
		t.Errorf("on blank paper: %+v, want none", got)
	}
	shift := func(b detect.Box, dx, dy float64) detect.Box { b.X += dx; b.Y += dy; return b }
	for name, b := range map[string]detect.Box{
		"too far":     shift(right, 3*side, 0),
		"out of line": shift(right, 0, 0.6*side),
		"larger":      {X: right.X, Y: right.Y, W: 2 * right.W, H: 2 * right.H},
		"not square":  {X: right.X, Y: right.Y, W: right.W, H: 2 * right.H},
		"too near":    shift(left, 1.5*side, 0),
	} {
		if got := pairBoxes(g, []cand{{box: left}, {box: b}}); len(got) != 0 {
			t.Errorf("%s: %+v, want none", name, got)
		}
	}
}
