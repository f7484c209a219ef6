package job

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"
)

// Errors returned by Store and Blobs implementations. Adapters wrap them
// with context; callers test with errors.Is.
var (
	ErrNotFound        = errors.New("not found")
	ErrExists          = errors.New("already exists")
	ErrVersionConflict = errors.New("version conflict")
	// ErrPageReviewsFull is a review write that would take a page's
	// reviews past what the store holds of one page (the DynamoDB item
	// size); nothing was written.
	ErrPageReviewsFull = errors.New("the page's reviews are as large as the store holds")
)

// Store persists jobs and idempotency records. Every write is conditional so
// that concurrent writers never lose an update; the embedded adapter uses
// bbolt transactions, the DynamoDB adapter ConditionExpressions.
type Store interface {
	// CreateJob stores a new job with Version 1. ErrExists if the ID is taken.
	CreateJob(ctx context.Context, j *Job) error
	// GetJob returns the job. ErrNotFound if there is none.
	GetJob(ctx context.Context, id string) (*Job, error)
	// UpdateJob replaces the stored job if its stored Version equals
	// j.Version, and then sets j.Version to the new version (old+1).
	// ErrVersionConflict if the versions differ, ErrNotFound if absent.
	UpdateJob(ctx context.Context, j *Job) error
	// DeleteJob removes the job; deleting an absent job is not an error.
	DeleteJob(ctx context.Context, id string) error
	// ListJobs returns the IDs of jobs in the given state, oldest first,
	// at most limit of them (limit <= 0: all). The runner uses it to resume
	// work after a restart and to find jobs to expire.
	ListJobs(ctx context.Context, state State, limit int) ([]string, error)
	// ListOwnerJobs returns the IDs of the jobs owned by owner (an API key
	// ID), newest CreatedAt first (ties: greater ID first), starting
	// strictly after the position after (the zero JobCursor: from the
	// newest), at most limit of them (limit > 0). It pages the list of a
	// key's jobs (GET /v1/jobs).
	ListOwnerJobs(ctx context.Context, owner string, after JobCursor, limit int) ([]string, error)
	// ListPendingWebhooks returns the IDs of jobs whose webhook delivery is
	// pending with NextAttemptAt <= before.
	ListPendingWebhooks(ctx context.Context, before time.Time, limit int) ([]string, error)

	// PutIdempotency stores rec unless an unexpired record with the same
	// (Owner, Key) exists; then it returns that record and ErrExists.
	// Expired records count as absent and are replaced.
	PutIdempotency(ctx context.Context, rec IdempotencyRecord, now time.Time) (*IdempotencyRecord, error)

	// GetPageReviews returns the reviews stored for one page of a job:
	// all of them when only is nil, else just those of the detection IDs
	// in only (IDs without a review left out), in the stored order;
	// Version and Added are the page's either way. ErrNotFound if none
	// are stored.
	GetPageReviews(ctx context.Context, jobID string, page int, only []string) (*PageReviews, error)
	// UpdatePageReviews applies u if the stored version of the page's
	// reviews equals u.Version (0: none stored) and returns the new
	// version (old+1); ErrVersionConflict otherwise, and nothing changes.
	// A review of u.Put replaces the stored review of its DetectionID in
	// place, or is stored after the others; an ID of u.Delete loses its
	// review. Only what u names is written, whatever the page holds.
	UpdatePageReviews(ctx context.Context, u PageReviewsUpdate) (int64, error)
	// DeletePageReviews removes the reviews of one page of a job;
	// deleting absent reviews is not an error.
	DeletePageReviews(ctx context.Context, jobID string, page int) error
}

// JobCursor is a position in a list of jobs ordered by CreatedAt and then
// ID; the zero JobCursor is the start of the list.
type JobCursor struct {
	CreatedAt time.Time
	ID        string
}

// IsZero reports whether c is the start of the list.
func (c JobCursor) IsZero() bool { return c.ID == "" && c.CreatedAt.IsZero() }

// Blobs stores files: uploads, page images and per-page detections.
type Blobs interface {
	// Put stores the reader's bytes under key, replacing any earlier value
	// atomically: readers see the old or the new bytes, never a mix. On a
	// read error nothing is stored. It returns the number of bytes written.
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	// Get opens the blob. ErrNotFound if absent.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes the blob; deleting an absent blob is not an error.
	Delete(ctx context.Context, key string) error
	// DeletePrefix removes every blob whose key starts with prefix.
	DeletePrefix(ctx context.Context, prefix string) error
}

// Flow moves started jobs through processing. The embedded runner and the
// Step Functions adapter implement it.
type Flow interface {
	// Enqueue schedules processing of a job that just became Queued. It must
	// be durable: a job recorded as Queued is processed even if Enqueue's
	// caller crashes right after (the runner also scans for Queued jobs).
	Enqueue(ctx context.Context, jobID string) error
}

// Clock tells the time; tests substitute a fake.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock, in UTC.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

func itoa(i int) string { return strconv.Itoa(i) }
