package ocrtext

import (
	"slices"
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// paintedPage is a page with a luminaire's two black quarters filled
// inside its red ring and between the arms of its red cross, and a black
// L-shaped outline (a letter) that a hatch line crosses.
func paintedPage() *drawing.Page {
	pg := &drawing.Page{Width: 200, Height: 200, Styles: []drawing.Style{{Fill: "#000000"}, {Stroke: "#ff0000", Width: 1}, {Stroke: "#c0c0c0", Width: 0.5}}}
	c := glyph.Point{X: 100, Y: 100}
	// The symbol: a red ring of radius 10 and a red cross through it,
	// running past the ring.
	pg.Arcs = append(pg.Arcs, drawing.Arc{C: c, R: 10, Sweep: 360, Style: 1})
	pg.Segments = append(pg.Segments,
		drawing.Segment{A: glyph.Point{X: 86, Y: 100}, B: glyph.Point{X: 114, Y: 100}, Style: 1},
		drawing.Segment{A: glyph.Point{X: 100, Y: 86}, B: glyph.Point{X: 100, Y: 114}, Style: 1},
	)
	// Its quarters, filled black: two radii and a quarter arc each.
	for _, start := range []float64{0, 180} {
		a := drawing.Arc{C: c, R: 10, Start: start, Sweep: 90}
		p, q := arcEnds(a)
		pg.Arcs = append(pg.Arcs, a)
		pg.Segments = append(pg.Segments, drawing.Segment{A: c, B: p}, drawing.Segment{A: q, B: c})
	}
	// A letter L, 10 × 15 px, with a hatch line across it.
	l := []glyph.Point{{X: 40, Y: 40}, {X: 43, Y: 40}, {X: 43, Y: 52}, {X: 50, Y: 52}, {X: 50, Y: 55}, {X: 40, Y: 55}}
	for i := range l {
		pg.Segments = append(pg.Segments, drawing.Segment{A: l[i], B: l[(i+1)%len(l)]})
	}
	pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: 30, Y: 30}, B: glyph.Point{X: 60, Y: 60}, Style: 2})
	return pg
}

func filledComponents(pg *drawing.Page) []component {
	return slices.DeleteFunc(components(pg, maxLetter, maxLetter), func(c component) bool { return !filledOnly(pg, c) })
}

// TestDropPaintedKeepsLetters: a symbol's quarters filled on its stroked
// ring and cross are no letters; a letter a hatch line crosses is one.
func TestDropPaintedKeepsLetters(t *testing.T) {
	pg := paintedPage()
	ink := filledComponents(pg)
	if len(ink) != 2 {
		t.Fatalf("%d filled components, want the quarters (joined at the centre) and the L", len(ink))
	}
	kept := dropPainted(pg, ink)
	if len(kept) != 1 || kept[0].min != (glyph.Point{X: 40, Y: 40}) {
		t.Errorf("kept %v, want the L alone", kept)
	}
}

// TestDropPaintedKeepsStrokedLetters: a letter filled and then stroked
// along its own outline (exports that draw text twice) stays a letter:
// the strokes that follow it do not run past it.
func TestDropPaintedKeepsStrokedLetters(t *testing.T) {
	pg := paintedPage()
	n := len(pg.Segments)
	for _, s := range pg.Segments[n-7 : n-1] {
		s.Style = 1
		pg.Segments = append(pg.Segments, s)
	}
	ink := filledComponents(pg)
	kept := dropPainted(pg, ink)
	if len(kept) != 1 || kept[0].min != (glyph.Point{X: 40, Y: 40}) {
		t.Errorf("kept %d components, want the L, stroked along its own outline, alone", len(kept))
	}
}

// TestDropPaintedLetterOnTiles: a letter whose straight edges lie along
// a grey tile hatch's lines (three quarters of its outline) stays a
// letter; followed so by strokes of its own colour, it is drawing.
func TestDropPaintedLetterOnTiles(t *testing.T) {
	pg := paintedPage()
	// Hatch lines along the L's left, bottom and inner edges, running
	// on past it as a tile pattern's lines do.
	for _, s := range []drawing.Segment{
		{A: glyph.Point{X: 40, Y: 30}, B: glyph.Point{X: 40, Y: 65}},
		{A: glyph.Point{X: 30, Y: 55}, B: glyph.Point{X: 60, Y: 55}},
		{A: glyph.Point{X: 43, Y: 30}, B: glyph.Point{X: 43, Y: 52}},
	} {
		s.Style = 2
		pg.Segments = append(pg.Segments, s)
	}
	kept := dropPainted(pg, filledComponents(pg))
	if len(kept) != 1 || kept[0].min != (glyph.Point{X: 40, Y: 40}) {
		t.Errorf("kept %d components, want the L on its grey tiles alone", len(kept))
	}
	pg.Styles[2].Stroke = "#000000"
	if kept := dropPainted(pg, filledComponents(pg)); len(kept) != 0 {
		t.Errorf("kept %d components, want none: black lines along the black L are its symbol's", len(kept))
	}
}
