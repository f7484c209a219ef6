package ocrtext

import (
	"testing"

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
