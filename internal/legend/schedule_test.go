package legend

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// hline and vline draw a horizontal and a vertical line.
func hline(pg *drawing.Page, x0, x1, y float64) {
	pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: x0, Y: y}, B: glyph.Point{X: x1, Y: y}})
}

func vline(pg *drawing.Page, x, y0, y1 float64) {
	pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: x, Y: y0}, B: glyph.Point{X: x, Y: y1}})
}

// scheduleRow is one row of a generated schedule: a code written alone in
// its cell or at the start of its description, and a quantity.
type genRow struct {
	code, desc string
	inline     bool
	qty        string
}

// schedule draws a ruled schedule at (x, y) under title: code, description
// and quantity cells, the quantity set against its price with no space
// between where price is true (one text run until the cell border splits
// it).
func drawSchedule(pg *drawing.Page, x, y float64, title string, rows []genRow) {
	const size, pitch = 20.0, 60.0
	write(pg, title, x, y, size)
	y += pitch / 2
	cols := []float64{x, x + 80, x + 600, x + 700}
	for i, r := range rows {
		top := y + float64(i)*pitch
		hline(pg, cols[0], cols[3], top)
		for _, c := range cols {
			vline(pg, c, top, top+pitch)
		}
		base := top + pitch/2 + 0.35*size
		if r.inline {
			write(pg, r.code+" "+r.desc, cols[0]+5, base, size)
		} else {
			write(pg, r.code, cols[0]+5, base, size)
			write(pg, r.desc, cols[1]+5, base, size)
		}
		// The quantity and its price, closer than a column gap: one run
		// that only the cell border parts.
		write(pg, r.qty, cols[2]+85, base, size)
		write(pg, "R12.00", cols[3]+8, base, size)
	}
	hline(pg, cols[0], cols[3], y+float64(len(rows))*pitch)
}

// tagSheet is a plan sheet of two buildings, each with its schedule giving
// codes L1, L2 and S1 to its own products, tags beside the plan's
// symbols, the buildings' names on their plans and a title block writing
// a code-like word.
func tagSheet() *drawing.Page {
	pg := &drawing.Page{Width: 6000, Height: 4000, Styles: []drawing.Style{{Stroke: "#000000"}}}
	write(pg, "ELECTRICAL LAYOUT PLAN", 200, 150, 60)
	drawSchedule(pg, 4500, 300, "BUILDING A: LIGHTS AND SWITCHES", []genRow{
		{"L1", "LED PANEL 600X600", false, "4"},
		{"L2", "RECESSED DOWNLIGHT", false, "2"},
		{"S1", "1 Lever Switch", true, "3"},
	})
	drawSchedule(pg, 4500, 1300, "BUILDING B: LIGHTS AND SWITCHES", []genRow{
		{"L1", "WALL LIGHT OUTDOOR", false, "1"},
		{"L2", "FLOODLIGHT LED 30W", false, "2"},
		{"S1", "1 Lever Switch", true, "1"},
	})
	write(pg, "BUILDING A", 800, 800, 40)
	write(pg, "BUILDING B", 2800, 800, 40)
	// Building A's tags: four L1, two L2 (one run "L2L2"), three S1, one
	// of them read "$1" (as OCR reads an outlined S now and then).
	for _, p := range [][2]float64{{500, 600}, {700, 600}, {500, 1000}, {700, 1000}} {
		write(pg, "L1", p[0], p[1], 15)
	}
	write(pg, "L2L2", 900, 1200, 15)
	for _, p := range [][2]float64{{400, 1400}, {600, 1400}} {
		write(pg, "S1", p[0], p[1], 15)
	}
	write(pg, "$1", 800, 1400, 15)
	// Building B's: one L1, two L2, one S1.
	write(pg, "L1", 2700, 600, 15)
	write(pg, "L2", 2900, 1000, 15)
	write(pg, "L2", 3100, 1000, 15)
	write(pg, "S1", 3000, 1400, 15)
	// A note naming a code is no tag; nor is the title block's "L1".
	write(pg, "CONNECT L1 TO DB", 1500, 2500, 15)
	for i, w := range []string{"DRAWING NO", "SCALE 1:100", "DATE", "REV", "L1"} {
		write(pg, w, 4600, 3500+float64(i)*40, 20)
	}
	return pg
}

// TestSchedulesAndTags: both schedules are read as rows with codes,
// quantities and classes, each a scope named by its title; the plan's tags
// count under the schedule of the building they are drawn in, a run of
// two tags gives two, and neither table text, a note nor the title block
// gives a tag. The same holds on the sheet stored turned a quarter or a
// half turn (a PDF page with /Rotate: all its text written turned).
func TestSchedulesAndTags(t *testing.T) {
	for _, a := range []float64{0, 90, -90, 180} {
		pg := tagSheet()
		if a != 0 {
			pg = turn{angle: a, w: pg.Width, h: pg.Height}.page(pg)
		}
		t.Run(fmt.Sprintf("turned %g", a), func(t *testing.T) { schedulesAndTags(t, pg) })
	}
}

func schedulesAndTags(t *testing.T, pg *drawing.Page) {
	vocab, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Read(context.Background(), pages{pg}, vocab)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Schedules) != 2 || d.Schedules[0].Scope != "BUILDING A" || d.Schedules[1].Scope != "BUILDING B" {
		t.Fatalf("schedules %+v, want two, scopes BUILDING A and BUILDING B", d.Schedules)
	}
	want := []struct {
		code, desc, class string
		qty               int
	}{
		{"L1", "LED PANEL 600X600", "luminaire", 4},
		{"L2", "RECESSED DOWNLIGHT", "downlight", 2},
		{"S1", "1 Lever Switch", "switch_one_way", 3},
		{"L1", "WALL LIGHT OUTDOOR", "luminaire_wall", 1},
		{"L2", "FLOODLIGHT LED 30W", "spotlight", 2},
		{"S1", "1 Lever Switch", "switch_one_way", 1},
	}
	if len(d.Rows) != len(want) {
		for _, r := range d.Rows {
			t.Logf("row %q %q", r.Code, r.Description)
		}
		t.Fatalf("%d rows, want %d", len(d.Rows), len(want))
	}
	for i, w := range want {
		r := d.Rows[i]
		if r.Code != w.code || r.Description != w.desc || r.Source != SourceSchedule || d.Classes[i] != w.class || r.Quantity == nil || *r.Quantity != w.qty {
			q := -1
			if r.Quantity != nil {
				q = *r.Quantity
			}
			t.Errorf("row %d: %q %q %q class %q qty %d, want %+v", i, r.Code, r.Description, r.Source, d.Classes[i], q, w)
		}
	}
	per := map[int]int{}
	unread := 0
	for _, tg := range d.Tags(pg, 0) {
		if tg.Row < 0 {
			unread++ // the note writing L1 among its words
			continue
		}
		per[tg.Row]++
	}
	if unread != 1 {
		t.Errorf("%d runs writing a code among other words, want 1 (the note)", unread)
	}
	wantTags := map[int]int{0: 4, 1: 2, 2: 3, 3: 1, 4: 2, 5: 1}
	for row, n := range wantTags {
		if per[row] != n {
			t.Errorf("row %d (%s in %s): %d tags, want %d", row, d.Rows[row].Code, d.Schedules[row/3].Scope, per[row], n)
		}
	}
	if len(per) != len(wantTags) {
		t.Errorf("tags per row %v, want %v", per, wantTags)
	}
}

// TestSplitCodes: a run of codes is read as its codes, all or nothing.
func TestSplitCodes(t *testing.T) {
	codes := map[string]bool{"L1": true, "L12": true, "P2": true, "P5": true}
	for s, want := range map[string]int{"P2P5P5": 3, "L12": 1, "L1L12": 2, "L1X": 0, "P2P": 0, "": 0} {
		if got := len(splitCodes(s, codes)); got != want {
			t.Errorf("splitCodes(%q): %d codes, want %d", s, got, want)
		}
	}
}

// TestNoScheduleWithoutEvidence: codes starting lines beside words, with
// no quantities and no schedule heads (tags beside a plan's labels), are
// no schedule.
func TestNoScheduleWithoutEvidence(t *testing.T) {
	pg := &drawing.Page{Width: 3000, Height: 3000, Styles: []drawing.Style{{Stroke: "#000000"}}}
	write(pg, "L9 SOLAR BATTERY ROOM", 100, 100, 20)
	write(pg, "P2 MAIN DB WORKSHOP", 100, 200, 20)
	write(pg, "S1 OFFICE", 100, 300, 20)
	if ss, rows := readSchedules(pg, runs(pg), 0, nil); len(ss) != 0 || len(rows) != 0 {
		t.Errorf("read %d schedules of %d rows, want none", len(ss), len(rows))
	}
}

// TestTagsOf reads tags of given codes on any page's words (OCR read on a
// page image has no schedule of its own): runs of codes alone, "P2P5" two
// of them; a code among other words names no row; nothing where offPlan
// says.
func TestTagsOf(t *testing.T) {
	pg := &drawing.Page{Width: 2000, Height: 1000}
	write(pg, "P5", 100, 100, 10)
	write(pg, "P2P5", 300, 100, 10)
	write(pg, "P5 socket here", 500, 300, 10)
	write(pg, "P2", 1500, 100, 10) // off the plan
	write(pg, "Office", 700, 500, 10)
	codes := map[string][]int{"P2": {4}, "P5": {7, 9}}
	got := TagsOf(pg, codes, func(c glyph.Point) bool { return c.X > 1400 })
	var named []string
	unread := 0
	for _, tg := range got {
		if tg.Row < 0 {
			unread++
			continue
		}
		named = append(named, fmt.Sprintf("%s:%d", tg.Code, tg.Row))
	}
	if want := []string{"P5:7", "P2:4", "P5:7"}; !slices.Equal(named, want) || unread != 1 {
		t.Errorf("tags %v and %d runs writing a code among words; want %v and 1", named, unread, want)
	}
}
