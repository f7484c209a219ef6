package job_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/job"
	"blueprint/internal/runner"
)

// TestAddedDetectionCaps fills pages up to job.MaxAddedPerPage and the job
// up to job.MaxAddedPerJob (issue 47: 60 000 additions went onto one
// page): the request past either is refused whole with a 422 naming the
// field and the limit, a rejected addition still counts, and a repeat of a
// request already stored is still answered.
func TestAddedDetectionCaps(t *testing.T) {
	ctx := context.Background()
	parts := newServiceParts(t)
	cfg := parts.cfg
	cfg.Flow = runner.New(parts.store, runner.Options{})
	cfg.Engine = detect.EngineFunc(func(context.Context, detect.Page) ([]detect.Detection, error) { return nil, nil })
	cfg.WebhookSecret = func(string) ([]byte, bool) { return nil, false }
	svc, err := job.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const id = "job-caps"
	c := job.Caller{KeyID: "owner"}
	pages := job.MaxAddedPerJob/job.MaxAddedPerPage + 1
	now := time.Now().UTC()
	j := &job.Job{ID: id, Owner: c.KeyID, Status: job.Done, FileName: "a.pdf", MimeType: "application/pdf",
		Models: cfg.Catalog.Models(), CreatedAt: now, CompletedAt: &now}
	for p := range pages {
		j.Pages = append(j.Pages, job.Page{Index: p, Width: 6000, Height: 4000})
		if _, err := parts.blobs.Put(ctx, job.ResultKey(id, p), strings.NewReader(`{"detections":[]}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := parts.store.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	class := cfg.Catalog.Symbols()[0].Class
	add := func(page, n int, key string) (*job.AddedDetections, error) {
		items := make([]job.NewDetection, n)
		for i := range items {
			items[i] = job.NewDetection{Class: &class, BBoxNorm: &job.BoxView{X: float64(i%50) / 60, Y: float64(i/50%50) / 60, Width: 0.01, Height: 0.01}}
		}
		out, _, err := svc.AddDetections(ctx, c, id, page, job.AddDetectionsRequest{Detections: &items}, key, "en")
		return out, err
	}
	wantCap := func(err error, limit int, of string) {
		t.Helper()
		var e *job.Error
		if !errors.As(err, &e) || e.Code != job.CodeUnprocessable || e.Details["field"] != "detections" || e.Details["limit"] != limit || e.Details["limit_of"] != of {
			t.Fatalf("past the %s cap: %v, details %v; want a 422 on detections with limit %d", of, err, e.Details, limit)
		}
	}

	// A box must be at least job.MinAddedBoxPx a side (issue 47: one
	// 1e-308 wide was added).
	tiny := job.NewDetection{Class: &class, BBoxNorm: &job.BoxView{X: 0.1, Y: 0.1, Width: 1e-308, Height: 0.1}}
	_, _, err = svc.AddDetections(ctx, c, id, 0, job.AddDetectionsRequest{NewDetection: tiny}, "", "en")
	var e *job.Error
	if !errors.As(err, &e) || e.Code != job.CodeUnprocessable || e.Details["field"] != "bbox_norm" || e.Details["min_px"] != job.MinAddedBoxPx {
		t.Errorf("a box 1e-308 wide: %v", err)
	}
	tiny.BBoxNorm = &job.BoxView{X: 0.1, Y: 0.1, Width: float64(job.MinAddedBoxPx) / 6000, Height: float64(job.MinAddedBoxPx) / 4000}
	if _, _, err = svc.AddDetections(ctx, c, id, pages-1, job.AddDetectionsRequest{NewDetection: tiny}, "", "en"); err != nil {
		t.Errorf("a box of %d pixels: %v", job.MinAddedBoxPx, err)
	}

	var last *job.AddedDetections
	for n := 0; n < job.MaxAddedPerPage; n += job.MaxAddDetections {
		if last, err = add(0, job.MaxAddDetections, fmt.Sprintf("p0-%d", n)); err != nil {
			t.Fatalf("add %d at %d on page 0: %v", job.MaxAddDetections, n, err)
		}
	}
	_, err = add(0, 1, "")
	wantCap(err, job.MaxAddedPerPage, "page")
	// Rejecting an added detection keeps it stored, and counted.
	if _, err := svc.ReviewDetection(ctx, c, id, 0, last.Detections[0].ID, job.ReviewRequest{Decision: []byte(`"rejected"`)}, "en"); err != nil {
		t.Fatal(err)
	}
	_, err = add(0, 1, "")
	wantCap(err, job.MaxAddedPerPage, "page")
	// A repeat of a stored request adds nothing and is answered as before.
	again, err := add(0, job.MaxAddDetections, fmt.Sprintf("p0-%d", job.MaxAddedPerPage-job.MaxAddDetections))
	if err != nil || len(again.Detections) != job.MaxAddDetections || again.Detections[0].ID != last.Detections[0].ID {
		t.Fatalf("repeat at the cap: %v", err)
	}

	for p := 1; p < pages-1; p++ {
		for n := 0; n < job.MaxAddedPerPage; n += job.MaxAddDetections {
			k := job.MaxAddDetections
			if p == pages-2 && n == 0 {
				k-- // the last page holds the one of MinAddedBoxPx
			}
			if _, err := add(p, k, ""); err != nil {
				t.Fatalf("add on page %d: %v", p, err)
			}
		}
	}
	_, err = add(pages-1, 1, "")
	wantCap(err, job.MaxAddedPerJob, "job")
	out, err := svc.PageDetections(ctx, c, id, pages-1, job.PageOptions{Limit: job.MaxPageLimit})
	if err != nil || out.Total != 1 {
		t.Errorf("the refused page: %v, %+v", err, out)
	}
}

// fullStore is a store whose pages' reviews are full.
type fullStore struct{ job.Store }

func (fullStore) UpdatePageReviews(context.Context, job.PageReviewsUpdate) (int64, error) {
	return 0, fmt.Errorf("store: %w", job.ErrPageReviewsFull)
}

// TestPageReviewsFull: a store that cannot hold more of a page (DynamoDB's
// item size) gives a 422 that says so, not a 500.
func TestPageReviewsFull(t *testing.T) {
	ctx := context.Background()
	parts := newServiceParts(t)
	cfg := parts.cfg
	cfg.Store = fullStore{parts.store}
	cfg.Flow = runner.New(parts.store, runner.Options{})
	cfg.Engine = detect.EngineFunc(func(context.Context, detect.Page) ([]detect.Detection, error) { return nil, nil })
	cfg.WebhookSecret = func(string) ([]byte, bool) { return nil, false }
	svc, err := job.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := parts.store.CreateJob(ctx, &job.Job{ID: "job-full", Owner: "owner", Status: job.Done, FileName: "a.pdf", MimeType: "application/pdf",
		Models: cfg.Catalog.Models(), CreatedAt: now, CompletedAt: &now, Pages: []job.Page{{Index: 0, Width: 6000, Height: 4000}}}); err != nil {
		t.Fatal(err)
	}
	class := cfg.Catalog.Symbols()[0].Class
	one := job.NewDetection{Class: &class, BBoxNorm: &job.BoxView{X: 0.1, Y: 0.1, Width: 0.01, Height: 0.01}}
	_, _, err = svc.AddDetections(ctx, job.Caller{KeyID: "owner"}, "job-full", 0, job.AddDetectionsRequest{NewDetection: one}, "", "en")
	var e *job.Error
	if !errors.As(err, &e) || e.Code != job.CodeUnprocessable || e.Details["limit_of"] != "page_storage" {
		t.Fatalf("add to a full page: %v", err)
	}
}

// TestReviewCacheNotStale has two services on one store, as two processes
// of the AWS deployment: each reads what the other wrote, though both keep
// decoded reviews in memory.
func TestReviewCacheNotStale(t *testing.T) {
	ctx := context.Background()
	parts := newServiceParts(t)
	cfg := parts.cfg
	cfg.Flow = runner.New(parts.store, runner.Options{})
	cfg.Engine = detect.EngineFunc(func(context.Context, detect.Page) ([]detect.Detection, error) { return nil, nil })
	cfg.WebhookSecret = func(string) ([]byte, bool) { return nil, false }
	a, err := job.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := job.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const id = "job-cache"
	c := job.Caller{KeyID: "owner"}
	now := time.Now().UTC()
	if err := parts.store.CreateJob(ctx, &job.Job{ID: id, Owner: c.KeyID, Status: job.Done, FileName: "a.pdf", MimeType: "application/pdf",
		Models: cfg.Catalog.Models(), CreatedAt: now, CompletedAt: &now, Pages: []job.Page{{Index: 0, Width: 6000, Height: 4000}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := parts.blobs.Put(ctx, job.ResultKey(id, 0), strings.NewReader(`{"detections":[]}`)); err != nil {
		t.Fatal(err)
	}
	class := cfg.Catalog.Symbols()[0].Class
	one := job.NewDetection{Class: &class, BBoxNorm: &job.BoxView{X: 0.1, Y: 0.1, Width: 0.01, Height: 0.01}}
	decisions := func(svc *job.Service) []string {
		t.Helper()
		out, err := svc.PageDetections(ctx, c, id, 0, job.PageOptions{Limit: 10, WithRejected: true})
		if err != nil {
			t.Fatal(err)
		}
		var ds []string
		for _, d := range out.Detections {
			if d.Review != nil && d.Review.Decision != nil {
				ds = append(ds, *d.Review.Decision)
			}
		}
		return ds
	}
	added, _, err := a.AddDetections(ctx, c, id, 0, job.AddDetectionsRequest{NewDetection: one}, "", "en")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(decisions(a), decisions(b)); got != "[added] [added]" {
		t.Fatalf("after A added: A and B read %s", got)
	}
	if _, err := b.ReviewDetection(ctx, c, id, 0, added.Detections[0].ID, job.ReviewRequest{Decision: []byte(`"rejected"`)}, "en"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.AddDetections(ctx, c, id, 0, job.AddDetectionsRequest{NewDetection: one}, "", "en"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(decisions(a), decisions(b)); got != "[rejected added] [rejected added]" {
		t.Fatalf("after B rejected and added: A and B read %s", got)
	}
}
