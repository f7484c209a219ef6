//go:build aws

package dynamostore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"blueprint/internal/job"
)

// TestPageReviewsFull: reviews that gzip past one item are refused with
// job.ErrPageReviewsFull, the stored ones left as they were.
func TestPageReviewsFull(t *testing.T) {
	db, name := newTable(t)
	s := New(db, name)
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	v, err := s.UpdatePageReviews(ctx, job.PageReviewsUpdate{JobID: "job_f", Page: 0, Put: []job.Review{{DetectionID: "a", Decision: job.DecisionAccepted, At: at}}})
	if err != nil {
		t.Fatal(err)
	}
	var many []job.Review
	for i := range 30000 {
		many = append(many, job.Review{DetectionID: uuid.NewString(), Decision: job.DecisionRejected, At: at.Add(time.Duration(i) * 987654321)})
	}
	_, err = s.UpdatePageReviews(ctx, job.PageReviewsUpdate{JobID: "job_f", Page: 0, Version: v, Put: many})
	if !errors.Is(err, job.ErrPageReviewsFull) {
		t.Fatalf("30 000 reviews on a page: %v, want ErrPageReviewsFull", err)
	}
	pr, err := s.GetPageReviews(ctx, "job_f", 0, nil)
	if err != nil || pr.Version != v || len(pr.Reviews) != 1 {
		t.Fatalf("after the refused write: %+v, %v", pr, err)
	}
}
