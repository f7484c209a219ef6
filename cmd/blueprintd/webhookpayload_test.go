package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"blueprint/internal/apitest"
	"blueprint/internal/job"
	"blueprint/internal/localblob"
	"blueprint/internal/webhook"
)

// TestWebhookPayloadUnbuildable deletes a done job's results blob while its
// webhook waits for a retry: every later attempt cannot build the payload,
// and each is recorded as a failed attempt followed by the schedule's wait
// (not retried on every poll), with last_error saying why, until the
// delivery is given up after 1 + MaxRetries attempts.
func TestWebhookPayloadUnbuildable(t *testing.T) {
	clock := apitest.NewClock(time.Now().UTC())
	sink := newSink(t, 500)
	dir := t.TempDir()
	e := startEnv(t, dir, options{runner: runnerOpts(), engine: scriptedEngine(), clock: clock})
	ctx := context.Background()
	id := doneJob(t, e, keyA, map[string]any{"callback_url": sink.URL})
	if d := sink.Next(t); d.Status != 500 {
		t.Fatalf("first attempt answered %d", d.Status)
	}
	waitDelivery(t, e, id, func(d *job.Delivery) bool { return d.Attempts == 1 })

	// The results are lost from storage, and a restart clears the
	// service's memory of them (it keeps decoded pages of done jobs,
	// whose results never change while the job is readable).
	e.stop()
	blobs, err := localblob.New(filepath.Join(dir, blobsDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := blobs.Delete(ctx, job.ResultKey(id, 0)); err != nil {
		t.Fatal(err)
	}
	e = startEnv(t, dir, options{runner: runnerOpts(), engine: scriptedEngine(), clock: clock})
	for attempt := 2; attempt <= 1+webhook.MaxRetries; attempt++ {
		// Not due yet: the runner polls every 20 ms but must wait until the
		// retry is due, so the count does not move while the clock stands.
		before, err := e.app.store.GetJob(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if before.Webhook.NextAttemptAt.After(clock.Now()) {
			time.Sleep(100 * time.Millisecond)
			if j, _ := e.app.store.GetJob(ctx, id); j.Webhook.Attempts != attempt-1 {
				t.Fatalf("attempt %d made before its wait ran out: %+v", attempt, j.Webhook)
			}
		}
		_, hi := webhook.RetrySchedule.Bounds(attempt - 1)
		clock.Advance(hi + time.Second)
		waitDelivery(t, e, id, func(d *job.Delivery) bool { return d.Attempts == attempt })
	}
	clock.Advance(2 * webhook.RetrySchedule[webhook.MaxRetries-1])
	select {
	case d := <-sink.Got:
		t.Fatalf("a delivery went out without its payload: %s", d.Body)
	case <-time.After(300 * time.Millisecond):
	}
	j, err := e.app.store.GetJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	w := j.Webhook
	if w.GaveUpAt == nil || w.Pending() || w.DeliveredAt != nil || w.Attempts != 1+webhook.MaxRetries {
		t.Fatalf("delivery record: %+v", w)
	}
	if !strings.Contains(w.LastError, "payload could not be built") || !strings.Contains(w.LastError, "not found") {
		t.Fatalf("last_error does not say why: %q", w.LastError)
	}
}
