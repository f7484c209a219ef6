package drawing

import (
	"testing"

	"blueprint/internal/glyph"
)

// tiles draws a square grid of pitch px over r (pixels), each tile edge
// its own segment of style st.
func tiles(pg *Page, x0, y0, x1, y1, p float64, st int32) {
	for y := y0; y+p <= y1; y += p {
		for x := x0; x+p <= x1; x += p {
			pg.Segments = append(pg.Segments,
				Segment{A: glyph.Point{X: x, Y: y}, B: glyph.Point{X: x + p, Y: y}, Style: st},
				Segment{A: glyph.Point{X: x, Y: y}, B: glyph.Point{X: x, Y: y + p}, Style: st})
		}
	}
}

// A region of tile hatching is dropped from the index; the same tiles
// over one symbol-sized patch, filled pieces and a box's own lines stay.
func TestWithoutHatching(t *testing.T) {
	pg := &Page{Width: 2000, Height: 1000, Styles: []Style{{Stroke: "#000000", Width: 1}, {Fill: "#000000"}}}
	tiles(pg, 100, 100, 400, 300, 5, 0) // hatching: about 9 × 6 cells
	region := len(pg.Segments)
	tiles(pg, 1000, 100, 1030, 130, 3, 0) // a lone patch: one or two cells
	tiles(pg, 1000, 500, 1300, 700, 5, 1) // filled, not stroked
	box := []glyph.Point{{X: 1500, Y: 500}, {X: 1540, Y: 500}, {X: 1540, Y: 540}, {X: 1500, Y: 540}, {X: 1500, Y: 500}}
	for i := 1; i < len(box); i++ {
		pg.Segments = append(pg.Segments, Segment{A: box[i-1], B: box[i]})
	}
	h := Hatching(pg)
	if h == nil {
		t.Fatal("no hatching found")
	}
	// The region's edge cells hold partial families, which stay.
	n := 0
	for i := range pg.Segments {
		if h[i] && i >= region {
			t.Fatalf("segment %d (%+v) outside the hatched region taken for hatching", i, pg.Segments[i])
		}
		if h[i] {
			n++
		}
	}
	if n < region*9/10 {
		t.Fatalf("%d of the region's %d segments taken for hatching, want 90 %%", n, region)
	}
	out := pg.WithoutHatching()
	if len(out.Segments) != len(pg.Segments)-n || out.Width != pg.Width || len(out.Styles) != 2 {
		t.Fatalf("kept %d of %d segments, want %d", len(out.Segments), len(pg.Segments), len(pg.Segments)-n)
	}
	// Without a hatched region the page itself is used.
	pg.Segments = pg.Segments[region:]
	if pg.WithoutHatching() != pg {
		t.Fatal("a page without hatching was copied")
	}
}
