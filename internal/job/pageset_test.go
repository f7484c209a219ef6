package job

import (
	"encoding/json"
	"slices"
	"testing"

	"blueprint/internal/detect"
)

// TestPageSet: pages added in any order list in increasing order, once
// each, and survive a JSON round trip as a short string; a 500-page job
// stores its finished pages in under 100 bytes.
func TestPageSet(t *testing.T) {
	var s PageSet
	for _, i := range []int{9, 0, 3, 9, -1, 17} {
		s = s.Add(i)
	}
	if got := s.Pages(); !slices.Equal(got, []int{0, 3, 9, 17}) || s.Len() != 4 || !s.Has(17) || s.Has(16) || s.Has(-1) || s.Has(800) {
		t.Fatalf("pages %v (len %d), want [0 3 9 17]", got, s.Len())
	}
	if got := PageSet(nil).Pages(); got == nil || len(got) != 0 {
		t.Fatalf("the empty set lists %#v, want []", got)
	}
	if got := PageSet(nil).AddRange(4, 7).Pages(); !slices.Equal(got, []int{4, 5, 6}) {
		t.Fatalf("AddRange(4, 7): %v", got)
	}
	b, err := json.Marshal(PageSet(nil).AddRange(0, 500))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 100 {
		t.Fatalf("500 finished pages take %d bytes of JSON: %s", len(b), b)
	}
	var back PageSet
	if err := json.Unmarshal(b, &back); err != nil || back.Len() != 500 || !back.Has(499) {
		t.Fatalf("round trip of 500 pages: %v, %d pages", err, back.Len())
	}
}

// TestGlyphBoxNorm: a legend row's glyph box is given as fractions of its
// own page's size; a row without one (or of a page not recorded) has
// none.
func TestGlyphBoxNorm(t *testing.T) {
	pages := []Page{{Index: 0, Width: 1000, Height: 500}, {Index: 1, Width: 2000, Height: 4000}}
	r := LegendRow{PageIndex: 1, GlyphBox: &detect.Box{X: 200, Y: 400, W: 50, H: 100}}
	got := glyphBoxNorm(r, pages)
	if want := (BoxView{X: 0.1, Y: 0.1, Width: 0.025, Height: 0.025}); got == nil || *got != want {
		t.Fatalf("glyph box %+v, want %+v", got, want)
	}
	if got := glyphBoxNorm(LegendRow{PageIndex: 0}, pages); got != nil {
		t.Fatalf("a row without a glyph box: %+v", got)
	}
	r.PageIndex = 5
	if got := glyphBoxNorm(r, pages); got != nil {
		t.Fatalf("a row of a page not recorded: %+v", got)
	}
}
