package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"blueprint/internal/apitest"
	"blueprint/internal/boltstore"
	"blueprint/internal/config"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/job"
	"blueprint/internal/raster/rastertest"
	"blueprint/internal/webhook"
)

// childServerEnv, set to 1, makes TestHelperServer run the service: the
// test binary re-executed by TestKillNine as a real server process.
const childServerEnv = "BLUEPRINT_TEST_CHILD_SERVER"

// childLifetime bounds a child server that nobody stops; childLifetimeEnv
// (a Go duration) sets a longer one for the long runs (make mem, chaos).
const (
	childLifetime    = 90 * time.Second
	childLifetimeEnv = "BLUEPRINT_TEST_CHILD_LIFETIME"
)

// TestHelperServer is not a test: run as a child process of TestKillNine
// (childServerEnv=1), it serves the whole service exactly as main does,
// configured by BLUEPRINT_* variables, until its parent closes its stdin,
// childLifetime passes, or it is killed.
func TestHelperServer(t *testing.T) {
	if os.Getenv(childServerEnv) != "1" {
		t.Skip("runs only as the child server process of TestKillNine")
	}
	lifetime := childLifetime
	if d, err := time.ParseDuration(os.Getenv(childLifetimeEnv)); err == nil && d > 0 {
		lifetime = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), lifetime)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // EOF: the parent test is gone
		cancel()
	}()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(ctx, os.Getenv, io.Discard, log); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// childServer is one blueprintd process over a data directory.
type childServer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	log   *syncBuffer
	dead  bool
}

// startChild runs the service in a new process on addr over dir and waits
// until it answers.
func startChild(t *testing.T, dir, addr string, n int, env ...string) *childServer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$", "-test.count=1")
	cmd.Env = append(append(os.Environ(),
		childServerEnv+"=1",
		config.EnvListenAddr+"="+addr,
		config.EnvBaseURL+"=http://"+addr,
		config.EnvDataDir+"="+dir,
		config.EnvAPIKeys+"="+keyA+":"+secretA+":100000",
		config.EnvAllowPrivateCallbacks+"=1",
		config.EnvOnnxRuntimeLib+"="+rastertest.Library(t),
	), env...)
	c := &childServer{cmd: cmd, log: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = c.log, c.log
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child server: %v", err)
	}
	t.Cleanup(func() {
		c.kill(t)
		if t.Failed() {
			t.Logf("log of child server %d:\n%s", n, c.log.String())
		}
	})
	waitFor(t, 20*time.Second, 20*time.Millisecond, func() bool {
		var resp *http.Response
		if resp, err = http.Get("http://" + addr + "/v1/openapi.json"); err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, func() string { return fmt.Sprintf("child server %d did not answer: %v\n%s", n, err, c.log.String()) })
	return c
}

// kill sends SIGKILL (no shutdown of any kind runs) and reaps the process.
func (c *childServer) kill(t *testing.T) {
	t.Helper()
	if c.dead {
		return
	}
	c.dead = true
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("kill child: %v", err)
	}
	_ = c.cmd.Wait() // "signal: killed"
	c.stdin.Close()
}

// receiverMode says how the webhook receiver answers.
type receiverMode int

const (
	refuse       receiverMode = iota // 500
	ackAndSignal                     // 200, then report on acked once
	ack                              // 200
)

// received is one webhook request as the receiver saw it.
type received struct {
	jobID, eventID string
	status         int
}

// webhookRequest is what a test receiver reads from one delivery.
type webhookRequest struct {
	JobID   string `json:"job_id"`
	Status  string `json:"status"`
	eventID string
}

// readWebhook reads one delivery, checking its signature with keyA's
// secret and that its body names a job; ok is false when the body could
// not be read (the service was killed mid-request).
func readWebhook(t *testing.T, req *http.Request) (p webhookRequest, ok bool) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return p, false
	}
	if err := webhook.Verify([]byte(secretA), req.Header.Get(webhook.SignatureHeader), body, time.Now()); err != nil {
		t.Errorf("webhook signature: %v", err)
	}
	if err := json.Unmarshal(body, &p); err != nil || p.JobID == "" {
		t.Errorf("webhook body: %v: %s", err, body)
	}
	p.eventID = req.Header.Get(webhook.EventIDHeader)
	return p, true
}

// killReceiver is a partner's webhook endpoint on 127.0.0.1.
type killReceiver struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	mode  receiverMode
	log   []received
	acked chan struct{}
}

func newKillReceiver(t *testing.T) *killReceiver {
	r := &killReceiver{t: t, acked: make(chan struct{}, 1)}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		p, ok := readWebhook(t, req)
		if !ok {
			return // the service was killed mid-request
		}
		r.mu.Lock()
		mode := r.mode
		status := http.StatusOK
		if mode == refuse {
			status = http.StatusInternalServerError
		}
		r.log = append(r.log, received{jobID: p.JobID, eventID: p.eventID, status: status})
		if mode == ackAndSignal {
			r.mode = ack
		}
		r.mu.Unlock()
		w.WriteHeader(status)
		if mode == ackAndSignal {
			http.NewResponseController(w).Flush()
			r.acked <- struct{}{}
		}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *killReceiver) setMode(m receiverMode) {
	r.mu.Lock()
	r.mode = m
	r.mu.Unlock()
}

// count returns how many requests for jobID were answered with status.
func (r *killReceiver) count(jobID string, status int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, x := range r.log {
		if x.jobID == jobID && x.status == status {
			n++
		}
	}
	return n
}

// killPDF is a three-page PDF of large sheets (24 × 18 in, so each page
// takes a noticeable time to render at 200 DPI) carrying push-button
// symbols (two concentric circles), a different number on each page.
func killPDF() []byte {
	var pages []documenttest.Page
	for p := range 3 {
		var b strings.Builder
		b.WriteString("0.5 w 20 20 m 1700 20 l 1700 1270 l 20 1270 l h S ")
		for i := range 4 + 2*p {
			r := []float64{4, 6, 8, 10}[i%4]
			x, y := 150+float64(i%4)*300, 300+float64(i/4)*400
			b.WriteString(documenttest.CircleOps(x, y, r) + " ")
			b.WriteString(documenttest.CircleOps(x, y, r/2) + " ")
		}
		pages = append(pages, documenttest.Page{MediaBox: "[0 0 1728 1296]", Content: b.String()})
	}
	return documenttest.PDF(pages...)
}

// storeSnapshot reads the jobs straight from the data directory of a
// killed server: what survived the kill.
func storeSnapshot(t *testing.T, dir string, ids []string) []*job.Job {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := make([]*job.Job, len(ids))
	for i, id := range ids {
		if out[i], err = st.GetJob(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// waitUntil polls cond until it holds or the timeout passes.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	waitFor(t, timeout, 10*time.Millisecond, cond, func() string { return "timed out waiting for " + what })
}

// midProcessing reports whether the polled job is processing with some
// but not all of its pages done.
func midProcessing(e *testEnv, id string) bool {
	m := e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).JSON(e.t)
	done, _ := m["pages_done"].(float64)
	total, _ := m["pages_total"].(float64)
	if m["status"] == "done" || m["status"] == "failed" {
		e.t.Fatalf("job %s finished before the kill point: %v", id, m["status"])
	}
	return m["status"] == "processing" && done >= 1 && done < total
}

// pageDetections reads every stored detection of a page through the API
// as sorted "class box confidence" lines (detection ids differ by run).
func pageDetections(e *testEnv, id string, page int) []string {
	m := e.do("GET", fmt.Sprintf("/v1/jobs/%s/pages/%d/detections?confidence=0&limit=2000", id, page), keyA, nil, nil).JSON(e.t)
	if m["next"] != nil {
		e.t.Fatalf("more than one page of detections: %v", m["next"])
	}
	var out []string
	for _, d := range m["detections"].([]any) {
		dm := d.(map[string]any)
		box, _ := json.Marshal(dm["bbox_px"])
		out = append(out, fmt.Sprintf("%s %s %v", dm["class"], box, dm["confidence"]))
	}
	slices.Sort(out)
	return out
}

// TestKillNine is issue 2's durability check with real processes: the
// service runs as a child process over one data directory and is killed
// with SIGKILL (1) while a job is processing and two are queued, (2) while
// a job is processing and a finished job's webhook is pending after the
// receiver refused it, and (3) right after the receiver acknowledged a
// webhook, before the service may have recorded it. After each restart on
// the same data directory, every job must finish with the detections of
// an uninterrupted run, and the receiver must see one event id per job
// (repeats of that id are allowed: delivery is at least once).
func TestKillNine(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	e := &testEnv{t: t, dir: dir, base: "http://" + addr, api: apitest.NewClient(t, "http://"+addr)}
	rec := newKillReceiver(t)
	data := killPDF()
	newJob := func() string {
		created := e.initJob(keyA, map[string]any{"file_name": "plan.pdf", "mime_type": "application/pdf", "size": len(data), "callback_url": rec.srv.URL})
		if r := e.upload(created, data, "application/pdf"); r.Status != http.StatusOK {
			t.Fatalf("PUT: %d %s", r.Status, r.Body)
		}
		id := created["job_id"].(string)
		if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != http.StatusAccepted {
			t.Fatalf("start: %d %s", r.Status, r.Body)
		}
		return id
	}

	// Kill 1: job 0 mid-processing, jobs 1 and 2 queued behind it.
	c := startChild(t, dir, addr, 1)
	ids := []string{newJob(), newJob(), newJob()}
	waitUntil(t, 15*time.Second, "job 0 mid-processing", func() bool { return midProcessing(e, ids[0]) })
	c.kill(t)
	s := storeSnapshot(t, dir, ids)
	if s[0].Status != job.Processing || *s[0].PagesDone < 1 || s[1].Status != job.Queued || s[2].Status != job.Queued {
		t.Fatalf("after kill 1: %s (%v pages), %s, %s", s[0].Status, *s[0].PagesDone, s[1].Status, s[2].Status)
	}

	// Kill 2: job 0 done with its webhook refused and pending, job 1
	// mid-processing, job 2 queued.
	c = startChild(t, dir, addr, 2)
	waitUntil(t, 15*time.Second, "a refused webhook of job 0", func() bool { return rec.count(ids[0], http.StatusInternalServerError) >= 1 })
	waitUntil(t, 15*time.Second, "job 1 mid-processing", func() bool { return midProcessing(e, ids[1]) })
	c.kill(t)
	s = storeSnapshot(t, dir, ids)
	if s[0].Status != job.Done || !s[0].Webhook.Pending() || s[1].Status != job.Processing || s[2].Status != job.Queued {
		t.Fatalf("after kill 2: %s (webhook %+v), %s, %s", s[0].Status, s[0].Webhook, s[1].Status, s[2].Status)
	}
	// Job 0's retry is a minute or so away: make it due, as if the service
	// had stayed down that long, so that the next run makes it.
	webhooksDueNow(t, dir)

	// Kill 3: right after the receiver acknowledged a delivery.
	rec.setMode(ackAndSignal)
	c = startChild(t, dir, addr, 3)
	select {
	case <-rec.acked:
	case <-time.After(15 * time.Second):
		t.Fatal("no webhook delivery after restart 3")
	}
	c.kill(t)

	// Final run: nothing interrupts it.
	rec.setMode(ack)
	startChild(t, dir, addr, 4)
	for _, id := range ids {
		if m := e.waitStatus(keyA, id, "done", "failed"); m["status"] != "done" {
			t.Fatalf("job %s: %v", id, m)
		}
	}
	ref := newJob()
	e.waitStatus(keyA, ref, "done", "failed")
	all := append(slices.Clone(ids), ref)
	waitUntil(t, 15*time.Second, "an acknowledged webhook of every job", func() bool {
		for _, id := range all {
			if rec.count(id, http.StatusOK) == 0 {
				return false
			}
		}
		return true
	})

	// Detections: those of the uninterrupted reference job, page by page.
	found := 0
	for p := range 3 {
		want := pageDetections(e, ref, p)
		found += len(want)
		for _, id := range ids {
			if got := pageDetections(e, id, p); !slices.Equal(got, want) {
				t.Errorf("job %s page %d: %d detections, uninterrupted run %d:\n%v\nwant\n%v", id, p, len(got), len(want), got, want)
			}
		}
	}
	if found == 0 {
		t.Fatal("the reference run found no detections; the comparison would prove nothing")
	}

	// Webhooks: one event id per job over every request, acknowledged or not.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	events := map[string]map[string]bool{}
	for _, x := range rec.log {
		if events[x.jobID] == nil {
			events[x.jobID] = map[string]bool{}
		}
		events[x.jobID][x.eventID] = true
	}
	for _, id := range all {
		if len(events[id]) != 1 {
			t.Errorf("job %s: event ids %v, want exactly one", id, events[id])
		}
	}
	if len(events) != len(all) {
		t.Errorf("webhooks for %d jobs, want %d", len(events), len(all))
	}
	t.Logf("%d webhook requests for %d jobs; %d detections per job", len(rec.log), len(all), found)
}
