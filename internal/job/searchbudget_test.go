package job_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"blueprint/internal/budget"
	"blueprint/internal/docfiles"
	"blueprint/internal/engine"
	"blueprint/internal/job"
	"blueprint/internal/turns"
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

	short, err := job.NewService(e.searchConfig(t, func(cfg *job.Config) {
		cfg.SearchBudget = 1 // a nanosecond: no page in time
	}))
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

// TestSearchTurns: searches wait for their own turns (Config.Searches),
// not the document slots; the budget counts the wait, so a search that
// finds no turn in time answers 429 searches_busy, as does a key's search
// past its waiting share, at once; a search never takes a document slot.
func TestSearchTurns(t *testing.T) {
	ctx := context.Background()
	e := newBatchEnv(t, 100)
	e.queue(t, "doc", batchDoc(t, 1))
	if err := e.svc.Process(ctx, "doc"); err != nil {
		t.Fatal(err)
	}
	owner := job.Caller{KeyID: "owner"}
	d, err := e.svc.PageDetections(ctx, owner, "doc", 0, job.PageOptions{Limit: 1})
	if err != nil || len(d.Detections) == 0 {
		t.Fatalf("no detection to search from: %v", err)
	}
	b := d.Detections[0].BBoxNorm
	zero := 0
	req := job.SearchRequest{PageIndex: &zero, BBoxNorm: &job.BoxView{X: b.X, Y: b.Y, Width: b.Width, Height: b.Height}}

	q := turns.New(1, 1, 1)
	// One document slot, held throughout: a search must not wait for it.
	gate := budget.New(1<<40, 1)
	held, err := gate.Acquire(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held()
	svc, err := job.NewService(e.searchConfig(t, func(cfg *job.Config) {
		cfg.Searches, cfg.Admission, cfg.SearchBudget = q, gate, 5*time.Second
	}))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := svc.Search(ctx, owner, "doc", req); err != nil || !r.Complete {
		t.Fatalf("search beside a held document slot: %v, %+v", err, r)
	}

	// Another search of the key runs: the next waits, and finds no turn
	// within its budget.
	running, err := q.Acquire(ctx, owner.KeyID)
	if err != nil {
		t.Fatal(err)
	}
	busy := func(err error) bool {
		var je *job.Error
		return errors.As(err, &je) && je.Code == job.CodeRateLimited && je.Details["reason"] == "searches_busy"
	}
	start := time.Now()
	if _, err := svc.Search(ctx, owner, "doc", req); !busy(err) {
		t.Errorf("search waiting past its budget: %v, want 429 searches_busy", err)
	}
	if waited := time.Since(start); waited < 4500*time.Millisecond || waited > 10*time.Second {
		t.Errorf("search waited %v for a turn, want about its 5 s budget", waited)
	}
	// With one of the key's searches waiting, the next is refused at once.
	waiting := make(chan error, 1)
	go func() {
		_, err := svc.Search(ctx, owner, "doc", req)
		waiting <- err
	}()
	done, cancel := context.WithCancel(ctx)
	cancel() // a probe that never waits: busy, or out at once
	for range 5000 {
		if _, err := q.Acquire(done, owner.KeyID); errors.Is(err, turns.ErrBusy) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	start = time.Now()
	if _, err := svc.Search(ctx, owner, "doc", req); !busy(err) || time.Since(start) > 100*time.Millisecond {
		t.Errorf("search past the key's waiting share: %v after %v, want 429 at once", err, time.Since(start))
	}
	// Another key still has the slot's turn after the key's waiter.
	running()
	if err := <-waiting; err != nil {
		t.Errorf("the waiting search, once its turn came: %v", err)
	}
}

// searchConfig is the configuration of a second service over e's store
// and blobs that searches its jobs (real files and engine, no raster),
// changed by mod.
func (e *batchEnv) searchConfig(t *testing.T, mod func(*job.Config)) job.Config {
	t.Helper()
	cfg := newServiceParts(t).cfg
	cfg.Store, cfg.Blobs = e.store, e.blobs
	eng, err := engine.New(cfg.Catalog, engine.Options{RasterOff: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Files, cfg.Engine = docfiles.New(0, 0), eng
	cfg.WebhookSecret = func(string) ([]byte, bool) { return nil, false }
	mod(&cfg)
	return cfg
}
