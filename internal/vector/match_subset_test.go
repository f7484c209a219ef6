package vector

import (
	"testing"

	"blueprint/internal/glyph"
)

// TestSubset: a subset matcher holds the templates kept, prepared once
// (the same prepared values), and looks for corners only where a kept
// template is cornered.
func TestSubset(t *testing.T) {
	box := glyph.Glyph{Shapes: []glyph.Shape{{Kind: glyph.KindRect, Pts: []glyph.Point{{X: -2, Y: -2}, {X: 2, Y: 2}}}}}
	ring := glyph.Glyph{Shapes: []glyph.Shape{{Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: 2}, {Kind: glyph.KindLine, Pts: []glyph.Point{{X: 0, Y: 2}, {X: 0, Y: 4}}}}}
	m, err := NewMatcher([]Template{{Class: "box", Glyph: box}, {Class: "ring", Glyph: ring, Row: 1}})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Subset(func(class string, row int) bool { return row > 0 })
	if len(s.tpls) != 1 || s.tpls[0] != m.tpls[1] || s.cornered {
		t.Errorf("subset of row templates: %d templates, cornered %v; want the ring's own, uncornered", len(s.tpls), s.cornered)
	}
	if all := m.Subset(func(string, int) bool { return true }); len(all.tpls) != 2 || all.cornered != m.cornered {
		t.Errorf("subset of all: %d templates, cornered %v", len(all.tpls), all.cornered)
	}
}
