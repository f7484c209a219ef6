package glyph

import "math"

// loopTol is how close, in glyph millimetres, two line ends must be to
// join.
const loopTol = 0.15

// Weak reports whether g has too little drawing to be told apart from
// other symbols at another size: no text, and either one circle or arc
// alone, or at most four lines joining end to end into closed outlines
// (a bare box, a triangle; not a triangle with a bar across it). Legend
// templates and searched boxes of weak glyphs are looked for only near
// the size they are drawn at.
func (g Glyph) Weak() bool {
	lines, arcs := 0, 0
	for _, s := range g.Shapes {
		switch s.Kind {
		case KindText:
			return false
		case KindCircle, KindArc:
			arcs++
		default:
			lines++
		}
	}
	return (arcs == 1 && lines == 0) || (arcs == 0 && lines <= 4 && g.closedLoop())
}

// closedLoop reports whether the glyph's lines join end to end into
// closed outlines, each end meeting exactly one other. Shapes other than
// lines count as closed.
func (g Glyph) closedLoop() bool {
	var ends []Point
	for _, s := range g.Shapes {
		if s.Kind == KindLine && len(s.Pts) == 2 {
			ends = append(ends, s.Pts[0], s.Pts[1])
		}
	}
	for i, p := range ends {
		meet := 0
		for j, q := range ends {
			if j/2 != i/2 && math.Abs(p.X-q.X) <= loopTol && math.Abs(p.Y-q.Y) <= loopTol {
				meet++
			}
		}
		if meet != 1 {
			return false
		}
	}
	return true
}
