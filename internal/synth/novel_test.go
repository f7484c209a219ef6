package synth

import (
	"context"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/document"
	"blueprint/internal/legend"
)

// TestWordingsMapToTheirClass: every description the legend sets use maps
// to its class through the service's vocabulary (kept apart from these
// wordings), so the yardstick measures legend reading, not wording luck.
func TestWordingsMapToTheirClass(t *testing.T) {
	v, err := legend.DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	for class, ws := range wordings {
		for _, w := range ws {
			if got, _ := v.Class(w); got != class {
				t.Errorf("%q maps to %q, want %q", w, got, class)
			}
		}
	}
}

// TestLegendSetReadable: the first page of a legend set holds a legend
// that legend.Find reads whole, each row with a glyph and a description
// naming its device.
func TestLegendSetReadable(t *testing.T) {
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(FromCatalog(cat))
	if err != nil {
		t.Fatal(err)
	}
	v, err := legend.DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 3 {
		s, err := g.Legend(7, i, Options{MaxPaper: "A3"})
		if err != nil {
			t.Fatal(err)
		}
		if s.Truth.Kind != KindLegend || len(s.Truth.Pages) == 0 {
			t.Fatalf("sheet %d: truth kind %q, %d pages", i, s.Truth.Kind, len(s.Truth.Pages))
		}
		doc, err := document.Open(ctx, s.Data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		pg, err := doc.Drawing(ctx, 0)
		doc.Close()
		if err != nil {
			t.Fatal(err)
		}
		// One table, or one per group where the legend sets two side
		// by side.
		tables := legend.Find(pg, 0)
		if len(tables) == 0 || len(tables) > 2 {
			t.Fatalf("sheet %d: %d legend tables, want 1 or 2", i, len(tables))
		}
		var rows []legend.Row
		for _, tb := range tables {
			rows = append(rows, tb.Rows...)
		}
		classes := map[string]bool{}
		for _, p := range s.Truth.Pages {
			for _, sym := range p.Symbols {
				classes[sym.Class] = true
			}
		}
		for _, r := range rows {
			c, _ := v.Class(r.Description)
			if !classes[c] && len(r.Glyph.Shapes) > 0 {
				// A row of a device placed on no page is fine; a row
				// naming a class outside the set is not.
				found := false
				for _, sym := range g.novelSymbols(rngFor(7, i, 20)) {
					found = found || sym.Class == c
				}
				if !found {
					t.Errorf("sheet %d: row %q maps to %q, not a device of the set", i, r.Description, c)
				}
			}
		}
		if len(rows) < 3 {
			t.Errorf("sheet %d: %d rows read", i, len(rows))
		}
	}
}
