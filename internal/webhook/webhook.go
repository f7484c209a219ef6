// Package webhook signs, verifies and delivers the service's job event
// webhooks, and guards callback URLs against server-side request forgery.
//
// The signature scheme is Stripe's: header X-Service-Signature carries
// "t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret, "<t>." + raw body)>",
// so receivers can verify with Stripe-compatible code. Delivery is at least
// once: receivers de-duplicate on the X-Service-Event-Id header, which is the
// same on every retry of one event. A refused delivery is retried
// MaxRetries times, on the waits of RetrySchedule with jitter.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names and event types of the webhook contract.
const (
	// SignatureHeader carries "t=<unix>,v1=<hex>".
	SignatureHeader = "X-Service-Signature"
	// EventIDHeader carries "evt_<uuid>", identical on every retry of one event.
	EventIDHeader = "X-Service-Event-Id"
	// EventTypeHeader carries the event type, EventDone or EventFailed.
	EventTypeHeader = "X-Service-Event"

	// EventDone is sent when a job reaches done, with the done poll payload.
	EventDone = "job.done"
	// EventFailed is sent when a job reaches failed, with the failed poll payload.
	EventFailed = "job.failed"

	// UserAgent identifies the service's deliveries.
	UserAgent = "blueprint-webhook/1.0"
)

// Delivery policy of the contract.
const (
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries = 6
	// Tolerance is the largest |now - t| a receiver accepts.
	Tolerance = 300 * time.Second
	// AttemptTimeout bounds one delivery attempt, connection included.
	AttemptTimeout = 10 * time.Second
	// RetryJitterPercent is the jitter of every retry's wait, in percent of
	// its nominal wait in the Schedule: the wait is uniformly random within
	// nominal ± RetryJitterPercent %, so deliveries held back by one outage
	// of a receiver do not all return at the same moment.
	RetryJitterPercent = 20
)

// Schedule is a retry schedule: entry k-1 is the nominal wait before retry
// k, counted from the end of the failed attempt before it, for the
// MaxRetries retries that follow the first attempt of one delivery.
type Schedule [MaxRetries]time.Duration

// RetrySchedule is the service's retry schedule: waits of 1 min, 5 min,
// 30 min, 2 h, 6 h and 12 h, each jittered, so that an endpoint that is down
// for hours still gets its event (docs/webhooks.md tabulates the cumulative
// times). Treat it as read-only; a different schedule (a test's) is a
// Schedule value of its own.
var RetrySchedule = Schedule{
	time.Minute,
	5 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
	6 * time.Hour,
	12 * time.Hour,
}

// Errors returned by Verify; test with errors.Is.
var (
	// ErrMalformedHeader: the header is empty or has no single valid t and
	// at least one v1.
	ErrMalformedHeader = errors.New("webhook: malformed signature header")
	// ErrTimestampOutOfTolerance: |now - t| exceeds Tolerance.
	ErrTimestampOutOfTolerance = errors.New("webhook: timestamp outside tolerance")
	// ErrSignatureMismatch: no v1 entry matches the body.
	ErrSignatureMismatch = errors.New("webhook: signature mismatch")
)

// signature returns the lowercase hex HMAC-SHA256 of "<unix>." + body.
func signature(secret []byte, unix int64, body []byte) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(strconv.FormatInt(unix, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	sum := mac.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// Sign returns the X-Service-Signature value for body sent at t:
// "t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret, "<t>." + body)>".
func Sign(secret []byte, t time.Time, body []byte) string {
	unix := t.Unix()
	return "t=" + strconv.FormatInt(unix, 10) + ",v1=" + string(signature(secret, unix, body))
}

// Verify checks header (an X-Service-Signature value) against the raw body:
// exactly one t entry, |now - t| <= Tolerance, and at least one v1 entry
// equal to the expected signature, compared in constant time. Other keys
// (such as a future v2) are ignored. It returns nil when the signature is
// valid, else an error wrapping ErrMalformedHeader,
// ErrTimestampOutOfTolerance or ErrSignatureMismatch.
func Verify(secret []byte, header string, body []byte, now time.Time) error {
	var (
		unix    int64
		haveT   bool
		candids [][]byte
	)
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			if haveT {
				return fmt.Errorf("%w: more than one t", ErrMalformedHeader)
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("%w: t is not an integer: %v", ErrMalformedHeader, err)
			}
			unix, haveT = n, true
		case "v1":
			candids = append(candids, []byte(v))
		}
	}
	if !haveT {
		return fmt.Errorf("%w: no t", ErrMalformedHeader)
	}
	if len(candids) == 0 {
		return fmt.Errorf("%w: no v1", ErrMalformedHeader)
	}
	// Compared in whole seconds: time.Time.Sub saturates at ±292 years,
	// and the negation of the most negative Duration stays negative, so a
	// t far enough in the future used to pass as "within tolerance".
	tol := int64(Tolerance / time.Second)
	if nowUnix := now.Unix(); unix < nowUnix-tol || unix > nowUnix+tol {
		return fmt.Errorf("%w: timestamp %d is more than %d s from now (%d)", ErrTimestampOutOfTolerance, unix, tol, nowUnix)
	}
	want := signature(secret, unix, body)
	match := 0
	for _, c := range candids {
		// hmac.Equal is constant-time for equal lengths and returns false
		// for different lengths without comparing contents.
		match |= boolInt(hmac.Equal(want, bytes.ToLower(c)))
	}
	if match == 0 {
		return ErrSignatureMismatch
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Check returns an error unless every entry of s is positive.
func (s Schedule) Check() error {
	for i, d := range s {
		if d <= 0 {
			return fmt.Errorf("webhook: retry schedule: the wait before retry %d is %s, want more than 0", i+1, d)
		}
	}
	return nil
}

// Bounds returns the range of Wait(retry): the nominal wait before retry
// (1 for the first retry, up to MaxRetries; other numbers are clamped to
// that range) less and plus RetryJitterPercent % of it.
func (s Schedule) Bounds(retry int) (lo, hi time.Duration) {
	nominal := s[min(max(retry, 1), MaxRetries)-1]
	jitter := nominal / 100 * RetryJitterPercent
	return nominal - jitter, nominal + jitter
}

// Wait returns the wait before retry (1 for the first retry; see Bounds):
// a uniformly random duration within Bounds(retry), ends included.
func (s Schedule) Wait(retry int) time.Duration {
	lo, hi := s.Bounds(retry)
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rand.Int64N(int64(hi-lo)+1))
}

// Event is one webhook delivery: its ID ("evt_<uuid>", the same on every
// retry), its Type (EventDone or EventFailed) and the raw JSON body.
type Event struct {
	ID, Type string
	Body     []byte
}

// StatusError is returned by Send when the receiver answered with a status
// outside 2xx (redirects included, which are never followed).
type StatusError struct {
	StatusCode int
}

// Error reports the status.
func (e *StatusError) Error() string {
	return fmt.Sprintf("webhook: receiver answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// Send POSTs ev.Body to url with Content-Type application/json, the
// signature (signed at now), event id, event type and User-Agent headers.
// It returns nil only for a 2xx answer; any other status is a *StatusError,
// and transport failures are returned wrapped. Use a client from
// Guard.Client so that redirects are not followed and private addresses are
// refused at connect time.
func Send(ctx context.Context, client *http.Client, url string, secret []byte, ev Event, now time.Time) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(ev.Body))
	if err != nil {
		return fmt.Errorf("webhook: build request for event %s: %w", ev.ID, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set(SignatureHeader, Sign(secret, now, ev.Body))
	req.Header.Set(EventIDHeader, ev.ID)
	req.Header.Set(EventTypeHeader, ev.Type)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook: deliver event %s: %w", ev.ID, err)
	}
	defer resp.Body.Close()
	// Drain a little so the connection can be reused; the body is ignored.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook: deliver event %s: %w", ev.ID, &StatusError{StatusCode: resp.StatusCode})
	}
	return nil
}
