package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/config"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/openapi"
	"blueprint/internal/raster/rastertest"
	"blueprint/internal/runner"
)

// Test keys: two partners, the second with a tiny rate.
const (
	keyA    = "key-a-0123456789"
	secretA = "whsec-a"
	keyB    = "key-b-0123456789"
	secretB = "whsec-b"
	keyC    = "key-c-slow-012345"
)

// fakeClock is a settable clock, safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testEnv is one running service on 127.0.0.1 over a data directory.
type testEnv struct {
	t    *testing.T
	dir  string
	base string
	app  *app
	srv  *httptest.Server
	stop func()
	// spec checks every response of the service against the OpenAPI
	// document the service serves.
	spec *openapi.Validator
}

// startEnv starts the whole service (real store, blobs, catalog, runner,
// HTTP server) over dir. opt.engine nil uses the production engine.
func startEnv(t *testing.T, dir string, opt options, mods ...func(*config.Config)) *testEnv {
	t.Helper()
	return startEnvWrapped(t, dir, opt, nil, mods...)
}

// startEnvWrapped is startEnv with the service's handler wrapped by wrap
// (nil: as it is), for tests that watch or alter what the server answers.
func startEnvWrapped(t *testing.T, dir string, opt options, wrap func(http.Handler) http.Handler, mods ...func(*config.Config)) *testEnv {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = dir
	cfg.BaseURL = base
	if opt.engine == nil {
		cfg.Raster.Library = rastertest.Library(t)
	}
	cfg.AllowPrivateCallbacks = true
	cfg.APIKeys = []apikey.Entry{{Key: keyA, WebhookSecret: secretA, RequestsPerMinute: 1000},
		{Key: keyB, WebhookSecret: secretB, RequestsPerMinute: 1000}, {Key: keyC, WebhookSecret: "s", RequestsPerMinute: 3}}
	for _, m := range mods {
		m(&cfg)
	}
	if opt.runner.Poll == 0 {
		opt.runner.Poll = 20 * time.Millisecond
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(tWriter{t}, nil))
	}
	a, _, err := newApp(cfg, log, opt)
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = a.handler
	if wrap != nil {
		srv.Config.Handler = wrap(a.handler)
	}
	srv.Start()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.runner.Run(ctx, a.service)
	}()
	spec, err := openapi.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{t: t, dir: dir, base: base, app: a, srv: srv, spec: spec}
	var once sync.Once
	e.stop = func() {
		once.Do(func() {
			srv.Close()
			cancel()
			<-done
			if err := a.close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
	t.Cleanup(e.stop)
	return e
}

// undocumented reports paths the OpenAPI document deliberately leaves out:
// unknown routes and the review page's files (a page, not the API).
func (e *testEnv) undocumented(path string) bool {
	return strings.HasPrefix(path, "/v2/") || path == "/v1/jobz" || strings.HasPrefix(path, "/app") || path == "/v1" ||
		strings.Contains(path, "//") || strings.Contains(path, "/.") // not in canonical form
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// response is a decoded HTTP response.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

func (r response) code(t *testing.T) string {
	t.Helper()
	e, _ := r.json(t)["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// do sends a request; key "" sends no X-API-Key. url may be a path.
func (e *testEnv) do(method, url, key string, body []byte, hdr map[string]string) response {
	e.t.Helper()
	if strings.HasPrefix(url, "/") {
		url = e.base + url
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if body == nil {
		req.Body = http.NoBody
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		e.t.Errorf("%s %s: no X-Request-Id", method, url)
	}
	checked := method
	if resp.StatusCode == http.StatusMethodNotAllowed {
		// The document lists the one shared 405 response on every operation
		// of a path: check the answer against the first allowed method's.
		checked, _, _ = strings.Cut(resp.Header.Get("Allow"), ",")
	}
	if err := e.spec.ValidateResponse(checked, req.URL.Path, resp.StatusCode, resp.Header, b); err != nil && !e.undocumented(req.URL.Path) {
		e.t.Errorf("%s %s: response does not match the OpenAPI document: %v\n%s", method, req.URL.Path, err, b)
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// initJob creates a job and returns its creation response.
func (e *testEnv) initJob(key string, req map[string]any) map[string]any {
	e.t.Helper()
	b, _ := json.Marshal(req)
	r := e.do("POST", "/v1/jobs/init", key, b, nil)
	if r.Status != 201 {
		e.t.Fatalf("init: %d %s", r.Status, r.Body)
	}
	return r.json(e.t)
}

// upload PUTs data to the job's upload URL.
func (e *testEnv) upload(created map[string]any, data []byte, ctype string) response {
	e.t.Helper()
	u := created["upload"].(map[string]any)
	return e.do("PUT", u["url"].(string), "", data, map[string]string{"Content-Type": ctype})
}

// runJob creates a job for data, uploads it, starts it and waits until it
// is done or failed; it returns the job id and its final poll body.
func (e *testEnv) runJob(key, fileName, mime string, data []byte) (string, map[string]any) {
	e.t.Helper()
	created := e.initJob(key, map[string]any{"file_name": fileName, "mime_type": mime, "size": len(data)})
	id := created["job_id"].(string)
	if r := e.upload(created, data, mime); r.Status != 200 {
		e.t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	if r := e.do("POST", "/v1/jobs/"+id+"/start", key, nil, nil); r.Status != 202 {
		e.t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	return id, e.waitStatus(key, id, "done", "failed")
}

// waitStatus polls the job until it reaches want or the test times out.
func (e *testEnv) waitStatus(key, id string, want ...string) map[string]any {
	e.t.Helper()
	var last response
	var m map[string]any
	waitFor(e.t, 20*time.Second, 20*time.Millisecond, func() bool {
		last = e.do("GET", "/v1/jobs/"+id, key, nil, nil)
		if last.Status != 200 {
			e.t.Fatalf("poll: %d %s", last.Status, last.Body)
		}
		m = last.json(e.t)
		return slices.ContainsFunc(want, func(w string) bool { return m["status"] == w })
	}, func() string { return fmt.Sprintf("job %s is %v, want %v: %s", id, m["status"], want, last.Body) })
	return m
}

// waitFor calls cond every interval until it reports true. Once timeout
// has passed it fails the test with describe(), which can report the state
// cond saw last.
func waitFor(t *testing.T, timeout, every time.Duration, cond func() bool, describe func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(describe())
		}
		time.Sleep(every)
	}
}

// pdfDoc writes a valid PDF with one page per size (in points), each
// drawing a few lines and a circle-ish square.
func pdfDoc(sizes ...[2]int) []byte {
	pages := make([]documenttest.Page, len(sizes))
	for i, s := range sizes {
		pages[i] = documenttest.Page{
			MediaBox: fmt.Sprintf("[0 0 %d %d]", s[0], s[1]),
			Content:  fmt.Sprintf("1 w 10 10 m %d %d l S 20 20 30 30 re S", s[0]-10, s[1]-10),
		}
	}
	return documenttest.PDF(pages...)
}

// pngImage encodes a w×h white image with a dark square.
func pngImage(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 255, 255, 255}
			if x > w/4 && x < w/2 && y > h/4 && y < h/2 {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// webhookSink is a receiver that records deliveries and answers with the
// statuses in script (then 200).
type webhookSink struct {
	mu       sync.Mutex
	srv      *httptest.Server
	script   []int
	received []delivery
	got      chan delivery
}

type delivery struct {
	Header http.Header
	Body   []byte
	Status int
}

func newSink(t *testing.T, script ...int) *webhookSink {
	s := &webhookSink{script: script, got: make(chan delivery, 32)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		status := 200
		if len(s.script) > 0 {
			status, s.script = s.script[0], s.script[1:]
		}
		d := delivery{Header: r.Header.Clone(), Body: b, Status: status}
		s.received = append(s.received, d)
		s.mu.Unlock()
		w.WriteHeader(status)
		s.got <- d
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// next waits for the next delivery.
func (s *webhookSink) next(t *testing.T) delivery {
	t.Helper()
	select {
	case d := <-s.got:
		return d
	case <-time.After(20 * time.Second):
		t.Fatal("no webhook delivery")
		return delivery{}
	}
}

// runnerOpts is a fast runner for tests.
func runnerOpts() runner.Options {
	return runner.Options{Poll: 20 * time.Millisecond, SweepEvery: time.Hour}
}

// rawCall sends one request with keyA outside any test helper (safe from
// any goroutine, no test failure on errors) and returns status and body.
func rawCall(client *http.Client, method, url string, body []byte, hdr map[string]string) (int, []byte, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-API-Key", keyA)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}
