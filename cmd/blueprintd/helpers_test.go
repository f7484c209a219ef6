package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"blueprint/internal/apitest"
	"blueprint/internal/config"
	"blueprint/internal/job"
	"blueprint/internal/raster/rastertest"
	"blueprint/internal/runner"
)

// Test keys: the contract tests' (package apitest).
const (
	keyA    = apitest.KeyA
	secretA = apitest.SecretA
	keyB    = apitest.KeyB
	keyC    = apitest.KeyC
)

// testEnv is one running service on 127.0.0.1 over a data directory. It
// is an apitest.Service, so the contract tests run against it.
type testEnv struct {
	t    *testing.T
	dir  string
	base string
	app  *app
	srv  *httptest.Server
	stop func()
	api  *apitest.Client
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
	cfg.APIKeys = apitest.Keys()
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
	a, _, err := newApp(context.Background(), cfg, log, opt)
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
	e := &testEnv{t: t, dir: dir, base: base, app: a, srv: srv, api: apitest.NewClient(t, base)}
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

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

type response = apitest.Response

// do sends a request checked against the OpenAPI document; key "" sends
// no X-API-Key. url may be a path.
func (e *testEnv) do(method, url, key string, body []byte, hdr map[string]string) response {
	e.t.Helper()
	return e.api.Do(method, url, key, body, hdr)
}

// initJob creates a job and returns its creation response.
func (e *testEnv) initJob(key string, req map[string]any) map[string]any {
	e.t.Helper()
	return e.api.InitJob(key, req)
}

// upload PUTs data to the job's upload URL.
func (e *testEnv) upload(created map[string]any, data []byte, ctype string) response {
	e.t.Helper()
	return e.api.PutUpload(created, data, ctype)
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
	return e.api.WaitStatus(key, id, want...)
}

// Base, Upload and ListJobs make a testEnv an apitest.Service.
func (e *testEnv) Base() string { return e.base }

func (e *testEnv) Upload(t *testing.T, c *apitest.Client, created map[string]any, data []byte, ctype string) apitest.Response {
	t.Helper()
	return c.PutUpload(created, data, ctype)
}

func (e *testEnv) ListJobs(ctx context.Context, state job.State) ([]string, error) {
	return e.app.store.ListJobs(ctx, state, 0)
}

// Helpers shared with the contract tests.
var (
	waitFor        = apitest.WaitFor
	pdfDoc         = apitest.PDFDoc
	pngImage       = apitest.PNGImage
	newSink        = apitest.NewSink
	scriptedEngine = apitest.ScriptedEngine
)

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
