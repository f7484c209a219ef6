package boltstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"blueprint/internal/detect"
	"blueprint/internal/job"
)

// TestLegacyPageReviews reads and updates a page whose reviews were stored
// as one record, as before they were stored a review to a key: reading
// gives them as they were, the first update rewrites them, and nothing of
// the page is left when it is deleted.
func TestLegacyPageReviews(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	box := &detect.Box{X: 1, Y: 2, W: 3, H: 4}
	old := job.PageReviews{JobID: "job_l", Page: 3, Version: 7, Reviews: []job.Review{
		{DetectionID: "a", Decision: job.DecisionAccepted, At: t0},
		{DetectionID: "b", Decision: job.DecisionAdded, Class: "socket", Box: box, At: t0},
		{DetectionID: "c", Decision: job.DecisionRejected, At: t0},
	}}
	if err := s.CreateJob(ctx, &job.Job{ID: "job_l", Status: job.Done, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketReviews).Put(reviewsKey("job_l", 3), data) }); err != nil {
		t.Fatal(err)
	}
	pr, err := s.GetPageReviews(ctx, "job_l", 3, nil)
	if err != nil || pr.Version != 7 || pr.Added != 1 || len(pr.Reviews) != 3 {
		t.Fatalf("GetPageReviews(legacy) = %+v, %v", pr, err)
	}
	if pr, err := s.GetPageReviews(ctx, "job_l", 3, []string{"c"}); err != nil || len(pr.Reviews) != 1 || pr.Reviews[0].DetectionID != "c" || pr.Added != 1 {
		t.Fatalf("GetPageReviews(legacy, c) = %+v, %v", pr, err)
	}
	v, err := s.UpdatePageReviews(ctx, job.PageReviewsUpdate{JobID: "job_l", Page: 3, Version: 7,
		Put: []job.Review{{DetectionID: "a", Decision: job.DecisionRejected, At: t0}}, Delete: []string{"b"}})
	if err != nil || v != 8 {
		t.Fatalf("UpdatePageReviews(legacy) = %d, %v", v, err)
	}
	pr, err = s.GetPageReviews(ctx, "job_l", 3, nil)
	if err != nil || pr.Version != 8 || pr.Added != 0 || len(pr.Reviews) != 2 ||
		pr.Reviews[0].DetectionID != "a" || pr.Reviews[0].Decision != job.DecisionRejected || pr.Reviews[1].DetectionID != "c" {
		t.Fatalf("after the update: %+v, %v", pr, err)
	}
	if err := s.DeleteJob(ctx, "job_l"); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, s, bucketReviews); n != 0 {
		t.Errorf("%d review keys left after the job was deleted", n)
	}
}

// TestReviewWritesStayPut checks what issue 47 measured: 60 000 added
// detections on one page grew the database to 56 MiB as every write
// rewrote the page. A review now writes a few pages of the file.
func TestReviewWritesStayPut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var reviews []job.Review
	for i := range 10000 {
		reviews = append(reviews, job.Review{DetectionID: fmt.Sprintf("%036d", i), Decision: job.DecisionAdded, Class: "socket",
			Box: &detect.Box{X: float64(i), Y: 2.5, W: 30.25, H: 40.125}, At: t0})
	}
	v, err := s.UpdatePageReviews(ctx, job.PageReviewsUpdate{JobID: "job_g", Page: 0, Put: reviews})
	if err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	for i := range 200 {
		r := reviews[i*50]
		r.Decision = job.DecisionRejected
		if v, err = s.UpdatePageReviews(ctx, job.PageReviewsUpdate{JobID: "job_g", Page: 0, Version: v, Put: []job.Review{r}}); err != nil {
			t.Fatal(err)
		}
	}
	if grown := size() - before; grown > 1<<20 {
		t.Errorf("200 reviews on a page of 10 000 grew the file by %d bytes (from %d)", grown, before)
	}
}

func countKeys(t *testing.T, s *Store, bucket []byte) int {
	t.Helper()
	n := 0
	if err := s.db.View(func(tx *bolt.Tx) error { return tx.Bucket(bucket).ForEach(func(_, _ []byte) error { n++; return nil }) }); err != nil {
		t.Fatal(err)
	}
	return n
}
