// Package jobtest holds the conformance suites of the job ports: every
// promise of job.Store and job.Blobs as a subtest, runnable against any
// adapter (the embedded bbolt and disk adapters, the DynamoDB and S3 ones)
// from that adapter's own tests.
package jobtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/job"
)

// t0 is the base time of the suites: UTC with nanoseconds, so that a store
// that loses precision or the zone fails the round-trip checks.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

// RunStoreConformance checks every promise of job.Store against stores made
// by newStore. Each call of newStore must return a new, empty store whose
// cleanup is registered on the t it was given. Subtests run in parallel.
func RunStoreConformance(t *testing.T, newStore func(t *testing.T) job.Store) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s job.Store)
	}{
		{"CreateGetRoundTrip", storeCreateGetRoundTrip},
		{"CreateSetsVersionOne", storeCreateSetsVersionOne},
		{"CreateExisting", storeCreateExisting},
		{"GetMissing", storeGetMissing},
		{"GetReturnsCopy", storeGetReturnsCopy},
		{"UpdateMatchingVersion", storeUpdateMatchingVersion},
		{"UpdateStaleVersion", storeUpdateStaleVersion},
		{"UpdateMissing", storeUpdateMissing},
		{"ConcurrentUpdatesLoseNothing", storeConcurrentUpdates},
		{"Delete", storeDelete},
		{"ListJobsOldestFirst", storeListJobsOldestFirst},
		{"ListJobsFollowsStateChanges", storeListJobsFollowsStateChanges},
		{"ListOwnerJobsNewestFirst", storeListOwnerJobs},
		{"ListOwnerJobsFollowsDeletes", storeListOwnerJobsFollowsDeletes},
		{"ListPendingWebhooks", storeListPendingWebhooks},
		{"ListPendingWebhooksFollowsUpdates", storeListPendingWebhooksFollowsUpdates},
		{"IdempotencyPutIfAbsent", storeIdempotencyPutIfAbsent},
		{"IdempotencyExpiredIsReplaced", storeIdempotencyExpired},
		{"IdempotencyConcurrentOneWinner", storeIdempotencyConcurrent},
		{"CanceledContext", storeCanceledContext},
		{"PageReviewsRoundTrip", storePageReviewsRoundTrip},
		{"PageReviewsUpdate", storePageReviewsUpdate},
		{"PageReviewsStaleVersion", storePageReviewsStaleVersion},
		{"PageReviewsConcurrentLoseNothing", storePageReviewsConcurrent},
		{"PageReviewsDelete", storePageReviewsDelete},
		{"PageReviewsLargePage", storePageReviewsLargePage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t))
		})
	}
}

// fullJob returns a job with every field set, so that a round trip that
// drops one shows.
func fullJob(id string, state job.State, created time.Time) *job.Job {
	conf := 0.4
	ref := "ref-" + id
	started := created.Add(2 * time.Minute)
	completed := created.Add(3 * time.Minute)
	total, done := 3, 2
	reviewed := created.Add(4 * time.Minute)
	return &job.Job{
		ID:              id,
		Owner:           "key_1",
		Status:          state,
		FileName:        "plan " + id + ".pdf",
		MimeType:        "application/pdf",
		Size:            123456,
		Models:          []string{"fire_alarm", "electricity"},
		Confidence:      &conf,
		ExternalRef:     &ref,
		CallbackURL:     "https://partner.example/hook",
		CreatedAt:       created,
		UploadExpiresAt: created.Add(time.Hour),
		StartedAt:       &started,
		CompletedAt:     &completed,
		ExpiryReason:    "",
		Upload: &job.Upload{
			Size: 123456, SHA256: "ab12", StoredAt: created.Add(time.Minute),
			BlobKey: job.UploadKey(id), Generation: 2,
		},
		PagesTotal:    &total,
		PagesDone:     &done,
		PagesFinished: job.PageSet(nil).Add(0).Add(2),
		Pages:         []job.Page{{Index: 0, Width: 2000, Height: 1400}, {Index: 1, Width: 1400, Height: 2000}},
		Legend: []job.LegendRow{{PageIndex: 0, Description: "Smoke detector", Class: "smoke_detector", Tag: "SD",
			GlyphBox: &detect.Box{X: 120.5, Y: 300, W: 42.25, H: 40}}, {PageIndex: 0, Description: "Floor box"}},
		Error:         &job.Failure{Code: "processing_failed", Message: "page 3 could not be rendered"},
		ReviewedPages: []int{1, 0},
		ReviewedAt:    &reviewed,
	}
}

// simpleJob returns a minimal job in state, created at created.
func simpleJob(id string, state job.State, created time.Time) *job.Job {
	return &job.Job{ID: id, Owner: "key_1", Status: state, FileName: id + ".pdf",
		MimeType: "application/pdf", Models: []string{"electricity"}, CreatedAt: created}
}

func mustCreate(t *testing.T, s job.Store, j *job.Job) {
	t.Helper()
	if err := s.CreateJob(context.Background(), j); err != nil {
		t.Fatalf("CreateJob(%s): %v", j.ID, err)
	}
}

func mustGet(t *testing.T, s job.Store, id string) *job.Job {
	t.Helper()
	j, err := s.GetJob(context.Background(), id)
	if err != nil {
		t.Fatalf("GetJob(%s): %v", id, err)
	}
	return j
}

func mustUpdate(t *testing.T, s job.Store, j *job.Job) {
	t.Helper()
	if err := s.UpdateJob(context.Background(), j); err != nil {
		t.Fatalf("UpdateJob(%s, version %d): %v", j.ID, j.Version, err)
	}
}

// sameJob fails unless got and want have the same stored content, compared
// through their JSON encoding (times must keep instant, zone and precision).
func sameJob(t *testing.T, got, want *job.Job) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Errorf("stored job differs\n got: %s\nwant: %s", g, w)
	}
}

// listSettle is how long a list check polls before it fails, so that
// adapters whose indexes are eventually consistent (DynamoDB global
// secondary indexes) pass; a strongly consistent store passes at once.
const listSettle = 5 * time.Second

// settle calls list until ok accepts its result or listSettle passes, and
// returns the last result.
func settle(list func() ([]string, error), ok func([]string) bool) ([]string, error) {
	deadline := time.Now().Add(listSettle)
	for {
		ids, err := list()
		if (err == nil && ok(ids)) || time.Now().After(deadline) {
			return ids, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wantJobs checks that ListJobs(state, limit) returns exactly want, in order.
func wantJobs(t *testing.T, s job.Store, state job.State, limit int, want []string) {
	t.Helper()
	got, err := settle(func() ([]string, error) {
		return s.ListJobs(context.Background(), state, limit)
	}, func(ids []string) bool { return slices.Equal(ids, want) })
	if err != nil {
		t.Fatalf("ListJobs(%s, %d): %v", state, limit, err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ListJobs(%s, %d) = %q, want %q (oldest first)", state, limit, got, want)
	}
}

// wantPending checks that ListPendingWebhooks(before, limit) returns the
// IDs in want, in any order.
func wantPending(t *testing.T, s job.Store, before time.Time, limit int, want []string) {
	t.Helper()
	want = sorted(want)
	got, err := settle(func() ([]string, error) {
		return s.ListPendingWebhooks(context.Background(), before, limit)
	}, func(ids []string) bool { return slices.Equal(sorted(ids), want) })
	if err != nil {
		t.Fatalf("ListPendingWebhooks(%s, %d): %v", before, limit, err)
	}
	if !slices.Equal(sorted(got), want) {
		t.Errorf("ListPendingWebhooks(%s, %d) = %q, want %q (pending with NextAttemptAt <= before)", before, limit, got, want)
	}
}

func storeCreateGetRoundTrip(t *testing.T, s job.Store) {
	j := fullJob("job_round", job.Processing, t0)
	j.Webhook = &job.Delivery{EventID: "evt_1", EventType: "job.done", Attempts: 2,
		NextAttemptAt: t0.Add(time.Minute), LastError: "503 Service Unavailable"}
	mustCreate(t, s, j)
	if j.Version != 1 {
		t.Errorf("after CreateJob j.Version = %d, want 1", j.Version)
	}
	want := fullJob("job_round", job.Processing, t0)
	want.Webhook = j.Webhook
	want.Version = 1
	sameJob(t, mustGet(t, s, "job_round"), want)
}

func storeCreateSetsVersionOne(t *testing.T, s job.Store) {
	j := simpleJob("job_v", job.AwaitingUpload, t0)
	j.Version = 7
	mustCreate(t, s, j)
	if got := mustGet(t, s, "job_v").Version; got != 1 {
		t.Errorf("stored Version = %d, want 1", got)
	}
}

func storeCreateExisting(t *testing.T, s job.Store) {
	mustCreate(t, s, simpleJob("job_dup", job.AwaitingUpload, t0))
	second := simpleJob("job_dup", job.Queued, t0.Add(time.Hour))
	second.FileName = "other.pdf"
	err := s.CreateJob(context.Background(), second)
	if !errors.Is(err, job.ErrExists) {
		t.Fatalf("second CreateJob: err = %v, want ErrExists", err)
	}
	got := mustGet(t, s, "job_dup")
	if got.FileName != "job_dup.pdf" || got.Status != job.AwaitingUpload {
		t.Errorf("second CreateJob changed the stored job: %+v", got)
	}
	wantJobs(t, s, job.Queued, 0, nil)
}

func storeGetMissing(t *testing.T, s job.Store) {
	j, err := s.GetJob(context.Background(), "job_missing")
	if !errors.Is(err, job.ErrNotFound) {
		t.Fatalf("GetJob(missing) = %v, %v; want ErrNotFound", j, err)
	}
}

func storeGetReturnsCopy(t *testing.T, s job.Store) {
	mustCreate(t, s, fullJob("job_copy", job.Done, t0))
	got := mustGet(t, s, "job_copy")
	got.FileName = "changed"
	got.Pages[0].Width = 1
	*got.PagesDone = 99
	got.PagesFinished[0] = 0xff
	got.Legend[0].GlyphBox.X = -1
	again := mustGet(t, s, "job_copy")
	if again.FileName == "changed" || again.Pages[0].Width == 1 || *again.PagesDone == 99 || again.PagesFinished[0] == 0xff || again.Legend[0].GlyphBox.X == -1 {
		t.Errorf("changing a returned job changed the stored one: %+v", again)
	}
}

func storeUpdateMatchingVersion(t *testing.T, s job.Store) {
	mustCreate(t, s, simpleJob("job_up", job.AwaitingUpload, t0))
	j := mustGet(t, s, "job_up")
	for want := int64(2); want <= 4; want++ {
		j.Status = job.Queued
		j.FileName = fmt.Sprintf("v%d.pdf", want)
		mustUpdate(t, s, j)
		if j.Version != want {
			t.Fatalf("after UpdateJob j.Version = %d, want %d", j.Version, want)
		}
		got := mustGet(t, s, "job_up")
		if got.Version != want || got.FileName != j.FileName || got.Status != job.Queued {
			t.Fatalf("stored after update %d: %+v", want, got)
		}
		sameJob(t, got, j)
	}
}

func storeUpdateStaleVersion(t *testing.T, s job.Store) {
	mustCreate(t, s, simpleJob("job_stale", job.Queued, t0))
	a := mustGet(t, s, "job_stale")
	b := mustGet(t, s, "job_stale")
	a.Status = job.Processing
	mustUpdate(t, s, a)

	b.Status = job.Failed
	err := s.UpdateJob(context.Background(), b)
	if !errors.Is(err, job.ErrVersionConflict) {
		t.Fatalf("stale UpdateJob: err = %v, want ErrVersionConflict", err)
	}
	if b.Version != 1 {
		t.Errorf("failed UpdateJob changed j.Version to %d, want 1", b.Version)
	}
	got := mustGet(t, s, "job_stale")
	if got.Status != job.Processing || got.Version != 2 {
		t.Errorf("stale update changed the stored job: status %s version %d", got.Status, got.Version)
	}
	wantJobs(t, s, job.Failed, 0, nil)

	// A version from the future conflicts too.
	c := mustGet(t, s, "job_stale")
	c.Version = 10
	if err := s.UpdateJob(context.Background(), c); !errors.Is(err, job.ErrVersionConflict) {
		t.Errorf("UpdateJob with a future version: err = %v, want ErrVersionConflict", err)
	}
}

func storeUpdateMissing(t *testing.T, s job.Store) {
	j := simpleJob("job_nope", job.Queued, t0)
	j.Version = 1
	if err := s.UpdateJob(context.Background(), j); !errors.Is(err, job.ErrNotFound) {
		t.Fatalf("UpdateJob(missing): err = %v, want ErrNotFound", err)
	}
	if _, err := s.GetJob(context.Background(), "job_nope"); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("UpdateJob(missing) created the job: GetJob err = %v", err)
	}
}

// storeConcurrentUpdates runs read-modify-write loops that retry on
// conflicts; with conditional writes no increment is lost.
func storeConcurrentUpdates(t *testing.T, s job.Store) {
	const workers, each = 6, 5
	j := simpleJob("job_conc", job.Processing, t0)
	zero := 0
	j.PagesDone = &zero
	mustCreate(t, s, j)

	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for done := 0; done < each; {
				cur, err := s.GetJob(ctx, "job_conc")
				if err != nil {
					errs <- err
					return
				}
				*cur.PagesDone++
				err = s.UpdateJob(ctx, cur)
				if errors.Is(err, job.ErrVersionConflict) {
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				done++
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := mustGet(t, s, "job_conc")
	if *got.PagesDone != workers*each || got.Version != workers*each+1 {
		t.Errorf("after %d updates: pages_done %d version %d, want %d and %d",
			workers*each, *got.PagesDone, got.Version, workers*each, workers*each+1)
	}
}

func storeDelete(t *testing.T, s job.Store) {
	ctx := context.Background()
	j := simpleJob("job_del", job.Done, t0)
	j.Webhook = &job.Delivery{EventID: "evt_d", EventType: "job.done", NextAttemptAt: t0}
	mustCreate(t, s, j)
	mustCreate(t, s, simpleJob("job_keep", job.Done, t0.Add(time.Second)))

	if err := s.DeleteJob(ctx, "job_del"); err != nil {
		t.Fatalf("DeleteJob: %v", err)
	}
	if _, err := s.GetJob(ctx, "job_del"); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("GetJob after DeleteJob: err = %v, want ErrNotFound", err)
	}
	wantJobs(t, s, job.Done, 0, []string{"job_keep"})
	wantPending(t, s, t0.Add(time.Hour), 0, nil)
	if err := s.DeleteJob(ctx, "job_del"); err != nil {
		t.Errorf("second DeleteJob: %v, want nil", err)
	}
	if err := s.DeleteJob(ctx, "job_never"); err != nil {
		t.Errorf("DeleteJob(never existed): %v, want nil", err)
	}
	// The ID is free again, and starts at version 1.
	again := simpleJob("job_del", job.AwaitingUpload, t0.Add(time.Hour))
	mustCreate(t, s, again)
	if got := mustGet(t, s, "job_del"); got.Version != 1 || got.Status != job.AwaitingUpload {
		t.Errorf("re-created job: version %d status %s", got.Version, got.Status)
	}
}

func storeListJobsOldestFirst(t *testing.T, s job.Store) {
	// Created out of order; IDs do not sort like times.
	jobs := []struct {
		id    string
		state job.State
		age   time.Duration // before t0
	}{
		{"q_c", job.Queued, 1 * time.Minute},
		{"q_a", job.Queued, 3 * time.Hour},
		{"p_x", job.Processing, 2 * time.Hour},
		{"q_b", job.Queued, 2 * time.Hour},
		{"q_z", job.Queued, 48 * time.Hour},
		{"d_1", job.Done, 5 * time.Hour},
		{"q_d", job.Queued, 1500 * time.Millisecond},
	}
	for _, j := range jobs {
		mustCreate(t, s, simpleJob(j.id, j.state, t0.Add(-j.age)))
	}
	want := []string{"q_z", "q_a", "q_b", "q_c", "q_d"}
	wantJobs(t, s, job.Queued, 0, want)
	wantJobs(t, s, job.Queued, -1, want)
	wantJobs(t, s, job.Queued, 2, want[:2])
	wantJobs(t, s, job.Queued, 100, want)
	wantJobs(t, s, job.Processing, 0, []string{"p_x"})
	wantJobs(t, s, job.Failed, 0, nil)
}

func storeListJobsFollowsStateChanges(t *testing.T, s job.Store) {
	for i, id := range []string{"j1", "j2", "j3"} {
		mustCreate(t, s, simpleJob(id, job.Queued, t0.Add(time.Duration(i)*time.Minute)))
	}
	// Move j3 first, then j1: the processing list is still by creation.
	for _, id := range []string{"j3", "j1"} {
		j := mustGet(t, s, id)
		j.Status = job.Processing
		started := t0.Add(time.Hour)
		j.StartedAt = &started
		mustUpdate(t, s, j)
	}
	wantJobs(t, s, job.Queued, 0, []string{"j2"})
	wantJobs(t, s, job.Processing, 0, []string{"j1", "j3"})
	// An update that keeps the state keeps exactly one index entry.
	j := mustGet(t, s, "j2")
	j.FileName = "renamed.pdf"
	mustUpdate(t, s, j)
	wantJobs(t, s, job.Queued, 0, []string{"j2"})
	for _, id := range []string{"j1", "j3"} {
		j := mustGet(t, s, id)
		j.Status = job.Done
		mustUpdate(t, s, j)
	}
	wantJobs(t, s, job.Processing, 0, nil)
	wantJobs(t, s, job.Done, 0, []string{"j1", "j3"})
}

// wantOwnerJobs checks that ListOwnerJobs(owner, after, limit) returns
// exactly want, in order.
func wantOwnerJobs(t *testing.T, s job.Store, owner string, after job.JobCursor, limit int, want []string) {
	t.Helper()
	got, err := settle(func() ([]string, error) {
		return s.ListOwnerJobs(context.Background(), owner, after, limit)
	}, func(ids []string) bool { return slices.Equal(ids, want) })
	if err != nil {
		t.Fatalf("ListOwnerJobs(%s, %+v, %d): %v", owner, after, limit, err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ListOwnerJobs(%s, %+v, %d) = %q, want %q (newest first)", owner, after, limit, got, want)
	}
}

func storeListOwnerJobs(t *testing.T, s job.Store) {
	// Created out of order, in every state, for two owners whose names
	// share a prefix; b_1 and b_2 share a creation time.
	jobs := []struct {
		id, owner string
		state     job.State
		age       time.Duration // before t0
	}{
		{"a_3", "key_1", job.Done, 1 * time.Minute},
		{"a_1", "key_1", job.Queued, 3 * time.Hour},
		{"o_1", "key_10", job.Done, 2 * time.Minute},
		{"b_2", "key_1", job.Failed, 2 * time.Hour},
		{"b_1", "key_1", job.AwaitingUpload, 2 * time.Hour},
		{"a_2", "key_1", job.Expired, 90 * time.Minute},
		{"o_2", "key_2", job.Done, 1 * time.Second},
	}
	created := map[string]time.Time{}
	for _, j := range jobs {
		sj := simpleJob(j.id, j.state, t0.Add(-j.age))
		sj.Owner = j.owner
		mustCreate(t, s, sj)
		created[j.id] = sj.CreatedAt
	}
	all := []string{"a_3", "a_2", "b_2", "b_1", "a_1"}
	wantOwnerJobs(t, s, "key_1", job.JobCursor{}, 0, all)
	wantOwnerJobs(t, s, "key_1", job.JobCursor{}, 100, all)
	wantOwnerJobs(t, s, "key_1", job.JobCursor{}, 2, all[:2])
	// Paging: each page starts strictly after the last ID of the previous.
	for i, id := range all {
		wantOwnerJobs(t, s, "key_1", job.JobCursor{CreatedAt: created[id], ID: id}, 2, all[i+1:min(i+3, len(all))])
	}
	wantOwnerJobs(t, s, "key_10", job.JobCursor{}, 0, []string{"o_1"})
	wantOwnerJobs(t, s, "key_3", job.JobCursor{}, 0, nil)
	// A position between stored jobs (a job deleted since) still works.
	wantOwnerJobs(t, s, "key_1", job.JobCursor{CreatedAt: t0.Add(-100 * time.Minute), ID: "zzz"}, 0, []string{"b_2", "b_1", "a_1"})
	// A state change does not move or duplicate a job in its owner's list.
	j := mustGet(t, s, "a_1")
	j.Status = job.Processing
	mustUpdate(t, s, j)
	wantOwnerJobs(t, s, "key_1", job.JobCursor{}, 0, all)
}

func storeListOwnerJobsFollowsDeletes(t *testing.T, s job.Store) {
	for i, id := range []string{"j1", "j2", "j3"} {
		mustCreate(t, s, simpleJob(id, job.Done, t0.Add(time.Duration(i)*time.Minute)))
	}
	if err := s.DeleteJob(context.Background(), "j2"); err != nil {
		t.Fatal(err)
	}
	wantOwnerJobs(t, s, "key_1", job.JobCursor{}, 0, []string{"j3", "j1"})
}

func withWebhook(j *job.Job, next time.Time) *job.Job {
	j.Webhook = &job.Delivery{EventID: "evt_" + j.ID, EventType: "job.done", NextAttemptAt: next}
	return j
}

func sorted(ids []string) []string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return ids
}

func storeListPendingWebhooks(t *testing.T, s job.Store) {
	delivered := withWebhook(simpleJob("w_delivered", job.Done, t0), t0.Add(-time.Hour))
	at := t0.Add(-time.Minute)
	delivered.Webhook.DeliveredAt = &at
	gaveUp := withWebhook(simpleJob("w_gaveup", job.Failed, t0), t0.Add(-time.Hour))
	gaveUp.Webhook.GaveUpAt = &at
	gaveUp.Webhook.Attempts = 7
	for _, j := range []*job.Job{
		withWebhook(simpleJob("w_due_old", job.Done, t0), t0.Add(-time.Hour)),
		withWebhook(simpleJob("w_due_now", job.Failed, t0), t0),
		withWebhook(simpleJob("w_later", job.Done, t0), t0.Add(time.Nanosecond)),
		withWebhook(simpleJob("w_much_later", job.Done, t0), t0.Add(10*time.Minute)),
		delivered,
		gaveUp,
		simpleJob("w_none", job.Done, t0),
	} {
		mustCreate(t, s, j)
	}
	wantPending(t, s, t0, 0, []string{"w_due_now", "w_due_old"})
	due := []string{"w_due_now", "w_due_old"}
	oneDue := func(ids []string) bool { return len(ids) == 1 && slices.Contains(due, ids[0]) }
	got, err := settle(func() ([]string, error) {
		return s.ListPendingWebhooks(context.Background(), t0, 1)
	}, oneDue)
	if err != nil || !oneDue(got) {
		t.Errorf("ListPendingWebhooks(t0, 1) = %q, %v; want one of %q", got, err, due)
	}
	want := []string{"w_due_now", "w_due_old", "w_later", "w_much_later"}
	wantPending(t, s, t0.Add(time.Hour), 0, want)
	wantPending(t, s, t0.Add(-2*time.Hour), 0, nil)
}

func storeListPendingWebhooksFollowsUpdates(t *testing.T, s job.Store) {
	mustCreate(t, s, withWebhook(simpleJob("w1", job.Done, t0), t0))
	mustCreate(t, s, withWebhook(simpleJob("w2", job.Done, t0), t0))
	mustCreate(t, s, simpleJob("w3", job.Processing, t0))

	// w1 fails an attempt and is rescheduled; w2 is delivered; w3 finishes
	// and gets a delivery.
	w1 := mustGet(t, s, "w1")
	w1.Webhook.Attempts++
	w1.Webhook.NextAttemptAt = t0.Add(5 * time.Minute)
	mustUpdate(t, s, w1)
	w2 := mustGet(t, s, "w2")
	at := t0.Add(time.Second)
	w2.Webhook.DeliveredAt = &at
	mustUpdate(t, s, w2)
	w3 := mustGet(t, s, "w3")
	w3.Status = job.Done
	withWebhook(w3, t0.Add(time.Minute))
	mustUpdate(t, s, w3)

	wantPending(t, s, t0, 0, nil)
	wantPending(t, s, t0.Add(time.Minute), 0, []string{"w3"})
	wantPending(t, s, t0.Add(time.Hour), 0, []string{"w1", "w3"})
}

func idemRecord(owner, key, jobID string, expires time.Time) job.IdempotencyRecord {
	return job.IdempotencyRecord{Owner: owner, Key: key, RequestHash: "hash-" + jobID, JobID: jobID, ExpiresAt: expires}
}

func storeIdempotencyPutIfAbsent(t *testing.T, s job.Store) {
	ctx := context.Background()
	exp := t0.Add(24 * time.Hour)
	first := idemRecord("key_1", "idem-A", "job_1", exp)
	got, err := s.PutIdempotency(ctx, first, t0)
	if err != nil {
		t.Fatalf("first PutIdempotency: %v", err)
	}
	if got == nil || got.JobID != "job_1" {
		t.Errorf("first PutIdempotency returned %+v, want the stored record", got)
	}

	// Same owner and key, later but before expiry: the first record wins.
	got, err = s.PutIdempotency(ctx, idemRecord("key_1", "idem-A", "job_2", exp.Add(time.Hour)), exp.Add(-time.Second))
	if !errors.Is(err, job.ErrExists) {
		t.Fatalf("second PutIdempotency: err = %v, want ErrExists", err)
	}
	if !sameRecord(got, first) {
		t.Errorf("second PutIdempotency returned %+v, want the first record %+v", got, first)
	}

	// Another owner with the same key, and the same owner with another key,
	// are independent.
	for _, rec := range []job.IdempotencyRecord{
		idemRecord("key_2", "idem-A", "job_3", exp),
		idemRecord("key_1", "idem-B", "job_4", exp),
		// Owner and key must not be joined ambiguously.
		idemRecord("key_1i", "dem-A", "job_5", exp),
	} {
		if _, err := s.PutIdempotency(ctx, rec, t0); err != nil {
			t.Errorf("PutIdempotency(%s, %s): %v, want a new record", rec.Owner, rec.Key, err)
		}
	}
}

// sameRecord reports whether got holds rec (times compared as instants).
func sameRecord(got *job.IdempotencyRecord, rec job.IdempotencyRecord) bool {
	return got != nil && got.Owner == rec.Owner && got.Key == rec.Key && got.JobID == rec.JobID &&
		got.RequestHash == rec.RequestHash && got.ExpiresAt.Equal(rec.ExpiresAt)
}

func storeIdempotencyExpired(t *testing.T, s job.Store) {
	ctx := context.Background()
	exp := t0.Add(24 * time.Hour)
	if _, err := s.PutIdempotency(ctx, idemRecord("key_1", "idem", "job_old", exp), t0); err != nil {
		t.Fatal(err)
	}
	later := exp.Add(time.Second)
	got, err := s.PutIdempotency(ctx, idemRecord("key_1", "idem", "job_new", later.Add(24*time.Hour)), later)
	if err != nil {
		t.Fatalf("PutIdempotency over an expired record: %v, want it replaced", err)
	}
	if got == nil || got.JobID != "job_new" {
		t.Errorf("PutIdempotency over an expired record returned %+v", got)
	}
	got, err = s.PutIdempotency(ctx, idemRecord("key_1", "idem", "job_third", later.Add(48*time.Hour)), later.Add(time.Minute))
	if !errors.Is(err, job.ErrExists) || got == nil || got.JobID != "job_new" {
		t.Errorf("PutIdempotency after replacement = %+v, %v; want job_new and ErrExists", got, err)
	}
}

func storeIdempotencyConcurrent(t *testing.T, s job.Store) {
	const racers = 32
	ctx := context.Background()
	exp := t0.Add(24 * time.Hour)
	type result struct {
		mine string
		got  *job.IdempotencyRecord
		err  error
	}
	results := make([]result, racers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			mine := fmt.Sprintf("job_%02d", i)
			<-start
			got, err := s.PutIdempotency(ctx, idemRecord("key_1", "race", mine, exp), t0)
			results[i] = result{mine, got, err}
		})
	}
	close(start)
	wg.Wait()

	var winners []string
	for _, r := range results {
		switch {
		case r.err == nil:
			winners = append(winners, r.mine)
		case !errors.Is(r.err, job.ErrExists):
			t.Errorf("%s: unexpected error %v", r.mine, r.err)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("winners = %v, want exactly one", winners)
	}
	for _, r := range results {
		if r.got == nil || r.got.JobID != winners[0] || r.got.RequestHash != "hash-"+winners[0] {
			t.Errorf("%s saw %+v, want the winner %s's record", r.mine, r.got, winners[0])
		}
	}
}

func storeCanceledContext(t *testing.T, s job.Store) {
	bg := context.Background()
	ctx, cancel := context.WithCancel(bg)
	cancel()

	if err := s.CreateJob(ctx, simpleJob("job_cx", job.Queued, t0)); !errors.Is(err, context.Canceled) {
		t.Errorf("CreateJob(canceled): err = %v, want context.Canceled", err)
	}
	if _, err := s.GetJob(bg, "job_cx"); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("CreateJob(canceled) stored the job: GetJob err = %v", err)
	}

	mustCreate(t, s, simpleJob("job_cy", job.Queued, t0))
	j := mustGet(t, s, "job_cy")
	j.Status = job.Processing
	if err := s.UpdateJob(ctx, j); !errors.Is(err, context.Canceled) {
		t.Errorf("UpdateJob(canceled): err = %v, want context.Canceled", err)
	}
	if got := mustGet(t, s, "job_cy"); got.Status != job.Queued || got.Version != 1 {
		t.Errorf("UpdateJob(canceled) changed the job: status %s version %d", got.Status, got.Version)
	}
	if _, err := s.GetJob(ctx, "job_cy"); !errors.Is(err, context.Canceled) {
		t.Errorf("GetJob(canceled): err = %v, want context.Canceled", err)
	}
	if _, err := s.ListJobs(ctx, job.Queued, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("ListJobs(canceled): err = %v, want context.Canceled", err)
	}
	if _, err := s.ListPendingWebhooks(ctx, t0, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("ListPendingWebhooks(canceled): err = %v, want context.Canceled", err)
	}
	if err := s.DeleteJob(ctx, "job_cy"); !errors.Is(err, context.Canceled) {
		t.Errorf("DeleteJob(canceled): err = %v, want context.Canceled", err)
	}
	mustGet(t, s, "job_cy")

	rec := idemRecord("key_1", "idem-cx", "job_cx", t0.Add(time.Hour))
	if _, err := s.PutIdempotency(ctx, rec, t0); !errors.Is(err, context.Canceled) {
		t.Errorf("PutIdempotency(canceled): err = %v, want context.Canceled", err)
	}
	if _, err := s.PutIdempotency(bg, rec, t0); err != nil {
		t.Errorf("PutIdempotency(canceled) stored the record: a later put got %v", err)
	}
}
