package legend

import (
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// TestHeadlessTagVariants: a legend without header words whose rows
// share one glyph and differ by a candela tag (three of six rows) is read
// whole; the same glyphs beside repeated labels that name nothing are
// not a legend.
func TestHeadlessTagVariants(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	glyphs := []int{0, 1, 1, 1, 2, 3}
	page := func(texts []string) *drawing.Page {
		pg := &drawing.Page{Width: 3000, Height: 2000, Styles: []drawing.Style{{Stroke: "#000000"}}}
		for i, s := range texts {
			y := 300 + 60*float64(i)
			keyGlyph(pg, glyph.Point{X: 220, Y: y}, glyphs[i], 0)
			write(pg, s, 280, y+7, 20)
		}
		return pg
	}
	legend := []string{"SMOKE DETECTOR", "SPEAKER/STROBE, WALL, 15CD", "SPEAKER/STROBE, WALL, 30CD",
		"SPEAKER/STROBE, WALL, 75CD", "MANUAL CALL POINT", "DISTRIBUTION BOARD"}
	if tables := Find(page(legend), 0, v); len(tables) != 1 || len(tables[0].Rows) != len(legend) {
		t.Fatalf("tag variants: %d tables %v, want 1 of %d rows", len(tables), tables, len(legend))
	}
	labels := []string{"ROOM 101", "L1.024", "L1.025", "L1.026", "STORE", "PLANT"}
	if got := Find(page(labels), 0, v); len(got) != 0 {
		t.Errorf("repeated glyphs beside labels: %d tables, want none", len(got))
	}
}
