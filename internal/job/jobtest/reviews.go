package jobtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/job"
)

// pageReviews returns reviews of page of jobID with every field set.
func pageReviews(jobID string, page int) *job.PageReviews {
	return &job.PageReviews{JobID: jobID, Page: page, Reviews: []job.Review{
		{DetectionID: "det-1", Decision: job.DecisionAccepted, At: t0},
		{DetectionID: "det-2", Decision: job.DecisionRejected, Class: "smoke_detector", At: t0.Add(time.Second)},
		{DetectionID: "det-3", Decision: job.DecisionAdded, Class: "socket", Box: &detect.Box{X: 10.5, Y: 20.25, W: 30, H: 40}, At: t0.Add(2 * time.Second)},
	}}
}

func mustGetReviews(t *testing.T, s job.Store, jobID string, page int) *job.PageReviews {
	t.Helper()
	pr, err := s.GetPageReviews(context.Background(), jobID, page)
	if err != nil {
		t.Fatalf("GetPageReviews(%s, %d): %v", jobID, page, err)
	}
	return pr
}

func sameReviews(t *testing.T, got, want *job.PageReviews) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("stored reviews differ\n got: %s\nwant: %s", g, w)
	}
}

func storePageReviewsRoundTrip(t *testing.T, s job.Store) {
	ctx := context.Background()
	if _, err := s.GetPageReviews(ctx, "job_r1", 0); !errors.Is(err, job.ErrNotFound) {
		t.Fatalf("GetPageReviews before any put: err = %v, want ErrNotFound", err)
	}
	pr := pageReviews("job_r1", 2)
	if err := s.PutPageReviews(ctx, pr); err != nil {
		t.Fatalf("PutPageReviews: %v", err)
	}
	if pr.Version != 1 {
		t.Errorf("version after the first put = %d, want 1", pr.Version)
	}
	sameReviews(t, mustGetReviews(t, s, "job_r1", 2), pr)
	// Pages and jobs are apart: a neighbour page and job have none.
	if _, err := s.GetPageReviews(ctx, "job_r1", 1); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("GetPageReviews(other page): err = %v, want ErrNotFound", err)
	}
	if _, err := s.GetPageReviews(ctx, "job_r", 12); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("GetPageReviews(other job): err = %v, want ErrNotFound", err)
	}
	pr.Reviews = pr.Reviews[:1]
	if err := s.PutPageReviews(ctx, pr); err != nil {
		t.Fatalf("PutPageReviews(version 1): %v", err)
	}
	if pr.Version != 2 {
		t.Errorf("version after the second put = %d, want 2", pr.Version)
	}
	sameReviews(t, mustGetReviews(t, s, "job_r1", 2), pr)
}

func storePageReviewsStaleVersion(t *testing.T, s job.Store) {
	ctx := context.Background()
	first := pageReviews("job_r2", 0)
	if err := s.PutPageReviews(ctx, first); err != nil {
		t.Fatalf("PutPageReviews: %v", err)
	}
	// A second create (version 0) and a stale update both conflict and
	// change nothing.
	again := pageReviews("job_r2", 0)
	again.Reviews = nil
	if err := s.PutPageReviews(ctx, again); !errors.Is(err, job.ErrVersionConflict) {
		t.Errorf("PutPageReviews(version 0 over version 1): err = %v, want ErrVersionConflict", err)
	}
	if again.Version != 0 {
		t.Errorf("a refused put changed the version to %d", again.Version)
	}
	stale := mustGetReviews(t, s, "job_r2", 0)
	fresh := mustGetReviews(t, s, "job_r2", 0)
	fresh.Reviews = fresh.Reviews[1:]
	if err := s.PutPageReviews(ctx, fresh); err != nil {
		t.Fatalf("PutPageReviews(version 1): %v", err)
	}
	stale.Reviews = nil
	if err := s.PutPageReviews(ctx, stale); !errors.Is(err, job.ErrVersionConflict) {
		t.Errorf("PutPageReviews(stale version): err = %v, want ErrVersionConflict", err)
	}
	sameReviews(t, mustGetReviews(t, s, "job_r2", 0), fresh)
}

// storePageReviewsConcurrent has writers add one review each to one page,
// re-reading on conflict: every review must be stored.
func storePageReviewsConcurrent(t *testing.T, s job.Store) {
	ctx := context.Background()
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for attempt := 0; attempt < 100; attempt++ {
				pr, err := s.GetPageReviews(ctx, "job_r3", 4)
				if errors.Is(err, job.ErrNotFound) {
					pr, err = &job.PageReviews{JobID: "job_r3", Page: 4}, nil
				}
				if err != nil {
					errs <- err
					return
				}
				pr.Reviews = append(pr.Reviews, job.Review{DetectionID: fmt.Sprintf("det-%d", w), Decision: job.DecisionAccepted, At: t0})
				err = s.PutPageReviews(ctx, pr)
				if errors.Is(err, job.ErrVersionConflict) {
					continue
				}
				errs <- err
				return
			}
			errs <- errors.New("gave up after 100 conflicts")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("writer: %v", err)
		}
	}
	pr := mustGetReviews(t, s, "job_r3", 4)
	if len(pr.Reviews) != writers || pr.Version != writers {
		t.Errorf("stored %d reviews at version %d, want %d at version %d", len(pr.Reviews), pr.Version, writers, writers)
	}
}

func storePageReviewsDelete(t *testing.T, s job.Store) {
	ctx := context.Background()
	if err := s.DeletePageReviews(ctx, "job_r4", 0); err != nil {
		t.Errorf("DeletePageReviews(absent): %v", err)
	}
	for page := range 2 {
		if err := s.PutPageReviews(ctx, pageReviews("job_r4", page)); err != nil {
			t.Fatalf("PutPageReviews(page %d): %v", page, err)
		}
	}
	if err := s.DeletePageReviews(ctx, "job_r4", 0); err != nil {
		t.Fatalf("DeletePageReviews: %v", err)
	}
	if _, err := s.GetPageReviews(ctx, "job_r4", 0); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("GetPageReviews after delete: err = %v, want ErrNotFound", err)
	}
	mustGetReviews(t, s, "job_r4", 1)
	// Deleted reviews start again from version 0.
	if err := s.PutPageReviews(ctx, pageReviews("job_r4", 0)); err != nil {
		t.Errorf("PutPageReviews after delete: %v", err)
	}
}
