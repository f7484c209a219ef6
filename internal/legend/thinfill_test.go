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

// TestFilledSideInPieces: the straight side of a filled half disc cut
// into triangles is drawn in pieces, those next to its ends shorter than
// a strip's end; they run on one from another and are all kept, as is
// the arc's chord beside the shortest of them, while a thin strip's end
// is still dropped.
func TestFilledSideInPieces(t *testing.T) {
	fill := func(a, b, c, d float64) glyph.Shape {
		return glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: a, Y: b}, {X: c, Y: d}}, Fill: true}
	}
	// The side along x = 0 from y = -1.5 mm: 0.04, 0.08, 0.17 mm, then
	// a long piece; the arc's first chord from its end.
	side := []glyph.Shape{fill(0, -1.5, 0, -1.46), fill(0, -1.46, 0, -1.38), fill(0, -1.38, 0, -1.21), fill(0, -1.21, 0, 0)}
	chord := fill(0, -1.5, 0.3, -1.46)
	end := fill(3, 1, 3, 1.1) // a strip's end, alone
	out := thinFills(append(append(append([]glyph.Shape(nil), side...), chord), end))
	if len(out) != len(side)+1 {
		t.Fatalf("%d lines kept, want the %d pieces of the side and the chord: %v", len(out), len(side)+1, out)
	}
	for i, s := range side {
		if out[i].Pts[0] != s.Pts[0] || out[i].Pts[1] != s.Pts[1] {
			t.Errorf("piece %d: %v, want %v", i, out[i].Pts, s.Pts)
		}
	}
}
