package legend

import (
	"context"
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// TestStrayColumnDoesNotCutRows: a row's text ends where the next column
// of glyphs to its right starts only where that column's glyphs stand
// beside the rows. Here a word drawn as strokes (an outline OCR left
// unread) sits in one description, with text after it, and a like mark
// stands far down the sheet, left of where the descriptions start: the
// two line up as a column whose span covers the legend. Taken as a table set beside, its left edge cut every
// description away and no row was read (cp4's legend page sent as a
// JPEG and traced).
func TestStrayColumnDoesNotCutRows(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	legend := []string{"SMOKE DETECTOR", "HEAT DETECTOR", "MANUAL CALL POINT", "DISTRIBUTION BOARD", "DOUBLE SOCKET OUTLET"}
	pg := &drawing.Page{Width: 3000, Height: 2000, Styles: []drawing.Style{{Stroke: "#000000"}}}
	for i, s := range legend {
		y := 300 + 60*float64(i)
		keyGlyph(pg, glyph.Point{X: 220, Y: y}, i, 0)
		if i != 2 {
			write(pg, s, 400, y+7, 20)
		}
	}
	write(pg, "LEGEND", 200, 250, 20)
	// "GLASS" drawn as strokes after row 2's words, then words again.
	mark := func(x, y float64) {
		for dx := 0.0; dx < 50; dx += 12 {
			pg.Segments = append(pg.Segments, segment(x+dx, y-12, x+dx+8, y))
		}
	}
	mark(400, 427) // "MANUAL"
	write(pg, "CALL POINT", 470, 427, 20)
	mark(370, 1627)
	write(pg, "NOTES ON SHEET 4", 440, 1627, 20)
	tables := Find(pg, 0, v)
	// Row 2's words find the mark, not its glyph, to their left: the
	// other four rows are the table.
	want := []string{legend[0], legend[1], legend[3], legend[4]}
	if len(tables) != 1 || len(tables[0].Rows) != len(want) {
		t.Fatalf("%d tables %v, want 1 of %d rows", len(tables), tables, len(want))
	}
	for i, r := range tables[0].Rows {
		if r.Description != want[i] {
			t.Errorf("row %d: %q, want %q", i, r.Description, want[i])
		}
	}
}

// TestOtherSystemLegend: a legend whose rows are mostly devices the
// vocabulary knows to have no catalog class (a nurse-call system's) gives
// its power supply no catalog class; a fire-alarm legend with a few such
// rows keeps its classes.
func TestOtherSystemLegend(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	read := func(rows []string) []string {
		pg := stack(rows)
		write(pg, "LEGEND", 200, 250, 20)
		d, err := Read(context.Background(), pages{pg}, v)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Rows) != len(rows) {
			t.Fatalf("%d rows read of %q", len(d.Rows), rows)
		}
		return d.Classes
	}
	nurse := []string{"NURSE CALL ROOM INDICATOR", "BATHROOM DOOR UNIT", "BUS POWER SUPPLY 24V", "NURSE CALL EXPANDER", "SISTEM APELARE ASISTENTA"}
	for i, c := range read(nurse) {
		if c != "" {
			t.Errorf("nurse-call legend row %q: class %q, want none", nurse[i], c)
		}
	}
	fire := []string{"SMOKE DETECTOR", "END OF LINE RESISTOR", "POWER SUPPLY", "DOCUMENT STORAGE BOX", "MANUAL CALL POINT"}
	got := read(fire)
	if got[0] != "smoke_detector" || got[2] != "power_supply" || got[4] != "manual_call_point" {
		t.Errorf("fire-alarm legend classes %q", got)
	}
}

func segment(x0, y0, x1, y1 float64) drawing.Segment {
	return drawing.Segment{A: glyph.Point{X: x0, Y: y0}, B: glyph.Point{X: x1, Y: y1}}
}

// TestCodeLabelsAreNoLegend: a column of a plan's circuit labels, each
// beside a mark, names a board only by codes ("DB-S1"): no legend without
// header words (newmark with its words drawn as outlines counted 66
// distribution boards from such a column). A headless legend whose
// descriptions carry codes beside the words that name a class stays one.
func TestCodeLabelsAreNoLegend(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{"DB-S1", "P1 DB-S1", "AC1 DB-S1", "P2 DB-S1", "L3 DB-S2"}
	if got := Find(stack(labels), 0, v); len(got) != 0 {
		t.Errorf("circuit labels: %d tables %v, want none", len(got), got)
	}
	legend := []string{"16A SMOKE DETECTOR", "HEAT DETECTOR 58C", "MANUAL CALL POINT", "DISTRIBUTION BOARD DB1", "DOUBLE SOCKET OUTLET"}
	if got := Find(stack(legend), 0, v); len(got) != 1 || len(got[0].Rows) != len(legend) {
		t.Errorf("a headless legend with codes in its descriptions: %d tables, want 1 of %d rows", len(got), len(legend))
	}
}
