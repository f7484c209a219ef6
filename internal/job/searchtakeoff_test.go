package job_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"blueprint/internal/document/documenttest"
	"blueprint/internal/job"
)

// TestSearchReadsTheTakeOff: on a sheet whose schedule names an L1 wall light
// and an L2 floodlight, both drawn with one glyph and told apart by the
// codes beside them, a search from an L1 finds the other L1s, the one
// drawn red too (the take-off counts it a wall light: another zone's
// colour, not another device), and gives the L2s back as near misses
// "another_tag".
func TestSearchReadsTheTakeOff(t *testing.T) {
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
	text("ELECTRICAL LAYOUT PLAN", 200, 150, 60)
	// The schedule: code, description and quantity cells.
	text("LIGHTS", 4500, 300, 20)
	cols := []float64{4500, 4580, 5100, 5200}
	rows := [][3]string{{"L1", "WALL LIGHT OUTDOOR", "2"}, {"L2", "FLOODLIGHT LED 30W", "2"}}
	for i, r := range rows {
		top := 330 + float64(i)*60
		line(cols[0], top, cols[3], top)
		for _, x := range cols {
			line(x, top, x, top+60)
		}
		base := top + 37
		text(r[0], cols[0]+5, base, 20)
		text(r[1], cols[1]+5, base, 20)
		text(r[2], cols[2]+85, base, 20)
	}
	line(cols[0], 450, cols[3], 450)
	// Walls: two rows of rooms.
	for i := range 8 {
		x := 400 + float64(i)*300
		line(x, 600, x, 1800)
		line(x, 600, x+300, 600)
		line(x, 1200, x+300, 1200)
		line(x, 1800, x+300, 1800)
	}
	// The plan: one glyph (a circle with a cross) four times, its code beside each.
	at := [][2]float64{{800, 900}, {1400, 900}, {800, 1500}, {1400, 1500}, {2000, 900}}
	codes := []string{"L1", "L1", "L2", "L2", "L1"}
	for i, p := range at {
		pen := ""
		if i == 4 {
			pen = "1 0 0 RG "
		}
		fmt.Fprintf(&c, "q %s2.834646 0 0 2.834646 %g %g cm 0.1 w ", pen, pt(p[0]), h-pt(p[1]))
		c.WriteString(documenttest.CircleOps(0, 0, 2) + " -1.414 -1.414 m 1.414 1.414 l S -1.414 1.414 m 1.414 -1.414 l S Q ")
		text(codes[i], p[0]+25, p[1]+5, 15)
	}
	e := processedDoc(t, documenttest.PDF(documenttest.Page{MediaBox: fmt.Sprintf("[0 0 %g %g]", w, h), Content: c.String()}))
	owner := job.Caller{KeyID: "owner"}
	page := 0
	// The box around the first L1's glyph (16 px a side round its centre).
	box := &job.BoxView{X: (800 - 22) / 6000.0, Y: (900 - 22) / 4000.0, Width: 44 / 6000.0, Height: 44 / 4000.0}
	r, err := e.svc.Search(ctx, owner, "doc", job.SearchRequest{PageIndex: &page, BBoxNorm: box})
	if err != nil {
		t.Fatal(err)
	}
	tagMisses, colourMisses := 0, 0
	for _, n := range r.NearMisses {
		switch n.Reason {
		case "another_tag":
			tagMisses++
		case "another_colour":
			colourMisses++
		}
	}
	if r.Total != 3 || tagMisses != 2 || colourMisses != 0 {
		for _, m := range r.Matches {
			t.Logf("match %+v", m.BBoxPx)
		}
		for _, n := range r.NearMisses {
			t.Logf("near miss %s %+v", n.Reason, n.BBoxPx)
		}
		t.Errorf("%d matches, %d near misses for another code, %d for another colour; want the three L1s and the two L2s", r.Total, tagMisses, colourMisses)
	}
}
