package engine

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/pipeline"
)

// catalogOnly hides the engine's document pass: every page is matched
// against the catalog's glyphs alone, as before legend reading.
type catalogOnly struct{ e *Engine }

func (c catalogOnly) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	return c.e.Detect(ctx, p)
}

// TestJobTimeRealData measures what the document pass and the legend
// templates add to a job (pipeline.Run with PNG encoding, as the job
// flow runs it) on each real drawing: ENGINE_JOBTIME=1 (slow; the median
// of ENGINE_JOBTIME_RUNS runs, default 3).
func TestJobTimeRealData(t *testing.T) {
	if os.Getenv("ENGINE_JOBTIME") == "" {
		t.Skip("ENGINE_JOBTIME not set: job timing of the real drawings is a measurement, not a check")
	}
	runs := 3
	if n := os.Getenv("ENGINE_JOBTIME_RUNS"); n == "2" || n == "1" || n == "5" {
		runs = int(n[0] - '0')
	}
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := New(cat, Options{RasterOff: true}) // vector matching and legend reading: what these measure
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "realdata", "*.pdf"))
	if len(files) == 0 {
		t.Skip("no real drawings under ../shared/realdata")
	}
	ctx := context.Background()
	job := func(data []byte, e detect.Engine) float64 {
		doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		defer doc.Close()
		start := time.Now()
		if err := pipeline.Run(ctx, doc, pipeline.Options{Engine: e, KeepPNG: true}, func(pipeline.PageResult) error { return nil }); err != nil {
			t.Fatal(err)
		}
		return time.Since(start).Seconds()
	}
	median := func(v []float64) float64 { sort.Float64s(v); return v[len(v)/2] }
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var base, full []float64
		for range runs {
			base = append(base, job(data, catalogOnly{eng}))
			full = append(full, job(data, eng))
		}
		b, d := median(base), median(full)
		t.Logf("%s: catalog only %.2f s %v, document pass + legend templates %.2f s %v: %+.0f %%", filepath.Base(f), b, base, d, full, 100*(d-b)/b)
	}
}

// TestJobTimeParts splits the document pass's cost on each real drawing.
func TestJobTimeParts(t *testing.T) {
	if os.Getenv("ENGINE_JOBTIME") == "" {
		t.Skip("ENGINE_JOBTIME not set")
	}
	cat, _ := catalog.Load("")
	eng, _ := New(cat, Options{RasterOff: true}) // vector matching and legend reading: what these measure
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "realdata", "*.pdf"))
	ctx := context.Background()
	for _, f := range files {
		data, _ := os.ReadFile(f)
		doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		for i := range doc.NumPages() {
			doc.Drawing(ctx, i)
		}
		read := time.Since(t0).Seconds()
		t0 = time.Now()
		pe, _, err := eng.Prepare(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		prep := time.Since(t0).Seconds()
		var dPlain, dDoc float64
		for i := range doc.NumPages() {
			pg, _ := doc.Drawing(ctx, i)
			t1 := time.Now()
			eng.Detect(ctx, detect.Page{Index: i, PDF: drawingPage{pg}})
			dPlain += time.Since(t1).Seconds()
			t1 = time.Now()
			pe.Detect(ctx, detect.Page{Index: i, PDF: drawingPage{pg}})
			dDoc += time.Since(t1).Seconds()
		}
		t.Logf("%s: read drawings %.2f s, Prepare %.2f s, detect catalog %.2f s, detect document %.2f s", filepath.Base(f), read, prep, dPlain, dDoc)
		doc.Close()
	}
}
