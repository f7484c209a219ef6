// Package runner is the embedded, in-process implementation of job.Flow:
// worker goroutines process queued jobs, deliver due webhooks, sweep
// expired jobs and tidy storage (expired idempotency records, temporary
// files of interrupted uploads). It keeps no state of its own that matters: everything is in
// the job store, so after a crash or kill -9 a new Runner resumes queued and
// processing jobs and pending webhooks from the store.
package runner

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"blueprint/internal/job"
)

// Work is what the runner drives; *job.Service implements it.
type Work interface {
	// Process runs a job to done or failed; it must be idempotent.
	Process(ctx context.Context, jobID string) error
	// DeliverWebhook makes a due delivery attempt of a job's webhook.
	DeliverWebhook(ctx context.Context, jobID string) error
	// Sweep expires and purges jobs.
	Sweep(ctx context.Context) error
}

// IdempotencyPruner deletes expired idempotency records and says how many
// it deleted; *boltstore.Store implements it. Expired records already
// count as absent, so pruning only reclaims space.
type IdempotencyPruner interface {
	PruneIdempotency(ctx context.Context, now time.Time) (int, error)
}

// TempRemover removes the temporary files of writes that a killed process
// left behind, those last modified more than olderThan before now, and
// says how many it removed; *localblob.Store implements it.
type TempRemover interface {
	RemoveStaleTemp(ctx context.Context, now time.Time, olderThan time.Duration) (int, error)
}

// StaleTempAge is how old a temporary blob file must be before the sweep
// removes it: far above the longest upload (a 50 MB PUT within the
// server's 10 min read timeout), so a write in flight is never touched.
const StaleTempAge = time.Hour

// Options tune a Runner; zero values take the defaults.
type Options struct {
	// Workers is the number of jobs processed at once (default 1: a job's
	// pages are rendered and detected one at a time, and the machine's
	// cores are shared with the HTTP server). With two or more, one API
	// key's jobs hold at most Workers-1 of them, so another key's job
	// never waits behind every worker; queued jobs are taken in turn
	// across keys.
	Workers int
	// Poll is how often the store is scanned for queued jobs and due
	// webhooks (default 1 s).
	Poll time.Duration
	// SweepEvery is how often expiry runs (default 1 min).
	SweepEvery time.Duration
	// Clock tells the time of webhook due dates and of storage tidying
	// (default job.SystemClock).
	Clock  job.Clock
	Logger *slog.Logger
	// Idempotency, when set, is pruned at start and on every sweep.
	Idempotency IdempotencyPruner
	// Temp, when set, loses its temporary files older than StaleTempAge at
	// start and on every sweep.
	Temp TempRemover
}

// Runner processes jobs in this process. Create it with New, hand it to
// job.NewService as the Flow, then call Run.
type Runner struct {
	store job.Store
	opt   Options
	log   *slog.Logger

	mu      sync.Mutex
	queue   []queued
	queued  map[string]bool // in queue or being processed
	running map[string]int  // jobs being processed, per owner
	served  map[string]int64
	turn    int64 // counts starts, for served
	wake    chan struct{}
	webhook chan struct{}
}

// queued is a job waiting for a worker, with the API key that owns it (""
// when the store could not say).
type queued struct {
	id, owner string
}

// New returns a Runner reading the store.
func New(store job.Store, opt Options) *Runner {
	if opt.Workers <= 0 {
		opt.Workers = 1
	}
	if opt.Poll <= 0 {
		opt.Poll = time.Second
	}
	if opt.SweepEvery <= 0 {
		opt.SweepEvery = time.Minute
	}
	if opt.Clock == nil {
		opt.Clock = job.SystemClock{}
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	return &Runner{store: store, opt: opt, log: opt.Logger, queued: map[string]bool{},
		running: map[string]int{}, served: map[string]int64{},
		wake: make(chan struct{}, 1), webhook: make(chan struct{}, 1)}
}

// Enqueue implements job.Flow: it schedules the job for processing. The
// job is already recorded as queued in the store, which is what makes the
// schedule durable; the in-memory queue only avoids waiting for the next
// scan.
func (r *Runner) Enqueue(ctx context.Context, jobID string) error {
	r.push(ctx, jobID)
	return nil
}

func (r *Runner) push(ctx context.Context, id string) {
	r.mu.Lock()
	known := r.queued[id]
	r.mu.Unlock()
	if known {
		return
	}
	owner := ""
	if j, err := r.store.GetJob(ctx, id); err == nil {
		owner = j.Owner
	}
	r.mu.Lock()
	if !r.queued[id] {
		r.queued[id] = true
		r.queue = append(r.queue, queued{id: id, owner: owner})
	}
	r.mu.Unlock()
	signal(r.wake)
}

// ownerShare is the most workers one owner's jobs may hold at once: all
// but one when there are two or more, so that another key's job never
// waits for every worker to be taken by one key's.
func (r *Runner) ownerShare() int {
	return max(1, r.opt.Workers-1)
}

// pop takes the next job to process, sharing the workers between owners:
// of the jobs whose owner holds fewer than ownerShare workers, one of the
// owner with the fewest jobs running, ties going to the owner served
// longest ago, and that owner's oldest job first.
func (r *Runner) pop() (queued, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	best := -1
	for i, q := range r.queue {
		if q.owner != "" && r.running[q.owner] >= r.ownerShare() {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := r.queue[best]
		if rq, rb := r.running[q.owner], r.running[b.owner]; rq < rb || rq == rb && r.served[q.owner] < r.served[b.owner] {
			best = i
		}
	}
	if best < 0 {
		return queued{}, false
	}
	q := r.queue[best]
	r.queue = slices.Delete(r.queue, best, best+1)
	r.running[q.owner]++
	r.turn++
	r.served[q.owner] = r.turn
	return q, true
}

func (r *Runner) finish(q queued) {
	r.mu.Lock()
	delete(r.queued, q.id)
	if r.running[q.owner]--; r.running[q.owner] <= 0 {
		delete(r.running, q.owner)
	}
	if len(r.queue) == 0 {
		clear(r.served) // nothing waits: forget the turns
	}
	r.mu.Unlock()
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Run works until ctx is cancelled, then waits for the jobs in progress to
// stop (they stay processing in the store and resume on the next Run). It
// resumes processing and queued jobs first, and sweeps (expiry, then
// Options.Idempotency and Options.Temp) once at start and every
// Options.SweepEvery.
func (r *Runner) Run(ctx context.Context, w Work) error {
	r.scanJobs(ctx, job.Processing)
	r.scanJobs(ctx, job.Queued)
	var wg sync.WaitGroup
	for range r.opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.worker(ctx, w)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.webhooks(ctx, w)
	}()
	r.sweep(ctx, w)
	poll := time.NewTicker(r.opt.Poll)
	defer poll.Stop()
	sweep := time.NewTicker(r.opt.SweepEvery)
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return nil
		case <-poll.C:
			r.scanJobs(ctx, job.Queued)
			signal(r.webhook)
		case <-sweep.C:
			r.sweep(ctx, w)
		}
	}
}

func (r *Runner) sweep(ctx context.Context, w Work) {
	if err := w.Sweep(ctx); err != nil && ctx.Err() == nil {
		r.log.Error("expiry sweep", "err", err)
	}
	if r.opt.Idempotency != nil {
		n, err := r.opt.Idempotency.PruneIdempotency(ctx, r.opt.Clock.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			r.log.Error("prune idempotency records", "err", err)
		case n > 0:
			r.log.Info("pruned expired idempotency records", "count", n)
		}
	}
	if r.opt.Temp != nil {
		n, err := r.opt.Temp.RemoveStaleTemp(ctx, r.opt.Clock.Now(), StaleTempAge)
		switch {
		case err != nil && ctx.Err() == nil:
			r.log.Error("remove stale temporary blob files", "err", err)
		case n > 0:
			r.log.Info("removed stale temporary blob files", "count", n)
		}
	}
}

func (r *Runner) scanJobs(ctx context.Context, state job.State) {
	ids, err := r.store.ListJobs(ctx, state, 0)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Error("scan jobs", "state", state, "err", err)
		}
		return
	}
	for _, id := range ids {
		r.push(ctx, id)
	}
}

func (r *Runner) worker(ctx context.Context, w Work) {
	for {
		q, ok := r.pop()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-r.wake:
				continue
			}
		}
		if ctx.Err() != nil {
			return
		}
		err := w.Process(ctx, q.id)
		r.finish(q)
		if err != nil && ctx.Err() == nil {
			r.log.Error("process job", "job_id", q.id, "err", err)
		}
		signal(r.wake)    // another worker may be waiting for an item queued meanwhile
		signal(r.webhook) // a finished job may have a webhook to send
	}
}

// webhooks delivers due webhooks one at a time whenever signalled.
func (r *Runner) webhooks(ctx context.Context, w Work) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.webhook:
		}
		ids, err := r.store.ListPendingWebhooks(ctx, r.opt.Clock.Now(), 100)
		if err != nil {
			if ctx.Err() == nil {
				r.log.Error("scan webhooks", "err", err)
			}
			continue
		}
		for _, id := range ids {
			if err := w.DeliverWebhook(ctx, id); err != nil && !errors.Is(err, context.Canceled) {
				r.log.Error("deliver webhook", "job_id", id, "err", err)
			}
		}
	}
}
