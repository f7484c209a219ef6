package glyph

import "testing"

// TestWeakGlyphs: only a lone closed outline is searched near its legend
// size; a mark inside or across it makes a glyph to find at any size.
func TestWeakGlyphs(t *testing.T) {
	line := func(x0, y0, x1, y1 float64) Shape {
		return Shape{Kind: KindLine, Pts: []Point{{X: x0, Y: y0}, {X: x1, Y: y1}}}
	}
	triangle := []Shape{line(-3, 3, 0, -3), line(0, -3, 3, 3), line(3, 3, -3, 3)}
	box := []Shape{line(-2, -2, 2, -2), line(2, -2, 2, 2), line(2, 2, -2, 2), line(-2, 2, -2, -2)}
	circle := []Shape{{Kind: KindCircle, Pts: []Point{{}}, R: 2}}
	for _, c := range []struct {
		name   string
		shapes []Shape
		want   bool
	}{
		{"triangle", triangle, true},
		{"box", box, true},
		{"circle", circle, true},
		{"triangle with a bar", append(append([]Shape(nil), triangle...), line(-2.8, 1, 2.8, 1)), false},
		{"box with a diagonal", append(append([]Shape(nil), box[:3]...), line(-2, -2, 2, 2)), false},
		{"circle with a dot", append(append([]Shape(nil), circle...), Shape{Kind: KindCircle, Pts: []Point{{}}, R: 0.5, Fill: true}), false},
		{"box with a letter", append(append([]Shape(nil), box...), Shape{Kind: KindText, Text: "F"}), false},
	} {
		if got := (Glyph{Shapes: c.shapes}).Weak(); got != c.want {
			t.Errorf("%s: weak %v, want %v", c.name, got, c.want)
		}
	}
}
