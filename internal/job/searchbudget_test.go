package job_test

import (
	"context"
	"slices"
	"testing"

	"blueprint/internal/docfiles"
	"blueprint/internal/engine"
	"blueprint/internal/job"
)

// TestSearchBudget: a search that runs out of its time answers 200 with
// the pages it finished (complete false, the rest in pages_not_searched,
// in the order asked) instead of running past the API's timeout; one
// within its time searches every page and says so. Asking again with
// pages_not_searched goes on where it stopped.
func TestSearchBudget(t *testing.T) {
	ctx := context.Background()
	const pages = 5
	e := newBatchEnv(t, 100)
	e.queue(t, "doc", batchDoc(t, pages))
	if err := e.svc.Process(ctx, "doc"); err != nil {
		t.Fatal(err)
	}
	owner := job.Caller{KeyID: "owner"}
	// A box around the first detection of a counted page.
	var query int
	var box *job.BoxView
	for i := range pages {
		d, err := e.svc.PageDetections(ctx, owner, "doc", i, job.PageOptions{Limit: job.MaxPageLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Detections) > 0 {
			b := d.Detections[0].BBoxNorm
			query, box = i, &job.BoxView{X: b.X, Y: b.Y, Width: b.Width, Height: b.Height}
			break
		}
	}
	if box == nil {
		t.Fatal("no detection to search from")
	}
	all := make([]int, pages)
	for i := range all {
		all[i] = i
	}
	req := job.SearchRequest{PageIndex: &query, BBoxNorm: box, Pages: &all}

	full, err := e.svc.Search(ctx, owner, "doc", req)
	if err != nil {
		t.Fatal(err)
	}
	if !full.Complete || len(full.PagesNotSearched) != 0 || full.Total == 0 {
		t.Fatalf("search within its time: complete %v, not searched %v, %d matches", full.Complete, full.PagesNotSearched, full.Total)
	}

	parts := newServiceParts(t)
	cfg := parts.cfg
	cfg.Store, cfg.Blobs = e.store, e.blobs
	eng, err := engine.New(cfg.Catalog, engine.Options{RasterOff: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Files, cfg.Engine, cfg.SearchBudget = docfiles.New(0, 0), eng, 1 // a nanosecond: no page in time
	cfg.WebhookSecret = func(string) ([]byte, bool) { return nil, false }
	short, err := job.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cut, err := short.Search(ctx, owner, "doc", req)
	if err != nil {
		t.Fatalf("search out of time: %v, want the pages finished", err)
	}
	if cut.Complete || !slices.Equal(cut.PagesNotSearched, all) || cut.Total != 0 || cut.Matches == nil {
		t.Errorf("search out of time: complete %v, not searched %v (want %v), %d matches", cut.Complete, cut.PagesNotSearched, all, cut.Total)
	}

	// Cancelled by the caller: an error, not a partial answer.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.svc.Search(gone, owner, "doc", req); err == nil {
		t.Error("search with the caller's context cancelled: no error")
	}
}
