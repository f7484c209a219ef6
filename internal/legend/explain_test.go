package legend

import (
	"context"
	"strings"
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// TestExplain: Explain accounts for Read's decisions without changing
// them: a legend without header words is searched for its stack of
// descriptions and taken as a table of its rows; a like column whose
// descriptions mostly name nothing is searched and rejected, saying
// which condition it fails; a page of labels is not searched, saying
// why; every page's kind has a reason.
func TestExplain(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	legendRows := []string{"SMOKE DETECTOR", "HEAT DETECTOR", "MANUAL CALL POINT", "DISTRIBUTION BOARD", "DOUBLE SOCKET OUTLET"}
	mixed := []string{"SMOKE DETECTOR", "HEAT DETECTOR", "MANUAL CALL POINT", "STORE ROOM", "LOBBY ENTRANCE"}
	labels := []string{"ROOM 101 OFFICE", "CORRIDOR NORTH", "STORE ROOM", "PLANT ROOM", "LOBBY ENTRANCE"}
	doc := pages{stack(legendRows), stack(mixed), stack(labels)}
	ctx := context.Background()
	d, err := Read(ctx, doc, v)
	if err != nil {
		t.Fatal(err)
	}
	before := len(d.Rows)
	x, err := Explain(ctx, doc, v, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != before || len(x.Pages) != 3 {
		t.Fatalf("%d rows after Explain (%d before), %d pages explained", len(d.Rows), before, len(x.Pages))
	}
	for _, p := range x.Pages {
		t.Logf("page %d: %s: %s; search: %s; columns %+v", p.Page, p.Kind, p.KindReason, p.SearchReason, p.Columns)
		if p.Kind != d.Kinds[p.Page] || p.KindReason == "" || p.SearchReason == "" {
			t.Errorf("page %d: kind %q (read %q) because %q; search %q", p.Page, p.Kind, d.Kinds[p.Page], p.KindReason, p.SearchReason)
		}
	}
	p := x.Pages[0]
	if !p.Searched || len(p.Columns) != 1 || !p.Columns[0].Table || p.Columns[0].Rows != len(legendRows) || len(p.Rows) != len(legendRows) || len(p.Tables) != 1 {
		t.Errorf("legend page: %+v", p)
	}
	p = x.Pages[1]
	if !p.Searched || len(p.Columns) != 1 || p.Columns[0].Table || !strings.Contains(p.Columns[0].Rejected, "3 of 5 descriptions name a class") || len(p.Rows) != 0 {
		t.Errorf("mostly unnamed rows: %+v", p)
	}
	p = x.Pages[2]
	if p.Searched || !strings.Contains(p.SearchReason, "no header words") || len(p.Candidates) != 0 {
		t.Errorf("labels: %+v", p)
	}
	if _, err := Explain(ctx, pages{stack(labels)}, v, d); err == nil {
		t.Error("Explain of a reading of another document: no error")
	}
}

// TestExplainRejectedCandidates: drawing crossed by a long line (a symbol
// on a wall) is a rejected candidate, with the reason.
func TestExplainRejectedCandidates(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	pg := stack([]string{"SMOKE DETECTOR", "HEAT DETECTOR", "MANUAL CALL POINT", "DISTRIBUTION BOARD", "DOUBLE SOCKET OUTLET"})
	write(pg, "LEGEND", 200, 250, 20)
	// A wall through the third glyph.
	pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: 100, Y: 420}, B: glyph.Point{X: 400, Y: 420}})
	pe := explainPage(pg, runs(pg), 0, v)
	found := false
	for _, c := range pe.Candidates {
		if c.Text == "MANUAL CALL POINT" && strings.Contains(c.Rejected, "long line") {
			found = true
		}
	}
	if !pe.Searched || !strings.Contains(pe.SearchReason, "LEGEND") || !found {
		t.Errorf("searched %v (%s), candidates %+v; want MANUAL CALL POINT rejected for the line through it", pe.Searched, pe.SearchReason, pe.Candidates)
	}
}

// TestExplainImagePage: a page without a drawing is an image page, not
// one that "writes no text": the engine says what became of its legends.
func TestExplainImagePage(t *testing.T) {
	pe := explainPage(nil, nil, 0, nil)
	if !pe.Image || pe.Searched || strings.Contains(pe.SearchReason, "writes no text") {
		t.Errorf("image page: %+v", pe)
	}
	pe = explainPage(&drawing.Page{Width: 100, Height: 100}, nil, 0, nil)
	if pe.Image || pe.SearchReason != "the page writes no text" {
		t.Errorf("a drawing without text: %+v", pe)
	}
}
