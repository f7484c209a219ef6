package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"blueprint/internal/apitest"
	"blueprint/internal/job"
	"blueprint/internal/signing"
)

// doneJob drives a two-page PDF to done for key and returns its id.
func doneJob(t *testing.T, e *testEnv, key string, extra map[string]any) string {
	t.Helper()
	return processPDF(t, e, key, "a.pdf", pdfDoc([2]int{144, 72}, [2]int{144, 72}), extra)
}

// processPDF drives data, uploaded as name with the init fields extra, to
// done for key and returns the job's id.
func processPDF(t *testing.T, e *testEnv, key, name string, data []byte, extra map[string]any) string {
	t.Helper()
	return apitest.ProcessPDF(t, e, e.api, key, name, data, extra)
}

func TestUploadAttacks(t *testing.T) {
	clock := apitest.NewClock(time.Now().UTC())
	dir := t.TempDir()
	e := startEnv(t, dir, options{runner: runnerOpts(), clock: clock})
	data := pdfDoc([2]int{100, 100})
	newJob := func() map[string]any {
		return e.initJob(keyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(data)})
	}
	signer, err := signing.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	j := newJob()
	u := j["upload"].(map[string]any)["url"].(string)
	pu, _ := url.Parse(u)
	q := pu.Query()
	withQuery := func(mod func(url.Values)) string {
		c := url.Values{}
		for k, v := range q {
			c[k] = v
		}
		mod(c)
		return e.base + pu.Path + "?" + c.Encode()
	}
	otherJob := newJob()["job_id"].(string)
	cases := []struct {
		name, url, ctype string
		body             []byte
		status           int
		code             string
	}{
		{"forged signature", withQuery(func(v url.Values) { v.Set("sig", strings.Repeat("0", 64)) }), "application/pdf", data, 403, "forbidden"},
		{"no signature", e.base + pu.Path, "application/pdf", data, 403, "forbidden"},
		{"extended expiry", withQuery(func(v url.Values) { v.Set("expires", "99999999999") }), "application/pdf", data, 403, "forbidden"},
		{"signature of another job", e.base + "/uploads/" + otherJob + "?" + q.Encode(), "application/pdf", data, 403, "forbidden"},
		{"signed for an unknown job", signer.URL(e.base, "PUT", "/uploads/nope", clock.Now().Add(time.Hour)), "application/pdf", data, 403, "forbidden"},
		{"wrong content type", u, "image/png", data, 415, "unsupported_media_type"},
		{"no content type", u, "", data, 415, "unsupported_media_type"},
		{"too long", u, "application/pdf", append(append([]byte{}, data...), ' '), 413, "payload_too_large"},
		{"too short", u, "application/pdf", data[:len(data)-1], 422, "unprocessable"},
		{"stored", u, "application/pdf", data, 200, ""},
		{"replaced", u, "application/pdf; charset=binary", data, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("PUT", c.url, "", c.body, map[string]string{"Content-Type": c.ctype})
			if r.Status != c.status || (c.code != "" && r.Code(t) != c.code) {
				t.Fatalf("%d %s, want %d %s", r.Status, r.Body, c.status, c.code)
			}
			if r.Header.Get("RateLimit-Limit") != "" {
				t.Fatal("rate limit headers on the upload PUT")
			}
			// A body over the declared size says what the most is: the
			// declared size, not the 50 MB ceiling (issue 47).
			if r.Status == 413 {
				d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
				if d["max_bytes"] != float64(len(data)) || d["declared_size"] != float64(len(data)) {
					t.Fatalf("413 details %v, want max_bytes and declared_size %d", d, len(data))
				}
			}
		})
	}
	// Streaming more than the declared size without a Content-Length.
	t.Run("chunked too long", func(t *testing.T) {
		j := newJob()
		pr, pw := io.Pipe()
		go func() {
			for range 64 {
				if _, err := pw.Write(make([]byte, 1024)); err != nil {
					break
				}
			}
			pw.Close()
		}()
		req, _ := http.NewRequest("PUT", j["upload"].(map[string]any)["url"].(string), pr)
		req.Header.Set("Content-Type", "application/pdf")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 413 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if m := e.do("GET", "/v1/jobs/"+j["job_id"].(string), keyA, nil, nil).JSON(t); m["uploaded"] != false {
			t.Fatal("an over-size upload was kept")
		}
	})
	id := j["job_id"].(string)
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	if r := e.do("PUT", u, "", data, map[string]string{"Content-Type": "application/pdf"}); r.Status != 409 || r.Code(t) != "conflict" {
		t.Fatalf("PUT after start: %d %s", r.Status, r.Body)
	}
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 409 {
		t.Fatalf("second start: %d %s", r.Status, r.Body)
	}
	// An upload URL past its expiry is refused.
	late := newJob()
	clock.Advance(job.DefaultUploadTTL + time.Second)
	if r := e.upload(late, data, "application/pdf"); r.Status != 403 || r.Code(t) != "forbidden" {
		t.Fatalf("expired upload URL: %d %s", r.Status, r.Body)
	}
}

// TestNotDoneHints: what a new user meets (issue 47): a job uploaded and
// never started answers its pages, take-off, search and reviews with a
// message that says to call start; a one-page job's page 99 is "1 page".
func TestNotDoneHints(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	data := pdfDoc([2]int{144, 72})
	created := e.initJob(keyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(data)})
	id := created["job_id"].(string)
	start := "call POST /v1/jobs/" + id + "/start"
	check := func(method, path string, body []byte, status int, want string) {
		t.Helper()
		r := e.do(method, path, keyA, body, nil)
		msg, _ := r.JSON(t)["error"].(map[string]any)["message"].(string)
		if r.Status != status || !strings.Contains(msg, want) {
			t.Errorf("%s %s: %d %q, want %d and a message saying %q", method, path, r.Status, msg, status, want)
		}
	}
	// Not uploaded yet: upload, then start.
	check("GET", "/v1/jobs/"+id+"/pages/0/detections", nil, 404, "PUT its file to the upload URL, then "+start)
	if r := e.upload(created, data, "application/pdf"); r.Status != 200 {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	// Uploaded, never started: start is the step left.
	check("GET", "/v1/jobs/"+id+"/pages/0/detections", nil, 404, "never started: "+start)
	check("GET", "/v1/jobs/"+id+"/takeoff.csv", nil, 404, start)
	check("POST", "/v1/jobs/"+id+"/search", []byte(`{"page_index":0,"bbox_norm":{"x":0.1,"y":0.1,"width":0.1,"height":0.1}}`), 409, start)
	check("POST", "/v1/jobs/"+id+"/pages/0/detections", []byte(`{"class":"socket_outlet","bbox_norm":{"x":0.1,"y":0.1,"width":0.1,"height":0.1}}`), 409, start)
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	e.waitStatus(keyA, id, "done")
	check("GET", "/v1/jobs/"+id+"/pages/99/detections", nil, 404, "page 99 not found; the job has 1 page, page 0")
	two := doneJob(t, e, keyA, nil)
	check("GET", "/v1/jobs/"+two+"/pages/99/detections", nil, 404, "the job has 2 pages, numbered from 0")
}
