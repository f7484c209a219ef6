package ratelimit

import (
	"context"
	"testing"
	"time"
)

func TestAllow(t *testing.T) {
	l := New()
	ctx := context.Background()
	allow := func(key string, now time.Time) Decision {
		t.Helper()
		d, err := l.Allow(ctx, key, 3, now)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	t0 := time.Date(2026, 1, 1, 12, 0, 15, 0, time.UTC)
	for i := 0; i < 3; i++ {
		d := allow("a", t0)
		if !d.Allowed || d.Remaining != 2-i || d.Limit != 3 || d.Reset != 45*time.Second {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	if d := allow("a", t0.Add(30*time.Second)); d.Allowed || d.Remaining != 0 || d.Reset != 15*time.Second {
		t.Fatalf("over limit: %+v", d)
	}
	if d := allow("b", t0); !d.Allowed {
		t.Fatalf("other key limited: %+v", d)
	}
	if d := allow("a", t0.Add(45*time.Second)); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("next window: %+v", d)
	}
}

func TestReset(t *testing.T) {
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at   time.Duration
		want time.Duration
	}{
		{0, 60 * time.Second},
		{time.Millisecond, 60 * time.Second}, // rounded up
		{59*time.Second + 900*time.Millisecond, time.Second},
		{30 * time.Second, 30 * time.Second},
	} {
		if got := Reset(base.Add(c.at)); got != c.want {
			t.Errorf("Reset at +%v = %v, want %v", c.at, got, c.want)
		}
	}
	if got := WindowStart(base.Add(59 * time.Second)); !got.Equal(base) {
		t.Errorf("WindowStart = %v, want %v", got, base)
	}
}

// TestExhausted: Exhausted counts nothing and says when the window's
// limit is used, until the next window.
func TestExhausted(t *testing.T) {
	l := New()
	now := time.Date(2026, 3, 1, 9, 30, 50, 0, time.UTC)
	for i := range 3 {
		if d, ex := l.Exhausted("a", 3, now); ex || d.Remaining != 3-i {
			t.Fatalf("after %d: exhausted %v, remaining %d", i, ex, d.Remaining)
		}
		l.Allow(context.Background(), "a", 3, now)
	}
	d, ex := l.Exhausted("a", 3, now)
	if !ex || d.Remaining != 0 || d.Reset != 10*time.Second {
		t.Fatalf("after 3: %+v %v", d, ex)
	}
	if _, ex := l.Exhausted("b", 3, now); ex {
		t.Error("another key is exhausted")
	}
	if _, ex := l.Exhausted("a", 3, now.Add(10*time.Second)); ex {
		t.Error("still exhausted in the next window")
	}
}
