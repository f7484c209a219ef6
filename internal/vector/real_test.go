package vector

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
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
		doc := openPDF(t, data)
		for i := 0; i < doc.NumPages(); i++ {
			x := extractPage(t, doc, f, i)
			pg := x.page
			t0 := time.Now()
			ms, err := m.Match(context.Background(), pg)
			if err != nil {
				t.Fatal(err)
			}
			matchTime := time.Since(t0)
			count := map[string]int{}
			for _, d := range ms {
				if d.Confidence >= OperatingConfidence {
					count[d.Class]++
				}
			}
			t.Logf("%s p%d %.0fx%.0f px: %d segs %d arcs %d chars; read %v match %v; found %v",
				filepath.Base(f), i, pg.Width, pg.Height, len(pg.Segments), len(pg.Arcs), len(pg.Chars),
				x.read.Round(time.Millisecond), matchTime.Round(time.Millisecond), count)
		}
		doc.Close()
	}
}
