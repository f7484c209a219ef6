package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/catalog"
	"blueprint/internal/job"
	"blueprint/internal/job/jobtest"
	"blueprint/internal/signing"
)

const (
	testKeyA = "key-a-0123456789"
	testKeyB = "key-b-0123456789"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testServer is a Server with two keys, local links, the catalog and a
// fake clock; it has no job service (routes that need one are tested in
// the contract tests).
func testServer(t *testing.T) (*Server, *fakeClock, *LocalLinks) {
	t.Helper()
	keys, err := apikey.NewKeyring([]apikey.Entry{{Key: testKeyA, WebhookSecret: "a", RequestsPerMinute: 1000},
		{Key: testKeyB, WebhookSecret: "b", RequestsPerMinute: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	signer, err := signing.New([]byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0).UTC()}
	links := NewLocalLinks("http://h:1", signer)
	return New(Config{Keys: keys, Links: links, Catalog: cat, Clock: clock, OpenAPI: []byte("{}")}), clock, links
}

// call sends one request to s and returns the recorder.
func call(s *Server, method, target, key, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if key != "" {
		req.Header.Set(HeaderAPIKey, key)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}

// issue stores a handoff token of key's job as POST /v1/review-links
// does (which needs a job service: the contract tests make real links)
// and returns the token.
func issue(t *testing.T, s *Server, key, jobID string) string {
	t.Helper()
	k, ok := s.cfg.Keys.Authenticate(key)
	if !ok {
		t.Fatalf("no key %s", key)
	}
	token, hash := newHandoffToken()
	if err := s.cfg.Handoffs.PutHandoff(t.Context(), job.Handoff{TokenHash: hash, KeyID: k.ID, JobID: jobID,
		ExpiresAt: s.cfg.Clock.Now().Add(ReviewLinkTTL)}); err != nil {
		t.Fatal(err)
	}
	return token
}

// exchanged is the answer of an exchange: the credential or the refusal.
type exchanged struct {
	Credential string  `json:"credential"`
	APIKey     string  `json:"api_key"`
	Access     string  `json:"access"`
	JobID      *string `json:"job_id"`
	ExpiresAt  string  `json:"expires_at"`
	Error      struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

// exchange exchanges token and returns the status and the answer.
func exchange(t *testing.T, s *Server, token string) (int, exchanged) {
	t.Helper()
	body, _ := json.Marshal(exchangeRequest{Handoff: token})
	w := call(s, "POST", "/v1/review-links/exchange", "", string(body))
	var out exchanged
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatalf("exchange: %d %s", w.Code, w.Body)
	}
	if w.Code != http.StatusOK && (out.Error.Code != "unauthorized" || out.Error.Message == "") {
		t.Errorf("exchange: %d %s is not the error shape", w.Code, w.Body)
	}
	if w.Code == http.StatusOK && w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("exchange: Cache-Control %q", w.Header().Get("Cache-Control"))
	}
	return w.Code, out
}

func reasonOf(x exchanged) string { r, _ := x.Error.Details["reason"].(string); return r }

// TestReviewLinkHandoff checks the life of a handoff token: it is
// exchanged once for a review credential of its job (never the key), and
// a used, expired or unknown token is 401 with the reason.
func TestReviewLinkHandoff(t *testing.T) {
	s, clock, _ := testServer(t)
	token := issue(t, s, testKeyA, "job-1")
	code, x := exchange(t, s, token)
	if code != 200 || !strings.HasPrefix(x.Credential, "rvc1.") || x.APIKey != x.Credential || x.Access != "review" ||
		x.JobID == nil || *x.JobID != "job-1" || strings.Contains(w(x), testKeyA) {
		t.Fatalf("first exchange: %d %+v; want a review credential of job-1 and never the key", code, x)
	}
	if want := clock.Now().Add(ReviewCredentialTTL).Format(time.RFC3339); x.ExpiresAt != want {
		t.Errorf("expires_at %s, want %s", x.ExpiresAt, want)
	}
	keyA, _ := s.cfg.Keys.Authenticate(testKeyA)
	if c, err := s.creds.Verify(x.Credential, clock.Now()); err != nil || c.KeyID != keyA.ID || c.JobID != "job-1" {
		t.Errorf("the credential grants %+v (%v)", c, err)
	}
	if code, x := exchange(t, s, token); code != 401 || x.Credential != "" || reasonOf(x) != handoffUsed {
		t.Errorf("second exchange: %d %+v, want 401 used", code, x)
	}
	if code, x := exchange(t, s, token+"x"); code != 401 || reasonOf(x) != handoffUnknown {
		t.Errorf("unknown token: %d %+v, want 401 unknown", code, x)
	}

	// A link of key B expires unused after ReviewLinkTTL.
	b := issue(t, s, testKeyB, "job-2")
	clock.advance(ReviewLinkTTL - time.Second)
	later := issue(t, s, testKeyB, "job-3")
	clock.advance(time.Second)
	if code, x := exchange(t, s, b); code != 401 || reasonOf(x) != handoffExpired {
		t.Errorf("expired token: %d %+v, want 401 expired", code, x)
	}
	if code, x := exchange(t, s, later); code != 200 || x.JobID == nil || *x.JobID != "job-3" {
		t.Errorf("token within its lifetime: %d %+v", code, x)
	}

	// Bad bodies are 422; creating needs a key and a job, exchanging no key.
	for _, c := range []struct {
		path, key, body string
		status          int
	}{
		{"/v1/review-links/exchange", "", "", 422},
		{"/v1/review-links/exchange", "", `{"handoff":""}`, 422},
		{"/v1/review-links/exchange", "", `{"handoff":1}`, 422},
		{"/v1/review-links/exchange", "", `{"handoff":"a"}{}`, 422},
		{"/v1/review-links/exchange", "", `{"handoff":"a","key":"x"}`, 422},
		{"/v1/review-links/exchange", "", `{"handoff":"` + strings.Repeat("a", maxReviewLinkBody) + `"}`, 422},
		{"/v1/review-links", "", "", 401},
		{"/v1/review-links", "wrong-key-0123456789", "", 401},
		{"/v1/review-links", testKeyA, "", 422},
		{"/v1/review-links", testKeyA, `{}`, 422},
		{"/v1/review-links", testKeyA, `{"job_id":null}`, 422},
		{"/v1/review-links", testKeyA, `{"job_id":""}`, 422},
		{"/v1/review-links", testKeyA, `{"job_id":7}`, 422},
		{"/v1/review-links", testKeyA, `{"job_id":"j","ttl":3600}`, 422},
		{"/v1/review-links", testKeyA, `[`, 422},
	} {
		if w := call(s, "POST", c.path, c.key, c.body); w.Code != c.status || !strings.Contains(w.Body.String(), `"error"`) {
			t.Errorf("POST %s %q: %d %s, want %d", c.path, c.body, w.Code, w.Body, c.status)
		}
	}
}

// w is x as JSON, to look for a key anywhere in it.
func w(x exchanged) string { b, _ := json.Marshal(x); return string(b) }

// TestReviewCredentialScope: a review credential reaches the catalog and
// (through the service, checked in the contract tests) its job; listing,
// creating and starting jobs and making review links are 403 forbidden;
// an altered credential, one of a withdrawn key or of another secret is
// 401, an expired one 401 with details.reason.
func TestReviewCredentialScope(t *testing.T) {
	s, clock, _ := testServer(t)
	const icon = "/v1/symbols/smoke_detector/icon" // a route that needs no job service
	_, x := exchange(t, s, issue(t, s, testKeyA, "job-1"))
	cred := x.Credential
	for _, c := range []struct {
		method, target string
		status         int
	}{
		{"GET", "/v1/symbols/smoke_detector/icon", 302},
		{"GET", "/v1/jobz", 404},
		{"GET", "/v1/jobs", 403},
		{"POST", "/v1/jobs/init", 403},
		{"POST", "/v1/jobs/job-1/start", 403},
		{"POST", "/v1/review-links", 403},
	} {
		w := call(s, c.method, c.target, cred, `{"job_id":"job-1"}`)
		var e exchanged
		_ = json.Unmarshal(w.Body.Bytes(), &e)
		if w.Code != c.status || (c.status == 403 && (e.Error.Code != "forbidden" || e.Error.Details["reason"] != "review_credential")) {
			t.Errorf("%s %s with a review credential: %d %s, want %d", c.method, c.target, w.Code, w.Body, c.status)
		}
	}
	other, _, _ := testServer(t) // the same keys, so the same derived secret
	if w := call(other, "GET", icon, cred, ""); w.Code != 302 {
		t.Errorf("another instance with the same keys: %d", w.Code)
	}
	keysB, _ := apikey.NewKeyring([]apikey.Entry{{Key: testKeyB, WebhookSecret: "b", RequestsPerMinute: 1000}})
	withdrawn := New(Config{Keys: keysB, Links: other.cfg.Links, Catalog: other.cfg.Catalog, Clock: clock, OpenAPI: []byte("{}"),
		ReviewSecret: s.cfg.ReviewSecret})
	p64, mac, _ := strings.Cut(strings.TrimPrefix(cred, "rvc1."), ".")
	for name, c := range map[string]struct {
		s    *Server
		cred string
	}{
		"altered":       {s, "rvc1." + p64 + "." + strings.ToUpper(mac)},
		"withdrawn key": {withdrawn, cred},
		"no prefix":     {s, strings.TrimPrefix(cred, "rvc1.")},
	} {
		if w := call(c.s, "GET", icon, c.cred, ""); w.Code != 401 || !strings.Contains(w.Body.String(), `"unauthorized"`) {
			t.Errorf("%s credential: %d %s", name, w.Code, w.Body)
		}
	}
	clock.advance(ReviewCredentialTTL)
	w := call(s, "GET", icon, cred, "")
	var e exchanged
	_ = json.Unmarshal(w.Body.Bytes(), &e)
	if w.Code != 401 || e.Error.Details["reason"] != reasonCredentialExpired {
		t.Errorf("expired credential: %d %s", w.Code, w.Body)
	}
}

// TestAuthFailureThrottle: an address that sent AuthFailuresPerMinute
// wrong keys gets 429 with Retry-After for anything that needs a key,
// the right key included, until the window ends; other addresses are not
// affected; a genuine expired credential is not counted.
func TestAuthFailureThrottle(t *testing.T) {
	s, clock, _ := testServer(t)
	const icon = "/v1/symbols/smoke_detector/icon" // a route that needs no job service
	clock.advance(10 * time.Second)                // 50 s left in the window
	from := func(addr, method, target, key, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.RemoteAddr = addr
		if key != "" {
			req.Header.Set(HeaderAPIKey, key)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	const guesser, neighbour = "203.0.113.7:5000", "203.0.113.8:5000"
	for i := range AuthFailuresPerMinute {
		if w := from(guesser, "GET", icon, fmt.Sprintf("guess-%016d", i), ""); w.Code != 401 {
			t.Fatalf("guess %d: %d", i, w.Code)
		}
	}
	for _, c := range []struct{ method, target, key, body string }{
		{"GET", icon, "guess-x-0123456789", ""},
		{"GET", icon, testKeyA, ""},
		{"GET", "/v1/jobs", "", ""},
		{"POST", "/v1/review-links/exchange", "", `{"handoff":"x"}`},
	} {
		w := from("203.0.113.7:6000", c.method, c.target, c.key, c.body)
		var e exchanged
		_ = json.Unmarshal(w.Body.Bytes(), &e)
		if w.Code != 429 || e.Error.Code != "rate_limited" || w.Header().Get("Retry-After") != "50" || e.Error.Details["reason"] != reasonAuthFailures {
			t.Errorf("%s %s from the throttled address: %d %v %s", c.method, c.target, w.Code, w.Header(), w.Body)
		}
	}
	if w := from(neighbour, "GET", icon, testKeyA, ""); w.Code != 302 {
		t.Errorf("another address: %d", w.Code)
	}
	// IPv6 addresses count by /64.
	for i := range AuthFailuresPerMinute {
		from(fmt.Sprintf("[2001:db8::%x]:1", i+1), "GET", icon, "guess-y-0123456789", "")
	}
	if w := from("[2001:db8::ffff]:1", "GET", icon, testKeyA, ""); w.Code != 429 {
		t.Errorf("another address of the /64: %d", w.Code)
	}
	clock.advance(50 * time.Second)
	if w := from(guesser, "GET", icon, testKeyA, ""); w.Code != 302 {
		t.Errorf("next window: %d", w.Code)
	}
	// Unknown handoff tokens count; expired credentials do not.
	_, x := exchange(t, s, issue(t, s, testKeyA, "job-1"))
	clock.advance(ReviewCredentialTTL)
	for range AuthFailuresPerMinute + 5 {
		if w := from(neighbour, "GET", icon, x.Credential, ""); w.Code != 401 {
			t.Fatalf("expired credential: %d", w.Code)
		}
	}
	for range AuthFailuresPerMinute {
		from(neighbour, "POST", "/v1/review-links/exchange", "", `{"handoff":"forged"}`)
	}
	if w := from(neighbour, "GET", icon, testKeyA, ""); w.Code != 429 {
		t.Errorf("after %d unknown handoff tokens: %d", AuthFailuresPerMinute, w.Code)
	}
}

// TestHandoffsConformance runs the store suite on the in-memory store.
func TestHandoffsConformance(t *testing.T) {
	jobtest.RunHandoffsConformance(t, func(*testing.T) job.Handoffs { return newHandoffs(maxReviewLinks) })
}

// TestHandoffsBounded checks that the in-memory store never holds more
// than its bound: expired tokens go first, then the one that expires
// soonest.
func TestHandoffsBounded(t *testing.T) {
	hs := newHandoffs(3)
	ctx := t.Context()
	now := time.Now()
	put := func(name string, exp time.Time) {
		if err := hs.PutHandoff(ctx, job.Handoff{TokenHash: name, ExpiresAt: exp}); err != nil {
			t.Fatal(err)
		}
	}
	put("old", now.Add(-time.Second)) // expired
	put("soon", now.Add(time.Minute))
	put("k2", now.Add(2*time.Minute))
	put("k3", now.Add(3*time.Minute))
	if len(hs.entries) != 3 {
		t.Fatalf("%d entries, want 3", len(hs.entries))
	}
	if _, err := hs.TakeHandoff(ctx, "old", now); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("expired token after eviction: %v", err)
	}
	put("k4", now.Add(time.Minute))
	if _, err := hs.TakeHandoff(ctx, "soon", now); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("the soonest to expire stayed: %v", err)
	}
}

// TestNosniffOnEveryResponse checks X-Content-Type-Options: nosniff on
// JSON answers, errors, redirects and files.
func TestNosniffOnEveryResponse(t *testing.T) {
	s, clock, links := testServer(t)
	icon, err := links.IconFileURL(t.Context(), "smoke_detector", "svg", clock.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, target, key string
		status              int
	}{
		{"GET", "/v1/openapi.json", "", 200},
		{"GET", "/v1/symbols", "", 401},
		{"GET", "/v1/symbols/smoke_detector/icon", testKeyA, 302},
		{"POST", "/v1/review-links", testKeyA, 422},
		{"POST", "/v1/review-links/exchange", "", 422},
		{"DELETE", "/v1/symbols", testKeyA, 405},
		{"GET", "/nothing", "", 404},
		{"GET", icon, "", 200},
		{"HEAD", icon, "", 200},
		{"GET", "/app/", "", 200},
	} {
		w := call(s, c.method, c.target, c.key, "")
		if got := w.Header().Get(HeaderContentTypeOptions); got != "nosniff" || w.Code != c.status {
			t.Errorf("%s %s: %d with X-Content-Type-Options %q, want %d with nosniff", c.method, c.target, w.Code, got, c.status)
		}
	}
}

// TestHeadOnSignedFile checks that HEAD on a signed file URL answers as
// its GET does, without the body, and that a forged or expired signature
// still fails.
func TestHeadOnSignedFile(t *testing.T) {
	s, clock, links := testServer(t)
	for _, format := range []string{"svg", "png"} {
		u, err := links.IconFileURL(t.Context(), "smoke_detector", format, clock.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		get := call(s, "GET", u, "", "")
		head := call(s, "HEAD", u, "", "")
		if get.Code != 200 || head.Code != 200 || head.Body.Len() != 0 {
			t.Fatalf("%s: GET %d, HEAD %d with %d body bytes", u, get.Code, head.Code, head.Body.Len())
		}
		for _, h := range []string{"Content-Type", "Content-Length", "Cache-Control"} {
			if head.Header().Get(h) != get.Header().Get(h) || get.Header().Get(h) == "" {
				t.Errorf("%s: %s %q on HEAD, %q on GET", u, h, head.Header().Get(h), get.Header().Get(h))
			}
		}
		if n := get.Header().Get("Content-Length"); n != strconv.Itoa(get.Body.Len()) {
			t.Errorf("%s: Content-Length %s for %d bytes", u, n, get.Body.Len())
		}
		if w := call(s, "HEAD", strings.Replace(u, "sig=", "sig=0", 1), "", ""); w.Code != 403 {
			t.Errorf("HEAD with a forged signature: %d", w.Code)
		}
	}
	clock.advance(2 * time.Hour)
	u, _ := links.IconFileURL(t.Context(), "smoke_detector", "svg", clock.Now().Add(-time.Minute))
	if w := call(s, "HEAD", u, "", ""); w.Code != 403 {
		t.Errorf("HEAD of an expired URL: %d", w.Code)
	}
}
