package engine

import (
	"testing"

	"blueprint/internal/glyph"
)

// TestWeakGlyphs: only a lone closed outline is searched near its legend
// size; a mark inside or across it makes a glyph to find at any size.
func TestWeakGlyphs(t *testing.T) {
	line := func(x0, y0, x1, y1 float64) glyph.Shape {
		return glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: x0, Y: y0}, {X: x1, Y: y1}}}
	}
	triangle := []glyph.Shape{line(-3, 3, 0, -3), line(0, -3, 3, 3), line(3, 3, -3, 3)}
	box := []glyph.Shape{line(-2, -2, 2, -2), line(2, -2, 2, 2), line(2, 2, -2, 2), line(-2, 2, -2, -2)}
	circle := []glyph.Shape{{Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: 2}}
	for _, c := range []struct {
		name   string
		shapes []glyph.Shape
		want   bool
	}{
		{"triangle", triangle, true},
		{"box", box, true},
		{"circle", circle, true},
		{"triangle with a bar", append(append([]glyph.Shape(nil), triangle...), line(-2.8, 1, 2.8, 1)), false},
		{"box with a diagonal", append(append([]glyph.Shape(nil), box[:3]...), line(-2, -2, 2, 2)), false},
		{"circle with a dot", append(append([]glyph.Shape(nil), circle...), glyph.Shape{Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: 0.5, Fill: true}), false},
		{"box with a letter", append(append([]glyph.Shape(nil), box...), glyph.Shape{Kind: glyph.KindText, Text: "F"}), false},
	} {
		if got := weak(glyph.Glyph{Shapes: c.shapes}); got != c.want {
			t.Errorf("%s: weak %v, want %v", c.name, got, c.want)
		}
	}
}
