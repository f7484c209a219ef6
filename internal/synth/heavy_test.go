package synth

import (
	"context"
	"testing"

	"blueprint/internal/document"
	"blueprint/internal/drawing"
	"blueprint/internal/mupdf"
)

// A clip-heavy sheet (a small load: the full one is make bench-real's)
// passes the start check and draws the hatching, clips, text runs and
// images it was given; its truth tags the case.
func TestHeavySheet(t *testing.T) {
	g := newTestGenerator(t)
	load := HeavyLoad{Segments: 30_000, Clips: 600, Texts: 60, Images: 4}
	s, err := g.heavy(5, 0, load)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := document.Validate(context.Background(), s.Data, document.MimePDF, document.DefaultLimits()); err != nil {
		t.Fatalf("start check: %v", err)
	}
	doc, err := mupdf.Open(s.Data)
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	var b *drawing.Builder
	if _, err := doc.WalkPage(context.Background(), 0, func(r mupdf.Rect) *drawing.Builder {
		b = drawing.NewBuilder(r.X1-r.X0, r.Y1-r.Y0, 200.0/72)
		return b
	}); err != nil {
		t.Fatal(err)
	}
	pg := b.Page()
	if len(pg.Segments) < load.Segments {
		t.Errorf("%d segments drawn, want at least the %d of hatching", len(pg.Segments), load.Segments)
	}
	if pg.ImageArea <= 0 {
		t.Error("no image area")
	}
	digits := 0
	for _, c := range pg.Chars {
		if c.Text == "." {
			digits++
		}
	}
	if digits < load.Texts {
		t.Errorf("%d labels drawn, want %d", digits, load.Texts)
	}
	if len(s.Truth.Pages) != 1 || len(s.Truth.Pages[0].Cases) != 1 || s.Truth.Pages[0].Cases[0] != CaseClipHeavy {
		t.Fatalf("truth pages %+v: want one page of case %s", s.Truth.Pages, CaseClipHeavy)
	}
	if len(s.Truth.Pages[0].Symbols) == 0 {
		t.Fatal("no symbols")
	}
	for _, sy := range s.Truth.Pages[0].Symbols {
		if sy.Case != CaseClipHeavy {
			t.Fatalf("symbol %+v not tagged %s", sy, CaseClipHeavy)
		}
	}
}
