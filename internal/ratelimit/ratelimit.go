// Package ratelimit counts requests per API key in fixed one-minute
// windows.
package ratelimit

import (
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

// Limiter counts requests per key. The zero value is not usable; use New.
// It is safe for concurrent use.
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
// window. A refused request is not counted.
func (l *Limiter) Allow(key string, limit int, now time.Time) Decision {
	start := now.Truncate(Window)
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
	reset := start.Add(Window).Sub(now)
	reset = ((reset + time.Second - 1) / time.Second) * time.Second
	if reset < time.Second {
		reset = time.Second
	}
	d := Decision{Limit: limit, Reset: reset}
	if w.count >= limit {
		return d
	}
	w.count++
	d.Allowed = true
	d.Remaining = limit - w.count
	return d
}
