package job_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/docfiles"
	"blueprint/internal/job"
)

// progressSeen is what a poll said of a processing job while one page
// was being detected.
type progressSeen struct {
	page     int
	done     *int
	finished []int
}

// TestProgressNamesFinishedPages: while a job processes, in one run and
// in batches, every poll lists the pages finished so far (pages_finished,
// as many as pages_done, never the page being detected); once the job is
// done the record of them is dropped.
func TestProgressNamesFinishedPages(t *testing.T) {
	const pages = 5
	data := batchDoc(t, pages)
	for _, batchPages := range []int{100, 2} {
		t.Run(fmt.Sprintf("batches of %d", batchPages), func(t *testing.T) {
			e := newBatchEnv(t, batchPages)
			var (
				mu   sync.Mutex
				seen []progressSeen
				svc  *job.Service
			)
			eng := detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
				v, err := svc.Get(ctx, job.Caller{KeyID: "owner"}, "doc", job.ReadOptions{})
				if err != nil {
					return nil, err
				}
				rv, ok := v.(*job.RunningView)
				if !ok {
					return nil, fmt.Errorf("poll of a processing job: %T", v)
				}
				mu.Lock()
				seen = append(seen, progressSeen{page: p.Index, done: rv.PagesDone, finished: rv.PagesFinished})
				mu.Unlock()
				return nil, nil
			})
			svc = e.withEngine(t, eng, batchPages)
			e.queue(t, "doc", data)
			if err := svc.Process(context.Background(), "doc"); err != nil {
				t.Fatal(err)
			}
			if len(seen) != pages {
				t.Fatalf("%d pages detected, want %d", len(seen), pages)
			}
			all := map[int]bool{}
			for _, s := range seen {
				if s.done == nil || s.finished == nil || len(s.finished) != *s.done || slices.Contains(s.finished, s.page) || !slices.IsSorted(s.finished) {
					t.Fatalf("while page %d was detected the poll said pages_done %v, pages_finished %v", s.page, s.done, s.finished)
				}
				for _, f := range s.finished {
					all[f] = true
				}
			}
			if len(all) < pages-1 {
				t.Errorf("the polls named pages %v finished, want every page but the last at some time", all)
			}
			j, err := e.store.GetJob(context.Background(), "doc")
			if err != nil {
				t.Fatal(err)
			}
			if j.Status != job.Done || j.PagesFinished != nil {
				t.Fatalf("job %s, finished pages still recorded: %v", j.Status, j.PagesFinished.Pages())
			}
			b, _ := json.Marshal(seen[len(seen)-1].finished)
			t.Logf("while the last page was detected: pages_finished %s", b)
		})
	}
}

// withEngine is a Service on e's store and blobs with engine eng,
// processing documents of more than batchPages pages in batches.
func (e *batchEnv) withEngine(t *testing.T, eng detect.Engine, batchPages int) *job.Service {
	t.Helper()
	parts := newServiceParts(t)
	cfg := parts.cfg
	cfg.Store, cfg.Blobs = e.store, e.blobs
	cfg.Files, cfg.Engine, cfg.Clock, cfg.BatchPages, cfg.LazyPageImages = docfiles.New(0, 0), eng, e.clock, batchPages, true
	cfg.WebhookSecret = func(string) ([]byte, bool) { return nil, false }
	svc, err := job.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// TestLegendRowsCarryGlyphBoxes: the legend rows of a processed document
// carry the box of their glyph on their page as fractions of its size
// (glyph_bbox_norm), inside the page.
func TestLegendRowsCarryGlyphBoxes(t *testing.T) {
	e := newBatchEnv(t, 100)
	e.queue(t, "doc", batchDoc(t, 2))
	if err := e.svc.Process(context.Background(), "doc"); err != nil {
		t.Fatal(err)
	}
	v, err := e.svc.Get(context.Background(), job.Caller{KeyID: "owner"}, "doc", job.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dv, ok := v.(*job.DoneView)
	if !ok || len(dv.Legend) == 0 {
		t.Fatalf("poll %T with no legend rows", v)
	}
	for i, r := range dv.Legend {
		b := r.GlyphBBoxNorm
		if r.Source == job.SourceSchedule {
			// A schedule row (the bill of quantities beside the legend)
			// names a code, not a glyph.
			if b != nil || r.Code == nil {
				t.Errorf("row %d %q: a schedule row with glyph box %v and code %v", i, r.Description, b, r.Code)
			}
			continue
		}
		if b == nil {
			t.Errorf("row %d %q (%s, code %v): no glyph box", i, r.Description, r.Source, r.Code)
			continue
		}
		if b.Width <= 0 || b.Height <= 0 || b.X < 0 || b.Y < 0 || b.X+b.Width > 1 || b.Y+b.Height > 1 || b.Width > 0.2 || b.Height > 0.2 {
			t.Errorf("row %d %q: glyph box %+v, want a small box inside the page", i, r.Description, *b)
		}
	}
}
