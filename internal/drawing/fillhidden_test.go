package drawing

import (
	"testing"

	"blueprint/internal/glyph"
)

// TestHiddenStrokes: of a square filled as two triangles, each also
// stroked in the fill's colour, the stroke of the diagonal the triangles
// share is hidden and those of its outline are not; nor is a stroke of
// another colour over the fill, or one crossing it past its edge.
func TestHiddenStrokes(t *testing.T) {
	pg := &Page{Styles: []Style{{Fill: "#000000"}, {Stroke: "#000000"}, {Stroke: "#ff0000"}}}
	p := func(x, y float64) glyph.Point { return glyph.Point{X: x, Y: y} }
	tri := func(style int32, a, b, c glyph.Point) {
		pg.Segments = append(pg.Segments, Segment{a, b, style}, Segment{b, c, style}, Segment{c, a, style})
	}
	tri(0, p(0, 0), p(10, 0), p(10, 10)) // 0-2: fill
	tri(1, p(0, 0), p(10, 0), p(10, 10)) // 3-5: its strokes; 5 is the diagonal
	tri(0, p(0, 0), p(10, 10), p(0, 10)) // 6-8: fill
	tri(1, p(0, 0), p(10, 10), p(0, 10)) // 9-11: its strokes; 9 is the diagonal
	pg.Segments = append(pg.Segments,
		Segment{p(2, 5), p(8, 5), 2},  // 12: red over the fill
		Segment{p(5, 5), p(20, 5), 1}, // 13: black, running out of it
		Segment{p(1, 2), p(1, 8), 1},  // 14: black, inside near an edge
	)
	var all []int
	for i := range pg.Segments {
		all = append(all, i)
	}
	got := HiddenStrokes(pg, all)
	want := map[int]bool{5: true, 9: true, 14: true}
	for i := range pg.Segments {
		if got[i] != want[i] {
			t.Errorf("segment %d %v: hidden %v, want %v", i, pg.Segments[i], got[i], want[i])
		}
	}
}
