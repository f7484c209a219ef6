package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/config"
)

// fuzzRoutes are the request shapes FuzzAPI sends: a method and a path
// with "{}" where the fuzzed path segment goes, "{done}" for a finished
// job.
var fuzzRoutes = []struct{ method, path string }{
	{"POST", "/v1/jobs/init"},
	{"POST", "/v1/jobs/{}/start"},
	{"GET", "/v1/jobs/{}"},
	{"GET", "/v1/jobs/{done}"},
	{"GET", "/v1/jobs/{done}/pages/{}/detections"},
	{"GET", "/v1/symbols"},
	{"GET", "/v1/symbols/{}/icon"},
	{"PUT", "/uploads/{}"},
	{"GET", "/files/pages/{done}/{}"},
	{"GET", "/files/icons/{}"},
	{"DELETE", "/v1/jobs/{}"},
	{"GET", "{}"},
}

// FuzzAPI sends fuzzed bodies, query strings and path segments to every
// route of the real service (store, blobs, catalog, runner) and checks
// that every answer is a documented kind of answer: never a 5xx, and
// every error the JSON error shape with a code and a message.
func FuzzAPI(f *testing.F) {
	dir := f.TempDir()
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		f.Fatal(err)
	}
	cfg.DataDir, cfg.BaseURL, cfg.AllowPrivateCallbacks = dir, "http://127.0.0.1:1", true
	cfg.APIKeys = []apikey.Entry{{Key: keyA, WebhookSecret: secretA, RequestsPerMinute: 1 << 30}}
	a, _, err := newApp(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), options{runner: runnerOpts(), engine: scriptedEngine()})
	if err != nil {
		f.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { _ = a.runner.Run(ctx, a.service); close(stopped) }()
	f.Cleanup(func() { cancel(); <-stopped; a.close() })
	serve := func(method, target string, hdr map[string]string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "http://127.0.0.1:1/", bytes.NewReader(body))
		u, err := url.Parse(target)
		if err != nil {
			u = &url.URL{Path: target}
		}
		req.URL.Path, req.URL.RawPath, req.URL.RawQuery = u.Path, u.RawPath, u.RawQuery
		req.Header.Set("X-API-Key", keyA)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		a.handler.ServeHTTP(w, req)
		return w
	}
	// One finished job to read.
	pdf := pdfDoc([2]int{144, 72})
	w := serve("POST", "/v1/jobs/init", nil, []byte(`{"file_name":"a.pdf","mime_type":"application/pdf","size":`+strconv.Itoa(len(pdf))+`}`))
	var created struct {
		JobID  string `json:"job_id"`
		Upload struct {
			URL string `json:"url"`
		} `json:"upload"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &created); err != nil || w.Code != 201 {
		f.Fatalf("init: %d %s", w.Code, w.Body)
	}
	if w := serve("PUT", strings.TrimPrefix(created.Upload.URL, cfg.BaseURL), map[string]string{"Content-Type": "application/pdf"}, pdf); w.Code != 200 {
		f.Fatalf("PUT: %d %s", w.Code, w.Body)
	}
	if w := serve("POST", "/v1/jobs/"+created.JobID+"/start", nil, nil); w.Code != 202 {
		f.Fatalf("start: %d %s", w.Code, w.Body)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if strings.Contains(serve("GET", "/v1/jobs/"+created.JobID, nil, nil).Body.String(), `"status":"done"`) {
			break
		}
		if time.Now().After(deadline) {
			f.Fatal("the seed job did not finish")
		}
	}

	f.Add(uint8(0), "", "", []byte(`{"file_name":"p.pdf","mime_type":"application/pdf","size":10,"models":["electricity"],"confidence":0.5,"external_ref":"x","callback_url":"http://127.0.0.1:9/h"}`))
	f.Add(uint8(0), "", "", []byte(`{"file_name":"p.pdf","mime_type":"image/png","size":1e400}`))
	f.Add(uint8(0), "", "", []byte(`{"size":-1,"models":[1,2],"confidence":"x"}{}`))
	f.Add(uint8(3), "", "confidence=0.3&include=detections", []byte(nil))
	f.Add(uint8(4), "0", "limit=2000&offset=0&confidence=0", []byte(nil))
	f.Add(uint8(4), "99999999999999999999", "limit=-1&offset=9223372036854775808", []byte(nil))
	f.Add(uint8(6), "smoke_detector", "format=png", []byte(nil))
	f.Add(uint8(7), created.JobID, "expires=1&sig=00", []byte("%PDF-"))
	f.Add(uint8(8), "0.png", "expires=99999999999&sig=zz", []byte(nil))
	f.Add(uint8(11), "//v1/../symbols", "", []byte(nil))
	f.Fuzz(func(t *testing.T, route uint8, segment, query string, body []byte) {
		r := fuzzRoutes[int(route)%len(fuzzRoutes)]
		p := strings.ReplaceAll(r.path, "{done}", created.JobID)
		p = strings.ReplaceAll(p, "{}", url.PathEscape(segment))
		if r.path == "{}" {
			p = "/" + strings.TrimPrefix(segment, "/")
		}
		target := p
		if query != "" {
			target += "?" + query
		}
		w := serve(r.method, target, map[string]string{"Content-Type": "application/pdf", "Accept-Language": segment}, body)
		if w.Code >= 500 {
			t.Fatalf("%s %s: %d %s", r.method, target, w.Code, w.Body)
		}
		if w.Code >= 400 {
			var e struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
				t.Fatalf("%s %s: %d is not the error shape: %s", r.method, target, w.Code, w.Body)
			}
		} else if ct := w.Header().Get("Content-Type"); w.Code == http.StatusOK && strings.HasPrefix(ct, "application/json") && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s %s: invalid JSON: %s", r.method, target, w.Body)
		}
	})
}
