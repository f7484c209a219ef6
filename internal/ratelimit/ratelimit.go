// Package ratelimit counts requests per API key in fixed one-minute
// windows. Limiter counts in this process's memory (the local server, one
// process); dynamostore.RateLimiter counts in the jobs table, so that the
// API's Lambda instances share one count per key (docs/decisions.md,
// "Per-key rate limit on AWS"). Both follow Window, Decision and Reset
// here.
package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Window is the length of one counting window.
const Window = time.Minute

// Decision is the outcome of one request.
type Decision struct {
	Allowed   bool
	Limit     int           // requests allowed per window
	Remaining int           // requests left in this window after this one
	Reset     time.Duration // time until the window ends (whole seconds, at least 1 s)
}

// WindowStart is the start of the window that holds now: windows are
// aligned to the minute (UTC), the same in every process.
func WindowStart(now time.Time) time.Time { return now.Truncate(Window) }

// Reset is the time from now to the end of its window, rounded up to
// whole seconds and at least one second: the Retry-After of a refused
// request.
func Reset(now time.Time) time.Duration {
	reset := WindowStart(now).Add(Window).Sub(now)
	reset = ((reset + time.Second - 1) / time.Second) * time.Second
	if reset < time.Second {
		reset = time.Second
	}
	return reset
}

// Limiter counts requests per key in memory. The zero value is not
// usable; use New. It is safe for concurrent use.
type Limiter struct {
	mu      sync.Mutex
	windows map[string]*window
}

type window struct {
	start time.Time
	count int
}

// New returns an empty Limiter.
func New() *Limiter { return &Limiter{windows: map[string]*window{}} }

// Allow records one request by key at now against limit requests per
// window. A refused request is not counted. It never fails (the error is
// that of the interface it shares with limiters that do I/O).
func (l *Limiter) Allow(_ context.Context, key string, limit int, now time.Time) (Decision, error) {
	start := WindowStart(now)
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.windows[key]
	if !ok || !w.start.Equal(start) {
		if len(l.windows) > 10000 { // drop windows that ended
			for k, old := range l.windows {
				if old.start.Before(start) {
					delete(l.windows, k)
				}
			}
		}
		w = &window{start: start}
		l.windows[key] = w
	}
	d := Decision{Limit: limit, Reset: Reset(now)}
	if w.count >= limit {
		return d, nil
	}
	w.count++
	d.Allowed = true
	d.Remaining = limit - w.count
	return d, nil
}

// Exhausted reports whether key has used its limit in now's window,
// without counting anything, with the decision a refused request gets.
// With Allow it counts events that are refused once too many happened,
// such as failed authentications per client address.
func (l *Limiter) Exhausted(key string, limit int, now time.Time) (Decision, bool) {
	start := WindowStart(now)
	l.mu.Lock()
	defer l.mu.Unlock()
	d := Decision{Limit: limit, Reset: Reset(now)}
	w, ok := l.windows[key]
	if !ok || !w.start.Equal(start) {
		d.Remaining = limit
		return d, false
	}
	d.Remaining = max(limit-w.count, 0)
	return d, w.count >= limit
}
