package synth

import (
	"path/filepath"
	"testing"

	"blueprint/internal/eval/dataset"
)

// TestTruthReadsAsDataset: the ground truth the generator writes is the
// dataset format the evaluation reads, field for field, for any seed the
// command accepts.
func TestTruthReadsAsDataset(t *testing.T) {
	g := newTestGenerator(t)
	const seed = 1<<64 - 1
	s, err := g.Vector(seed, 0, Options{MaxPaper: "A3"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteSheet(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := dataset.Read(filepath.Join(dir, SheetName(KindVector, 0)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	want := s.Truth
	if got.File != want.File || got.Kind != string(want.Kind) || got.Seed != want.Seed || got.Paper != want.Paper ||
		got.Scale != want.Scale || got.Legend != want.Legend || got.DPI != want.DPI || len(got.Pages) != len(want.Pages) {
		t.Fatalf("sheet read back as %+v, wrote %+v", got, want)
	}
	for i, wp := range want.Pages {
		gp := got.Pages[i]
		if gp.PageIndex != wp.PageIndex || gp.WidthPx != wp.WidthPx || gp.HeightPx != wp.HeightPx || len(gp.Symbols) != len(wp.Symbols) {
			t.Fatalf("page %d read back as %+v, wrote %+v", i, gp, wp)
		}
		if len(wp.Symbols) == 0 {
			t.Fatalf("page %d: no symbols to compare", i)
		}
		for j, ws := range wp.Symbols {
			gs := gp.Symbols[j]
			if gs.Class != ws.Class || gs.BBoxPx == nil || gs.BBoxNorm == nil ||
				*gs.BBoxPx != dataset.Box(ws.BBoxPx) || *gs.BBoxNorm != dataset.Box(ws.BBoxNorm) ||
				gs.Rotation != ws.Rotation || gs.Mirrored != ws.Mirrored || gs.Scale != ws.Scale || gs.Clipped != ws.Clipped {
				t.Fatalf("page %d symbol %d read back as %+v, wrote %+v", i, j, gs, ws)
			}
		}
	}
}
