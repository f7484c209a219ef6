package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"blueprint/internal/apitest"
	"blueprint/internal/boltstore"
	"blueprint/internal/job"
	"blueprint/internal/webhook"
)

// retryWait waits until the job's delivery has made retry failed
// attempts and returns the wait before retry number retry, checking that
// it lies within the schedule's jitter range: the clock stands still, so
// the wait is the time from now to the due time.
func retryWait(t *testing.T, e *testEnv, clock *apitest.Clock, id string, retry int) time.Duration {
	t.Helper()
	waitDelivery(t, e, id, func(d *job.Delivery) bool { return d.Attempts == retry })
	j, err := e.app.store.GetJob(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	wait := j.Webhook.NextAttemptAt.Sub(clock.Now())
	if lo, hi := webhook.RetrySchedule.Bounds(retry); wait < lo || wait > hi {
		t.Fatalf("retry %d waits %s, outside [%s, %s]", retry, wait, lo, hi)
	}
	return wait
}

// advanceToRetry is retryWait, then moves the clock to the due time.
func advanceToRetry(t *testing.T, e *testEnv, clock *apitest.Clock, id string, retry int) {
	t.Helper()
	clock.Advance(retryWait(t, e, clock, id, retry))
}

// outageReceiver is a partner's endpoint that answers 503 until the fake
// clock reaches up, and 200 from then on; it reports every delivery.
type outageReceiver struct {
	URL string
	Got chan apitest.Delivery
}

func newOutageReceiver(t *testing.T, clock *apitest.Clock, up time.Time) *outageReceiver {
	r := &outageReceiver{Got: make(chan apitest.Delivery, 16)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		now := clock.Now()
		if err := webhook.Verify([]byte(secretA), req.Header.Get(webhook.SignatureHeader), body, now); err != nil {
			t.Errorf("delivery at %s: %v", now, err)
		}
		status := http.StatusOK
		if now.Before(up) {
			status = http.StatusServiceUnavailable
		}
		w.WriteHeader(status)
		r.Got <- apitest.Delivery{Header: req.Header.Clone(), Body: body, Status: status}
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// next waits for the next delivery.
func (r *outageReceiver) next(t *testing.T) apitest.Delivery {
	t.Helper()
	select {
	case d := <-r.Got:
		return d
	case <-time.After(30 * time.Second):
		t.Fatal("no webhook delivery")
		return apitest.Delivery{}
	}
}

// TestWebhookRetriesOverHours drives a job's webhook, on a fake clock,
// against a receiver that is down for the first hours after the job is
// done: the retries follow the schedule, each within its jitter range, and
// the event is delivered by the first retry that the schedule places after
// the outage whatever the jitter, with one event id throughout.
func TestWebhookRetriesOverHours(t *testing.T) {
	for _, c := range []struct {
		down      time.Duration
		wantRetry int // the retry that delivers
	}{
		{2 * time.Hour, 4},
		{12 * time.Hour, webhook.MaxRetries},
	} {
		t.Run(fmt.Sprintf("down %s", c.down), func(t *testing.T) {
			// The jitter cannot move the delivering retry: the retry before
			// it comes before the end of the outage at the latest, and it
			// after the end at the earliest.
			var earliest, latest time.Duration
			for k := 1; k <= c.wantRetry; k++ {
				lo, hi := webhook.RetrySchedule.Bounds(k)
				if k < c.wantRetry {
					latest += hi
				}
				earliest += lo
			}
			if latest >= c.down || earliest < c.down {
				t.Fatalf("the schedule puts retry %d at %s or later and retry %d at %s or earlier: not sure to deliver at retry %d after %s down",
					c.wantRetry, earliest, c.wantRetry-1, latest, c.wantRetry, c.down)
			}

			clock := apitest.NewClock(time.Now().UTC())
			start := clock.Now()
			rec := newOutageReceiver(t, clock, start.Add(c.down))
			e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: scriptedEngine(), clock: clock})
			id := doneJob(t, e, keyA, map[string]any{"callback_url": rec.URL})
			event := ""
			for attempt := 1; ; attempt++ {
				d := rec.next(t)
				if event == "" {
					event = d.Header.Get(webhook.EventIDHeader)
				}
				if got := d.Header.Get(webhook.EventIDHeader); got != event {
					t.Fatalf("attempt %d carries event id %s, the first carried %s", attempt, got, event)
				}
				if d.Status == http.StatusOK {
					if attempt != 1+c.wantRetry {
						t.Fatalf("delivered on attempt %d at +%s, want retry %d (attempt %d)", attempt, clock.Now().Sub(start), c.wantRetry, 1+c.wantRetry)
					}
					break
				}
				if attempt > webhook.MaxRetries {
					t.Fatalf("attempt %d refused at +%s and no retry is left", attempt, clock.Now().Sub(start))
				}
				advanceToRetry(t, e, clock, id, attempt)
			}
			waitDelivery(t, e, id, func(d *job.Delivery) bool {
				return d.DeliveredAt != nil && d.Attempts == 1+c.wantRetry && d.LastError == ""
			})
			if at := clock.Now().Sub(start); at < c.down {
				t.Fatalf("delivered at +%s, inside the outage of %s", at, c.down)
			}
		})
	}
}

// TestWebhookScheduleSurvivesRestart stops and restarts the local service
// while a webhook waits for a retry: the restarted service keeps the
// attempt count and due time of the store (it neither starts the schedule
// over nor sends early), and after an outage longer than every remaining
// wait it makes one attempt, not all of them, and waits the next retry's
// time from then.
func TestWebhookScheduleSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	clock := apitest.NewClock(time.Now().UTC())
	sink := newSink(t, 500, 500, 500, 500)
	opt := options{runner: runnerOpts(), engine: scriptedEngine(), clock: clock}
	e := startEnv(t, dir, opt)
	id := doneJob(t, e, keyA, map[string]any{"callback_url": sink.URL})
	event := sink.Next(t).Header.Get(webhook.EventIDHeader)
	advanceToRetry(t, e, clock, id, 1)
	if d := sink.Next(t); d.Status != 500 {
		t.Fatalf("retry 1 answered %d", d.Status)
	}
	waitDelivery(t, e, id, func(d *job.Delivery) bool { return d.Attempts == 2 })
	before, err := e.app.store.GetJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	e.stop()

	e = startEnv(t, dir, opt)
	noDelivery := func(what string) {
		t.Helper()
		select {
		case d := <-sink.Got:
			t.Fatalf("%s: a delivery went out (status %d)", what, d.Status)
		case <-time.After(300 * time.Millisecond):
		}
	}
	noDelivery("after the restart, before retry 2 is due")
	after, err := e.app.store.GetJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if after.Webhook.Attempts != 2 || !after.Webhook.NextAttemptAt.Equal(before.Webhook.NextAttemptAt) {
		t.Fatalf("the restart changed the delivery record: %+v, was %+v", after.Webhook, before.Webhook)
	}
	clock.Advance(after.Webhook.NextAttemptAt.Sub(clock.Now()) - time.Second)
	noDelivery("a second before retry 2 is due")
	clock.Advance(time.Second)
	if d := sink.Next(t); d.Header.Get(webhook.EventIDHeader) != event {
		t.Fatalf("retry 2 carries event id %s, want %s", d.Header.Get(webhook.EventIDHeader), event)
	}
	// The count goes on from the store: the next wait is retry 3's.
	retryWait(t, e, clock, id, 3)
	e.stop()

	// Down for a day: retries 3 to 6 would all have been due.
	clock.Advance(24 * time.Hour)
	e = startEnv(t, dir, opt)
	if d := sink.Next(t); d.Status != 500 {
		t.Fatalf("retry 3 answered %d", d.Status)
	}
	noDelivery("right after the overdue retry 3")
	advanceToRetry(t, e, clock, id, 4)
	if d := sink.Next(t); d.Status != 200 || d.Header.Get(webhook.EventIDHeader) != event {
		t.Fatalf("retry 4: %d, event id %s, want 200 and %s", d.Status, d.Header.Get(webhook.EventIDHeader), event)
	}
	waitDelivery(t, e, id, func(d *job.Delivery) bool { return d.DeliveredAt != nil && d.Attempts == 5 })
}

// webhooksDueNow makes every pending webhook in the store of dir (whose
// service must be stopped) due now, as if the service had been down until
// its retries were due, and returns how many it moved. The tests whose
// servers are separate processes, whose clock they cannot move, use it
// instead of waiting the retry schedule's minutes and hours.
func webhooksDueNow(t *testing.T, dir string) int {
	t.Helper()
	ctx := context.Background()
	st, err := boltstore.Open(filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UTC()
	ids, err := st.ListPendingWebhooks(ctx, now.AddDate(1, 0, 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, id := range ids {
		j, err := st.GetJob(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !j.Webhook.Pending() || !j.Webhook.NextAttemptAt.After(now) {
			continue
		}
		j.Webhook.NextAttemptAt = now
		if err := st.UpdateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		moved++
	}
	return moved
}
