package ratelimit

import (
	"testing"
	"time"
)

func TestAllow(t *testing.T) {
	l := New()
	t0 := time.Date(2026, 1, 1, 12, 0, 15, 0, time.UTC)
	for i := 0; i < 3; i++ {
		d := l.Allow("a", 3, t0)
		if !d.Allowed || d.Remaining != 2-i || d.Limit != 3 || d.Reset != 45*time.Second {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	if d := l.Allow("a", 3, t0.Add(30*time.Second)); d.Allowed || d.Remaining != 0 || d.Reset != 15*time.Second {
		t.Fatalf("over limit: %+v", d)
	}
	if d := l.Allow("b", 3, t0); !d.Allowed {
		t.Fatalf("other key limited: %+v", d)
	}
	if d := l.Allow("a", 3, t0.Add(45*time.Second)); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("next window: %+v", d)
	}
}
