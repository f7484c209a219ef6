package ocrtext

import (
	"image"
	"slices"
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// TestPlanCountsTheLinesPixels: the page's pixel bound counts the lines'
// strips, not the white a wide strip leaves beside narrow ones in a
// mosaic, and strips are packed widest first. A title across the sheet
// read with a hundred short labels (a legend's rows, tags) took a mosaic
// as wide as the title and as tall as every label: cp4's legend page
// sent as an image left 701 of its 1 091 lines unread that way, its
// legend's rows among them.
func TestPlanCountsTheLinesPixels(t *testing.T) {
	var ls []line
	var todo []task
	add := func(w float64) {
		ls = append(ls, line{min: glyph.Point{X: 0, Y: 0}, max: glyph.Point{X: w, Y: 20}, height: 20})
		todo = append(todo, task{line: len(ls) - 1})
	}
	for range 50 {
		add(100)
	}
	add(3000) // the title, among the labels
	for range 50 {
		add(100)
	}
	r := New(nil, Options{})
	all := 1 << 40
	ms := r.plan(ls, todo, &all)
	area, mosaicArea := 0, 0
	for _, m := range ms {
		mosaicArea += m.bounds.Dx() * m.bounds.Dy()
		for _, s := range m.strips {
			area += s.box.Dx() * s.box.Dy()
		}
	}
	// Bound the page at what the strips hold: every line is still read.
	pixels := area
	ms = r.plan(ls, todo, &pixels)
	n := 0
	for _, m := range ms {
		n += len(m.strips)
		for i, s := range m.strips {
			if i > 0 && s.box.Dx() > m.strips[i-1].box.Dx() {
				t.Errorf("strip %d is %d px wide after one of %d: not widest first", i, s.box.Dx(), m.strips[i-1].box.Dx())
			}
		}
	}
	if n != len(todo) || pixels != 0 {
		t.Errorf("%d of %d lines planned within the strips' own %d pixels (%d left; the mosaics hold %d)", n, len(todo), area, pixels, mosaicArea)
	}
}

// TestLetterGroupsKeepParity: two letters whose outlines are left open
// (drawn as pieces out of order, so that no subpath closes them) are
// filled one by one: joined as one, the nearest-first closing of their
// open ends ran from one letter to the next, and the white between them
// was painted (cp4's words converted to outlines read as struck through).
func TestLetterGroupsKeepParity(t *testing.T) {
	pg := &drawing.Page{Width: 100, Height: 100, Styles: []drawing.Style{{Fill: "#000000"}}}
	seg := func(x0, y0, x1, y1 float64) {
		pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: x0, Y: y0}, B: glyph.Point{X: x1, Y: y1}})
	}
	seg(10, 40, 10, 60) // the first letter's stem
	seg(21, 40, 30, 40) // the second's bar
	seg(10, 60, 19, 60) // the first's foot
	seg(30, 40, 30, 60) // the second's stem
	cs := components(pg, maxLetter, maxLetter)
	if len(cs) != 2 {
		t.Fatalf("%d components, want the two letters", len(cs))
	}
	idx := []int{0, 1}
	f := newFrame(0, 1)
	f.place(glyph.Point{X: 0, Y: 30}, glyph.Point{X: 40, Y: 70}, glyph.Point{})
	gap := f.to(glyph.Point{X: 20, Y: 50}) // between the letters
	img := image.NewGray(image.Rect(0, 0, 50, 50))
	draw := func(groups [][]piece) uint8 {
		for i := range img.Pix {
			img.Pix[i] = 0xff
		}
		for _, ps := range groups {
			paint(img, pg, ps, f, img.Rect)
		}
		return img.GrayAt(int(gap.X), int(gap.Y)).Y
	}
	var all []piece
	for _, c := range cs {
		all = append(all, c.pieces...)
	}
	if draw([][]piece{all}) != 0 {
		t.Log("filled as one, the gap stays white: the test shows nothing of the grouping")
	}
	if v := draw(letterGroups(cs, idx)); v != 0xff {
		t.Errorf("filled letter by letter, the white between the letters is painted (%d)", v)
	}
}

// TestComponentsJoinNearEnds: a filled outline whose curves, fitted as
// arcs, end a fraction of a pixel off each other across a half-pixel
// cell is one letter, not two (an O read "OG" when spelled from its
// halves); a stroke ending as near a letter stays apart from it.
func TestComponentsJoinNearEnds(t *testing.T) {
	pg := &drawing.Page{Width: 100, Height: 100, Styles: []drawing.Style{{Fill: "#000000"}, {Stroke: "#000000", Width: 1}}}
	// An O of two half circles about (50, 50), radius 8: the right half
	// ends 0.3 px off where the left one starts, in the next cell.
	pg.Arcs = append(pg.Arcs,
		drawing.Arc{C: glyph.Point{X: 50, Y: 50}, R: 8, Start: 90, Sweep: 180},
		drawing.Arc{C: glyph.Point{X: 50, Y: 50.3}, R: 8, Start: 270, Sweep: 180},
	)
	if cs := components(pg, maxLetter, maxLetter); len(cs) != 1 {
		t.Errorf("an O whose halves meet 0.3 px apart: %d components, want 1", len(cs))
	}
	// A wire stroked up to 0.3 px from the O's end.
	_, q := arcEnds(pg.Arcs[0])
	pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: q.X + 0.3, Y: q.Y}, B: glyph.Point{X: q.X + 30, Y: q.Y}, Style: 1})
	if cs := components(pg, maxLetter, maxLetter); len(cs) != 2 {
		t.Errorf("a wire ending by the O: %d components, want the O and the wire", len(cs))
	}
}

// TestLettersKeepOffPaleStrokes: a filled letter's outline whose corner
// a pale hatch line ends on stays a letter of its own; a stroke of the
// letter's colour ending there (a symbol's filled part and its outline)
// joins it, so that the symbol does not pass for a letter.
func TestLettersKeepOffPaleStrokes(t *testing.T) {
	pg := &drawing.Page{Width: 100, Height: 100, Styles: []drawing.Style{{Fill: "#000000"}, {Stroke: "#e9e9e9", Width: 1}, {Stroke: "#000000", Width: 1}}}
	// A filled triangle (a letter's outline, say an A's) and a hatch
	// line from its apex.
	a, b, c := glyph.Point{X: 40, Y: 60}, glyph.Point{X: 50, Y: 40}, glyph.Point{X: 60, Y: 60}
	pg.Segments = append(pg.Segments,
		drawing.Segment{A: a, B: b}, drawing.Segment{A: b, B: c}, drawing.Segment{A: c, B: a},
		drawing.Segment{A: b, B: glyph.Point{X: 65.8, Y: 40}, Style: 1},
	)
	cs := components(pg, maxLetter, maxLetter)
	letters := slices.DeleteFunc(cs, func(c component) bool { return !filledOnly(pg, c) })
	if len(letters) != 1 || len(letters[0].pieces) != 3 {
		t.Errorf("a letter a pale hatch line ends on: %d filled components, want the letter's 3 pieces alone", len(letters))
	}
	pg.Segments[3].Style = 2
	cs = components(pg, maxLetter, maxLetter)
	if letters := slices.DeleteFunc(cs, func(c component) bool { return !filledOnly(pg, c) }); len(letters) != 0 {
		t.Errorf("a filled shape with a black stroke from its corner: %d filled components, want none (a symbol's parts)", len(letters))
	}
}
