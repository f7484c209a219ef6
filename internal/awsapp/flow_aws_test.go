//go:build aws

package awsapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"blueprint/internal/apitest"
	"blueprint/internal/awstest"
	"blueprint/internal/job"
	"blueprint/internal/lambdafn"
	"blueprint/internal/sfnflow"
	"blueprint/internal/webhook"
)

// startJob creates, uploads and starts a two-page PDF job with a callback
// to sink and returns its id.
func startJob(t *testing.T, s *awsService, api *apitest.Client, sink *apitest.Sink) string {
	t.Helper()
	data := apitest.PDFDoc([2]int{144, 72}, [2]int{144, 72})
	created := api.InitJob(apitest.KeyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(data), "callback_url": sink.URL})
	if r := s.Upload(t, api, created, data, "application/pdf"); r.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	id := created["job_id"].(string)
	if r := api.Do("POST", "/v1/jobs/"+id+"/start", apitest.KeyA, nil, nil); r.Status != http.StatusAccepted {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	return id
}

func (s *awsService) job(t *testing.T, id string) *job.Job {
	t.Helper()
	j, err := s.api.Store.GetJob(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// waitSlack is how much longer than the wait_seconds of the webhook
// function's answer a Wait state may take to invoke the function again
// (moto's state transitions and the invocation, on a loaded machine).
const waitSlack = 5 * time.Second

// checkBackoff checks the state machine's webhook loop of a job whose
// execution has ended, after attempts delivery attempts, with its webhook
// in state last: the webhook function ran once per attempt; each answer
// but the last was pending, with the wait_seconds of the retry it
// scheduled on the deployment's schedule (testRetries); and the Wait state
// invoked the function again after those seconds, not sooner (the attempt
// would not have been due: one invocation more) and not much later.
func checkBackoff(t *testing.T, s *awsService, jobID string, attempts int, last job.WebhookState) {
	t.Helper()
	steps := s.webhookSteps(jobID)
	for i, c := range steps {
		after := "first call"
		if i > 0 {
			after = fmt.Sprintf("%s after call %d", c.start.Sub(steps[i-1].end).Round(10*time.Millisecond), i)
		}
		t.Logf("webhook function call %d (%s): answered %+v, error %v", i+1, after, c.out, c.err)
	}
	if len(steps) != attempts {
		t.Fatalf("the webhook function ran %d times for %d delivery attempts", len(steps), attempts)
	}
	for i, c := range steps {
		if c.err != nil {
			t.Fatalf("webhook function %d failed: %v", i+1, c.err)
		}
		if i == len(steps)-1 {
			if c.out.Webhook != last {
				t.Fatalf("last answer %+v, want webhook %s", c.out, last)
			}
			break
		}
		if c.out.Webhook != job.WebhookPending {
			t.Fatalf("answer %d: %+v, want webhook pending", i+1, c.out)
		}
		// Attempt i+1 has failed: the answer schedules retry i+1, its wait
		// rounded up to whole seconds, less the time the answer took (at
		// least 1 s: every wait of testRetries is).
		lo, hi := testRetries.Bounds(i + 1)
		wait := time.Duration(c.out.WaitSeconds) * time.Second
		if wait < max(lo-time.Second, time.Second) || wait > hi.Truncate(time.Second)+time.Second {
			t.Fatalf("answer %d: wait_seconds %d, want retry %d's wait of %s to %s rounded up", i+1, c.out.WaitSeconds, i+1, lo, hi)
		}
		gap := steps[i+1].start.Sub(c.end)
		if gap < wait || gap > wait+waitSlack {
			t.Fatalf("the Wait state invoked the webhook function %s after answer %d's wait_seconds %d", gap, i+1, c.out.WaitSeconds)
		}
	}
}

// TestStateMachineRetriesWebhook: the receiver refuses the first attempt;
// the state machine waits the domain's backoff and the second attempt
// delivers the same event.
func TestStateMachineRetriesWebhook(t *testing.T) {
	t.Parallel()
	s := newAWSService(t, serviceOptions{Options: apitest.Options{Engine: apitest.ScriptedEngine()}})
	api := apitest.NewClient(t, s.Base())
	sink := apitest.NewSink(t, http.StatusServiceUnavailable)
	id := startJob(t, s, api, sink)
	first, second := sink.Next(t), sink.Next(t)
	if first.Status != http.StatusServiceUnavailable || second.Status != http.StatusOK {
		t.Fatalf("statuses %d, %d", first.Status, second.Status)
	}
	if a, b := first.Header.Get(webhook.EventIDHeader), second.Header.Get(webhook.EventIDHeader); a != b || a == "" {
		t.Fatalf("event ids %q and %q differ", a, b)
	}
	ex := s.waitExecution(t, id, time.Minute)
	if ex.Status != "SUCCEEDED" {
		t.Fatalf("execution %s: %s %s", ex.Status, aws.ToString(ex.Error), aws.ToString(ex.Cause))
	}
	w := s.job(t, id).Webhook
	if w.DeliveredAt == nil || w.Attempts != 2 {
		t.Fatalf("delivery record %+v", w)
	}
	checkBackoff(t, s, id, 2, job.WebhookDelivered)
	if got := api.Do("GET", "/v1/jobs/"+id, apitest.KeyA, nil, nil).JSON(t)["status"]; got != "done" {
		t.Fatalf("job %v", got)
	}
}

// TestStateMachineMarksFailed: the processing function stops at its
// deadline (its timeout is only the handler's safety margin, so the
// deadline has passed when it starts); the state machine catches the
// error, the webhook function marks the job failed, and the job.failed
// event goes out.
func TestStateMachineMarksFailed(t *testing.T) {
	t.Parallel()
	s := newAWSService(t, serviceOptions{Options: apitest.Options{Engine: apitest.ScriptedEngine()}, processTimeout: 10 * time.Second})
	api := apitest.NewClient(t, s.Base())
	sink := apitest.NewSink(t)
	id := startJob(t, s, api, sink)
	d := sink.Next(t)
	if d.Header.Get(webhook.EventTypeHeader) != webhook.EventFailed {
		t.Fatalf("event %q: %s", d.Header.Get(webhook.EventTypeHeader), d.Body)
	}
	m := api.WaitStatus(apitest.KeyA, id, "failed")
	msg := m["error"].(map[string]any)["message"].(string)
	if m["error"].(map[string]any)["code"] != "processing_failed" || !strings.Contains(msg, "time limit") {
		t.Fatalf("failed view: %v", m)
	}
	if ex := s.waitExecution(t, id, time.Minute); ex.Status != "SUCCEEDED" {
		t.Fatalf("execution %s: %s", ex.Status, aws.ToString(ex.Error))
	}
}

// TestStateMachineGivesUp: the receiver refuses every attempt; after the
// first attempt and webhook.MaxRetries retries, each after the backoff the
// domain computed from the deployment's schedule (testRetries: seconds, so
// that the whole course runs), the delivery is given up and the execution
// fails with WebhookGaveUp, so that it shows in the console and in alarms.
func TestStateMachineGivesUp(t *testing.T) {
	t.Parallel()
	s := newAWSService(t, serviceOptions{Options: apitest.Options{Engine: apitest.ScriptedEngine()}})
	api := apitest.NewClient(t, s.Base())
	script := make([]int, 1+webhook.MaxRetries)
	for i := range script {
		script[i] = http.StatusInternalServerError
	}
	sink := apitest.NewSink(t, script...)
	id := startJob(t, s, api, sink)
	var prev time.Time
	for attempt := 1; attempt <= 1+webhook.MaxRetries; attempt++ {
		sink.Next(t)
		now := time.Now()
		if attempt > 1 {
			lo, hi := testRetries.Bounds(attempt - 1)
			t.Logf("attempt %d after %s (retry %d's wait: %s to %s)", attempt, now.Sub(prev).Round(100*time.Millisecond), attempt-1, lo, hi)
		}
		prev = now
	}
	ex := s.waitExecution(t, id, 2*time.Minute)
	if ex.Status != "FAILED" || aws.ToString(ex.Error) != "WebhookGaveUp" {
		t.Fatalf("execution %s %s, want FAILED WebhookGaveUp", ex.Status, aws.ToString(ex.Error))
	}
	w := s.job(t, id).Webhook
	if w.GaveUpAt == nil || w.Attempts != 1+webhook.MaxRetries || w.LastError == "" {
		t.Fatalf("delivery record %+v", w)
	}
	if n := len(sink.Received()); n != 1+webhook.MaxRetries {
		t.Fatalf("%d deliveries, want %d", n, 1+webhook.MaxRetries)
	}
	checkBackoff(t, s, id, 1+webhook.MaxRetries, job.WebhookGaveUp)
	// The give-up is a metric: one line of the webhook function's
	// invocation that gave up, counted by the template's metric filter.
	pattern, err := awstest.TemplateFilterPattern("WebhookGiveUpsMetricFilter")
	if err != nil {
		t.Fatal(err)
	}
	var matched []map[string]any
	for _, l := range s.logLines(t) {
		ok, err := awstest.MatchJSONFilter(pattern, l)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			matched = append(matched, l)
		}
	}
	if len(matched) != 1 || matched[0][lambdafn.LogJobID] != id || matched[0][lambdafn.LogRequestID] == nil {
		t.Fatalf("lines matching %s: %v, want one for job %s with its request id", pattern, matched, id)
	}
}

// TestRepeatedStartIsIdempotent: handing the same job to the flow again
// (a retried start, the sweep) starts no second execution.
func TestRepeatedStartIsIdempotent(t *testing.T) {
	t.Parallel()
	s := newAWSService(t, serviceOptions{Options: apitest.Options{Engine: apitest.ScriptedEngine()}})
	api := apitest.NewClient(t, s.Base())
	id := startJob(t, s, api, apitest.NewSink(t))
	flow := sfnflow.New(sfnClient(), s.machine)
	for range 2 {
		if err := flow.Enqueue(context.Background(), id); err != nil {
			t.Fatalf("second Enqueue: %v", err)
		}
	}
	s.waitExecution(t, id, time.Minute)
	if err := flow.Enqueue(context.Background(), id); err != nil {
		t.Fatalf("Enqueue after the execution ended: %v", err)
	}
	out, err := sfnClient().ListExecutions(context.Background(), &sfn.ListExecutionsInput{StateMachineArn: aws.String(s.machine)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Executions) != 1 || aws.ToString(out.Executions[0].Name) != id {
		t.Fatalf("executions %+v, want one named %s", out.Executions, id)
	}
}

// TestSweepRecovers: a job left queued without an execution (its hand-over
// failed) is handed over again by the sweep and finishes; a job stuck
// processing for over job.StallAfter is failed and its webhook sent.
func TestSweepRecovers(t *testing.T) {
	t.Parallel()
	s := newAWSService(t, serviceOptions{Options: apitest.Options{Engine: apitest.ScriptedEngine()}})
	api := apitest.NewClient(t, s.Base())
	sink := apitest.NewSink(t)
	ctx := context.Background()
	long := time.Now().UTC().Add(-job.RequeueAfter - time.Minute)
	// An uploaded job queued without an execution.
	data := apitest.PDFDoc([2]int{144, 72})
	created := api.InitJob(apitest.KeyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(data)})
	queued := created["job_id"].(string)
	if r := s.Upload(t, api, created, data, "application/pdf"); r.Status != 200 {
		t.Fatal(r.Status)
	}
	j := s.job(t, queued)
	j.Status, j.QueuedAt = job.Queued, &long
	if err := s.api.Store.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	// A job processing since long before the stall limit.
	stalled := api.InitJob(apitest.KeyA, map[string]any{"file_name": "b.pdf", "mime_type": "application/pdf", "size": 10, "callback_url": sink.URL})["job_id"].(string)
	j = s.job(t, stalled)
	old := time.Now().UTC().Add(-job.StallAfter - time.Minute)
	j.Status, j.QueuedAt, j.StartedAt = job.Processing, &old, &old
	if err := s.api.Store.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	sweep := lambdafn.Sweep(s.api.Service, s.api.Logs)
	if err := sweep(ctx); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	if m := api.WaitStatus(apitest.KeyA, queued, "done", "failed"); m["status"] != "done" {
		t.Fatalf("re-enqueued job: %v", m)
	}
	d := sink.Next(t)
	var payload map[string]any
	if err := json.Unmarshal(d.Body, &payload); err != nil || payload["job_id"] != stalled || payload["status"] != "failed" {
		t.Fatalf("stalled job's webhook: %s", d.Body)
	}
	if w := s.job(t, stalled).Webhook; w.DeliveredAt == nil {
		t.Fatalf("delivery not recorded: %+v", w)
	}
}

// TestUploadRefusedByS3: a PUT that breaks the presigned URL's terms is
// refused by S3 itself and the job stays without an upload; start then
// says no_upload.
func TestUploadRefusedByS3(t *testing.T) {
	t.Parallel()
	s := newAWSService(t, serviceOptions{Options: apitest.Options{Engine: apitest.ScriptedEngine()}})
	api := apitest.NewClient(t, s.Base())
	data := apitest.PDFDoc([2]int{144, 72})
	created := api.InitJob(apitest.KeyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(data)})
	id := created["job_id"].(string)
	for _, c := range []struct {
		name, ctype string
		body        []byte
	}{
		{"wrong type", "image/png", data},
		{"one byte more", "application/pdf", append(append([]byte{}, data...), ' ')},
		{"one byte less", "application/pdf", data[:len(data)-1]},
	} {
		if r := s.Upload(t, api, created, c.body, c.ctype); r.Status != http.StatusForbidden {
			t.Errorf("%s: %d %s, want 403 from S3", c.name, r.Status, r.Body)
		}
	}
	if m := api.Do("GET", "/v1/jobs/"+id, apitest.KeyA, nil, nil).JSON(t); m["uploaded"] != false {
		t.Fatalf("a refused PUT counts as uploaded: %v", m)
	}
	r := api.Do("POST", "/v1/jobs/"+id+"/start", apitest.KeyA, nil, nil)
	if d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any); r.Status != 422 || d["reason"] != "no_upload" {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
}

// TestStartPinsTheCheckedFile: a PUT that replaces the file after start
// does not change what is processed: start copied the object it checked
// to a key no upload URL can write.
func TestStartPinsTheCheckedFile(t *testing.T) {
	t.Parallel()
	s := newAWSService(t, serviceOptions{Options: apitest.Options{Engine: apitest.ScriptedEngine()}})
	api := apitest.NewClient(t, s.Base())
	data := apitest.PDFDoc([2]int{144, 72}, [2]int{144, 72})
	created := api.InitJob(apitest.KeyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(data)})
	id := created["job_id"].(string)
	if r := s.Upload(t, api, created, data, "application/pdf"); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if r := api.Do("POST", "/v1/jobs/"+id+"/start", apitest.KeyA, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	// Same size, other bytes: S3 takes it (the URL is still valid).
	junk := make([]byte, len(data))
	if r := s.Upload(t, api, created, junk, "application/pdf"); r.Status != 200 {
		t.Fatalf("second PUT: %d", r.Status)
	}
	m := api.WaitStatus(apitest.KeyA, id, "done", "failed")
	if m["status"] != "done" || m["page_count"] != 2.0 {
		t.Fatalf("job processed something else than what start checked: %v", m)
	}
	j := s.job(t, id)
	if j.Upload.BlobKey == job.UploadKey(id) || j.Upload.SHA256 == "" {
		t.Fatalf("upload record %+v: processing must read start's copy", j.Upload)
	}
}
