package job_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/docfiles"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/engine"
	"blueprint/internal/job"
	"blueprint/internal/synth"
)

// batchDoc is a generated legend set grown to pages pages: one legend
// read on the first sheets, its glyphs matched on every plan.
func batchDoc(t *testing.T, pages int) []byte {
	t.Helper()
	_, g, err := synth.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.LegendDocument(52817, 0, pages, synth.Options{MaxPaper: "A4"})
	if err != nil {
		t.Fatal(err)
	}
	return s.Data
}

// batchEnv is a Service over real adapters, the document reader and the
// production engine (raster detector off) with lazy page images, as the
// local server runs, processing documents of more than batchPages pages
// in batches.
type batchEnv struct {
	lazyEnv
}

func newBatchEnv(t *testing.T, batchPages int) *batchEnv {
	t.Helper()
	parts := newServiceParts(t)
	eng, err := engine.New(parts.cfg.Catalog, engine.Options{RasterOff: true})
	if err != nil {
		t.Fatal(err)
	}
	e := &batchEnv{lazyEnv{store: parts.store, blobs: parts.blobs, misses: &missCounter{Blobs: parts.blobs}, clock: &testClock{}}}
	e.clock.now.Store(time.Now().UnixNano())
	cfg := parts.cfg
	cfg.Files, cfg.Engine, cfg.Clock, cfg.BatchPages = docfiles.New(0, 0), eng, e.clock, batchPages
	cfg.WebhookSecret = func(string) ([]byte, bool) { return nil, false }
	cfg.LazyPageImages = true
	if e.svc, err = job.NewService(cfg); err != nil {
		t.Fatal(err)
	}
	return e
}

// cfgWith is a Service on e's store and blobs with another engine, its
// configuration then changed by each of opts.
func (e *batchEnv) cfgWith(t *testing.T, eng detect.Engine, opts ...func(*job.Config)) *job.Service {
	t.Helper()
	parts := newServiceParts(t)
	cfg := parts.cfg
	cfg.Store, cfg.Blobs = e.store, e.blobs
	cfg.Files, cfg.Engine, cfg.Clock, cfg.BatchPages, cfg.LazyPageImages = docfiles.New(0, 0), eng, e.clock, 2, true
	cfg.WebhookSecret = func(string) ([]byte, bool) { return nil, false }
	for _, o := range opts {
		o(&cfg)
	}
	svc, err := job.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// queue stores data as a queued job's upload.
func (e *batchEnv) queue(t *testing.T, id string, data []byte) {
	t.Helper()
	ctx := context.Background()
	key := job.UploadVersionKey(id, "1")
	if _, err := e.blobs.Put(ctx, key, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	cat, _ := catalog.Load("")
	if err := e.store.CreateJob(ctx, &job.Job{ID: id, Owner: "owner", Status: job.Queued, FileName: "a.pdf", MimeType: job.MimePDF,
		Size: int64(len(data)), Models: cat.Models(), CreatedAt: now, UploadExpiresAt: now.Add(time.Hour), QueuedAt: &now,
		Upload: &job.Upload{Size: int64(len(data)), StoredAt: now, BlobKey: key, Generation: 1}}); err != nil {
		t.Fatal(err)
	}
}

// result is what a partner reads of a done job: the poll response and
// every page's detections, without what differs between two runs of one
// document (ids, times, URLs).
func (e *batchEnv) result(t *testing.T, id string, pages int) string {
	t.Helper()
	v, err := e.svc.Get(context.Background(), job.Caller{KeyID: "owner"}, id, job.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return comparable(t, b) + "\n" + fmt.Sprint(e.detections(t, id, pages))
}

// comparable is a JSON document without the fields that differ between
// two runs of one document: ids, times and URLs.
func comparable(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var scrub func(v any) any
	scrub = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "id" || k == "job_id" || k == "url" || strings.HasSuffix(k, "_at") || strings.HasSuffix(k, "_url") {
					delete(x, k)
					continue
				}
				x[k] = scrub(e)
			}
		case []any:
			for i, e := range x {
				x[i] = scrub(e)
			}
		}
		return v
	}
	out, err := json.MarshalIndent(scrub(v), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestProcessInBatches: a document past the page budget, processed in
// batches on the in-process path (Process: the document pass, the
// batches one after another, the merge), gives what one run gives: the
// summary, every page's detections and the legend check.
func TestProcessInBatches(t *testing.T) {
	const pages = 8
	data := batchDoc(t, pages)
	one, batched := newBatchEnv(t, 100), newBatchEnv(t, 3)
	ctx := context.Background()
	var got [2]string
	for k, e := range []*batchEnv{one, batched} {
		e.queue(t, "doc", data)
		if err := e.svc.Process(ctx, "doc"); err != nil {
			t.Fatal(err)
		}
		j, err := e.store.GetJob(ctx, "doc")
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != job.Done || len(j.Pages) != pages || j.PagesDone == nil || *j.PagesDone != pages {
			t.Fatalf("run %d: %s, %d pages, %v done, error %+v", k, j.Status, len(j.Pages), j.PagesDone, j.Error)
		}
		if len(j.Legend) == 0 {
			t.Fatalf("run %d: no legend rows read: the document does not test the legend templates", k)
		}
		_, planned := e.stored(t, job.PlanKey("doc"))
		if planned != (e == batched) {
			t.Fatalf("run %d: a batch plan stored: %v", k, planned)
		}
		got[k] = e.result(t, "doc", pages)
	}
	if !strings.Contains(got[0], `"legend"`) || !strings.Contains(got[0], `"total_detections"`) {
		t.Fatalf("the result has no legend check or summary:\n%.2000s", got[0])
	}
	if got[0] != got[1] {
		t.Fatalf("in batches of 3 pages the result differs from one run:\none run:\n%.3000s\nbatches:\n%.3000s", got[0], got[1])
	}
	t.Logf("%d pages, in one run and in batches of 3: the same result (%d bytes)", pages, len(got[0]))
}

// TestBatchesRepeated: the flow may run a batch or the merge twice (a
// retry after a lost answer, a duplicate delivery): pages_done counts each
// page once, and a second merge changes nothing. A batch with no results
// fails the job at the merge, naming its pages, with nothing recorded.
func TestBatchesRepeated(t *testing.T) {
	const pages = 5
	data := batchDoc(t, pages)
	e := newBatchEnv(t, 2)
	ctx := context.Background()
	e.queue(t, "doc", data)
	batches, err := e.svc.Begin(ctx, "doc")
	if err != nil {
		t.Fatal(err)
	}
	if want := []job.Batch{{First: 0, End: 2}, {First: 2, End: 4}, {First: 4, End: 5}}; !reflect.DeepEqual(batches, want) {
		t.Fatalf("batches %v, want %v", batches, want)
	}
	for _, b := range append(batches, batches[1]) {
		if err := e.svc.ProcessBatch(ctx, "doc", b); err != nil {
			t.Fatal(err)
		}
	}
	j, _ := e.store.GetJob(ctx, "doc")
	if j.Status != job.Processing || j.PagesDone == nil || *j.PagesDone != pages {
		t.Fatalf("after every batch and one twice: %s, pages_done %v of %d", j.Status, j.PagesDone, pages)
	}
	if err := e.svc.ProcessBatch(ctx, "doc", job.Batch{First: 1, End: 3}); err == nil {
		t.Fatal("a batch that is not in the plan ran")
	}
	if err := e.svc.MergeBatches(ctx, "doc"); err != nil {
		t.Fatal(err)
	}
	first := e.result(t, "doc", pages)
	if err := e.svc.MergeBatches(ctx, "doc"); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.ProcessBatch(ctx, "doc", batches[0]); err != nil {
		t.Fatal(err)
	}
	if again := e.result(t, "doc", pages); again != first {
		t.Fatal("a second merge or a late batch changed the done job")
	}

	// A batch whose results are missing: the job fails, nothing is merged.
	f := newBatchEnv(t, 2)
	f.queue(t, "gap", data)
	if batches, err = f.svc.Begin(ctx, "gap"); err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if b.First != 2 {
			if err := f.svc.ProcessBatch(ctx, "gap", b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.svc.MergeBatches(ctx, "gap"); err != nil {
		t.Fatal(err)
	}
	j, _ = f.store.GetJob(ctx, "gap")
	if j.Status != job.Failed || j.Error == nil || !strings.Contains(j.Error.Message, "page_index 2 to 3") || j.Pages != nil {
		t.Fatalf("merge without batch 2-3: %s %+v, %d pages", j.Status, j.Error, len(j.Pages))
	}
	if _, err := f.blobs.Get(ctx, job.ResultKey("gap", 0)); !errors.Is(err, job.ErrNotFound) {
		t.Fatalf("a failed merge stored page 0's detections: %v", err)
	}
}

func TestBatchesSplit(t *testing.T) {
	for _, c := range []struct {
		n, size int
		want    []job.Batch
	}{
		{0, 5, nil},
		{5, 5, []job.Batch{{0, 5}}},
		{6, 5, []job.Batch{{0, 5}, {5, 6}}},
		{3, 0, []job.Batch{{0, 1}, {1, 2}, {2, 3}}},
	} {
		if got := job.Batches(c.n, c.size); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Batches(%d, %d) = %v, want %v", c.n, c.size, got, c.want)
		}
	}
}

// failingPass is a document engine that cannot save its pass (so each
// batch prepares it again) and whose detection fails on one page.
type failingPass struct{ bad int }

func (f failingPass) Detect(_ context.Context, p detect.Page) ([]detect.Detection, error) {
	if p.Index == f.bad {
		return nil, errors.New("detector broke")
	}
	return []detect.Detection{{Class: "smoke_detector", Confidence: 0.9, Box: detect.Box{X: 1, Y: 1, W: 5, H: 5}}}, nil
}

func (f failingPass) Prepare(context.Context, detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	return f, detect.DocumentInfo{}, nil
}

// TestBatchPageFails: a page that fails in its batch fails the job with
// the message one run gives, naming the page; the batches after it and
// the merge leave the failed job alone.
func TestBatchPageFails(t *testing.T) {
	pages := make([]documenttest.Page, 5)
	for i := range pages {
		pages[i] = documenttest.Page{MediaBox: "[0 0 144 144]", Content: "0 g 36 36 72 72 re f"}
	}
	data := documenttest.PDF(pages...)
	e := newBatchEnv(t, 2)
	ctx := context.Background()
	cfg := e.cfgWith(t, failingPass{bad: 3})
	e.queue(t, "doc", data)
	batches, err := cfg.Begin(ctx, "doc")
	if err != nil || len(batches) != 3 {
		t.Fatalf("Begin: %v, %v", batches, err)
	}
	for _, b := range batches {
		if err := cfg.ProcessBatch(ctx, "doc", b); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.MergeBatches(ctx, "doc"); err != nil {
		t.Fatal(err)
	}
	j, _ := e.store.GetJob(ctx, "doc")
	if j.Status != job.Failed || j.Error == nil || !strings.Contains(j.Error.Message, "symbol detection failed on the page with page_index 3") {
		t.Fatalf("job %s, error %+v", j.Status, j.Error)
	}
	if _, ok := e.stored(t, job.BatchKey("doc", batches[2])); ok {
		t.Fatal("a batch after the failure ran on the failed job")
	}
}
