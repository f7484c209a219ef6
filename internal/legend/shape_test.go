package legend

import (
	"fmt"
	"strings"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// square draws a stroked square of side s centred at c in style st.
func square(pg *drawing.Page, c glyph.Point, s float64, st int32) {
	h := s / 2
	p := []glyph.Point{{X: c.X - h, Y: c.Y - h}, {X: c.X + h, Y: c.Y - h}, {X: c.X + h, Y: c.Y + h}, {X: c.X - h, Y: c.Y + h}}
	for i := range p {
		pg.Segments = append(pg.Segments, drawing.Segment{A: p[i], B: p[(i+1)%4], Style: st})
	}
}

// keyGlyph draws glyph i of a set of distinct ones: a square with i's
// marks inside (one or two rings, one to three strokes).
func keyGlyph(pg *drawing.Page, c glyph.Point, i int, st int32) {
	square(pg, c, 40, st)
	line := func(dx0, dy0, dx1, dy1 float64) {
		pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: c.X + dx0, Y: c.Y + dy0}, B: glyph.Point{X: c.X + dx1, Y: c.Y + dy1}, Style: st})
	}
	switch i % 5 {
	case 0:
		pg.Arcs = append(pg.Arcs, drawing.Arc{C: c, R: 10, Sweep: 360, Style: st})
	case 1:
		pg.Arcs = append(pg.Arcs, drawing.Arc{C: c, R: 12, Sweep: 360, Style: st}, drawing.Arc{C: c, R: 5, Sweep: 360, Style: st})
	case 2:
		line(-15, -15, 15, 15)
	case 3:
		line(-15, -15, 15, 15)
		line(-15, 15, 15, -15)
	case 4:
		line(-15, -10, 15, -10)
		line(-15, 0, 15, 0)
		line(-15, 10, 15, 10)
	}
}

// stack draws rows of a glyph column beside a column of text, without
// header words or rules, at a pitch of 60 px.
func stack(texts []string) *drawing.Page {
	pg := &drawing.Page{Width: 3000, Height: 2000, Styles: []drawing.Style{{Stroke: "#000000"}}}
	for i, s := range texts {
		y := 300 + 60*float64(i)
		keyGlyph(pg, glyph.Point{X: 220, Y: y}, i, 0)
		write(pg, s, 280, y+7, 20)
	}
	return pg
}

// TestHeadlessLegend: a column of distinct glyphs, each beside a
// description naming a device, is a legend without header words; the
// same column beside words that name nothing (a plan's stacked labels)
// is not, nor is a legend of fewer than minHeadlessRows rows.
func TestHeadlessLegend(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	legend := []string{"SMOKE DETECTOR", "HEAT DETECTOR", "MANUAL CALL POINT", "DISTRIBUTION BOARD", "DOUBLE SOCKET OUTLET"}
	tables := Find(stack(legend), 0, v)
	if len(tables) != 1 || len(tables[0].Rows) != len(legend) {
		t.Fatalf("headless legend: %d tables %v, want 1 of %d rows", len(tables), tables, len(legend))
	}
	for i, r := range tables[0].Rows {
		if r.Description != legend[i] || len(r.Glyph.Shapes) == 0 {
			t.Errorf("row %d: %q with %d shapes, want %q and its glyph", i, r.Description, len(r.Glyph.Shapes), legend[i])
		}
	}
	if got := Find(stack(legend), 0, nil); len(got) != 0 {
		t.Errorf("without a vocabulary: %d tables, want none (header words only)", len(got))
	}
	labels := []string{"ROOM 101 OFFICE", "CORRIDOR NORTH", "STORE ROOM", "PLANT ROOM", "LOBBY ENTRANCE"}
	if got := Find(stack(labels), 0, v); len(got) != 0 {
		t.Errorf("stacked labels: %d tables, want none", len(got))
	}
	if got := Find(stack(legend[:3]), 0, v); len(got) != 0 {
		t.Errorf("three rows: %d tables, want none", len(got))
	}
}

// TestAssignByColour: two legend rows drawing one shape in different
// colours keep a template each; a match drawn in the second row's colour
// is that row's, whichever template found it.
func TestAssignByColour(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	pg := &drawing.Page{Width: 3000, Height: 2000, Styles: []drawing.Style{{Stroke: "#000000"}, {Stroke: "#c81e1e"}, {Stroke: "#1e40c8"}}}
	write(pg, "LEGEND", 200, 250, 20)
	rows := []struct {
		text string
		mark int
		st   int32
	}{{"SMOKE DETECTOR", 0, 1}, {"HEAT DETECTOR", 0, 2}, {"MANUAL CALL POINT", 1, 0}}
	for i, r := range rows {
		y := 300 + 60*float64(i)
		keyGlyph(pg, glyph.Point{X: 220, Y: y}, r.mark, r.st)
		write(pg, r.text, 280, y+7, 20)
	}
	plan := &drawing.Page{Width: 3000, Height: 2000, Styles: pg.Styles}
	keyGlyph(plan, glyph.Point{X: 1000, Y: 1000}, 0, 2) // drawn blue: a heat detector
	keyGlyph(plan, glyph.Point{X: 1500, Y: 1000}, 0, 1) // drawn red: a smoke detector
	d, err := Read(t.Context(), pages{pg, plan}, v)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 3 || d.Classes[0] != "smoke_detector" || d.Classes[1] != "heat_detector" {
		t.Fatalf("rows %d classes %v", len(d.Rows), d.Classes)
	}
	if got := d.Leaders(); len(got) != 3 {
		t.Errorf("leaders %v: want one template per colour", got)
	}
	box := func(x float64) detect.Box { return detect.Box{X: x - 22, Y: 978, W: 44, H: 44} }
	for _, l := range []int{0, 1} {
		if got := d.Assign(plan, 1, l, box(1000)); got != 1 {
			t.Errorf("blue symbol found by row %d's template: row %d, want 1", l, got)
		}
		if got := d.Assign(plan, 1, l, box(1500)); got != 0 {
			t.Errorf("red symbol found by row %d's template: row %d, want 0", l, got)
		}
	}
}

// TestAssignByTag: rows drawing one glyph told apart by their tags share
// one template; a match goes to the row whose tag is written beside it,
// and a match with no tag near still goes to one of them (the first), so
// counting never loses it.
func TestAssignByTag(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	pg := &drawing.Page{Width: 3000, Height: 2000, Styles: []drawing.Style{{Stroke: "#000000"}}}
	write(pg, "LEGEND", 200, 250, 20)
	for i, r := range []struct{ tag, mark int }{{15, 0}, {30, 0}, {0, 1}} {
		y := 300 + 60*float64(i)
		keyGlyph(pg, glyph.Point{X: 220, Y: y}, r.mark, 0)
		if r.tag > 0 {
			write(pg, fmt.Sprintf("%dCD", r.tag), 260, y+7, 20)
		}
		write(pg, []string{"SPEAKER/STROBE, WALL", "SPEAKER/STROBE, WALL", "MANUAL CALL POINT"}[i], 360, y+7, 20)
	}
	plan := &drawing.Page{Width: 3000, Height: 2000, Styles: pg.Styles}
	keyGlyph(plan, glyph.Point{X: 1000, Y: 1000}, 0, 0)
	write(plan, "30CD", 1030, 1000, 20)
	keyGlyph(plan, glyph.Point{X: 1500, Y: 1000}, 0, 0) // no tag near
	d, err := Read(t.Context(), pages{pg, plan}, v)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 3 || d.TemplateRow(1) != 0 || strings.Join(d.Rows[1].Tags, " ") != "30CD" {
		t.Fatalf("rows %+v, template of row 2: row %d", d.Rows, d.TemplateRow(1)+1)
	}
	box := func(x float64) detect.Box { return detect.Box{X: x - 22, Y: 978, W: 44, H: 44} }
	if got := d.Assign(plan, 1, 0, box(1000)); got != 1 {
		t.Errorf("symbol tagged 30CD: row %d, want 1", got)
	}
	if got := d.Assign(plan, 1, 0, box(1500)); got != 0 {
		t.Errorf("symbol without a tag: row %d, want 0 (the first of its glyph's rows)", got)
	}
}
