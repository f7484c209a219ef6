package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"blueprint/internal/boltstore"
	"blueprint/internal/job"
	"blueprint/internal/localblob"
)

// recorder is a Work that moves jobs to done in the real store and records
// the calls it gets.
type recorder struct {
	store job.Store
	mu    sync.Mutex
	calls map[string]int
	hooks map[string]int
	sweep int
}

func (r *recorder) Process(ctx context.Context, id string) error {
	r.mu.Lock()
	r.calls[id]++
	r.mu.Unlock()
	j, err := r.store.GetJob(ctx, id)
	if err != nil {
		return err
	}
	j.Status = job.Done
	return r.store.UpdateJob(ctx, j)
}

func (r *recorder) DeliverWebhook(ctx context.Context, id string) error {
	j, err := r.store.GetJob(ctx, id)
	if err != nil {
		return err
	}
	now := time.Now()
	j.Webhook.DeliveredAt = &now
	r.mu.Lock()
	r.hooks[id]++
	r.mu.Unlock()
	return r.store.UpdateJob(ctx, j)
}

func (r *recorder) Sweep(ctx context.Context) error {
	r.mu.Lock()
	r.sweep++
	r.mu.Unlock()
	return nil
}

func (r *recorder) snapshot() (map[string]int, map[string]int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, h := map[string]int{}, map[string]int{}
	for k, v := range r.calls {
		c[k] = v
	}
	for k, v := range r.hooks {
		h[k] = v
	}
	return c, h, r.sweep
}

// TestResumeAndEnqueue checks that a new runner picks up queued and
// processing jobs and pending webhooks left in the store, processes each
// job once, and processes jobs enqueued later.
func TestResumeAndEnqueue(t *testing.T) {
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	now := time.Now().UTC()
	mk := func(id string, st job.State, hook *job.Delivery) {
		if err := store.CreateJob(ctx, &job.Job{ID: id, Owner: "o", Status: st, CreatedAt: now, Webhook: hook}); err != nil {
			t.Fatal(err)
		}
	}
	mk("queued", job.Queued, nil)
	mk("processing", job.Processing, nil)
	mk("waiting", job.AwaitingUpload, nil)
	mk("hook-due", job.Done, &job.Delivery{EventID: "evt_1", NextAttemptAt: now.Add(-time.Second)})
	mk("hook-later", job.Done, &job.Delivery{EventID: "evt_2", NextAttemptAt: now.Add(time.Hour)})

	w := &recorder{store: store, calls: map[string]int{}, hooks: map[string]int{}}
	r := New(store, Options{Workers: 2, Poll: 10 * time.Millisecond, SweepEvery: time.Hour})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx, w) }()

	mk("later", job.Queued, nil)
	if err := r.Enqueue(ctx, "later"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		calls, hooks, _ := w.snapshot()
		if calls["queued"] == 1 && calls["processing"] == 1 && calls["later"] == 1 && hooks["hook-due"] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("calls %v hooks %v", calls, hooks)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // several polls more
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	calls, hooks, sweeps := w.snapshot()
	for id, n := range calls {
		if n != 1 || id == "waiting" {
			t.Errorf("Process(%s) called %d times", id, n)
		}
	}
	if hooks["hook-later"] != 0 || hooks["hook-due"] != 1 {
		t.Errorf("webhook calls %v", hooks)
	}
	if sweeps != 1 {
		t.Errorf("%d sweeps at start, want 1", sweeps)
	}
}

// The storage adapters of local mode are what the runner tidies.
var (
	_ IdempotencyPruner = (*boltstore.Store)(nil)
	_ TempRemover       = (*localblob.Store)(nil)
)

// TestSweepTidiesStorage checks that the start-up sweep prunes expired
// idempotency records (and keeps live ones) and removes temporary blob
// files older than StaleTempAge (and keeps fresh ones), on the real store
// and blob directory.
func TestSweepTidiesStorage(t *testing.T) {
	dir := t.TempDir()
	store, err := boltstore.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	blobRoot := filepath.Join(dir, "blobs")
	blobs, err := localblob.New(blobRoot)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now().UTC()
	for _, rec := range []job.IdempotencyRecord{
		{Owner: "o", Key: "old", JobID: "j1", ExpiresAt: now.Add(-time.Minute)},
		{Owner: "o", Key: "live", JobID: "j2", ExpiresAt: now.Add(time.Hour)},
	} {
		if _, err := store.PutIdempotency(ctx, rec, now.Add(-2*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(blobRoot, "jobs", "j1"), 0o700); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(blobRoot, "jobs", "j1", ".tmp-stale")
	fresh := filepath.Join(blobRoot, ".tmp-fresh")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(stale, now.Add(-StaleTempAge-time.Minute), now.Add(-StaleTempAge-time.Minute)); err != nil {
		t.Fatal(err)
	}

	w := &recorder{store: store, calls: map[string]int{}, hooks: map[string]int{}}
	r := New(store, Options{Poll: 10 * time.Millisecond, SweepEvery: time.Hour, Idempotency: store, Temp: blobs})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx, w) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(stale); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("stale temporary file still there")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh temporary file: %v", err)
	}
	if n, err := store.PruneIdempotency(ctx, now); err != nil || n != 0 {
		t.Errorf("records left for a second prune: %d, %v", n, err)
	}
	_, err = store.PutIdempotency(ctx, job.IdempotencyRecord{Owner: "o", Key: "live", JobID: "j3", ExpiresAt: now.Add(time.Hour)}, now)
	if !errors.Is(err, job.ErrExists) {
		t.Errorf("live record was pruned: %v", err)
	}
}

// gate is a Work whose Process blocks until every expected job is in
// Process at once, so it tells whether the workers run side by side.
type gate struct {
	started chan string
	release chan struct{}
}

func (g *gate) Process(ctx context.Context, id string) error {
	g.started <- id
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return nil
}

func (g *gate) DeliverWebhook(context.Context, string) error { return nil }
func (g *gate) Sweep(context.Context) error                  { return nil }

// TestWorkersShareTheQueue checks that with several idle workers, jobs
// enqueued together all start at once, without waiting for the next store
// scan: each wake-up reaches a different idle worker.
func TestWorkersShareTheQueue(t *testing.T) {
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	const workers = 3
	g := &gate{started: make(chan string, workers), release: make(chan struct{})}
	r := New(store, Options{Workers: workers, Poll: time.Hour, SweepEvery: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, g) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	time.Sleep(50 * time.Millisecond) // the workers are idle, waiting for a wake-up
	for _, id := range []string{"a", "b", "c"} {
		if err := r.Enqueue(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	for i := range workers {
		select {
		case <-g.started:
		case <-time.After(2 * time.Second):
			t.Fatalf("%d of %d jobs started; the others wait for a scan an hour away", i, workers)
		}
	}
	close(g.release)
}

// TestOwnersShareTheWorkers: with two workers and key A's three jobs
// queued first, key B's job still starts while A's first job runs (A holds
// at most one worker while another key waits), and A's other jobs follow.
func TestOwnersShareTheWorkers(t *testing.T) {
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx, cancel := context.WithCancel(context.Background())
	for _, j := range []struct{ id, owner string }{{"a1", "A"}, {"a2", "A"}, {"a3", "A"}, {"b1", "B"}} {
		if err := store.CreateJob(ctx, &job.Job{ID: j.id, Owner: j.owner, Status: job.Queued, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	g := &gate{started: make(chan string, 4), release: make(chan struct{})}
	r := New(store, Options{Workers: 2, Poll: time.Hour, SweepEvery: time.Hour})
	for _, id := range []string{"a1", "a2", "a3", "b1"} { // A's jobs first, as a scan finds them
		if err := r.Enqueue(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, g) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	var first []string
	for range 2 {
		select {
		case id := <-g.started:
			first = append(first, id)
		case <-time.After(2 * time.Second):
			t.Fatalf("only %v started with two workers", first)
		}
	}
	slices.Sort(first)
	if !slices.Equal(first, []string{"a1", "b1"}) {
		t.Fatalf("the two workers took %v, want a1 and b1: one key held every worker while another waited", first)
	}
	close(g.release) // every job may now finish: A's others run
	for range 2 {
		select {
		case <-g.started:
		case <-time.After(2 * time.Second):
			t.Fatal("A's remaining jobs did not run once the workers were free")
		}
	}
}
