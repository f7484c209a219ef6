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

// threeReviews are reviews with every field set: two of the detector's
// detections and one added.
func threeReviews() []job.Review {
	return []job.Review{
		{DetectionID: "det-1", Decision: job.DecisionAccepted, At: t0},
		{DetectionID: "det-2", Decision: job.DecisionRejected, Class: "smoke_detector", At: t0.Add(time.Second)},
		{DetectionID: "det-3", Decision: job.DecisionAdded, Class: "socket", Box: &detect.Box{X: 10.5, Y: 20.25, W: 30, H: 40}, At: t0.Add(2 * time.Second)},
	}
}

// putReviews stores reviews on a page that has none and returns them as
// stored.
func putReviews(t *testing.T, s job.Store, jobID string, page int, reviews []job.Review) *job.PageReviews {
	t.Helper()
	v, err := s.UpdatePageReviews(context.Background(), job.PageReviewsUpdate{JobID: jobID, Page: page, Put: reviews})
	if err != nil {
		t.Fatalf("UpdatePageReviews(%s, %d, version 0): %v", jobID, page, err)
	}
	if v != 1 {
		t.Errorf("version after the first update = %d, want 1", v)
	}
	pr := &job.PageReviews{JobID: jobID, Page: page, Reviews: reviews, Version: v}
	pr.CountAdded()
	return pr
}

func mustGetReviews(t *testing.T, s job.Store, jobID string, page int, only []string) *job.PageReviews {
	t.Helper()
	pr, err := s.GetPageReviews(context.Background(), jobID, page, only)
	if err != nil {
		t.Fatalf("GetPageReviews(%s, %d, %q): %v", jobID, page, only, err)
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
	if got.Added != want.Added {
		t.Errorf("Added = %d, want %d", got.Added, want.Added)
	}
}

func storePageReviewsRoundTrip(t *testing.T, s job.Store) {
	ctx := context.Background()
	if _, err := s.GetPageReviews(ctx, "job_r1", 0, nil); !errors.Is(err, job.ErrNotFound) {
		t.Fatalf("GetPageReviews before any update: err = %v, want ErrNotFound", err)
	}
	pr := putReviews(t, s, "job_r1", 2, threeReviews())
	sameReviews(t, mustGetReviews(t, s, "job_r1", 2, nil), pr)
	// Pages and jobs are apart: a neighbour page and job have none.
	if _, err := s.GetPageReviews(ctx, "job_r1", 1, nil); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("GetPageReviews(other page): err = %v, want ErrNotFound", err)
	}
	if _, err := s.GetPageReviews(ctx, "job_r", 12, nil); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("GetPageReviews(other job): err = %v, want ErrNotFound", err)
	}
	// Some reviews: in the stored order, an ID without a review left out;
	// the version and the count of added ones are the page's.
	want := &job.PageReviews{JobID: "job_r1", Page: 2, Reviews: []job.Review{pr.Reviews[0], pr.Reviews[2]}, Version: 1, Added: 1}
	sameReviews(t, mustGetReviews(t, s, "job_r1", 2, []string{"det-3", "det-9", "det-1", "det-3"}), want)
	want.Reviews = nil
	sameReviews(t, mustGetReviews(t, s, "job_r1", 2, []string{}), want)
}

// storePageReviewsUpdate checks that an update writes what it names: a
// review replaced keeps its place, a new one goes last, a deleted one goes,
// and the others stay as they were.
func storePageReviewsUpdate(t *testing.T, s job.Store) {
	ctx := context.Background()
	pr := putReviews(t, s, "job_r5", 0, threeReviews())
	changed := pr.Reviews[1]
	changed.Decision, changed.Class = job.DecisionAccepted, ""
	added := job.Review{DetectionID: "det-4", Decision: job.DecisionRejected, Class: "socket", Box: &detect.Box{X: 1, Y: 2, W: 3, H: 4}, At: t0.Add(time.Hour)}
	u := job.PageReviewsUpdate{JobID: "job_r5", Page: 0, Version: 1, Put: []job.Review{added, changed}, Delete: []string{"det-3", "det-absent"}}
	v, err := s.UpdatePageReviews(ctx, u)
	if err != nil {
		t.Fatalf("UpdatePageReviews(version 1): %v", err)
	}
	if v != 2 {
		t.Errorf("version after the second update = %d, want 2", v)
	}
	want := &job.PageReviews{JobID: "job_r5", Page: 0, Reviews: []job.Review{pr.Reviews[0], changed, added}, Version: 2, Added: 1}
	sameReviews(t, mustGetReviews(t, s, "job_r5", 0, nil), want)
	pr.Apply(u)
	sameReviews(t, pr, want)
	// A deleted review stored again goes last; an update of nothing still
	// counts as one.
	back := threeReviews()[2]
	if v, err = s.UpdatePageReviews(ctx, job.PageReviewsUpdate{JobID: "job_r5", Page: 0, Version: 2, Put: []job.Review{back}}); err != nil || v != 3 {
		t.Fatalf("UpdatePageReviews(version 2) = %d, %v; want 3", v, err)
	}
	if v, err = s.UpdatePageReviews(ctx, job.PageReviewsUpdate{JobID: "job_r5", Page: 0, Version: 3}); err != nil || v != 4 {
		t.Fatalf("UpdatePageReviews(version 3, nothing) = %d, %v; want 4", v, err)
	}
	want = &job.PageReviews{JobID: "job_r5", Page: 0, Reviews: []job.Review{pr.Reviews[0], changed, added, back}, Version: 4, Added: 2}
	sameReviews(t, mustGetReviews(t, s, "job_r5", 0, nil), want)
}

func storePageReviewsStaleVersion(t *testing.T, s job.Store) {
	ctx := context.Background()
	first := putReviews(t, s, "job_r2", 0, threeReviews())
	// A second create (version 0) and a stale update both conflict and
	// change nothing.
	if _, err := s.UpdatePageReviews(ctx, job.PageReviewsUpdate{JobID: "job_r2", Page: 0, Delete: []string{"det-1"}}); !errors.Is(err, job.ErrVersionConflict) {
		t.Errorf("UpdatePageReviews(version 0 over version 1): err = %v, want ErrVersionConflict", err)
	}
	if _, err := s.UpdatePageReviews(ctx, job.PageReviewsUpdate{JobID: "job_r2", Page: 0, Version: 1, Delete: []string{"det-1"}}); err != nil {
		t.Fatalf("UpdatePageReviews(version 1): %v", err)
	}
	first.Apply(job.PageReviewsUpdate{Version: 1, Delete: []string{"det-1"}})
	stale := job.PageReviewsUpdate{JobID: "job_r2", Page: 0, Version: 1, Delete: []string{"det-2"}, Put: []job.Review{{DetectionID: "det-9", At: t0}}}
	if _, err := s.UpdatePageReviews(ctx, stale); !errors.Is(err, job.ErrVersionConflict) {
		t.Errorf("UpdatePageReviews(stale version): err = %v, want ErrVersionConflict", err)
	}
	sameReviews(t, mustGetReviews(t, s, "job_r2", 0, nil), first)
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
			id := fmt.Sprintf("det-%d", w)
			for attempt := 0; attempt < 100; attempt++ {
				pr, err := s.GetPageReviews(ctx, "job_r3", 4, []string{id})
				if errors.Is(err, job.ErrNotFound) {
					pr, err = &job.PageReviews{JobID: "job_r3", Page: 4}, nil
				}
				if err != nil {
					errs <- err
					return
				}
				_, err = s.UpdatePageReviews(ctx, job.PageReviewsUpdate{JobID: "job_r3", Page: 4, Version: pr.Version,
					Put: []job.Review{{DetectionID: id, Decision: job.DecisionAccepted, At: t0}}})
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
	pr := mustGetReviews(t, s, "job_r3", 4, nil)
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
		putReviews(t, s, "job_r4", page, threeReviews())
	}
	if err := s.DeletePageReviews(ctx, "job_r4", 0); err != nil {
		t.Fatalf("DeletePageReviews: %v", err)
	}
	if _, err := s.GetPageReviews(ctx, "job_r4", 0, nil); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("GetPageReviews after delete: err = %v, want ErrNotFound", err)
	}
	if _, err := s.GetPageReviews(ctx, "job_r4", 0, []string{"det-1"}); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("GetPageReviews(det-1) after delete: err = %v, want ErrNotFound", err)
	}
	mustGetReviews(t, s, "job_r4", 1, nil)
	// Deleted reviews start again from version 0, with nothing left over.
	pr := putReviews(t, s, "job_r4", 0, threeReviews()[:1])
	sameReviews(t, mustGetReviews(t, s, "job_r4", 0, nil), pr)
}

// storePageReviewsLargePage stores the reviews of a page of 10 000
// reviewed detections (6 000 of the detector's, 4 000 added: issue 47
// asks such a page to stay quick to review), changes one and reads them
// back.
func storePageReviewsLargePage(t *testing.T, s job.Store) {
	ctx := context.Background()
	var reviews []job.Review
	for i := range 10000 {
		r := job.Review{DetectionID: fmt.Sprintf("%08x-0000-4000-8000-%012x", i*7919, i*104729), Decision: job.DecisionAccepted,
			At: t0.Add(time.Duration(i) * 1234567891)}
		if i >= 6000 {
			r.Decision, r.Class = job.DecisionAdded, "socket_outlet"
			r.Box = &detect.Box{X: float64(i) * 0.37123456789, Y: float64(i%97) * 41.123456789, W: 60.000000001, H: 40.0000000003}
		}
		reviews = append(reviews, r)
	}
	pr := putReviews(t, s, "job_r6", 0, reviews)
	if pr.Added != 4000 {
		t.Fatalf("Added = %d, want 4000", pr.Added)
	}
	changed := reviews[6500]
	changed.Decision = job.DecisionRejected
	one := mustGetReviews(t, s, "job_r6", 0, []string{changed.DetectionID})
	if len(one.Reviews) != 1 || one.Added != 4000 || one.Version != 1 {
		t.Fatalf("one review of the page: %d reviews, %d added, version %d", len(one.Reviews), one.Added, one.Version)
	}
	u := job.PageReviewsUpdate{JobID: "job_r6", Page: 0, Version: 1, Put: []job.Review{changed}}
	if _, err := s.UpdatePageReviews(ctx, u); err != nil {
		t.Fatalf("UpdatePageReviews: %v", err)
	}
	pr.Apply(u)
	sameReviews(t, mustGetReviews(t, s, "job_r6", 0, nil), pr)
}
