package boltstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"blueprint/internal/job"
	"blueprint/internal/job/jobtest"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func TestStoreConformance(t *testing.T) {
	jobtest.RunStoreConformance(t, func(t *testing.T) job.Store { return newStore(t) })
}

func TestHandoffsConformance(t *testing.T) {
	jobtest.RunHandoffsConformance(t, func(t *testing.T) job.Handoffs { return newStore(t) })
}

// TestPruneHandoffs: the sweep drops handoff records once they are
// job.HandoffGrace past their expiry, and keeps younger ones (a late
// exchange of those is still told "expired"), used or not.
func TestPruneHandoffs(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for i, exp := range []time.Time{t0, t0.Add(time.Hour), t0.Add(2 * time.Hour)} {
		if err := s.PutHandoff(ctx, job.Handoff{TokenHash: fmt.Sprintf("%064d", i), KeyID: "k", JobID: "j", ExpiresAt: exp}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.TakeHandoff(ctx, fmt.Sprintf("%064d", 1), t0); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneIdempotency(ctx, t0.Add(job.HandoffGrace+time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("prune: %d, %v; want 2 handoffs dropped", n, err)
	}
	if _, err := s.TakeHandoff(ctx, fmt.Sprintf("%064d", 2), t0.Add(3*time.Hour)); !errors.Is(err, job.ErrHandoffExpired) {
		t.Errorf("the younger record: %v, want ErrHandoffExpired", err)
	}
	if _, err := s.TakeHandoff(ctx, fmt.Sprintf("%064d", 0), t0.Add(3*time.Hour)); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("a pruned record: %v, want ErrNotFound", err)
	}
}

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func TestSecondOpenFailsClearly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	s2, err := Open(path)
	if err == nil {
		s2.Close()
		t.Fatal("second Open of a held file succeeded")
	}
	if !errors.Is(err, berrors.ErrTimeout) || !strings.Contains(err.Error(), "locked by another process") {
		t.Errorf("second Open: %v; want a lock timeout that says so", err)
	}
	if waited := time.Since(start); waited < LockTimeout/2 || waited > LockTimeout+5*time.Second {
		t.Errorf("second Open gave up after %s, want about %s", waited, LockTimeout)
	}
}

func TestOpenReportsUnusablePath(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err == nil {
		t.Error("Open(a directory) succeeded")
	}
	notDB := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(notDB, bytes.Repeat([]byte("not a bolt file "), 1024), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(notDB); err == nil {
		s.Close()
		t.Error("Open(a file that is not a database) succeeded")
	}
}

func TestRejectsJobWithoutID(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if err := s.CreateJob(ctx, &job.Job{Status: job.Queued}); err == nil {
		t.Error("CreateJob without an ID succeeded")
	}
	if err := s.CreateJob(ctx, nil); err == nil {
		t.Error("CreateJob(nil) succeeded")
	}
	if err := s.UpdateJob(ctx, nil); err == nil {
		t.Error("UpdateJob(nil) succeeded")
	}
}

// TestReopenKeepsJobsAndIndexes closes the store and opens the file again.
// TestReopenKeepsJobsAndIndexes reopens a file: its jobs, indexes and
// idempotency records are there; the owner index, removed before closing
// as in a file written before it existed, is rebuilt.
func TestReopenKeepsJobsAndIndexes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "jobs.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"b", "a", "c"} {
		j := &job.Job{ID: id, Owner: "k1", Status: job.Queued, CreatedAt: t0.Add(time.Duration(i) * time.Second)}
		j.Webhook = &job.Delivery{EventID: "evt_" + id, NextAttemptAt: t0.Add(-time.Duration(i) * time.Second)}
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	rec := job.IdempotencyRecord{Owner: "k", Key: "i", JobID: "a", ExpiresAt: t0.Add(time.Hour)}
	if _, err := s.PutIdempotency(ctx, rec, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketByOwner) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ids, err := s.ListJobs(ctx, job.Queued, 0); err != nil || !slices.Equal(ids, []string{"b", "a", "c"}) {
		t.Errorf("ListJobs after reopen = %v, %v", ids, err)
	}
	if ids, err := s.ListPendingWebhooks(ctx, t0, 0); err != nil || !slices.Equal(ids, []string{"c", "a", "b"}) {
		t.Errorf("ListPendingWebhooks after reopen = %v, %v; want earliest first", ids, err)
	}
	if ids, err := s.ListOwnerJobs(ctx, "k1", job.JobCursor{}, 0); err != nil || !slices.Equal(ids, []string{"c", "a", "b"}) {
		t.Errorf("ListOwnerJobs after reopen = %v, %v; want newest first", ids, err)
	}
	rec.JobID = "other"
	if got, err := s.PutIdempotency(ctx, rec, t0); !errors.Is(err, job.ErrExists) || got.JobID != "a" {
		t.Errorf("idempotency record after reopen: %+v, %v", got, err)
	}
}

func TestTimesBeforeEpochSortFirst(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for id, at := range map[string]time.Time{
		"old":  time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC),
		"zero": {},
		"new":  t0,
		"mid":  time.Unix(0, 1).UTC(),
	} {
		if err := s.CreateJob(ctx, &job.Job{ID: id, Status: job.Done, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	if ids, err := s.ListJobs(ctx, job.Done, 0); err != nil || !slices.Equal(ids, []string{"zero", "old", "mid", "new"}) {
		t.Errorf("ListJobs = %v, %v; want [zero old mid new]", ids, err)
	}
}

func TestPruneIdempotency(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for i := range 10 {
		rec := job.IdempotencyRecord{Owner: "k", Key: fmt.Sprint(i), JobID: fmt.Sprint("job", i),
			ExpiresAt: t0.Add(time.Duration(i) * time.Minute)}
		if _, err := s.PutIdempotency(ctx, rec, t0.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	// Records 0..4 have expired at t0+4m (one expires exactly then).
	n, err := s.PruneIdempotency(ctx, t0.Add(4*time.Minute))
	if err != nil || n != 5 {
		t.Fatalf("PruneIdempotency = %d, %v; want 5", n, err)
	}
	for i := range 10 {
		rec := job.IdempotencyRecord{Owner: "k", Key: fmt.Sprint(i), JobID: "probe", ExpiresAt: t0.Add(time.Hour)}
		_, err := s.PutIdempotency(ctx, rec, t0.Add(-time.Hour))
		if pruned := i < 5; pruned != (err == nil) {
			t.Errorf("record %d: pruned %v but PutIdempotency err = %v", i, pruned, err)
		}
	}
}

// crashEnv names the database file the crash child writes to.
const crashEnv = "BOLTSTORE_CRASH_CHILD_DB"

// TestCrashSafety writes from a child process, kills it with SIGKILL in the
// middle of its writes, and checks that every write the child acknowledged
// (reported after its commit returned) is in the reopened file, which must
// pass bbolt's consistency check.
func TestCrashSafety(t *testing.T) {
	if path := os.Getenv(crashEnv); path != "" {
		crashChild(t, path)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "jobs.db")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCrashSafety$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	const killAfter = 500 // acknowledged writes
	acked := map[string][]string{}
	n := 0
	killed := false
	deadline := time.AfterFunc(15*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		step, id, ok := strings.Cut(sc.Text(), " ")
		if !ok || !slices.Contains([]string{"create", "update", "idem", "delete"}, step) {
			continue // test framework output
		}
		acked[step] = append(acked[step], id)
		if n++; n == killAfter {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("child acknowledged only %d writes before stopping: %v", n, err)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != -1 {
		t.Fatalf("child did not die by the signal: %v", err)
	}
	t.Logf("child acknowledged %d writes before SIGKILL (%d jobs created)", n, len(acked["create"]))

	s, err := Open(path)
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer s.Close()
	err = s.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatalf("database check after kill -9: %v", err)
	}
	bg := context.Background()
	deleted := map[string]bool{}
	for _, id := range acked["delete"] {
		deleted[id] = true
		if _, err := s.GetJob(bg, id); !errors.Is(err, job.ErrNotFound) {
			t.Errorf("acknowledged delete of %s lost: %v", id, err)
		}
	}
	updated := map[string]bool{}
	for _, id := range acked["update"] {
		updated[id] = true
	}
	processing, err := s.ListJobs(bg, job.Processing, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range acked["create"] {
		if deleted[id] {
			continue
		}
		j, err := s.GetJob(bg, id)
		if errors.Is(err, job.ErrNotFound) && childDeletes(id) && slices.Contains(acked["idem"], id) {
			continue // its delete committed; the kill came before the child said so
		}
		if err != nil {
			t.Errorf("acknowledged create of %s lost: %v", id, err)
			continue
		}
		if updated[id] && (j.Version != 2 || j.Status != job.Processing || !slices.Contains(processing, id)) {
			t.Errorf("acknowledged update of %s lost: version %d status %s", id, j.Version, j.Status)
		}
	}
	for _, id := range acked["idem"] {
		rec := job.IdempotencyRecord{Owner: "owner", Key: "key-" + id, JobID: "probe", ExpiresAt: t0.Add(time.Hour)}
		if got, err := s.PutIdempotency(bg, rec, t0); !errors.Is(err, job.ErrExists) || got.JobID != id {
			t.Errorf("acknowledged idempotency record of %s lost: %+v, %v", id, got, err)
		}
	}
	// The store keeps working.
	if err := s.CreateJob(bg, &job.Job{ID: "after", Status: job.Queued, CreatedAt: t0}); err != nil {
		t.Errorf("write after recovery: %v", err)
	}
}

// childDeletes reports whether the crash child deletes the job it created
// as id ("w<worker>-<i>"), after its idempotency record: every fifth.
func childDeletes(id string) bool {
	_, n, _ := strings.Cut(id, "-")
	i, err := strconv.Atoi(n)
	return err == nil && i%5 == 4
}

// crashChild writes jobs from several goroutines until it is killed,
// printing one line per committed write. It gives up after a while so that
// an orphan cannot run forever.
func crashChild(t *testing.T, path string) {
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	ack := func(step, id string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, "%s %s\n", step, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				id := fmt.Sprintf("w%d-%06d", w, i)
				j := &job.Job{ID: id, Owner: "owner", Status: job.Queued, CreatedAt: t0.Add(time.Duration(i) * time.Millisecond),
					Pages: make([]job.Page, 50)} // some bulk, so that commits span pages
				if err := s.CreateJob(ctx, j); err != nil {
					t.Error(err)
					return
				}
				ack("create", id)
				j.Status = job.Processing
				if err := s.UpdateJob(ctx, j); err != nil {
					t.Error(err)
					return
				}
				ack("update", id)
				rec := job.IdempotencyRecord{Owner: "owner", Key: "key-" + id, JobID: id, ExpiresAt: t0.Add(time.Hour)}
				if _, err := s.PutIdempotency(ctx, rec, t0); err != nil {
					t.Error(err)
					return
				}
				ack("idem", id)
				if childDeletes(id) {
					if err := s.DeleteJob(ctx, id); err != nil {
						t.Error(err)
						return
					}
					ack("delete", id)
				}
			}
		})
	}
	wg.Wait()
	_ = s.Close()
}
