package drawing

import (
	"testing"

	"blueprint/internal/glyph"
)

// rect is an axis-aligned rectangle path from (x0, y0) to (x1, y1).
func rect(x0, y0, x1, y1 float64) []PathCmd {
	return []PathCmd{
		{Op: 'M', P: [3]glyph.Point{{X: x0, Y: y0}}},
		{Op: 'L', P: [3]glyph.Point{{X: x1, Y: y0}}},
		{Op: 'L', P: [3]glyph.Point{{X: x1, Y: y1}}},
		{Op: 'L', P: [3]glyph.Point{{X: x0, Y: y1}}},
		{Op: 'Z'},
	}
}

func seg(x0, y0, x1, y1 float64) []PathCmd {
	return []PathCmd{{Op: 'M', P: [3]glyph.Point{{X: x0, Y: y0}}}, {Op: 'L', P: [3]glyph.Point{{X: x1, Y: y1}}}}
}

// TestPaperMaskHides: a rectangle filled in the paper's colour hides the
// pieces and characters drawn before it that it covers whole; what is
// drawn after it, what only crosses its edge, what lies on its edge and
// what another colour or a shape other than a rectangle covers stay.
func TestPaperMaskHides(t *testing.T) {
	id := glyph.Affine{A: 1, D: 1}
	b := NewBuilder(200, 200, 1)
	b.Stroke(seg(20, 20, 40, 20), id, "#000000", 1)                                           // under the mask: hidden
	b.Stroke(seg(5, 30, 40, 30), id, "#000000", 1)                                            // crosses its edge: kept
	b.Stroke(seg(10, 10, 60, 10), id, "#000000", 1)                                           // on its edge: kept
	b.Glyph('A', rect(0, 0, 1, 1), glyph.Affine{A: 5, D: -5, E: 30, F: 45}, "#000000", "", 0) // hidden
	b.Fill(rect(10, 10, 60, 60), id, PaperColour)
	b.Stroke(seg(20, 50, 40, 50), id, "#000000", 1) // drawn over it: kept
	b.Stroke(seg(120, 20, 140, 20), id, "#000000", 1)
	b.Fill(rect(110, 10, 160, 60), id, "#000000") // ink, not paper: hides nothing
	b.Stroke(seg(20, 120, 40, 120), id, "#000000", 1)
	b.Fill([]PathCmd{{Op: 'M', P: [3]glyph.Point{{X: 10, Y: 110}}}, {Op: 'L', P: [3]glyph.Point{{X: 60, Y: 110}}}, {Op: 'L', P: [3]glyph.Point{{X: 35, Y: 160}}}, {Op: 'Z'}}, id, PaperColour) // a triangle
	pg := b.Page()
	has := func(a, c glyph.Point) bool {
		for _, s := range pg.Segments {
			if s.A == a && s.B == c {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		a, b glyph.Point
		want bool
	}{
		{glyph.Point{X: 20, Y: 20}, glyph.Point{X: 40, Y: 20}, false},
		{glyph.Point{X: 5, Y: 30}, glyph.Point{X: 40, Y: 30}, true},
		{glyph.Point{X: 10, Y: 10}, glyph.Point{X: 60, Y: 10}, true},
		{glyph.Point{X: 20, Y: 50}, glyph.Point{X: 40, Y: 50}, true},
		{glyph.Point{X: 120, Y: 20}, glyph.Point{X: 140, Y: 20}, true},
		{glyph.Point{X: 20, Y: 120}, glyph.Point{X: 40, Y: 120}, true},
	} {
		if got := has(tc.a, tc.b); got != tc.want {
			t.Errorf("segment %v–%v kept %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if len(pg.Chars) != 0 {
		t.Errorf("%d characters under the mask kept, want none", len(pg.Chars))
	}
	// The page is taken once more: nothing else goes.
	n := len(pg.Segments)
	if pg = b.Page(); len(pg.Segments) != n {
		t.Errorf("a second Page() holds %d segments, the first %d", len(pg.Segments), n)
	}
}
