package job

import (
	"errors"
	"math"
	"slices"
	"testing"

	"blueprint/internal/detect"
)

// TestValidateSearch checks a search request against a done job: the
// box's page and box in pixels, the pages searched by default (the
// counted ones) or as listed, and each refusal naming its field.
func TestValidateSearch(t *testing.T) {
	s := &Service{}
	j := &Job{Status: Done, Pages: []Page{
		{Index: 0, Width: 800, Height: 600, Kind: detect.KindFloorPlan},
		{Index: 1, Width: 800, Height: 600, Kind: detect.KindLegend},
		{Index: 2, Width: 400, Height: 200},
		{Index: 3, Width: 7016, Height: 4964, Kind: detect.KindImage},
	}}
	ptr := func(i int) *int { return &i }
	box := &BoxView{X: 0.5, Y: 0.25, Width: 0.1, Height: 0.2}

	p, b, pages, err := s.validateSearch(j, SearchRequest{PageIndex: ptr(2), BBoxNorm: box})
	if err != nil {
		t.Fatal(err)
	}
	if p.Index != 2 || !near(b, detect.Box{X: 200, Y: 50, W: 40, H: 40}) || !slices.Equal(pages, []int{0, 2, 3}) {
		t.Errorf("page %d, box %+v, pages %v; want page 2, box {200 50 40 40}, the counted pages [0 2 3]", p.Index, b, pages)
	}
	// A box round a symbol at the sheet's edge reaches past it: clipped.
	if _, b, _, err := s.validateSearch(j, SearchRequest{PageIndex: ptr(2), BBoxNorm: &BoxView{X: 0.95, Y: -0.1, Width: 0.1, Height: 0.3}}); err != nil || !near(b, detect.Box{X: 380, Y: 0, W: 20, H: 40}) {
		t.Errorf("a box past the corner: %+v %v, want it clipped to {380 0 20 40}", b, err)
	}
	listed := []int{1, 0}
	if _, _, pages, err := s.validateSearch(j, SearchRequest{PageIndex: ptr(0), BBoxNorm: box, Pages: &listed}); err != nil || !slices.Equal(pages, listed) {
		t.Errorf("pages [1 0]: %v %v", pages, err)
	}

	empty, twice, outside := []int{}, []int{0, 2, 0}, []int{0, 4}
	for _, c := range []struct {
		name  string
		r     SearchRequest
		field string
	}{
		{"no page", SearchRequest{BBoxNorm: box}, "page_index"},
		{"page out of range", SearchRequest{PageIndex: ptr(4), BBoxNorm: box}, "page_index"},
		{"the whole of an A1 image page", SearchRequest{PageIndex: ptr(3), BBoxNorm: &BoxView{Width: 1, Height: 1}}, "bbox_norm"},
		{"a box of a sixth of an A1 page", SearchRequest{PageIndex: ptr(3), BBoxNorm: &BoxView{X: 0.5, Y: 0.5, Width: 0.16, Height: 0.1}}, "bbox_norm"},
		{"negative page", SearchRequest{PageIndex: ptr(-1), BBoxNorm: box}, "page_index"},
		{"no box", SearchRequest{PageIndex: ptr(0)}, "bbox_norm"},
		{"box off the page", SearchRequest{PageIndex: ptr(0), BBoxNorm: &BoxView{X: 1.05, Y: 0, Width: 0.1, Height: 0.1}}, "bbox_norm"},
		{"box left of the page", SearchRequest{PageIndex: ptr(0), BBoxNorm: &BoxView{X: -0.2, Y: 0.5, Width: 0.2, Height: 0.1}}, "bbox_norm"},
		{"box of no area", SearchRequest{PageIndex: ptr(0), BBoxNorm: &BoxView{X: 0.1, Y: 0.1, Width: 0.1, Height: 0}}, "bbox_norm"},
		{"no pages", SearchRequest{PageIndex: ptr(0), BBoxNorm: box, Pages: &empty}, "pages"},
		{"a page twice", SearchRequest{PageIndex: ptr(0), BBoxNorm: box, Pages: &twice}, "pages[2]"},
		{"a page out of range", SearchRequest{PageIndex: ptr(0), BBoxNorm: box, Pages: &outside}, "pages[1]"},
	} {
		_, _, _, err := s.validateSearch(j, c.r)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeUnprocessable || e.Details["field"] != c.field || e.Message == "" {
			t.Errorf("%s: %v, want unprocessable naming %s", c.name, err, c.field)
		}
	}
}

// TestOffPlan: a match on a legend row's glyph, on the row's page, is a
// key to the drawing, and one whose centre lies in a table or title block
// of its page is off the plan; a match beside them, or on another page,
// is not.
func TestOffPlan(t *testing.T) {
	rows := []LegendRow{{PageIndex: 1, GlyphBox: &detect.Box{X: 100, Y: 100, W: 20, H: 20}}, {PageIndex: 1}}
	regions := []OffPlanRegion{{PageIndex: 2, Box: detect.Box{X: 1000, Y: 800, W: 400, H: 300}}}
	for _, c := range []struct {
		page int
		box  detect.Box
		want bool
	}{
		{1, detect.Box{X: 101, Y: 99, W: 19, H: 22}, true},
		{1, detect.Box{X: 96, Y: 96, W: 30, H: 30}, true},
		{1, detect.Box{X: 140, Y: 100, W: 20, H: 20}, false},
		{0, detect.Box{X: 100, Y: 100, W: 20, H: 20}, false},
		{2, detect.Box{X: 1380, Y: 1080, W: 30, H: 30}, true},
		{2, detect.Box{X: 1395, Y: 1080, W: 30, H: 30}, false},
		{1, detect.Box{X: 1100, Y: 900, W: 30, H: 30}, false},
	} {
		if got := OffPlan(rows, regions, c.page, c.box); got != c.want {
			t.Errorf("page %d box %+v: off plan %v, want %v", c.page, c.box, got, c.want)
		}
	}
}

// near reports whether two boxes agree within a millionth of a pixel.
func near(a, b detect.Box) bool {
	return math.Abs(a.X-b.X) < 1e-6 && math.Abs(a.Y-b.Y) < 1e-6 && math.Abs(a.W-b.W) < 1e-6 && math.Abs(a.H-b.H) < 1e-6
}

// TestValidateExclude: the look-alikes of a search, each on a page of the
// job and clipped to it, at most MaxSearchExcludes; each refusal names its
// field.
func TestValidateExclude(t *testing.T) {
	j := &Job{Status: Done, Pages: []Page{
		{Index: 0, Width: 800, Height: 600, Kind: detect.KindFloorPlan},
		{Index: 1, Width: 7016, Height: 4964, Kind: detect.KindImage},
	}}
	ptr := func(i int) *int { return &i }
	box := &BoxView{X: 0.5, Y: 0.25, Width: 0.1, Height: 0.2}
	if got, err := validateExclude(j, nil); err != nil || got != nil {
		t.Errorf("no exclude: %v %v", got, err)
	}
	ex := []SearchExclude{{PageIndex: ptr(0), BBoxNorm: box}, {PageIndex: ptr(1), BBoxNorm: &BoxView{X: 0.99, Y: 0.5, Width: 0.02, Height: 0.01}}}
	got, err := validateExclude(j, &ex)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Page != 0 || !near(got[0].Box, detect.Box{X: 400, Y: 150, W: 80, H: 120}) || got[1].Page != 1 || math.Abs(got[1].Box.W-70.16) > 1e-6 {
		t.Errorf("got %+v", got)
	}
	many := make([]SearchExclude, MaxSearchExcludes+1)
	for i := range many {
		many[i] = SearchExclude{PageIndex: ptr(0), BBoxNorm: box}
	}
	for _, c := range []struct {
		name  string
		ex    []SearchExclude
		field string
	}{
		{"too many", many, "exclude"},
		{"no page", []SearchExclude{{BBoxNorm: box}}, "exclude[0].page_index"},
		{"page out of range", []SearchExclude{{PageIndex: ptr(0), BBoxNorm: box}, {PageIndex: ptr(2), BBoxNorm: box}}, "exclude[1].page_index"},
		{"no box", []SearchExclude{{PageIndex: ptr(0)}}, "exclude[0].bbox_norm"},
		{"box off the page", []SearchExclude{{PageIndex: ptr(0), BBoxNorm: &BoxView{X: 1.1, Y: 0, Width: 0.1, Height: 0.1}}}, "exclude[0].bbox_norm"},
		{"box of no area", []SearchExclude{{PageIndex: ptr(0), BBoxNorm: &BoxView{X: 0.1, Y: 0.1, Width: 0, Height: 0.1}}}, "exclude[0].bbox_norm"},
		{"a box of a sixth of an A1 page", []SearchExclude{{PageIndex: ptr(1), BBoxNorm: &BoxView{X: 0.5, Y: 0.5, Width: 0.16, Height: 0.1}}}, "exclude[0].bbox_norm"},
	} {
		_, err := validateExclude(j, &c.ex)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeUnprocessable || e.Details["field"] != c.field || e.Message == "" {
			t.Errorf("%s: %v, want unprocessable naming %s", c.name, err, c.field)
		}
	}
}

// TestRankNearMisses: near misses best first, those of another size after
// every other however well they score.
func TestRankNearMisses(t *testing.T) {
	ns := []SearchNearMiss{{Score: 0.95, Reason: "another_size"}, {Score: 0.74, Reason: "extra_stroke"}, {Score: 0.8, Reason: "missing_stroke"}, {Score: 0.9, Reason: "another_size"}}
	rankNearMisses(ns)
	var got []float64
	for _, n := range ns {
		got = append(got, n.Score)
	}
	if want := []float64{0.8, 0.74, 0.95, 0.9}; !slices.Equal(got, want) {
		t.Errorf("ranked %v, want %v", got, want)
	}
}
