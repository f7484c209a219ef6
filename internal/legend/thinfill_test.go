package legend

import (
	"math"
	"testing"

	"blueprint/internal/glyph"
)

// TestThinFillTriangles: a thin filled strip exported as two triangles
// draws its two long sides and its diagonal; it is read as one line
// along its sides, not askew along the diagonal, whichever edge comes
// first.
func TestThinFillTriangles(t *testing.T) {
	fill := func(a, b, c, d float64) glyph.Shape {
		return glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: a, Y: b}, {X: c, Y: d}}, Fill: true}
	}
	w := 0.1 // mm, well under thinFill
	diag, top, bottom := fill(0, 0, 5, w), fill(0, 0, 5, 0), fill(0, w, 5, w)
	for _, order := range [][]glyph.Shape{{diag, top, bottom}, {top, diag, bottom}, {bottom, top, diag}} {
		out := thinFills(append([]glyph.Shape(nil), order...))
		if len(out) != 1 {
			t.Fatalf("%d lines read from one strip, want 1", len(out))
		}
		p := out[0].Pts
		if math.Abs(p[1].Y-p[0].Y) > 1e-9 {
			t.Errorf("strip read as %v, askew: want one of its sides", p)
		}
	}
}
