package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"blueprint/internal/job"
	"blueprint/internal/signing"
)

func TestStatusOf(t *testing.T) {
	cases := map[job.Code]int{
		job.CodeUnauthorized:         401,
		job.CodeForbidden:            403,
		job.CodeNotFound:             404,
		job.CodeConflict:             409,
		job.CodePayloadTooLarge:      413,
		job.CodeUnsupportedMediaType: 415,
		job.CodeUnprocessable:        422,
		job.CodeRateLimited:          429,
		job.CodeMethodNotAllowed:     405,
		job.CodeInternal:             500,
		job.CodeUpstream:             502,
		job.Code("something_else"):   500,
	}
	for code, want := range cases {
		if got := StatusOf(code); got != want {
			t.Errorf("StatusOf(%q) = %d, want %d", code, got, want)
		}
	}
}

func TestWriteError(t *testing.T) {
	s := New(Config{})
	cases := []struct {
		err     error
		status  int
		code    string
		message string
	}{
		{&job.Error{Code: job.CodeConflict, Message: "job is done", Details: map[string]any{"x": 1}}, 409, "conflict", "job is done"},
		{errors.New("disk on fire"), 500, "internal_error", "internal error; quote the X-Request-Id header to support"},
		{&job.Error{Code: job.CodeInternal, Message: "secret path /var/x", Err: errors.New("boom")}, 500, "internal_error", "internal error; quote the X-Request-Id header to support"},
	}
	for _, c := range cases {
		w := httptest.NewRecorder()
		s.writeError(w, httptest.NewRequest("GET", "/", nil), c.err)
		var body struct {
			Error struct {
				Code    string         `json:"code"`
				Message string         `json:"message"`
				Details map[string]any `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if w.Code != c.status || body.Error.Code != c.code || body.Error.Message != c.message || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%v: %d %s", c.err, w.Code, w.Body)
		}
	}
}

// TestWriteJSONThatDoesNotEncode checks that a body that cannot be encoded
// (a NaN) is a 500 with a whole error body, not a truncated 200, and that
// error details that cannot be encoded still leave the code and message.
func TestWriteJSONThatDoesNotEncode(t *testing.T) {
	s := New(Config{})
	nan := math.NaN()
	for _, write := range []func(w http.ResponseWriter, r *http.Request) int{
		func(w http.ResponseWriter, r *http.Request) int {
			s.writeJSON(w, r, http.StatusOK, map[string]float64{"confidence": nan})
			return http.StatusInternalServerError
		},
		func(w http.ResponseWriter, r *http.Request) int {
			s.writeError(w, r, &job.Error{Code: job.CodeConflict, Message: "m", Details: map[string]any{"x": nan}})
			return http.StatusConflict
		},
	} {
		w := httptest.NewRecorder()
		want := write(w, httptest.NewRequest("GET", "/", nil))
		var body struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != want || body.Error.Code == "" || body.Error.Message == "" {
			t.Errorf("%d %q (%v), want %d with an error body", w.Code, w.Body, err, want)
		}
	}
}

func TestRequestIDOnEveryResponse(t *testing.T) {
	s := New(Config{})
	seen := map[string]bool{}
	for _, path := range []string{"/", "/nothing", "/files/icons/x.svg"} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		id := w.Header().Get(HeaderRequestID)
		if !strings.HasPrefix(id, "req_") || seen[id] {
			t.Fatalf("%s: request id %q", path, id)
		}
		seen[id] = true
	}
}

func TestLinksAreSignedForTheirRoutes(t *testing.T) {
	signer, err := signing.New([]byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	l := NewLocalLinks("http://h:1/", signer)
	now := time.Unix(1_800_000_000, 0)
	ctx := context.Background()
	must := func(u string, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	for _, c := range []struct {
		raw, method string
	}{
		{must(l.UploadURL(ctx, &job.Job{ID: "j1", UploadExpiresAt: now.Add(time.Hour)})), http.MethodPut},
		{must(l.PageImageURL(ctx, "j1", 3, now.Add(time.Hour))), http.MethodGet},
		{must(l.IconFileURL(ctx, "smoke_detector", "svg", now.Add(time.Hour))), http.MethodGet},
	} {
		u, err := url.Parse(c.raw)
		if err != nil || u.Host != "h:1" {
			t.Fatalf("%s: %v", c.raw, err)
		}
		if err := l.Verify(c.method, u.Path, u.Query(), now); err != nil {
			t.Errorf("%s: %v", c.raw, err)
		}
		if err := l.Verify(c.method, u.Path, u.Query(), now.Add(2*time.Hour)); !errors.Is(err, signing.ErrExpired) {
			t.Errorf("%s two hours later: %v, want signing.ErrExpired", c.raw, err)
		}
	}
	if got := l.DetectionsURL("j1", 2); got != "http://h:1/v1/jobs/j1/pages/2/detections" {
		t.Errorf("DetectionsURL = %s", got)
	}
	if got := l.JobURL("j1"); got != "http://h:1/v1/jobs/j1" {
		t.Errorf("JobURL = %s", got)
	}
}

// TestNoRouteOutsideV1 checks 405 with Allow on known paths of the signed
// file routes and 404 elsewhere, without any key.
func TestNoRouteOutsideV1(t *testing.T) {
	s := New(Config{})
	for _, c := range []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"GET", "/uploads/j1", 405, "method_not_allowed", "PUT"},
		{"POST", "/files/pages/j1/0.png", 405, "method_not_allowed", "GET, HEAD"},
		{"DELETE", "/files/icons/smoke_detector.svg", 405, "method_not_allowed", "GET, HEAD"},
		{"GET", "/nothing", 404, "not_found", ""},
		{"DELETE", "/uploads/", 404, "not_found", ""},
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(c.method, c.path, nil))
		var body struct {
			Error struct {
				Code    string         `json:"code"`
				Details map[string]any `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s %s: %v: %s", c.method, c.path, err, w.Body)
		}
		if w.Code != c.status || body.Error.Code != c.code || w.Header().Get(HeaderAllow) != c.allow {
			t.Errorf("%s %s: %d %q Allow %q, want %d %q %q", c.method, c.path, w.Code, body.Error.Code, w.Header().Get(HeaderAllow), c.status, c.code, c.allow)
		}
	}
}
