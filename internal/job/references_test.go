package job_test

import (
	"context"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/job"
	"blueprint/internal/synth"
)

// TestReferenceJobsInBatches: a scanned drawing set, its legend unread
// (no OCR: the engine reads no text on images), is counted with the legend
// of a done job of the same set drawn as vectors (reference_jobs), with
// the production engine; processed in page batches, each resuming the
// engine from the saved document pass (which must keep the references:
// TestReferenceLegendOnImage checks that a resumed engine detects what
// the prepared one does), its plans' symbols are found under the
// reference's rows.
func TestReferenceJobsInBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of CPU: searching scanned pages for the reference's glyphs")
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
	// A set of two pages or more, so that one page a batch makes batches.
	var vec, scan synth.Sheet
	for i := range 20 {
		if vec, err = g.Legend(7, i, synth.Options{MaxPaper: "A4"}); err != nil {
			t.Fatal(err)
		}
		if len(vec.Truth.Pages) >= 2 {
			if scan, err = g.ScanLegend(ctx, 7, i, synth.Options{MaxPaper: "A4", MaxDPI: 150}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if len(scan.Truth.Pages) < 2 {
		t.Fatal("no legend set of two pages among the first 20")
	}
	for _, batchPages := range []int{1} {
		e := newBatchEnv(t, batchPages)
		e.queue(t, "legend", vec.Data)
		if err := e.svc.Process(ctx, "legend"); err != nil {
			t.Fatal(err)
		}
		e.queueRef(t, "scan", scan.Data, []string{"legend"})
		if err := e.svc.Process(ctx, "scan"); err != nil {
			t.Fatal(err)
		}
		v, err := e.svc.Get(ctx, job.Caller{KeyID: "owner"}, "scan", job.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		done, ok := v.(*job.DoneView)
		if !ok {
			t.Fatalf("batch pages %d: the scan job is %+v, not done", batchPages, v)
		}
		if len(done.ReferenceJobs) != 1 || done.ReferenceJobs[0] != "legend" {
			t.Errorf("batch pages %d: reference_jobs %v", batchPages, done.ReferenceJobs)
		}
		found, lent := 0, 0
		for _, r := range done.Legend {
			if r.ReferenceJob == "legend" {
				lent++
				found += r.Detected
			}
		}
		drawn := 0
		for _, p := range scan.Truth.Pages {
			drawn += len(p.Symbols)
		}
		t.Logf("batch pages %d: %d rows lent, %d detections under them, %d symbols drawn on the set's plans", batchPages, lent, found, drawn)
		if lent == 0 || found < drawn/3 {
			t.Errorf("batch pages %d: %d rows lent found %d of the %d symbols drawn", batchPages, lent, found, drawn)
		}
	}
}

// queueRef queues a job as queue does, naming its reference jobs.
func (e *batchEnv) queueRef(t *testing.T, id string, data []byte, refs []string) {
	t.Helper()
	e.queue(t, id, data)
	ctx := context.Background()
	j, err := e.store.GetJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	j.ReferenceJobs = refs
	if err := e.store.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
}
