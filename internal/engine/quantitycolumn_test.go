package engine

import (
	"context"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/synth"
)

// TestQuantityColumnBeforeDescriptions: a multi-column legend whose
// QUANTITY (and an empty USER TEXT) column stands between the glyphs and
// the descriptions, as US fire-alarm legends print it (issue 35 case 2):
// the number beside each glyph leads to its row, every row is read with
// its printed quantity and part number, and each row's glyph is found as
// often as printed. Sheet 26 of legend seed 50321 (make synth KIND=legend
// SEED=50321: legend-00027.pdf) draws SYMBOL | QUANTITY | USER TEXT |
// DESCRIPTION | PART NUMBER | MODEL; before, no row of it was read.
func TestQuantityColumnBeforeDescriptions(t *testing.T) {
	if testing.Short() {
		t.Skip("an A1 sheet: skipped with -short")
	}
	ctx := context.Background()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	g, err := synth.New(synth.FromCatalog(cat))
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Legend(50321, 26, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := New(cat, Options{RasterOff: true})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := document.Open(ctx, s.Data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	pe, info, err := eng.Prepare(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Legend) < 5 {
		t.Fatalf("%d legend rows read, want the sheet's 5: %+v", len(info.Legend), info.Legend)
	}
	pg, err := doc.Drawing(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := pe.Detect(ctx, detect.Page{Index: 0, PDF: drawingPage{pg}})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, d := range ds {
		if th, _ := cat.Threshold(d.Class); d.Confidence >= th {
			found[d.Class]++
		}
	}
	for _, r := range info.Legend {
		if r.Quantity == nil || r.PartNumber == "" || r.Class == "" {
			t.Errorf("row %q: quantity %v, part number %q, class %q; want all three read", r.Description, r.Quantity, r.PartNumber, r.Class)
			continue
		}
		if found[r.Class] != *r.Quantity {
			t.Errorf("row %q (%s): %d found, %d printed", r.Description, r.Class, found[r.Class], *r.Quantity)
		}
	}
}
