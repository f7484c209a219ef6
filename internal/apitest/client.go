// Package apitest holds the partner-API contract tests and the helpers
// they use, written once and run against every way the service is
// deployed: the local server (cmd/blueprintd) and the Lambda api handler
// behind an API Gateway HTTP API with S3, DynamoDB and Step Functions
// (internal/awsapp). A deployment under test implements Service.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/detect"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/job"
	"blueprint/internal/openapi/conform"
)

// Test keys: two partners, and a third with a tiny rate.
const (
	KeyA    = "key-a-0123456789"
	SecretA = "whsec-a"
	KeyB    = "key-b-0123456789"
	SecretB = "whsec-b"
	KeyC    = "key-c-slow-012345"
	// RateC is KeyC's requests per minute.
	RateC = 3
)

// Keys are the API keys every Service under test must accept.
func Keys() []apikey.Entry {
	return []apikey.Entry{{Key: KeyA, WebhookSecret: SecretA, RequestsPerMinute: 1000},
		{Key: KeyB, WebhookSecret: SecretB, RequestsPerMinute: 1000}, {Key: KeyC, WebhookSecret: "s", RequestsPerMinute: RateC}}
}

// KeysSpec is Keys in BLUEPRINT_API_KEYS form.
func KeysSpec() string {
	var parts []string
	for _, k := range Keys() {
		parts = append(parts, fmt.Sprintf("%s:%s:%d", k.Key, k.WebhookSecret, k.RequestsPerMinute))
	}
	return strings.Join(parts, ",")
}

// Response is a read HTTP response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as a JSON object or fails the test.
func (r Response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// Code is the error.code of an error body ("" if none).
func (r Response) Code(t *testing.T) string {
	t.Helper()
	e, _ := r.JSON(t)["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// Client talks to a service as a partner does. Every answer of the
// service's own host is checked against the OpenAPI document and must
// carry X-Request-Id; answers of other hosts (S3's presigned URLs) are
// returned as they are.
type Client struct {
	t    *testing.T
	base string
	host string
	// Spec is the validator of the document the service serves.
	Spec *conform.Validator
}

// NewClient returns a Client of the service at base.
func NewClient(t *testing.T, base string) *Client {
	t.Helper()
	spec, err := conform.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return &Client{t: t, base: strings.TrimRight(base, "/"), host: u.Host, Spec: spec}
}

// undocumented reports the paths the OpenAPI document deliberately leaves
// out: unknown routes and the review page's files (a page, not the API).
func undocumented(path string) bool {
	return strings.HasPrefix(path, "/v2/") || path == "/v1/jobz" || strings.HasPrefix(path, "/app") || path == "/v1" ||
		strings.Contains(path, "//") || strings.Contains(path, "/.") // not in canonical form
}

// Do sends a request; key "" sends no X-API-Key; url may be a path of the
// service. Redirects are not followed.
func (c *Client) Do(method, url, key string, body []byte, hdr map[string]string) Response {
	c.t.Helper()
	if strings.HasPrefix(url, "/") {
		url = c.base + url
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
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
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	r := Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	if req.URL.Host != c.host {
		return r
	}
	if resp.Header.Get("X-Request-Id") == "" {
		c.t.Errorf("%s %s: no X-Request-Id", method, url)
	}
	checked := method
	if resp.StatusCode == http.StatusMethodNotAllowed {
		// The document lists the one shared 405 response on every operation
		// of a path: check the answer against the first allowed method's.
		checked, _, _ = strings.Cut(resp.Header.Get("Allow"), ",")
	}
	if err := c.Spec.ValidateResponse(checked, req.URL.Path, resp.StatusCode, resp.Header, b); err != nil && !undocumented(req.URL.Path) {
		c.t.Errorf("%s %s: response does not match the OpenAPI document: %v\n%s", method, req.URL.Path, err, b)
	}
	return r
}

// InitJob creates a job and returns its creation response.
func (c *Client) InitJob(key string, req map[string]any) map[string]any {
	c.t.Helper()
	b, _ := json.Marshal(req)
	r := c.Do("POST", "/v1/jobs/init", key, b, nil)
	if r.Status != 201 {
		c.t.Fatalf("init: %d %s", r.Status, r.Body)
	}
	return r.JSON(c.t)
}

// PutUpload PUTs data to the job's upload URL as a partner's client does.
func (c *Client) PutUpload(created map[string]any, data []byte, ctype string) Response {
	c.t.Helper()
	u := created["upload"].(map[string]any)
	return c.Do("PUT", u["url"].(string), "", data, map[string]string{"Content-Type": ctype})
}

// waitStatusTimeout bounds WaitStatus: a real drawing's job on a busy
// 2-core machine takes minutes.
const waitStatusTimeout = 5 * time.Minute

// WaitStatus polls the job until its status is one of want, or fails the
// test after waitStatusTimeout. It polls as a partner's client should:
// often at first, then every half second at most, and a 429 waits for its
// Retry-After instead of failing, so a long job never spends the key's
// rate limit.
func (c *Client) WaitStatus(key, id string, want ...string) map[string]any {
	c.t.Helper()
	var last Response
	var m map[string]any
	deadline := time.Now().Add(waitStatusTimeout)
	every := 20 * time.Millisecond
	for {
		last = c.Do("GET", "/v1/jobs/"+id, key, nil, nil)
		switch {
		case last.Status == 429:
			secs, err := strconv.Atoi(last.Header.Get("Retry-After"))
			if err != nil || secs < 1 {
				secs = 1
			}
			time.Sleep(time.Duration(secs) * time.Second)
			continue
		case last.Status != 200:
			c.t.Fatalf("poll: %d %s", last.Status, last.Body)
		}
		m = last.JSON(c.t)
		if slices.ContainsFunc(want, func(w string) bool { return m["status"] == w }) {
			return m
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("job %s is %v, want %v: %s", id, m["status"], want, last.Body)
		}
		time.Sleep(every)
		every = min(every*3/2, 500*time.Millisecond)
	}
}

// WaitFor calls cond every interval until it reports true. Once timeout
// has passed it fails the test with describe(), which can report the state
// cond saw last.
func WaitFor(t *testing.T, timeout, every time.Duration, cond func() bool, describe func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(describe())
		}
		time.Sleep(every)
	}
}

// PDFDoc writes a valid PDF with one page per size (in points), each
// drawing a few lines and a square.
func PDFDoc(sizes ...[2]int) []byte {
	pages := make([]documenttest.Page, len(sizes))
	for i, s := range sizes {
		pages[i] = documenttest.Page{
			MediaBox: fmt.Sprintf("[0 0 %d %d]", s[0], s[1]),
			Content:  fmt.Sprintf("1 w 10 10 m %d %d l S 20 20 30 30 re S", s[0]-10, s[1]-10),
		}
	}
	return documenttest.PDF(pages...)
}

// Clock is a settable job.Clock, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock reading t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// SyntheticSheet reads testdata/synth/sheet-00002.pdf of the repository, a
// generated drawing with 130 symbols.
func SyntheticSheet(t *testing.T) []byte {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("apitest: no source path to find testdata from")
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "testdata", "synth", "sheet-00002.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// PNGImage encodes a w×h white image with a dark square.
func PNGImage(w, h int) []byte {
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

// ScriptedEngine reports fixed detections per page index, so that the
// filter, summary and pagination rules can be checked against known
// numbers (the production engine is exercised by the end-to-end test).
func ScriptedEngine() detect.Engine {
	box := func(i int) detect.Box { return detect.Box{X: float64(10 + 20*i), Y: 20, W: 16, H: 8} }
	return detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		var ds []detect.Detection
		add := func(class string, conf float64) {
			ds = append(ds, detect.Detection{Class: class, Confidence: conf, Box: box(len(ds)), Source: detect.Source{VectorMatching: true}})
		}
		switch p.Index {
		case 0:
			add("socket_outlet", 0.9)
			add("socket_outlet", 0.6)
			add("socket_outlet", 0.3)
			add("socket_outlet", 0.05)    // below the stored floor
			add("alarm_transmitter", 0.2) // lone and below 0.25: dropped
			add("power_supply", 0.3)      // lone but kept, under the default thresholds
		case 1:
			add("socket_outlet", 0.7)
			add("socket_outlet", 0.7)
			add("socket_outlet", 0.7)
		}
		return ds, ctx.Err()
	})
}

// ScriptedLegendEngine is ScriptedEngine reading a legend first (a
// detect.DocumentEngine): row 1 names socket_outlet with a tag, a part
// number and a glyph box, row 2 names no class and has no glyph box. The socket detections are row 1's, and
// page 0 also finds row 2's glyph at 0.9 and 0.2 (no symbols: counted
// under row 2 only).
func ScriptedLegendEngine() detect.Engine { return scriptedLegend{ScriptedEngine()} }

// The legend rows ScriptedLegendEngine reads.
var scriptedLegendRows = []detect.LegendRow{
	{PageIndex: 0, Description: "Single switched socket", Class: "socket_outlet", Tag: "S1", PartNumber: "4098-9714",
		GlyphBox: &detect.Box{X: 20, Y: 30, W: 10, H: 12}},
	{PageIndex: 0, Description: "Hydroboil"},
}

type scriptedLegend struct{ detect.Engine }

func (e scriptedLegend) Prepare(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	info := detect.DocumentInfo{Legend: scriptedLegendRows, Kinds: make([]string, doc.NumPages())}
	for i := range info.Kinds {
		info.Kinds[i] = detect.KindFloorPlan
	}
	return detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		ds, err := e.Detect(ctx, p)
		for i := range ds {
			if ds[i].Class == "socket_outlet" {
				ds[i].LegendRow = 1
			}
		}
		if p.Index == 0 {
			ds = append(ds, detect.Detection{Confidence: 0.9, LegendRow: 2, Box: detect.Box{X: 200, Y: 40, W: 8, H: 8}, Source: detect.Source{VectorMatching: true}},
				detect.Detection{Confidence: 0.2, LegendRow: 2, Box: detect.Box{X: 220, Y: 40, W: 8, H: 8}, Source: detect.Source{VectorMatching: true}})
		}
		return ds, err
	}), info, ctx.Err()
}

// Sink is a webhook receiver that records deliveries and answers with the
// statuses of its script (then 200).
type Sink struct {
	// URL is the receiver's address (http on 127.0.0.1: the service must
	// allow private callbacks).
	URL string
	// Got receives every delivery.
	Got chan Delivery

	mu       sync.Mutex
	script   []int
	received []Delivery
}

// Delivery is one received webhook request.
type Delivery struct {
	Header http.Header
	Body   []byte
	Status int
}

// NewSink starts a receiver, stopped at the end of the test.
func NewSink(t *testing.T, script ...int) *Sink {
	s := &Sink{script: script, Got: make(chan Delivery, 32)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		status := 200
		if len(s.script) > 0 {
			status, s.script = s.script[0], s.script[1:]
		}
		d := Delivery{Header: r.Header.Clone(), Body: b, Status: status}
		s.received = append(s.received, d)
		s.mu.Unlock()
		w.WriteHeader(status)
		s.Got <- d
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Received returns the deliveries so far.
func (s *Sink) Received() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.received)
}

// Next waits up to 60 s for the next delivery.
func (s *Sink) Next(t *testing.T) Delivery {
	t.Helper()
	select {
	case d := <-s.Got:
		return d
	case <-time.After(60 * time.Second):
		t.Fatal("no webhook delivery")
		return Delivery{}
	}
}

// Service is a running deployment of the service under test.
type Service interface {
	// Base is the API's public base URL.
	Base() string
	// Upload stores data as the job's file the way a partner does (a PUT
	// to the upload URL with Content-Type ctype) and returns the PUT's
	// response once the service has seen the upload.
	Upload(t *testing.T, c *Client, created map[string]any, data []byte, ctype string) Response
	// ListJobs lists the stored jobs in a state.
	ListJobs(ctx context.Context, state job.State) ([]string, error)
}
