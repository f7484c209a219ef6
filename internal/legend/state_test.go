package legend

import (
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// TestTextlessPages: a page that draws but writes no text (its words
// drawn as outlines) is noted, survives the saved state, and a page
// with text or almost no drawing is not.
func TestTextlessPages(t *testing.T) {
	outlined := &drawing.Page{Width: 1000, Height: 800}
	for i := range minTextlessDrawing {
		x := float64(i)
		outlined.Segments = append(outlined.Segments, drawing.Segment{A: glyph.Point{X: x, Y: 0}, B: glyph.Point{X: x, Y: 10}})
	}
	vocab, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	d := &Document{tables: map[int][]Rect{}}
	d.addPage(0, &drawing.Page{Width: 1000, Height: 800}, vocab)
	d.addPage(1, outlined, vocab)
	d.group()
	if len(d.Textless) != 1 || d.Textless[0] != 1 {
		t.Fatalf("textless pages %v, want [1]", d.Textless)
	}
	b, err := d.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Document
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if len(back.Textless) != 1 || back.Textless[0] != 1 {
		t.Errorf("textless pages after the saved state: %v", back.Textless)
	}
}
