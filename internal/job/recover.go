package job

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Recovery thresholds of the AWS deployment's sweep (Recover). The local
// runner resumes work from the store itself and does not use them.
const (
	// RequeueAfter is how long a job may stay queued before the sweep
	// hands it to the flow again (its first hand-over may have failed).
	RequeueAfter = 2 * time.Minute
	// StallAfter is how long after start a job may stay queued or
	// processing before the sweep fails it: well past the processing
	// function's 15-minute limit and the state machine's retries.
	StallAfter = time.Hour
	// WebhookOverdue is how long past its due time a pending delivery
	// waits before the sweep makes the attempt itself: the state machine
	// that should have made it has stopped.
	WebhookOverdue = 15 * time.Minute
)

// WebhookState is where a job's webhook event stands.
type WebhookState string

// Webhook states.
const (
	WebhookNone      WebhookState = "none" // no callback_url, or no event yet
	WebhookPending   WebhookState = "pending"
	WebhookDelivered WebhookState = "delivered"
	WebhookGaveUp    WebhookState = "gave_up"
)

// WebhookStatus is a job's webhook state and, while pending, how long
// until the next attempt is due (0: due now).
type WebhookStatus struct {
	State WebhookState
	Wait  time.Duration
}

// WebhookStatus tells where the job's webhook event stands. A job that no
// longer exists has none.
func (s *Service) WebhookStatus(ctx context.Context, jobID string) (WebhookStatus, error) {
	j, err := s.cfg.Store.GetJob(ctx, jobID)
	if errors.Is(err, ErrNotFound) {
		return WebhookStatus{State: WebhookNone}, nil
	}
	if err != nil {
		return WebhookStatus{}, fmt.Errorf("webhook status of job %s: %w", jobID, err)
	}
	d := j.Webhook
	switch {
	case d == nil:
		return WebhookStatus{State: WebhookNone}, nil
	case d.DeliveredAt != nil:
		return WebhookStatus{State: WebhookDelivered}, nil
	case d.GaveUpAt != nil:
		return WebhookStatus{State: WebhookGaveUp}, nil
	}
	return WebhookStatus{State: WebhookPending, Wait: max(0, d.NextAttemptAt.Sub(s.now()))}, nil
}

// FailJob moves a queued or processing job to failed with message as the
// partner's error message (a sentence saying what went wrong; the advice to
// retry is added) and schedules its job.failed webhook. The state machine
// calls it when the processing step failed in a way Process could not
// record itself: a timeout, running out of memory, a crash. A job in any
// other state is left alone. It reports whether the job changed.
func (s *Service) FailJob(ctx context.Context, jobID, message string) (bool, error) {
	changed := false
	_, err := s.update(ctx, jobID, func(j *Job) error {
		changed = false
		if j.Status != Queued && j.Status != Processing {
			return errNoChange
		}
		s.finish(j, &failure{msg: message, err: errors.New("failed outside processing")}, nil, findings{})
		changed = true
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("fail job %s: %w", jobID, err)
	}
	if changed {
		s.log.Warn("job failed outside processing", "job_id", jobID, "reason", message)
	}
	return changed, nil
}

// Recover is the AWS sweep's backstop for work the flow dropped: it hands
// jobs queued longer than RequeueAfter to the Flow again (a repeated
// hand-over of the same job is a no-op there), fails jobs still queued or
// processing StallAfter after start, and makes the due attempt of webhooks
// pending more than WebhookOverdue past their time. It returns every error
// it met, joined, after trying everything.
func (s *Service) Recover(ctx context.Context) error {
	if s.cfg.Flow == nil {
		return errors.New("recover: this service was built without a flow (Config.Flow)")
	}
	now := s.now()
	var errs []error
	for _, state := range []State{Queued, Processing} {
		ids, err := s.cfg.Store.ListJobs(ctx, state, 0)
		if err != nil {
			return fmt.Errorf("recover: list %s jobs: %w", state, err)
		}
		for _, id := range ids {
			j, err := s.cfg.Store.GetJob(ctx, id)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("recover: load job %s: %w", id, err))
				continue
			}
			since := j.CreatedAt
			if j.QueuedAt != nil {
				since = *j.QueuedAt
			}
			if j.BatchProgressAt != nil && j.BatchProgressAt.After(since) {
				// A job in page batches may run for hours: it stalls
				// once its batches stop making progress.
				since = *j.BatchProgressAt
			}
			switch {
			case j.Status != Queued && j.Status != Processing:
			case now.Sub(since) > StallAfter:
				msg := fmt.Sprintf("processing did not finish within %s of the start; the file may exceed the service's time or memory limits", StallAfter)
				if _, err := s.FailJob(ctx, id, msg); err != nil {
					errs = append(errs, err)
				} else if err := s.DeliverWebhook(ctx, id); err != nil {
					errs = append(errs, err)
				}
			case j.Status == Queued && now.Sub(since) > RequeueAfter:
				if err := s.cfg.Flow.Enqueue(ctx, id); err != nil {
					errs = append(errs, fmt.Errorf("recover: enqueue job %s: %w", id, err))
				}
			}
		}
	}
	ids, err := s.cfg.Store.ListPendingWebhooks(ctx, now.Add(-WebhookOverdue), 0)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("recover: list overdue webhooks: %w", err))...)
	}
	for _, id := range ids {
		if err := s.DeliverWebhook(ctx, id); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
