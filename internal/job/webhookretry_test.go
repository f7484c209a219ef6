package job_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"blueprint/internal/boltstore"
	"blueprint/internal/job"
	"blueprint/internal/webhook"
)

// hookEnv is a Service over a real store whose jobs' callbacks go to a
// receiver that refuses every delivery.
type hookEnv struct {
	svc      *job.Service
	store    *boltstore.Store
	clock    *testClock
	received atomic.Int32
	url      string
}

func newHookEnv(t *testing.T, retries webhook.Schedule) (*hookEnv, error) {
	t.Helper()
	parts := newServiceParts(t)
	e := &hookEnv{store: parts.store, clock: &testClock{}}
	e.clock.now.Store(time.Now().UnixNano())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.received.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	e.url = srv.URL
	cfg := parts.cfg
	cfg.Clock = e.clock
	cfg.Guard = webhook.Guard{AllowPrivate: true}
	cfg.WebhookSecret = func(string) ([]byte, bool) { return []byte("whsec_test"), true }
	cfg.WebhookRetries = retries
	var err error
	e.svc, err = job.NewService(cfg)
	return e, err
}

// failedJob stores a failed job whose job.failed event is due now.
func (e *hookEnv) failedJob(t *testing.T, id string) {
	t.Helper()
	now := e.clock.Now()
	j := &job.Job{ID: id, Owner: "owner", Status: job.Failed, FileName: "a.pdf", MimeType: "application/pdf",
		CreatedAt: now, UploadExpiresAt: now.Add(time.Hour), CompletedAt: &now, CallbackURL: e.url,
		Error:   &job.Failure{Code: job.CodeProcessingFailed, Message: "broken"},
		Webhook: &job.Delivery{EventID: "evt_" + id, EventType: webhook.EventFailed, NextAttemptAt: now}}
	if err := e.store.CreateJob(context.Background(), j); err != nil {
		t.Fatal(err)
	}
}

func (e *hookEnv) delivery(t *testing.T, id string) *job.Delivery {
	t.Helper()
	j, err := e.store.GetJob(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j.Webhook
}

// TestDeliverWebhookFollowsSchedule drives a refused delivery through its
// retries with the schedule of Config.WebhookRetries, and with the zero
// value's webhook.RetrySchedule: each retry is due after a wait within its
// jitter range, an attempt before it is due sends nothing, and the
// delivery is given up after the last retry.
func TestDeliverWebhookFollowsSchedule(t *testing.T) {
	short := webhook.Schedule{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second, 6 * time.Second}
	for _, c := range []struct {
		name     string
		config   webhook.Schedule
		schedule webhook.Schedule
	}{
		{"default", webhook.Schedule{}, webhook.RetrySchedule},
		{"configured", short, short},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			e, err := newHookEnv(t, c.config)
			if err != nil {
				t.Fatal(err)
			}
			e.failedJob(t, "j1")
			for attempt := 1; attempt <= 1+webhook.MaxRetries; attempt++ {
				if err := e.svc.DeliverWebhook(ctx, "j1"); err != nil {
					t.Fatal(err)
				}
				if got := e.received.Load(); got != int32(attempt) {
					t.Fatalf("attempt %d: the receiver saw %d deliveries", attempt, got)
				}
				d := e.delivery(t, "j1")
				if d.Attempts != attempt || (!d.Pending() && attempt <= webhook.MaxRetries) {
					t.Fatalf("after attempt %d: %+v", attempt, d)
				}
				if attempt > webhook.MaxRetries {
					if d.GaveUpAt == nil || d.LastError == "" {
						t.Fatalf("not given up after attempt %d: %+v", attempt, d)
					}
					break
				}
				wait := d.NextAttemptAt.Sub(e.clock.Now())
				if lo, hi := c.schedule.Bounds(attempt); wait < lo || wait > hi {
					t.Fatalf("retry %d waits %s, outside [%s, %s]", attempt, wait, lo, hi)
				}
				// Not due a nanosecond early.
				e.clock.now.Add(int64(wait - 1))
				if err := e.svc.DeliverWebhook(ctx, "j1"); err != nil {
					t.Fatal(err)
				}
				if got := e.received.Load(); got != int32(attempt) {
					t.Fatalf("retry %d went out before it was due", attempt)
				}
				e.clock.now.Add(1)
			}
			e.clock.now.Add(int64(48 * time.Hour))
			if err := e.svc.DeliverWebhook(ctx, "j1"); err != nil {
				t.Fatal(err)
			}
			if got := e.received.Load(); got != 1+webhook.MaxRetries {
				t.Fatalf("%d deliveries, want %d", got, 1+webhook.MaxRetries)
			}
		})
	}
}

// TestNewServiceChecksWebhookRetries: a schedule with a wait of zero (a
// partly filled one) is refused.
func TestNewServiceChecksWebhookRetries(t *testing.T) {
	_, err := newHookEnv(t, webhook.Schedule{time.Second, time.Second})
	if err == nil || !strings.Contains(err.Error(), "retry 3") {
		t.Fatalf("NewService with a partly filled schedule: %v", err)
	}
}
