package main

import (
	"strings"
	"testing"
	"time"

	"blueprint/internal/apitest"
	"blueprint/internal/config"
	"blueprint/internal/document"
	"blueprint/internal/document/documenttest"
)

// startHostile creates a job for data, uploads it and starts it, returning
// the job id and the start response.
func startHostile(e *testEnv, name string, data []byte) (string, response) {
	e.t.Helper()
	created := e.initJob(apitest.KeyA, map[string]any{"file_name": name, "mime_type": "application/pdf", "size": len(data)})
	id := created["job_id"].(string)
	if r := e.upload(created, data, "application/pdf"); r.Status != 200 {
		e.t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	return id, e.do("POST", "/v1/jobs/"+id+"/start", apitest.KeyA, nil, nil)
}

// TestHostileDrawingsRefusedAtStart: the two files of issue 34 (form
// XObjects nested five deep, ten uses each; one content stream shared by
// sixty pages) and the tiling pattern page of issue 47 are refused at start with 422 naming the reason, the job
// still waits for a better upload, and the server keeps answering.
func TestHostileDrawingsRefusedAtStart(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{})
	for _, tc := range []struct {
		name   string
		data   []byte
		reason string
	}{
		{"nested-forms.pdf", documenttest.NestedFormsPDF(6, 10, false), document.ReasonDecompressionBomb},
		{"shared-stream.pdf", documenttest.SharedContentPDF(60, 4), document.ReasonDecompressionBomb},
		// issue 47: 713 bytes, an A1 page of 0.01 pt pattern cells
		{"pattern.pdf", documenttest.TilingPatternPDF(1684, 2384, 0.01), document.ReasonDrawingTooComplex},
	} {
		id, r := startHostile(e, tc.name, tc.data)
		if r.Status != 422 {
			t.Fatalf("%s: start answered %d %s, want 422", tc.name, r.Status, r.Body)
		}
		details, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
		if details["reason"] != tc.reason || details["page_index"] == nil {
			t.Errorf("%s: details %v, want reason %s and page_index", tc.name, details, tc.reason)
		}
		if got := e.do("GET", "/v1/jobs/"+id, apitest.KeyA, nil, nil).JSON(t)["status"]; got != "awaiting_upload" {
			t.Errorf("%s: job %v after the refused start, want awaiting_upload", tc.name, got)
		}
	}
}

// TestDrawingLimitFailsJob: a page that asks for more drawing operations
// than the configured limit is refused at start, counted as the walk
// counts them (issue 47); a page whose drawing passes a limit the start
// check cannot see (the bytes it holds) fails its job with a message that
// names the limit; the next job runs as usual.
func TestDrawingLimitFailsJob(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{}, func(c *config.Config) { c.MaxDrawingOps = 500; c.MaxDrawingBytes = 1 << 20 })
	_, r := startHostile(e, "thousand-lines.pdf", documenttest.NestedFormsPDF(4, 10, true)) // 1 000 lines
	details, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
	if r.Status != 422 || details["reason"] != document.ReasonDrawingTooComplex || details["max_operations"] != float64(500) || details["page_index"] != float64(0) {
		t.Fatalf("start answered %d with details %v, want 422 drawing_too_complex naming the 500-operation limit and page 0", r.Status, details)
	}
	e2 := startEnv(t, t.TempDir(), options{}, func(c *config.Config) { c.MaxDrawingBytes = 1 << 20 })
	_, got := e2.runJob(apitest.KeyA, "dense.pdf", "application/pdf", documenttest.DensePlanPDF(documenttest.A1, 1, 1)) // 2 MiB of primitives
	msg, _ := got["error"].(map[string]any)["message"].(string)
	if got["status"] != "failed" || !strings.Contains(msg, "more than 1 MiB to hold") || !strings.Contains(msg, "page_index 0") {
		t.Fatalf("job %v with message %q, want failed naming the 1 MiB limit and the page", got["status"], msg)
	}
	_, got = e.runJob(apitest.KeyA, "small.pdf", "application/pdf", documenttest.NestedFormsPDF(2, 10, true)) // 10 lines
	if got["status"] != "done" {
		t.Fatalf("the next job ended %v: %v", got["status"], got["error"])
	}
}

// TestJobTimeoutFailsJob: a job past BLUEPRINT_JOB_TIMEOUT fails, saying
// so.
func TestJobTimeoutFailsJob(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{}, func(c *config.Config) { c.JobTimeout = time.Millisecond })
	_, got := e.runJob(apitest.KeyA, "lines.pdf", "application/pdf", documenttest.NestedFormsPDF(3, 10, true))
	msg, _ := got["error"].(map[string]any)["message"].(string)
	if got["status"] != "failed" || !strings.Contains(msg, "longer than the service's limit of 1ms per job") {
		t.Fatalf("job %v with message %q, want failed saying the time limit", got["status"], msg)
	}
}

// TestJobTimeoutStopsPatternJob: a job whose pages pass the start check
// but render for long (40 A1 pages of 1 pt tiling pattern cells, 4
// million a page, just inside the operation limit) fails once
// BLUEPRINT_JOB_TIMEOUT passes, within 30 s of it (issue 47): the timeout
// aborts MuPDF itself through its cookie.
func TestJobTimeoutStopsPatternJob(t *testing.T) {
	const timeout = 3 * time.Second
	e := startEnv(t, t.TempDir(), options{}, func(c *config.Config) { c.JobTimeout = timeout })
	data := documenttest.TilingPatternPages(1684, 2384, 1, 40)
	created := e.initJob(apitest.KeyA, map[string]any{"file_name": "patterns.pdf", "mime_type": "application/pdf", "size": len(data)})
	id := created["job_id"].(string)
	if r := e.upload(created, data, "application/pdf"); r.Status != 200 {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	if r := e.do("POST", "/v1/jobs/"+id+"/start", apitest.KeyA, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	started := time.Now()
	got := e.waitStatus(apitest.KeyA, id, "done", "failed")
	took := time.Since(started)
	msg, _ := got["error"].(map[string]any)["message"].(string)
	if got["status"] != "failed" || !strings.Contains(msg, "longer than the service's limit of 3s per job") {
		t.Fatalf("job %v with message %q after %v, want failed saying the time limit", got["status"], msg, took)
	}
	if took > timeout+30*time.Second {
		t.Errorf("the job ended %v after its start, %v past its timeout of %v", took, took-timeout, timeout)
	}
	t.Logf("the job failed %v after start, %v past its %v timeout", took.Round(time.Millisecond), (took - timeout).Round(time.Millisecond), timeout)
}
