package vector

import (
	"context"
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// TestFloodStops: a legend row's plain glyph (a stem and a bar) found
// whole in more than FloodFinds places of a page stops being looked for
// there and its matches are marked Flooded; the same glyph as a catalog
// template (row 0) is found everywhere, unmarked.
func TestFloodStops(t *testing.T) {
	tee := glyph.Glyph{Shapes: []glyph.Shape{line(-1, 1, 1, 1), line(0, 1, 0, -1)}}
	const n, step = 72, 24.0 // 72 × 72 = 5 184 tees, one every 24 px
	pg := &drawing.Page{Width: n*step + 40, Height: n*step + 40, Styles: []drawing.Style{{Stroke: "#000000", Width: 1}}}
	for i := range n * n {
		pl := glyph.Placement{At: glyph.Point{X: 30 + float64(i%n)*step, Y: 30 + float64(i/n)*step}, Scale: 1}
		addGlyph(pg, tee, pl.Matrix(PixelsPerMM).Apply, PixelsPerMM)
	}
	for _, tc := range []struct {
		row     int
		flooded bool
	}{{1, true}, {0, false}} {
		m, err := NewMatcher([]Template{{Class: "tee", Glyph: tee, Row: tc.row}})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := m.Match(context.Background(), pg)
		if err != nil {
			t.Fatal(err)
		}
		marked := 0
		for _, x := range ms {
			if x.Flooded {
				marked++
			}
		}
		switch {
		case tc.flooded && (marked != len(ms) || len(ms) == 0 || len(ms) > n*n/2):
			t.Errorf("row %d: %d matches, %d flooded; want some, far fewer than the %d drawn, all flooded", tc.row, len(ms), marked, n*n)
		case !tc.flooded && (marked != 0 || len(ms) < n*n*9/10):
			t.Errorf("row %d: %d matches, %d flooded; want nearly all %d, none flooded", tc.row, len(ms), marked, n*n)
		}
	}
}

// TestFloodStopsOnPartFinds: a legend row's glyph drawn nowhere whole but
// found in part (a tee whose short tick the page lacks) in more places
// than FloodPoses stops being looked for too, its matches Flooded,
// though no find is whole.
func TestFloodStopsOnPartFinds(t *testing.T) {
	tee := glyph.Glyph{Shapes: []glyph.Shape{line(-1, 1, 1, 1), line(0, 1, 0, -1)}}
	ticked := glyph.Glyph{Shapes: append(tee.Shapes, line(0.8, -0.6, 1.2, -0.6))}
	const n, step = 72, 24.0
	pg := &drawing.Page{Width: n*step + 40, Height: n*step + 40, Styles: []drawing.Style{{Stroke: "#000000", Width: 1}}}
	for i := range n * n {
		pl := glyph.Placement{At: glyph.Point{X: 30 + float64(i%n)*step, Y: 30 + float64(i/n)*step}, Scale: 1}
		addGlyph(pg, tee, pl.Matrix(PixelsPerMM).Apply, PixelsPerMM)
	}
	m, err := NewMatcher([]Template{{Class: "ticked", Glyph: ticked, Row: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := m.Match(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, x := range ms {
		if x.Flooded {
			marked++
		}
	}
	if len(ms) == 0 || marked != len(ms) || len(ms) >= n*n {
		t.Errorf("%d matches, %d flooded; want some, fewer than the %d drawn, all flooded", len(ms), marked, n*n)
	}
}
