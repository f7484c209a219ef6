package raster

import (
	"context"
	"math"
	"testing"

	"blueprint/internal/catalog"
)

// TestCoarseLookDetect: a fixture scan enlarged three times (its symbols
// 40–160 pixels, as a sheet drawn at symbol scale 2.1 and scanned at 300
// DPI) is detected with the coarse look and without. The coarse look only
// adds proposals of at least its minimum side, and it finds more symbols
// than the full-resolution look alone.
func TestCoarseLookDetect(t *testing.T) {
	d := newDetector(t)
	if d.meta.Classifier == nil {
		t.Skip("the committed model has no classifier")
	}
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	page, truth := enlargedFixture(t, 3)
	look := &CoarseLook{Factor: 0.5, MinSide: 80, MinScore: 0.3}
	ctx := context.Background()
	g := luma(page.Raster)
	kept, err := d.propose(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	d.meta.CoarseLook = look
	more, err := d.coarseProposals(ctx, g, kept)
	if err != nil {
		t.Fatal(err)
	}
	if len(more) == 0 {
		t.Fatal("the coarse look proposed nothing new")
	}
	for _, p := range more {
		if math.Max(p.box.W, p.box.H) < look.MinSide || p.score < look.MinScore || covered(p.box, kept, suppressIoU) {
			t.Errorf("coarse proposal %+v: under the minimum side or score, or covered by a full-resolution one", p)
		}
	}
	with, err := d.Detect(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	d.meta.CoarseLook = nil
	without, err := d.Detect(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	tp, fp := scoreDetections(cat, with, truth)
	tp0, fp0 := scoreDetections(cat, without, truth)
	t.Logf("%d symbols, %d coarse proposals: with the coarse look %d true %d false, without %d true %d false", len(truth), len(more), tp, fp, tp0, fp0)
	if tp <= tp0 {
		t.Errorf("with the coarse look %d true, without %d: want more", tp, tp0)
	}
}
