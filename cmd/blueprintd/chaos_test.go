package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"blueprint/internal/document/documenttest"
)

// chaosTestEnv, set to 1, runs TestChaosKills (make chaos): it kills the
// server dozens of times over a few minutes, so it is not part of make test.
const chaosTestEnv = "BLUEPRINT_CHAOS_TEST"

// chaosReceiver is a partner's webhook endpoint that refuses about one
// delivery in six (a 500), so retries happen across kills too.
type chaosReceiver struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	rnd *rand.Rand
	// events[job] is every event id received for the job; acked[job]
	// counts 2xx answers.
	events map[string]map[string]bool
	acked  map[string]int
}

func newChaosReceiver(t *testing.T) *chaosReceiver {
	r := &chaosReceiver{t: t, rnd: rand.New(rand.NewPCG(7, 7)), events: map[string]map[string]bool{}, acked: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		p, ok := readWebhook(t, req)
		if !ok {
			return // the service was killed mid-request
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.events[p.JobID] == nil {
			r.events[p.JobID] = map[string]bool{}
		}
		r.events[p.JobID][p.eventID] = true
		if p.Status != "done" {
			t.Errorf("webhook for job %s says %s", p.JobID, p.Status)
		}
		if r.rnd.IntN(6) == 0 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		r.acked[p.JobID]++
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// chaosClient is a partner that retries through outages: init with an
// Idempotency-Key, PUT, start (409 means an earlier try started it).
type chaosClient struct {
	base string
	http *http.Client
}

func (c *chaosClient) call(method, url string, body []byte, hdr map[string]string) (int, []byte, error) {
	return rawCall(c.http, method, url, body, hdr)
}

// retry calls until the server answers one of ok (connection errors and
// 5xx during a kill are retried), for at most two minutes.
func (c *chaosClient) retry(method, url string, body []byte, hdr map[string]string, ok ...int) ([]byte, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, b, err := c.call(method, url, body, hdr)
		for _, o := range ok {
			if err == nil && st == o {
				return b, nil
			}
		}
		if err == nil && st < 500 {
			return nil, fmt.Errorf("%s %s: %d %s", method, url, st, b)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s %s: still failing: %d %v", method, url, st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// submit creates, uploads and starts one job and returns its id.
func (c *chaosClient) submit(n int, data []byte, callback string) (string, error) {
	req, _ := json.Marshal(map[string]any{"file_name": fmt.Sprintf("plan-%d.pdf", n), "mime_type": "application/pdf", "size": len(data), "callback_url": callback})
	b, err := c.retry("POST", c.base+"/v1/jobs/init", req, map[string]string{"Idempotency-Key": fmt.Sprintf("chaos-%d", n)}, 201)
	if err != nil {
		return "", err
	}
	var created struct {
		JobID  string `json:"job_id"`
		Upload struct {
			URL string `json:"url"`
		} `json:"upload"`
	}
	if err := json.Unmarshal(b, &created); err != nil {
		return "", err
	}
	// A PUT after a start that got through is 409: the file is in.
	if _, err := c.retry("PUT", created.Upload.URL, data, map[string]string{"Content-Type": "application/pdf"}, 200, 409); err != nil {
		return "", err
	}
	if _, err := c.retry("POST", c.base+"/v1/jobs/"+created.JobID+"/start", nil, nil, 202, 409); err != nil {
		return "", err
	}
	return created.JobID, nil
}

// TestChaosKills is issue 11's crash check: the server runs as a child
// process and is killed with SIGKILL at random moments (1–4 s after each
// restart answers) and restarted on the same data directory, while a
// partner submits
// CHAOS_JOBS jobs (default 120) with webhooks and its receiver refuses
// one delivery in six. In the end every job must be done, every job's
// webhook acknowledged at least once, every job's deliveries must carry
// one event id, and no job may have been finished twice (a second
// finishing would mint a second event id, and log "job done" twice).
// The jobs (an A3 generated drawing, two small PDFs) take well under a
// second each: a job interrupted job.MaxProcessingAttempts times is failed
// on purpose (the guard against files that crash the service), so kills
// closer together than a job's run would fail jobs by design.
//
// A refused delivery's retry is a minute to hours away on the retry
// schedule (webhook.RetrySchedule), and the servers run on the real clock:
// while each killed server is down the test makes every pending retry due
// (webhooksDueNow), as if the outage had lasted that long, so retries go
// out at the next start; once every job is done it goes on restarting the
// server every few seconds until every job's webhook is acknowledged.
func TestChaosKills(t *testing.T) {
	if os.Getenv(chaosTestEnv) != "1" {
		t.Skipf("set %s=1 (make chaos) to run", chaosTestEnv)
	}
	jobs := 120
	if v, err := strconv.Atoi(os.Getenv("CHAOS_JOBS")); err == nil && v > 0 {
		jobs = v
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	rec := newChaosReceiver(t)
	client := &chaosClient{base: "http://" + addr, http: &http.Client{Timeout: 30 * time.Second}}
	sheet, err := os.ReadFile("../../testdata/synth/sheet-00002.pdf") // A3, 130 symbols
	if err != nil {
		t.Fatal(err)
	}
	docs := [][]byte{sheet, pdfDoc([2]int{612, 792}, [2]int{400, 300}), documentWithCircles()}

	var children []*childServer
	var mu sync.Mutex
	start := func() {
		c := startChild(t, dir, addr, len(children)+1, childLifetimeEnv+"=20m")
		mu.Lock()
		children = append(children, c)
		mu.Unlock()
	}
	start()

	ids := make([]string, jobs)
	submitted := make(chan error, 1)
	go func() {
		var errs []error
		for n := range jobs {
			id, err := client.submit(n, docs[n%len(docs)], rec.srv.URL)
			if err != nil {
				errs = append(errs, fmt.Errorf("job %d: %w", n, err))
			}
			ids[n] = id
		}
		if len(errs) > 0 {
			submitted <- fmt.Errorf("%d submissions failed: %v", len(errs), errs[0])
		}
		close(submitted)
	}()

	// Kill at random moments until every job is submitted and done, and
	// at least a kill for every six jobs has happened.
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	kills, madeDue, began := 0, 0, time.Now()
	done := func() (int, bool) {
		n := 0
		for _, id := range ids {
			if id == "" {
				return n, false
			}
			st, b, err := client.call("GET", client.base+"/v1/jobs/"+id, nil, nil)
			if err != nil || st != 200 {
				return n, false
			}
			if bytes.Contains(b, []byte(`"status":"done"`)) {
				n++
			} else if bytes.Contains(b, []byte(`"status":"failed"`)) {
				t.Fatalf("job %s failed: %s", id, b)
			}
		}
		return n, n == jobs
	}
	allSubmitted := false
	for {
		select {
		case err, ok := <-submitted:
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				allSubmitted = true
				submitted = nil
			}
		case <-time.After(time.Duration(1000+rnd.IntN(3000)) * time.Millisecond):
		}
		if time.Since(began) > 15*time.Minute {
			t.Fatalf("not finished after 15 min and %d kills", kills)
		}
		if allSubmitted && kills >= jobs/6 {
			if _, ok := done(); ok {
				break
			}
			continue // enough kills: let the rest finish
		}
		mu.Lock()
		c := children[len(children)-1]
		mu.Unlock()
		c.kill(t)
		kills++
		madeDue += webhooksDueNow(t, dir)
		start()
	}
	processed := time.Since(began)

	// Webhooks: at least one 2xx per job, one event id per job.
	unacked := func() int {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		n := 0
		for _, id := range ids {
			if rec.acked[id] == 0 {
				n++
			}
		}
		return n
	}
	restarts, deadline := 0, time.Now().Add(3*time.Minute)
	for {
		time.Sleep(2 * time.Second) // a due retry goes out within the runner's 1 s poll
		n := unacked()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d jobs' webhooks still unacknowledged 3 min after processing, %d restarts later", n, restarts)
		}
		mu.Lock()
		c := children[len(children)-1]
		mu.Unlock()
		c.kill(t)
		restarts++
		madeDue += webhooksDueNow(t, dir)
		start()
	}
	rec.mu.Lock()
	requests := 0
	for _, id := range ids {
		if len(rec.events[id]) != 1 {
			t.Errorf("job %s: event ids %v, want exactly one", id, rec.events[id])
		}
	}
	for _, n := range rec.acked {
		requests += n
	}
	rec.mu.Unlock()

	// No job finished twice: at most one "job done" line per job over
	// every run's log (a kill can come between the record and the line).
	doneLine := regexp.MustCompile(`msg="job done" job_id=([0-9a-f-]+)`)
	finished := map[string]int{}
	mu.Lock()
	for _, c := range children {
		c.kill(t)
		for _, m := range doneLine.FindAllStringSubmatch(c.log.String(), -1) {
			finished[m[1]]++
		}
	}
	mu.Unlock()
	for id, n := range finished {
		if n > 1 {
			t.Errorf("job %s finished %d times", id, n)
		}
	}
	summary := fmt.Sprintf("make chaos: %d jobs with webhooks, %d SIGKILLs at random moments, all done in %v; %d acknowledged webhooks after %d more restarts, %d retries made due while down, one event id per job; %d jobs logged done once, none twice",
		jobs, kills, processed.Round(time.Second), requests, restarts, madeDue, len(finished))
	t.Log(summary)
	fmt.Println(summary)
}

// documentWithCircles is a one-page A4 drawing with a few push-button
// symbols, a quick job.
func documentWithCircles() []byte {
	var b strings.Builder
	for i := range 6 {
		x := 100 + float64(i)*60
		b.WriteString(documenttest.CircleOps(x, 400, 8) + " " + documenttest.CircleOps(x, 400, 4) + " ")
	}
	return documenttest.PDF(documenttest.Page{MediaBox: "[0 0 595 842]", Content: b.String()})
}
