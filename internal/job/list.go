package job

import (
	"context"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// DefaultListLimit and MaxListLimit bound a page of GET /v1/jobs.
const (
	DefaultListLimit = 20
	MaxListLimit     = 100
)

// JobListItem is one job in the list of a key's jobs: enough to show it
// and to poll it.
type JobListItem struct {
	JobID       string  `json:"job_id"`
	Status      State   `json:"status"`
	ExternalRef *string `json:"external_ref"`
	FileName    *string `json:"file_name"`
	CreatedAt   string  `json:"created_at"`
	CompletedAt *string `json:"completed_at"`
	PollURL     string  `json:"poll_url"`
}

// JobList is the response of GET /v1/jobs: a page of the caller's jobs,
// newest first, and the cursor of the next page (null on the last).
type JobList struct {
	Jobs []JobListItem `json:"jobs"`
	Next *string       `json:"next"`
}

// ListOptions are the query of GET /v1/jobs, already range-checked by the
// caller except for the cursor, which List decodes.
type ListOptions struct {
	Limit  int    // 0: DefaultListLimit
	Cursor string // "": from the newest job
}

// List returns a page of the caller's jobs in every state, newest first.
// Cursor is the opaque next value of a previous page; one that does not
// decode is a 422 naming the parameter. Jobs of other keys never appear.
func (s *Service) List(ctx context.Context, c Caller, o ListOptions) (*JobList, error) {
	if c.Scoped() {
		return nil, ReviewOnly("listing jobs")
	}
	if o.Limit <= 0 {
		o.Limit = DefaultListLimit
	}
	var after JobCursor
	if o.Cursor != "" {
		var ok bool
		if after, ok = decodeCursor(o.Cursor); !ok {
			return nil, InvalidParameter("cursor", "cursor must be the next value of a previous page of this list")
		}
	}
	// One more than the page tells whether another page follows.
	ids, err := s.cfg.Store.ListOwnerJobs(ctx, c.KeyID, after, o.Limit+1)
	if err != nil {
		return nil, internal("list jobs", err)
	}
	out := &JobList{Jobs: make([]JobListItem, 0, min(len(ids), o.Limit))}
	var last *Job
	for _, id := range ids[:min(len(ids), o.Limit)] {
		j, err := s.cfg.Store.GetJob(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue // deleted since the listing
		}
		if err != nil {
			return nil, internal("load listed job", err)
		}
		if j.Owner != c.KeyID {
			continue
		}
		out.Jobs = append(out.Jobs, JobListItem{JobID: j.ID, Status: j.Status, ExternalRef: j.ExternalRef,
			FileName: strPtr(j.FileName), CreatedAt: Timestamp(j.CreatedAt), CompletedAt: timestampPtr(j.CompletedAt),
			PollURL: s.cfg.Links.JobURL(j.ID)})
		last = j
	}
	if len(ids) > o.Limit && last != nil {
		next := encodeCursor(JobCursor{CreatedAt: last.CreatedAt, ID: last.ID})
		out.Next = &next
	}
	return out, nil
}

// encodeCursor makes the opaque next value of a list page: the position's
// time in Unix nanoseconds and its ID, base64url-encoded.
func encodeCursor(c JobCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.CreatedAt.UnixNano(), 10) + "." + c.ID))
}

func decodeCursor(s string) (JobCursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return JobCursor{}, false
	}
	ns, id, ok := strings.Cut(string(raw), ".")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return JobCursor{}, false
	}
	return JobCursor{CreatedAt: time.Unix(0, n).UTC(), ID: id}, true
}
