package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/catalog"
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

// handoffOf returns the handoff token in a review link's fragment.
func handoffOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	f, err := url.ParseQuery(u.Fragment)
	if err != nil || f.Get(fragmentHandoff) == "" {
		t.Fatalf("link %s has no handoff in its fragment", link)
	}
	return f.Get(fragmentHandoff)
}

func createLink(t *testing.T, s *Server, key string) reviewLink {
	t.Helper()
	w := call(s, "POST", "/v1/review-links", key, "")
	var l reviewLink
	if err := json.Unmarshal(w.Body.Bytes(), &l); err != nil || w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	if cc := w.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("create: Cache-Control %q", cc)
	}
	return l
}

// exchangeReason exchanges token and returns the status, the key and the
// refusal's details.reason.
func exchangeReason(t *testing.T, s *Server, token string) (int, string, string) {
	t.Helper()
	body, _ := json.Marshal(exchangeRequest{Handoff: token})
	w := call(s, "POST", "/v1/review-links/exchange", "", string(body))
	var out struct {
		APIKey string `json:"api_key"`
		Error  struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatalf("exchange: %d %s", w.Code, w.Body)
	}
	if w.Code != http.StatusOK && (out.Error.Code != "unauthorized" || out.Error.Message == "") {
		t.Errorf("exchange: %d %s is not the error shape", w.Code, w.Body)
	}
	reason, _ := out.Error.Details["reason"].(string)
	return w.Code, out.APIKey, reason
}

// TestReviewLinkHandoff checks the life of a handoff token: the link
// carries it and never the key, it is exchanged for the key once, and a
// used, expired or unknown token is 401 with the reason.
func TestReviewLinkHandoff(t *testing.T) {
	s, clock, _ := testServer(t)
	l := createLink(t, s, testKeyA)
	if strings.Contains(l.URL, testKeyA) || !strings.HasPrefix(l.URL, "http://h:1/app/#") || l.JobID != nil {
		t.Errorf("link %+v", l)
	}
	if want := clock.Now().Add(ReviewLinkTTL).Format(time.RFC3339); l.ExpiresAt != want {
		t.Errorf("expires_at %s, want %s", l.ExpiresAt, want)
	}
	token := handoffOf(t, l.URL)
	if raw, err := base64.RawURLEncoding.DecodeString(token); err != nil || len(raw) < 16 {
		t.Errorf("token %q: %d random bytes (%v), want at least 16", token, len(raw), err)
	}
	if code, key, _ := exchangeReason(t, s, token); code != 200 || key != testKeyA {
		t.Fatalf("first exchange: %d %q", code, key)
	}
	if code, key, reason := exchangeReason(t, s, token); code != 401 || key != "" || reason != handoffUsed {
		t.Errorf("second exchange: %d %q %q, want 401 used", code, key, reason)
	}
	if code, _, reason := exchangeReason(t, s, token+"x"); code != 401 || reason != handoffUnknown {
		t.Errorf("unknown token: %d %q, want 401 unknown", code, reason)
	}

	// A link of key B expires unused after ReviewLinkTTL.
	b := handoffOf(t, createLink(t, s, testKeyB).URL)
	clock.advance(ReviewLinkTTL - time.Second)
	later := handoffOf(t, createLink(t, s, testKeyB).URL)
	clock.advance(time.Second)
	if code, _, reason := exchangeReason(t, s, b); code != 401 || reason != handoffExpired {
		t.Errorf("expired token: %d %q, want 401 expired", code, reason)
	}
	if code, key, _ := exchangeReason(t, s, later); code != 200 || key != testKeyB {
		t.Errorf("token within its lifetime: %d %q", code, key)
	}

	// Bad bodies are 422; creating needs a key, exchanging does not.
	for _, c := range []struct {
		path, key, body string
		status          int
	}{
		{"/v1/review-links/exchange", "", "", 422},
		{"/v1/review-links/exchange", "", `{"handoff":""}`, 422},
		{"/v1/review-links/exchange", "", `{"handoff":1}`, 422},
		{"/v1/review-links/exchange", "", `{"handoff":"a"}{}`, 422},
		{"/v1/review-links/exchange", "", `{"handoff":"` + strings.Repeat("a", maxReviewLinkBody) + `"}`, 422},
		{"/v1/review-links", "", "", 401},
		{"/v1/review-links", "wrong-key-0123456789", "", 401},
		{"/v1/review-links", testKeyA, `{"job_id":""}`, 422},
		{"/v1/review-links", testKeyA, `{"job_id":7}`, 422},
		{"/v1/review-links", testKeyA, `[`, 422},
	} {
		if w := call(s, "POST", c.path, c.key, c.body); w.Code != c.status || !strings.Contains(w.Body.String(), `"error"`) {
			t.Errorf("POST %s %q: %d %s, want %d", c.path, c.body, w.Code, w.Body, c.status)
		}
	}
}

// TestHandoffsBounded checks that the store never holds more than its
// bound: expired tokens go first, then the one that expires soonest.
func TestHandoffsBounded(t *testing.T) {
	hs := newHandoffs(3)
	now := time.Unix(1_800_000_000, 0)
	old := hs.add(handoff{apiKey: "k0", expires: now.Add(time.Second)}, now)
	soon := hs.add(handoff{apiKey: "k1", expires: now.Add(time.Minute)}, now)
	hs.add(handoff{apiKey: "k2", expires: now.Add(2 * time.Minute)}, now)
	later := now.Add(2 * time.Second) // old has expired
	hs.add(handoff{apiKey: "k3", expires: later.Add(time.Minute)}, later)
	if len(hs.entries) != 3 {
		t.Fatalf("%d entries, want 3", len(hs.entries))
	}
	if _, reason := hs.take(old, later); reason != handoffUnknown {
		t.Errorf("expired token after eviction: %q", reason)
	}
	hs.add(handoff{apiKey: "k4", expires: later.Add(time.Minute)}, later)
	if len(hs.entries) != 3 {
		t.Fatalf("%d entries, want 3", len(hs.entries))
	}
	if _, reason := hs.take(soon, later); reason != handoffUnknown {
		t.Errorf("the soonest to expire stayed: %q", reason)
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
		{"POST", "/v1/review-links", testKeyA, 201},
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
