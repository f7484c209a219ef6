package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/document"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/engine"
	"blueprint/internal/job"
	"blueprint/internal/pipeline"
	"blueprint/internal/raster"
	"blueprint/internal/synth"
)

// TestPageTime measures what job.DefaultBatchPages is chosen from: the
// time of the slowest page of heavy documents (real sets under
// ../shared/realdata, a dense A0 plan, clip-heavy A1 exports, generated
// legend sets) processed as the processing Lambda does it
// (the production engine with the raster detector, PNG encoding), and the
// document pass's time per page (which Begin spends on every page of a
// batched document). Besides wall time it reports the process's CPU time
// per page, which a loaded machine does not inflate: the pipeline keeps
// at most about two cores busy, so on a 4 GB Lambda (about 2.3 vCPUs) a
// page takes at most its CPU time at the same core speed.
// PIPELINE_PAGETIME=1 (slow); it measures, it does not check.
func TestPageTime(t *testing.T) {
	if os.Getenv("PIPELINE_PAGETIME") == "" {
		t.Skip("PIPELINE_PAGETIME not set: page timing is a measurement, not a check")
	}
	lib := os.Getenv("BLUEPRINT_ONNXRUNTIME_LIB")
	if lib == "" {
		t.Skip("BLUEPRINT_ONNXRUNTIME_LIB not set: the raster detector is part of what is timed")
	}
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(cat, engine.Options{Raster: raster.Config{Library: lib}})
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{
		"dense A0 plan (2 pages)":           documenttest.DensePlanPDF(documenttest.A0, 2, 7),
		"clip-heavy A1 export (6000 clips)": documenttest.ClipHeavyPDF(documenttest.A1, 6000, 7),
	}
	g, err := synth.New(synth.FromCatalog(cat))
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 2} {
		s, err := g.LegendDocument(91, i, 4, synth.Options{})
		if err != nil {
			t.Fatal(err)
		}
		docs["generated legend set "+s.Name] = s.Data
	}
	heavy, err := g.Heavy(91, 0, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs["generated heavy A1 export "+heavy.Name] = heavy.Data
	real, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "realdata", "*.pdf"))
	for _, f := range real {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs["real "+filepath.Base(f)] = b
	}
	ctx := context.Background()
	cpu := func() float64 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	worst, worstPass, worstCPU, worstPassCPU := 0.0, 0.0, 0.0, 0.0
	for name, data := range docs {
		doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if only := os.Getenv("PIPELINE_PAGETIME_ONLY"); only != "" && !strings.Contains(name, only) {
			doc.Close()
			continue
		}
		t0, c0 := time.Now(), cpu()
		if _, _, err := eng.Prepare(ctx, doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pass, passCPU := time.Since(t0).Seconds()/float64(doc.NumPages()), (cpu()-c0)/float64(doc.NumPages())
		slowest := 0.0
		t0, c0 = time.Now(), cpu()
		err = pipeline.Run(ctx, doc, pipeline.Options{Engine: eng, KeepPNG: true}, func(r pipeline.PageResult) error {
			slowest = max(slowest, r.RenderSeconds+r.DetectSeconds)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all, cpuPage := time.Since(t0).Seconds(), (cpu()-c0)/float64(doc.NumPages())
		w, h, _ := doc.PageSize(ctx, 0)
		t.Logf("%s: %d pages of %d×%d px, %.2f s a page (%.1f s in all, CPU %.2f s a page), slowest page %.2f s (render + detect); document pass %.2f s a page (CPU %.2f s)",
			name, doc.NumPages(), w, h, all/float64(doc.NumPages()), all, cpuPage, slowest, pass, passCPU)
		worst, worstPass, worstCPU, worstPassCPU = max(worst, slowest), max(worstPass, pass), max(worstCPU, cpuPage), max(worstPassCPU, passCPU)
		doc.Close()
	}
	t.Logf("slowest page %.2f s wall, the most CPU a page %.2f s: a batch of %d pages (job.DefaultBatchPages) takes at most %.0f s (%.0f s of CPU) of the Lambda's 900 s; the document pass %.2f s a page (CPU %.2f s), %.0f s (CPU %.0f s) for 500 pages",
		worst, worstCPU, job.DefaultBatchPages, worst*float64(job.DefaultBatchPages), worstCPU*float64(job.DefaultBatchPages), worstPass, worstPassCPU, 500*worstPass, 500*worstPassCPU)
}
