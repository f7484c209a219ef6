package job_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"blueprint/internal/document/documenttest"
	"blueprint/internal/job"
)

// TestSearchLeavesOutTheTitleBlock: a sheet draws its symbol three times
// on the plan and once more inside its title block (a logo, a key to the
// drawing): a search from one on the plan finds the three on the plan,
// never the one among the title block's words.
func TestSearchLeavesOutTheTitleBlock(t *testing.T) {
	ctx := context.Background()
	const w, h = 2160.0, 1440.0 // points: 6000 × 4000 raster pixels
	pt := func(px float64) float64 { return px * 72 / 200 }
	var c strings.Builder
	text := func(s string, x, y, size float64) { // raster pixels, baseline at y
		fmt.Fprintf(&c, "BT /F1 %g Tf %g %g Td (%s) Tj ET ", pt(size), pt(x), h-pt(y), s)
	}
	line := func(x0, y0, x1, y1 float64) {
		fmt.Fprintf(&c, "%g %g m %g %g l S ", pt(x0), h-pt(y0), pt(x1), h-pt(y1))
	}
	text("LIGHTING LAYOUT", 200, 150, 60)
	for i := range 8 { // walls: two rows of rooms
		x := 400 + float64(i)*300
		line(x, 600, x, 1800)
		line(x, 600, x+300, 600)
		line(x, 1200, x+300, 1200)
		line(x, 1800, x+300, 1800)
	}
	// The title block at the bottom right: its frame and its words.
	line(4800, 3200, 5950, 3200)
	line(4800, 3200, 4800, 3950)
	for i, wd := range []string{"PROJECT: OFFICES", "DRAWN: AB", "CHECKED: CD", "SCALE 1:100", "DATE 2026-12-04", "DRAWING NO E-01"} {
		text(wd, 5150, 3280+float64(i)*100, 30)
	}
	glyph := func(x, y float64) {
		fmt.Fprintf(&c, "q 2.834646 0 0 2.834646 %g %g cm 0.1 w ", pt(x), h-pt(y))
		c.WriteString(documenttest.CircleOps(0, 0, 2) + " -1.414 -1.414 m 1.414 1.414 l S -1.414 1.414 m 1.414 -1.414 l S Q ")
	}
	for _, p := range [][2]float64{{800, 900}, {1400, 900}, {2000, 1500}, {5420, 3420}} {
		glyph(p[0], p[1])
	}
	e := processedDoc(t, documenttest.PDF(documenttest.Page{MediaBox: fmt.Sprintf("[0 0 %g %g]", w, h), Content: c.String()}))
	page := 0
	box := &job.BoxView{X: (800 - 22) / 6000.0, Y: (900 - 22) / 4000.0, Width: 44 / 6000.0, Height: 44 / 4000.0}
	r, err := e.svc.Search(ctx, job.Caller{KeyID: "owner"}, "doc", job.SearchRequest{PageIndex: &page, BBoxNorm: box})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Matches {
		if m.BBoxPx.X > 5000 {
			t.Errorf("a match in the title block: %+v", m.BBoxPx)
		}
	}
	for _, n := range r.NearMisses {
		if n.BBoxPx.X > 5000 {
			t.Errorf("a near miss in the title block: %+v", n.BBoxPx)
		}
	}
	if r.Total != 3 {
		t.Errorf("%d matches, want the three on the plan (the searched one among them)", r.Total)
	}
}
