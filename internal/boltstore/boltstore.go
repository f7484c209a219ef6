// Package boltstore is the embedded, file-backed job.Store: one bbolt file
// holding jobs as JSON, their secondary indexes and the idempotency records.
// Every write is one bbolt transaction (fsynced on commit), so an index never
// disagrees with the job it points at and a kill -9 loses nothing that was
// acknowledged.
package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"blueprint/internal/job"
)

// LockTimeout is how long Open waits for another process to release its
// exclusive lock on the database file before giving up.
const LockTimeout = time.Second

// Bucket names. The layout of their keys:
//
//	jobs:     id -> job JSON
//	byState:  state 0x00 created_at(12 bytes) id -> empty
//	webhooks: next_attempt_at(12 bytes) id -> empty (pending deliveries only)
//	byOwner:  len(owner)(4 bytes) owner created_at(12 bytes) id -> empty
//	idem:     len(owner)(4 bytes) owner key -> record JSON
//	reviews:  job id 0x00 page(4 bytes) [...] -> a page's reviews, a review
//	          to a key (see reviewsHead)
//	handoffs: token hash (hex) -> handoff record JSON (handoffRecord)
var (
	bucketJobs     = []byte("jobs")
	bucketByState  = []byte("jobs_by_state")
	bucketWebhooks = []byte("webhooks_pending")
	bucketIdem     = []byte("idempotency")
	bucketByOwner  = []byte("jobs_by_owner")
	bucketReviews  = []byte("reviews")
	bucketHandoffs = []byte("handoffs")
)

// Store is a job.Store backed by one bbolt file. It is safe for concurrent
// use by many goroutines; only one process may hold the file at a time.
type Store struct {
	db *bolt.DB
}

var (
	_ job.Store    = (*Store)(nil)
	_ job.Handoffs = (*Store)(nil)
)

// Open opens (creating if needed, with its parent directory) the database
// file at path. If another process holds the file, Open fails after
// LockTimeout with an error saying so.
func Open(path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("boltstore: create directory for %s: %w", path, err)
		}
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: LockTimeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("boltstore: open %s: the file is locked by another process (is another server using this data directory?), gave up after %s: %w", path, LockTimeout, err)
	}
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketJobs, bucketByState, bucketWebhooks, bucketIdem, bucketReviews, bucketHandoffs} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		return ensureOwnerIndex(tx)
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close releases the file and its lock. Transactions in flight finish first.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("boltstore: close: %w", err)
	}
	return nil
}

// CreateJob stores j with Version 1 and sets j.Version to 1. It fails with
// job.ErrExists if a job with j.ID is already stored.
func (s *Store) CreateJob(ctx context.Context, j *job.Job) error {
	if err := checkJob(ctx, j); err != nil {
		return fmt.Errorf("boltstore: create job: %w", err)
	}
	rec := *j
	rec.Version = 1
	data, err := json.Marshal(&rec)
	if err != nil {
		return fmt.Errorf("boltstore: create job %s: encode: %w", j.ID, err)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		jobs := tx.Bucket(bucketJobs)
		if jobs.Get([]byte(j.ID)) != nil {
			return job.ErrExists
		}
		if err := jobs.Put([]byte(j.ID), data); err != nil {
			return err
		}
		return addIndexes(tx, &rec)
	})
	if err != nil {
		return fmt.Errorf("boltstore: create job %s: %w", j.ID, err)
	}
	j.Version = 1
	return nil
}

// GetJob returns the stored job, or an error wrapping job.ErrNotFound.
func (s *Store) GetJob(ctx context.Context, id string) (*job.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("boltstore: get job %s: %w", id, err)
	}
	var j *job.Job
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		j, err = getJob(tx, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: get job %s: %w", id, err)
	}
	return j, nil
}

// UpdateJob replaces the stored job if its Version equals j.Version, then
// sets j.Version to the new version. Errors wrap job.ErrVersionConflict or
// job.ErrNotFound; on error j is unchanged.
func (s *Store) UpdateJob(ctx context.Context, j *job.Job) error {
	if err := checkJob(ctx, j); err != nil {
		return fmt.Errorf("boltstore: update job: %w", err)
	}
	rec := *j
	rec.Version = j.Version + 1
	data, err := json.Marshal(&rec)
	if err != nil {
		return fmt.Errorf("boltstore: update job %s: encode: %w", j.ID, err)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		old, err := getJob(tx, j.ID)
		if err != nil {
			return err
		}
		if old.Version != j.Version {
			return fmt.Errorf("%w: stored version %d, update based on %d", job.ErrVersionConflict, old.Version, j.Version)
		}
		if err := removeIndexes(tx, old); err != nil {
			return err
		}
		if err := tx.Bucket(bucketJobs).Put([]byte(j.ID), data); err != nil {
			return err
		}
		return addIndexes(tx, &rec)
	})
	if err != nil {
		return fmt.Errorf("boltstore: update job %s: %w", j.ID, err)
	}
	j.Version = rec.Version
	return nil
}

// DeleteJob removes the job and its index entries. Deleting an absent job
// succeeds.
func (s *Store) DeleteJob(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("boltstore: delete job %s: %w", id, err)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		old, err := getJob(tx, id)
		if errors.Is(err, job.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := removeIndexes(tx, old); err != nil {
			return err
		}
		if err := deleteReviews(tx, id); err != nil {
			return err
		}
		return tx.Bucket(bucketJobs).Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("boltstore: delete job %s: %w", id, err)
	}
	return nil
}

// ListJobs returns the IDs of jobs in state, oldest CreatedAt first (ties by
// ID), at most limit of them (limit <= 0: all). It reads only the state index.
func (s *Store) ListJobs(ctx context.Context, state job.State, limit int) ([]string, error) {
	prefix := statePrefix(state)
	ids, err := s.scan(ctx, bucketByState, limit, func(k []byte) (string, bool) {
		if !bytes.HasPrefix(k, prefix) {
			return "", false
		}
		return string(k[len(prefix)+timeLen:]), true
	}, prefix)
	if err != nil {
		return nil, fmt.Errorf("boltstore: list %s jobs: %w", state, err)
	}
	return ids, nil
}

// ListOwnerJobs returns the IDs of owner's jobs, newest CreatedAt first
// (ties: greater ID first), strictly after the position after, at most
// limit of them (limit <= 0: all). It reads only the owner index.
func (s *Store) ListOwnerJobs(ctx context.Context, owner string, after job.JobCursor, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("boltstore: list jobs of an owner: %w", err)
	}
	prefix := ownerPrefix(owner)
	// Every key of the owner sorts below bound; the list starts at the
	// greatest key below it.
	bound := append(bytes.Clone(prefix), bytes.Repeat([]byte{0xff}, timeLen+1)...)
	if !after.IsZero() {
		bound = append(appendTime(bytes.Clone(prefix), after.CreatedAt), after.ID...)
	}
	ids := []string{}
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketByOwner).Cursor()
		k, _ := c.Seek(bound)
		if k == nil {
			k, _ = c.Last()
		}
		for k != nil && bytes.Compare(k, bound) >= 0 {
			k, _ = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Prev() {
			ids = append(ids, string(k[len(prefix)+timeLen:]))
			if limit > 0 && len(ids) >= limit {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: list jobs of an owner: %w", err)
	}
	return ids, nil
}

// ListPendingWebhooks returns the IDs of jobs whose webhook delivery is
// pending with NextAttemptAt <= before, earliest first, at most limit of them
// (limit <= 0: all). It reads only the pending-webhook index.
func (s *Store) ListPendingWebhooks(ctx context.Context, before time.Time, limit int) ([]string, error) {
	ids, err := s.scan(ctx, bucketWebhooks, limit, func(k []byte) (string, bool) {
		if compareTime(k[:timeLen], before) > 0 {
			return "", false
		}
		return string(k[timeLen:]), true
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("boltstore: list pending webhooks: %w", err)
	}
	return ids, nil
}

// scan walks bucket from seek in key order, collecting IDs while accept says
// the key belongs to the range.
func (s *Store) scan(ctx context.Context, bucket []byte, limit int, accept func(k []byte) (string, bool), seek []byte) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids := []string{}
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucket).Cursor()
		k, _ := c.First()
		if seek != nil {
			k, _ = c.Seek(seek)
		}
		for ; k != nil; k, _ = c.Next() {
			if len(ids)%1024 == 1023 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			id, ok := accept(k)
			if !ok {
				break
			}
			ids = append(ids, id)
			if limit > 0 && len(ids) >= limit {
				break
			}
		}
		return nil
	})
	return ids, err
}

// PutIdempotency stores rec unless a record with the same (Owner, Key)
// exists whose ExpiresAt is after now; then it returns that record and an
// error wrapping job.ErrExists. On success it returns a copy of rec. The
// check and the write are one transaction, so of many concurrent callers
// exactly one wins.
func (s *Store) PutIdempotency(ctx context.Context, rec job.IdempotencyRecord, now time.Time) (*job.IdempotencyRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("boltstore: put idempotency record: %w", err)
	}
	key := idemKey(rec.Owner, rec.Key)
	data, err := json.Marshal(&rec)
	if err != nil {
		return nil, fmt.Errorf("boltstore: put idempotency record: encode: %w", err)
	}
	var existing *job.IdempotencyRecord
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketIdem)
		if old := b.Get(key); old != nil {
			var r job.IdempotencyRecord
			if err := json.Unmarshal(old, &r); err != nil {
				return fmt.Errorf("decode stored record: %w", err)
			}
			if now.Before(r.ExpiresAt) {
				existing = &r
				return job.ErrExists
			}
		}
		return b.Put(key, data)
	})
	if errors.Is(err, job.ErrExists) {
		return existing, fmt.Errorf("boltstore: put idempotency record for job %s: key already used for job %s: %w", rec.JobID, existing.JobID, err)
	}
	if err != nil {
		return nil, fmt.Errorf("boltstore: put idempotency record: %w", err)
	}
	out := rec
	return &out, nil
}

// handoffRecord is a stored handoff token: the record and, once the
// token was exchanged, when.
type handoffRecord struct {
	job.Handoff
	UsedAt *time.Time `json:"used_at,omitempty"`
}

// PutHandoff stores h under its token hash; job.ErrExists if one is
// stored there.
func (s *Store) PutHandoff(ctx context.Context, h job.Handoff) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("boltstore: put handoff: %w", err)
	}
	data, err := json.Marshal(handoffRecord{Handoff: h})
	if err != nil {
		return fmt.Errorf("boltstore: put handoff: encode: %w", err)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHandoffs)
		if b.Get([]byte(h.TokenHash)) != nil {
			return job.ErrExists
		}
		return b.Put([]byte(h.TokenHash), data)
	})
	if err != nil {
		return fmt.Errorf("boltstore: put handoff: %w", err)
	}
	return nil
}

// TakeHandoff marks the handoff token used and returns its record, once,
// before it expires; the check and the write are one transaction.
func (s *Store) TakeHandoff(ctx context.Context, tokenHash string, now time.Time) (*job.Handoff, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("boltstore: take handoff: %w", err)
	}
	var out job.Handoff
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHandoffs)
		data := b.Get([]byte(tokenHash))
		if data == nil {
			return job.ErrNotFound
		}
		var r handoffRecord
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("decode stored handoff: %w", err)
		}
		switch {
		case !now.Before(r.ExpiresAt):
			return job.ErrHandoffExpired
		case r.UsedAt != nil:
			return job.ErrHandoffUsed
		}
		r.UsedAt = &now
		data, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode handoff: %w", err)
		}
		out = r.Handoff
		out.TokenHash = tokenHash
		return b.Put([]byte(tokenHash), data)
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: take handoff: %w", err)
	}
	return &out, nil
}

// PruneIdempotency deletes the idempotency records that expired at or
// before now, and the handoff records more than job.HandoffGrace past
// their expiry, and returns how many it deleted. Expired records already
// count as absent (and old handoffs as expired); pruning only reclaims
// their space.
func (s *Store) PruneIdempotency(ctx context.Context, now time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("boltstore: prune idempotency records: %w", err)
	}
	n := 0
	err := s.db.Update(func(tx *bolt.Tx) error {
		var old [][]byte
		err := tx.Bucket(bucketHandoffs).ForEach(func(k, v []byte) error {
			var r handoffRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode handoff: %w", err)
			}
			if !now.Before(r.ExpiresAt.Add(job.HandoffGrace)) {
				old = append(old, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range old {
			if err := tx.Bucket(bucketHandoffs).Delete(k); err != nil {
				return err
			}
		}
		n += len(old)
		b := tx.Bucket(bucketIdem)
		var expired [][]byte
		err = b.ForEach(func(k, v []byte) error {
			var r job.IdempotencyRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode record: %w", err)
			}
			if !now.Before(r.ExpiresAt) {
				expired = append(expired, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		// Deleting while iterating can skip keys in bbolt; delete afterwards.
		for _, k := range expired {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		n += len(expired)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("boltstore: prune idempotency records: %w", err)
	}
	return n, nil
}

func checkJob(ctx context.Context, j *job.Job) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if j == nil {
		return errors.New("nil job")
	}
	if j.ID == "" {
		return errors.New("job has no ID")
	}
	return nil
}

func getJob(tx *bolt.Tx, id string) (*job.Job, error) {
	data := tx.Bucket(bucketJobs).Get([]byte(id))
	if data == nil {
		return nil, job.ErrNotFound
	}
	var j job.Job
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("decode stored job: %w", err)
	}
	return &j, nil
}

// ensureOwnerIndex creates the owner index, filling it from the stored
// jobs when a database written before the index existed lacks it.
func ensureOwnerIndex(tx *bolt.Tx) error {
	if tx.Bucket(bucketByOwner) != nil {
		return nil
	}
	b, err := tx.CreateBucket(bucketByOwner)
	if err != nil {
		return fmt.Errorf("create bucket %s: %w", bucketByOwner, err)
	}
	return tx.Bucket(bucketJobs).ForEach(func(k, v []byte) error {
		var j job.Job
		if err := json.Unmarshal(v, &j); err != nil {
			return fmt.Errorf("index owner of job %s: decode: %w", k, err)
		}
		return b.Put(ownerKey(&j), nil)
	})
}

func addIndexes(tx *bolt.Tx, j *job.Job) error {
	if err := tx.Bucket(bucketByState).Put(stateKey(j), nil); err != nil {
		return fmt.Errorf("index state: %w", err)
	}
	if err := tx.Bucket(bucketByOwner).Put(ownerKey(j), nil); err != nil {
		return fmt.Errorf("index owner: %w", err)
	}
	if j.Webhook.Pending() {
		if err := tx.Bucket(bucketWebhooks).Put(webhookKey(j), nil); err != nil {
			return fmt.Errorf("index webhook: %w", err)
		}
	}
	return nil
}

func removeIndexes(tx *bolt.Tx, j *job.Job) error {
	if err := tx.Bucket(bucketByState).Delete(stateKey(j)); err != nil {
		return fmt.Errorf("unindex state: %w", err)
	}
	if err := tx.Bucket(bucketByOwner).Delete(ownerKey(j)); err != nil {
		return fmt.Errorf("unindex owner: %w", err)
	}
	if j.Webhook.Pending() {
		if err := tx.Bucket(bucketWebhooks).Delete(webhookKey(j)); err != nil {
			return fmt.Errorf("unindex webhook: %w", err)
		}
	}
	return nil
}

func statePrefix(s job.State) []byte {
	return append([]byte(s), 0)
}

func stateKey(j *job.Job) []byte {
	k := statePrefix(j.Status)
	k = appendTime(k, j.CreatedAt)
	return append(k, j.ID...)
}

func webhookKey(j *job.Job) []byte {
	k := appendTime(nil, j.Webhook.NextAttemptAt)
	return append(k, j.ID...)
}

func idemKey(owner, key string) []byte {
	return append(ownerPrefix(owner), key...)
}

// ownerPrefix is the length-prefixed owner that starts the owner's keys of
// the idempotency and owner-index buckets (no owner's prefix is another's).
func ownerPrefix(owner string) []byte {
	k := binary.BigEndian.AppendUint32(nil, uint32(len(owner)))
	return append(k, owner...)
}

func ownerKey(j *job.Job) []byte {
	k := appendTime(ownerPrefix(j.Owner), j.CreatedAt)
	return append(k, j.ID...)
}

// timeLen is the length of an encoded time: seconds with the sign bit
// flipped (so that byte order is time order) and nanoseconds, big-endian.
const timeLen = 12

func appendTime(b []byte, t time.Time) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(t.Unix())^(1<<63))
	return binary.BigEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

func compareTime(enc []byte, t time.Time) int {
	return bytes.Compare(enc, appendTime(nil, t))
}

func reviewsKey(jobID string, page int) []byte {
	return binary.BigEndian.AppendUint32(append([]byte(jobID), 0), uint32(page))
}

// deleteReviews removes every page's reviews of a job.
func deleteReviews(tx *bolt.Tx, jobID string) error {
	return deletePrefix(tx.Bucket(bucketReviews), append([]byte(jobID), 0))
}

// deletePrefix removes every key of b that starts with prefix.
func deletePrefix(b *bolt.Bucket, prefix []byte) error {
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// A page's reviews are stored a review to a key, so that a review writes
// what it changes and not the page (issue 47: rewriting 60 000 reviews a
// time took each write to 2-3 s). Under the page's key (reviewsKey):
//
//	key                  -> head: reviewsFormat, version, next sequence
//	                        number, added (3 × 8 bytes, big-endian)
//	key 0x01 seq(8)      -> one review's JSON, in the order first stored
//	key 0x02 detectionID -> seq(8) of the detection's review
//
// A head that is JSON ('{') is a page written before, all its reviews in
// one record; its first update rewrites it in this layout.
const (
	reviewsFormat = 2
	rowReview     = 1
	rowIndex      = 2
	headLen       = 1 + 3*8
)

type reviewsHead struct {
	version, next int64
	added         int
}

func (h reviewsHead) encode() []byte {
	b := []byte{reviewsFormat}
	b = binary.BigEndian.AppendUint64(b, uint64(h.version))
	b = binary.BigEndian.AppendUint64(b, uint64(h.next))
	return binary.BigEndian.AppendUint64(b, uint64(h.added))
}

func decodeHead(v []byte) (reviewsHead, error) {
	if len(v) != headLen || v[0] != reviewsFormat {
		return reviewsHead{}, fmt.Errorf("stored reviews head of %d bytes is not of format %d", len(v), reviewsFormat)
	}
	return reviewsHead{
		version: int64(binary.BigEndian.Uint64(v[1:])),
		next:    int64(binary.BigEndian.Uint64(v[9:])),
		added:   int(binary.BigEndian.Uint64(v[17:])),
	}, nil
}

func reviewRowKey(page []byte, seq int64) []byte {
	return binary.BigEndian.AppendUint64(append(bytes.Clone(page), rowReview), uint64(seq))
}

func reviewIndexKey(page []byte, id string) []byte {
	return append(append(bytes.Clone(page), rowIndex), id...)
}

// isLegacy tells a head holding a whole page's reviews as JSON.
func isLegacy(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// pageReviews reads the reviews of the page key from b: all, or those of
// the IDs in only; nil when none are stored.
func pageReviews(b *bolt.Bucket, key []byte, only []string) (*job.PageReviews, error) {
	v := b.Get(key)
	if v == nil {
		return nil, nil
	}
	var pr job.PageReviews
	if isLegacy(v) {
		if err := json.Unmarshal(v, &pr); err != nil {
			return nil, fmt.Errorf("decode: %w", err)
		}
		pr.CountAdded()
		if only != nil {
			pr.Reviews = slices.DeleteFunc(pr.Reviews, func(r job.Review) bool { return !slices.Contains(only, r.DetectionID) })
		}
		return &pr, nil
	}
	h, err := decodeHead(v)
	if err != nil {
		return nil, err
	}
	pr.Version, pr.Added = h.version, h.added
	decode := func(row []byte) error {
		var r job.Review
		if err := json.Unmarshal(row, &r); err != nil {
			return fmt.Errorf("decode review: %w", err)
		}
		pr.Reviews = append(pr.Reviews, r)
		return nil
	}
	if only == nil {
		prefix := append(bytes.Clone(key), rowReview)
		c := b.Cursor()
		for k, row := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, row = c.Next() {
			if err := decode(row); err != nil {
				return nil, err
			}
		}
		return &pr, nil
	}
	seqs := make([]int64, 0, len(only))
	for _, id := range only {
		if seq := b.Get(reviewIndexKey(key, id)); seq != nil {
			seqs = append(seqs, int64(binary.BigEndian.Uint64(seq)))
		}
	}
	slices.Sort(seqs)
	for _, seq := range slices.Compact(seqs) { // an ID asked for twice is read once
		if err := decode(b.Get(reviewRowKey(key, seq))); err != nil {
			return nil, err
		}
	}
	return &pr, nil
}

// GetPageReviews returns the stored reviews of a page of a job (all, or
// those of the IDs in only), or an error wrapping job.ErrNotFound.
func (s *Store) GetPageReviews(ctx context.Context, jobID string, page int, only []string) (*job.PageReviews, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("boltstore: get reviews of job %s page %d: %w", jobID, page, err)
	}
	var pr *job.PageReviews
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		pr, err = pageReviews(tx.Bucket(bucketReviews), reviewsKey(jobID, page), only)
		if err == nil && pr == nil {
			err = job.ErrNotFound
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: get reviews of job %s page %d: %w", jobID, page, err)
	}
	pr.JobID, pr.Page = jobID, page
	return pr, nil
}

// UpdatePageReviews applies u if the stored reviews of its page have
// u.Version (0: none stored) and returns the new version; errors wrap
// job.ErrVersionConflict otherwise. It writes the head and the reviews u
// names, nothing else.
func (s *Store) UpdatePageReviews(ctx context.Context, u job.PageReviewsUpdate) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("boltstore: update reviews: %w", err)
	}
	if u.JobID == "" {
		return 0, errors.New("boltstore: update reviews: no job ID")
	}
	rows := make([][]byte, len(u.Put))
	for i := range u.Put {
		var err error
		if rows[i], err = json.Marshal(&u.Put[i]); err != nil {
			return 0, fmt.Errorf("boltstore: update reviews of job %s page %d: encode: %w", u.JobID, u.Page, err)
		}
	}
	key := reviewsKey(u.JobID, u.Page)
	var h reviewsHead
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketReviews)
		var err error
		switch v := b.Get(key); {
		case v == nil:
		case isLegacy(v):
			h, err = splitLegacy(b, key, v)
		default:
			h, err = decodeHead(v)
		}
		if err != nil {
			return err
		}
		if h.version != u.Version {
			return fmt.Errorf("%w: stored version %d, update based on %d", job.ErrVersionConflict, h.version, u.Version)
		}
		for i, r := range u.Put {
			if err := putReview(b, key, &h, r, rows[i]); err != nil {
				return err
			}
		}
		for _, id := range u.Delete {
			if err := deleteReview(b, key, &h, id); err != nil {
				return err
			}
		}
		h.version++
		return b.Put(key, h.encode())
	})
	if err != nil {
		return 0, fmt.Errorf("boltstore: update reviews of job %s page %d: %w", u.JobID, u.Page, err)
	}
	return h.version, nil
}

// putReview stores the review r (encoded: row) of the page key in place
// of the detection's stored one, or after the others.
func putReview(b *bolt.Bucket, key []byte, h *reviewsHead, r job.Review, row []byte) error {
	ik := reviewIndexKey(key, r.DetectionID)
	if seq := b.Get(ik); seq != nil {
		rk := reviewRowKey(key, int64(binary.BigEndian.Uint64(seq)))
		was, err := hasBox(b.Get(rk))
		if err != nil {
			return err
		}
		h.added += boolInt(r.Box != nil) - boolInt(was)
		return b.Put(rk, row)
	}
	seq := h.next
	h.next++
	h.added += boolInt(r.Box != nil)
	if err := b.Put(reviewRowKey(key, seq), row); err != nil {
		return err
	}
	return b.Put(ik, binary.BigEndian.AppendUint64(nil, uint64(seq)))
}

// deleteReview removes the review of detection id from the page key.
func deleteReview(b *bolt.Bucket, key []byte, h *reviewsHead, id string) error {
	ik := reviewIndexKey(key, id)
	seq := b.Get(ik)
	if seq == nil {
		return nil
	}
	rk := reviewRowKey(key, int64(binary.BigEndian.Uint64(seq)))
	was, err := hasBox(b.Get(rk))
	if err != nil {
		return err
	}
	h.added -= boolInt(was)
	if err := b.Delete(rk); err != nil {
		return err
	}
	return b.Delete(ik)
}

// splitLegacy rewrites the one-record reviews v of the page key a review
// to a key and returns the head it wrote.
func splitLegacy(b *bolt.Bucket, key, v []byte) (reviewsHead, error) {
	var pr job.PageReviews
	if err := json.Unmarshal(v, &pr); err != nil {
		return reviewsHead{}, fmt.Errorf("decode stored reviews: %w", err)
	}
	h := reviewsHead{version: pr.Version}
	for _, r := range pr.Reviews {
		row, err := json.Marshal(&r)
		if err != nil {
			return h, err
		}
		if err := putReview(b, key, &h, r, row); err != nil {
			return h, err
		}
	}
	return h, b.Put(key, h.encode())
}

// hasBox tells whether a stored review is of an added detection.
func hasBox(row []byte) (bool, error) {
	var r struct {
		Box json.RawMessage `json:"box"`
	}
	if err := json.Unmarshal(row, &r); err != nil {
		return false, fmt.Errorf("decode stored review: %w", err)
	}
	return len(r.Box) > 0 && string(r.Box) != "null", nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DeletePageReviews removes the reviews of a page of a job; deleting
// absent reviews succeeds.
func (s *Store) DeletePageReviews(ctx context.Context, jobID string, page int) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("boltstore: delete reviews of job %s page %d: %w", jobID, page, err)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		return deletePrefix(tx.Bucket(bucketReviews), reviewsKey(jobID, page))
	})
	if err != nil {
		return fmt.Errorf("boltstore: delete reviews of job %s page %d: %w", jobID, page, err)
	}
	return nil
}
