package job_test

import (
	"context"
	"testing"

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
	var sh sheet
	sh.text("ELECTRICAL LAYOUT PLAN", 200, 150, 60)
	// The schedule: code, description and quantity cells.
	sh.text("LIGHTS", 4500, 300, 20)
	cols := []float64{4500, 4580, 5100, 5200}
	rows := [][3]string{{"L1", "WALL LIGHT OUTDOOR", "2"}, {"L2", "FLOODLIGHT LED 30W", "2"}}
	for i, r := range rows {
		top := 330 + float64(i)*60
		sh.line(cols[0], top, cols[3], top)
		for _, x := range cols {
			sh.line(x, top, x, top+60)
		}
		base := top + 37
		sh.text(r[0], cols[0]+5, base, 20)
		sh.text(r[1], cols[1]+5, base, 20)
		sh.text(r[2], cols[2]+85, base, 20)
	}
	sh.line(cols[0], 450, cols[3], 450)
	sh.rooms()
	// The plan: one glyph (a circle with a cross) five times, its code beside each.
	at := [][2]float64{{800, 900}, {1400, 900}, {800, 1500}, {1400, 1500}, {2000, 900}}
	codes := []string{"L1", "L1", "L2", "L2", "L1"}
	for i, p := range at {
		pen := ""
		if i == 4 {
			pen = "1 0 0 RG "
		}
		sh.lamp(p[0], p[1], pen)
		sh.text(codes[i], p[0]+25, p[1]+5, 15)
	}
	e := processedDoc(t, sh.pdf())
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

// TestSearchLeavesOutTheTitleBlock: a sheet draws its symbol three times
// on the plan and once more inside its title block (a logo, a key to the
// drawing): a search from one on the plan finds the three on the plan,
// never the one among the title block's words.
func TestSearchLeavesOutTheTitleBlock(t *testing.T) {
	ctx := context.Background()
	var sh sheet
	sh.text("LIGHTING LAYOUT", 200, 150, 60)
	sh.rooms()
	// The title block at the bottom right: its frame and its words.
	sh.line(4800, 3200, 5950, 3200)
	sh.line(4800, 3200, 4800, 3950)
	for i, wd := range []string{"PROJECT: OFFICES", "DRAWN: AB", "CHECKED: CD", "SCALE 1:100", "DATE 2026-12-04", "DRAWING NO E-01"} {
		sh.text(wd, 5150, 3280+float64(i)*100, 30)
	}
	for _, p := range [][2]float64{{800, 900}, {1400, 900}, {2000, 1500}, {5420, 3420}} {
		sh.lamp(p[0], p[1], "")
	}
	e := processedDoc(t, sh.pdf())
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
