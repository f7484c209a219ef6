package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/catalog"
	"blueprint/internal/config"
	"blueprint/internal/detect"
)

// loadTestEnv, set to 1, runs TestLoad (make load): it saturates the
// machine for a while, so it is not part of make test.
const loadTestEnv = "BLUEPRINT_LOAD_TEST"

// countEngine finds perPage[i] symbols on page i, spread over the page and
// over the catalog's classes, each above its class's default threshold.
func countEngine(cat *catalog.Catalog, perPage ...int) detect.Engine {
	syms := cat.Symbols()
	return detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		n := perPage[min(p.Index, len(perPage)-1)]
		ds := make([]detect.Detection, 0, n)
		for i := range n {
			s := syms[i%len(syms)]
			ds = append(ds, detect.Detection{Class: s.Class, Confidence: min(1, s.Threshold+0.2+float64(i%7)/100),
				Box: detect.Box{X: float64(10 + (i%50)*30), Y: float64(10 + (i/50)*30), W: 20, H: 20}, Source: detect.Source{VectorMatching: true}})
		}
		return ds, ctx.Err()
	})
}

// loadResult is one scenario's measurements.
type loadResult struct {
	requests, errors int
	latencies        []time.Duration
	took             time.Duration
}

func (r loadResult) pct(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(p*float64(len(r.latencies))))]
}

// hammer runs clients goroutines that GET url with the key, back to back,
// for d, and returns every latency sorted.
func hammer(client *http.Client, clients int, d time.Duration, url string) loadResult {
	var mu sync.Mutex
	var res loadResult
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			errs := 0
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("X-API-Key", keyA)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				lat = append(lat, time.Since(t0))
				if err != nil {
					errs++
				}
			}
			mu.Lock()
			res.latencies = append(res.latencies, lat...)
			res.errors += errs
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.took = time.Since(start)
	res.requests = len(res.latencies)
	slices.Sort(res.latencies)
	return res
}

// TestLoad is issue 11's load check on the real HTTP server, store, blobs
// and catalog: 16 clients read a page of 200 detections, then a page of
// 2000 (limit=2000), then poll the job (with inline detections off), each
// for LOAD_SECONDS (default 10); it prints throughput and p50/p99, and
// fails on any error, a p99 over 100 ms for 200 detections or over 250 ms
// for 2000.
func TestLoad(t *testing.T) {
	if os.Getenv(loadTestEnv) != "1" {
		t.Skipf("set %s=1 (make load) to run", loadTestEnv)
	}
	secs := 10
	if v, err := strconv.Atoi(os.Getenv("LOAD_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	clients := 16
	if v, err := strconv.Atoi(os.Getenv("LOAD_CLIENTS")); err == nil && v > 0 {
		clients = v
	}
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: countEngine(cat, 200, 2000)}, func(c *config.Config) {
		c.APIKeys = []apikey.Entry{{Key: keyA, WebhookSecret: secretA, RequestsPerMinute: 1 << 30}}
	})
	data := pdfDoc([2]int{612, 792}, [2]int{612, 792})
	j := e.initJob(keyA, map[string]any{"file_name": "load.pdf", "mime_type": "application/pdf", "size": len(data)})
	if r := e.upload(j, data, "application/pdf"); r.Status != 200 {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	id := j["job_id"].(string)
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	m := e.waitStatus(keyA, id, "done", "failed")
	pages := m["pages"].([]any)
	for i, want := range []float64{200, 2000} {
		if got := pages[i].(map[string]any)["detection_count"]; got != want {
			t.Fatalf("page %d has %v detections, want %v", i, got, want)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * clients}, Timeout: 30 * time.Second}
	d := time.Duration(secs) * time.Second
	for _, s := range []struct {
		name  string
		path  string
		bound time.Duration
	}{
		{"page of 200 detections", "/v1/jobs/" + id + "/pages/0/detections", 100 * time.Millisecond},
		{"page of 2000 detections", "/v1/jobs/" + id + "/pages/1/detections?limit=2000", 250 * time.Millisecond},
		{"poll the job", "/v1/jobs/" + id, 100 * time.Millisecond},
	} {
		r := hammer(client, clients, d, e.base+s.path)
		line := fmt.Sprintf("make load: %-24s %2d clients %3ds: %6d requests, %7.1f req/s, p50 %6.1f ms, p99 %6.1f ms, max %6.1f ms, %d errors (p99 bound %v)",
			s.name, clients, secs, r.requests, float64(r.requests)/r.took.Seconds(),
			ms(r.pct(0.50)), ms(r.pct(0.99)), ms(r.latencies[len(r.latencies)-1]), r.errors, s.bound)
		fmt.Println(line)
		t.Log(line)
		if r.errors > 0 || r.pct(0.99) > s.bound {
			t.Errorf("%s: %d errors, p99 %v over %v", s.name, r.errors, r.pct(0.99), s.bound)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
