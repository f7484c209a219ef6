package imagelegend

import (
	"image"
	"testing"
)

// TestFrameRoundALetterIsAGlyph: a box as high as a line of text round a
// letter (a pull station's "F" in a square) is a glyph, not a letter.
func TestFrameRoundALetterIsAGlyph(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 900, 120))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	fill := func(x0, y0, x1, y1 int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				g.Pix[y*900+x] = 0
			}
		}
	}
	// a line of 30 "letters" 18 pixels high: the text height
	for i := range 30 {
		x := 200 + 20*i
		fill(x, 50, x+3, 68)
		fill(x, 50, x+10, 53)
	}
	// the frame, 27 pixels square, round a letter
	fill(100, 46, 127, 47)
	fill(100, 72, 127, 73)
	fill(100, 46, 101, 73)
	fill(126, 46, 127, 73)
	fill(110, 52, 113, 67)
	m := binarise(g)
	cs := components(m)
	h := textHeight(cs)
	if h != 18 {
		t.Fatalf("text height %v, want 18", h)
	}
	lay := layout(cs, h, m)
	frame := image.Rect(100, 46, 127, 73)
	found := false
	for _, gl := range lay.glyphs {
		found = found || gl.box == frame
	}
	if !found {
		t.Errorf("frame %v not a glyph: glyphs %v", frame, lay.glyphs)
	}
	for _, l := range lay.lines {
		if l.box.Overlaps(frame) {
			t.Errorf("text line %v over the frame", l.box)
		}
	}
}
