package vector

import (
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// The flood tests' sheet: a tee (a stem and a bar) drawn floodN ×
// floodN times, one every floodStep pixels.
const floodN, floodStep = 72, 24.0 // 5 184 tees

var tee = glyph.Glyph{Shapes: []glyph.Shape{line(-1, 1, 1, 1), line(0, 1, 0, -1)}}

func teeSheet() *drawing.Page {
	pg := &drawing.Page{Width: floodN*floodStep + 40, Height: floodN*floodStep + 40, Styles: []drawing.Style{{Stroke: "#000000", Width: 1}}}
	for i := range floodN * floodN {
		pl := glyph.Placement{At: glyph.Point{X: 30 + float64(i%floodN)*floodStep, Y: 30 + float64(i/floodN)*floodStep}, Scale: 1}
		addGlyph(pg, tee, pl.Matrix(PixelsPerMM).Apply, PixelsPerMM)
	}
	return pg
}

// floodMatches matches one template on pg and returns how many matches
// it found and how many of them are marked Flooded.
func floodMatches(t *testing.T, pg *drawing.Page, tpl Template) (found, marked int) {
	t.Helper()
	ms := matchAlone(t, tpl, pg)
	for _, x := range ms {
		if x.Flooded {
			marked++
		}
	}
	return len(ms), marked
}

// TestFloodStops: a legend row's plain glyph (a stem and a bar) found
// whole in more than FloodFinds places of a page stops being looked for
// there and its matches are marked Flooded; the same glyph as a catalog
// template (row 0) is found everywhere, unmarked.
func TestFloodStops(t *testing.T) {
	pg := teeSheet()
	const n = floodN * floodN
	for _, tc := range []struct {
		row     int
		flooded bool
	}{{1, true}, {0, false}} {
		found, marked := floodMatches(t, pg, Template{Class: "tee", Glyph: tee, Row: tc.row})
		switch {
		case tc.flooded && (marked != found || found == 0 || found > n/2):
			t.Errorf("row %d: %d matches, %d flooded; want some, far fewer than the %d drawn, all flooded", tc.row, found, marked, n)
		case !tc.flooded && (marked != 0 || found < n*9/10):
			t.Errorf("row %d: %d matches, %d flooded; want nearly all %d, none flooded", tc.row, found, marked, n)
		}
	}
}

// TestFloodStopsOnPartFinds: a legend row's glyph drawn nowhere whole but
// found in part (a tee whose short tick the page lacks) in more places
// than FloodPoses stops being looked for too, its matches Flooded,
// though no find is whole.
func TestFloodStopsOnPartFinds(t *testing.T) {
	ticked := glyph.Glyph{Shapes: append(append([]glyph.Shape{}, tee.Shapes...), line(0.8, -0.6, 1.2, -0.6))}
	found, marked := floodMatches(t, teeSheet(), Template{Class: "ticked", Glyph: ticked, Row: 1})
	if found == 0 || marked != found || found >= floodN*floodN {
		t.Errorf("%d matches, %d flooded; want some, fewer than the %d drawn, all flooded", found, marked, floodN*floodN)
	}
}
