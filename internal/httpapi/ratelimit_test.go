package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/ratelimit"
)

// limiterFunc adapts a function to RateLimiter.
type limiterFunc func(ctx context.Context, key string, limit int, now time.Time) (ratelimit.Decision, error)

func (f limiterFunc) Allow(ctx context.Context, key string, limit int, now time.Time) (ratelimit.Decision, error) {
	return f(ctx, key, limit, now)
}

// TestRateLimiterSeam: a refusal is the contract's 429 (Retry-After, the
// RateLimit headers, error code rate_limited); a limiter that fails lets
// the request through with the key's limit and logs why.
func TestRateLimiterSeam(t *testing.T) {
	keys, err := apikey.NewKeyring([]apikey.Entry{{Key: "key_0123456789abcdef", WebhookSecret: "s", RequestsPerMinute: 7}})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	refuse := limiterFunc(func(_ context.Context, _ string, limit int, _ time.Time) (ratelimit.Decision, error) {
		return ratelimit.Decision{Limit: limit, Reset: 12 * time.Second}, nil
	})
	s := New(Config{Keys: keys, Limiter: refuse})
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/v1/nothing", nil)
	r.Header.Set(HeaderAPIKey, "key_0123456789abcdef")
	s.ServeHTTP(w, r)
	var body struct {
		Error struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	h := w.Header()
	if w.Code != 429 || body.Error.Code != "rate_limited" || h.Get(HeaderRetryAfter) != "12" || h.Get(HeaderRateLimit) != "7" ||
		h.Get(HeaderRateRemaining) != "0" || h.Get(HeaderRateReset) != "12" || body.Error.Details["retry_after_seconds"] != 12.0 {
		t.Fatalf("refused: %d %v %s", w.Code, h, w.Body)
	}

	broken := limiterFunc(func(context.Context, string, int, time.Time) (ratelimit.Decision, error) {
		return ratelimit.Decision{}, errors.New("table unreachable")
	})
	s = New(Config{Keys: keys, Limiter: broken, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	w = httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code != 404 || w.Header().Get(HeaderRateLimit) != "7" || w.Header().Get(HeaderRetryAfter) != "" {
		t.Fatalf("limiter error: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if !strings.Contains(logs.String(), "table unreachable") {
		t.Fatalf("limiter error not logged: %s", logs.String())
	}
}
