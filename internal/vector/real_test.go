package vector

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	fitz "github.com/gen2brain/go-fitz"
)

// TestRealData runs extraction and matching on the real drawings when they
// are present (never committed: ../shared/realdata).
func TestRealData(t *testing.T) {
	if testing.Short() {
		t.Skip("real drawings take seconds; skipped with -short")
	}
	files, _ := filepath.Glob("../../../shared/realdata/*.pdf")
	if len(files) == 0 {
		t.Skip("no real drawings here")
	}
	_, m := loadTemplates(t)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := fitz.NewFromMemory(data)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < doc.NumPage(); i++ {
			t0 := time.Now()
			svg, err := doc.SVG(i)
			if err != nil {
				t.Fatal(err)
			}
			t1 := time.Now()
			pg, err := Extract(context.Background(), []byte(svg))
			if err != nil {
				t.Fatalf("%s page %d: %v", f, i, err)
			}
			t2 := time.Now()
			ms, err := m.Match(context.Background(), pg)
			if err != nil {
				t.Fatal(err)
			}
			t3 := time.Now()
			count := map[string]int{}
			for _, d := range ms {
				if d.Confidence >= 0.5 {
					count[d.Class]++
				}
			}
			t.Logf("%s p%d %.0fx%.0f px: svg %d KB, %d segs %d arcs %d chars; svg %v extract %v match %v; found %v",
				filepath.Base(f), i, pg.Width, pg.Height, len(svg)/1024, len(pg.Segments), len(pg.Arcs), len(pg.Chars),
				t1.Sub(t0).Round(time.Millisecond), t2.Sub(t1).Round(time.Millisecond), t3.Sub(t2).Round(time.Millisecond), count)
		}
		doc.Close()
	}
}
