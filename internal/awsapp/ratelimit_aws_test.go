//go:build aws

package awsapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"blueprint/internal/apitest"
	"blueprint/internal/awsapp"
	"blueprint/internal/awstest"
	"blueprint/internal/config"
)

// fixedClock is a job.Clock that stays at one instant, so that a test's
// requests fall in one rate window whatever the wall clock does.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// TestRateLimitAcrossInstances: two instances of the api function
// (two Apps, each with its own DynamoDB client) on one table allow a key
// exactly its requests per minute between them, then answer the
// contract's 429: error code rate_limited, Retry-After and the RateLimit
// headers, whichever instance the next request reaches.
func TestRateLimitAcrossInstances(t *testing.T) {
	ctx := context.Background()
	table := fmt.Sprintf("jobs-rate-%d", deployments.Add(1))
	if err := awstest.CreateJobsTable(ctx, awstest.DynamoDB(dynamo), table); err != nil {
		t.Fatal(err)
	}
	env := awstest.Env(dynamo, s3srv, moto)
	env[awsapp.EnvTable] = table
	env[awsapp.EnvBucket] = "unused"
	env[config.EnvBaseURL] = "http://127.0.0.1:1"
	env[config.EnvAPIKeys] = apitest.KeysSpec()
	clock := fixedClock{time.Date(2026, 3, 1, 9, 30, 50, 0, time.UTC)}
	logs := awstest.NewTailBuffer(1 << 20)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", logs.String())
		}
	})
	log := slog.New(slog.NewJSONHandler(logs, nil))
	var handlers []http.Handler
	for range 2 {
		a, err := awsapp.New(ctx, func(k string) string { return env[k] }, awsapp.Needs{Keys: true, Clock: clock, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		h, err := a.Handler()
		if err != nil {
			t.Fatal(err)
		}
		handlers = append(handlers, h)
	}
	get := func(i int) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/v1/symbols", nil)
		r.Header.Set("X-API-Key", apitest.KeyC)
		handlers[i%2].ServeHTTP(w, r)
		return w
	}
	for i := range apitest.RateC {
		w := get(i)
		if w.Code != 200 || w.Header().Get("RateLimit-Remaining") != fmt.Sprint(apitest.RateC-1-i) {
			t.Fatalf("request %d on instance %d: %d %v", i, i%2, w.Code, w.Header())
		}
	}
	for i := range 2 {
		w := get(i)
		var body struct {
			Error struct {
				Code    string         `json:"code"`
				Message string         `json:"message"`
				Details map[string]any `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("instance %d: %v: %s", i, err, w.Body)
		}
		h := w.Header()
		if w.Code != 429 || body.Error.Code != "rate_limited" || body.Error.Message == "" || h.Get("Retry-After") != "10" ||
			h.Get("RateLimit-Limit") != fmt.Sprint(apitest.RateC) || h.Get("RateLimit-Remaining") != "0" || h.Get("RateLimit-Reset") != "10" ||
			body.Error.Details["retry_after_seconds"] != 10.0 {
			t.Fatalf("over the rate on instance %d: %d %v %s", i, w.Code, h, w.Body)
		}
	}
	// Another key is counted apart.
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/v1/symbols", nil)
	r.Header.Set("X-API-Key", apitest.KeyA)
	handlers[1].ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("other key: %d", w.Code)
	}
}
