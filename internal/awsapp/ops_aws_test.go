//go:build aws

package awsapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"blueprint/internal/apitest"
	"blueprint/internal/awstest"
	"blueprint/internal/job"
	"blueprint/internal/lambdafn"
)

// logLines returns the deployment's log lines (JSON objects).
func (s *awsService) logLines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(s.logs.String(), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		out = append(out, m)
	}
	return out
}

// fastThrottleRetry rewrites the Process task's retrier for throttled
// starts to wait 1 s instead of minutes, keeping its attempts.
func fastThrottleRetry(t *testing.T, def string) string {
	var d map[string]any
	if err := json.Unmarshal([]byte(def), &d); err != nil {
		t.Fatal(err)
	}
	r := d["States"].(map[string]any)["Process"].(map[string]any)["Retry"].([]any)[0].(map[string]any)
	if fmt.Sprint(r["ErrorEquals"]) != "[Lambda.TooManyRequestsException]" {
		t.Fatalf("Process's first retrier is %v", r)
	}
	r["IntervalSeconds"], r["MaxDelaySeconds"] = 1, 1
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStateMachineWaitsOutThrottling: the Lambda service refuses the
// processing function's first invocations (its reserved concurrency is
// taken); the state machine retries the start (moto's boto3 client retries
// a throttle a few times itself, then the task fails with
// Lambda.TooManyRequestsException and the Process retrier takes over) and
// the job ends done, not failed. The retrier's minutes are 1 s here;
// TestProcessThrottleBudget checks the deployed waits.
func TestStateMachineWaitsOutThrottling(t *testing.T) {
	t.Parallel()
	const throttles = 12
	s := newAWSService(t, serviceOptions{Options: apitest.Options{Engine: apitest.ScriptedEngine()},
		definition: fastThrottleRetry, throttleProcess: throttles})
	api := apitest.NewClient(t, s.Base())
	sink := apitest.NewSink(t, http.StatusOK)
	id := startJob(t, s, api, sink)
	ex := s.waitExecution(t, id, 3*time.Minute)
	if ex.Status != "SUCCEEDED" {
		t.Fatalf("execution %s: %s %s", ex.Status, aws.ToString(ex.Error), aws.ToString(ex.Cause))
	}
	if j := s.job(t, id); j.Status != job.Done {
		t.Fatalf("job %s, want done", j.Status)
	}
	functions.mu.Lock()
	left := functions.throttled[functionARN(s.process)]
	functions.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d of %d throttles left: the function was invoked fewer times than throttled", left, throttles)
	}
	hist, err := sfnClient().GetExecutionHistory(context.Background(), &sfn.GetExecutionHistoryInput{ExecutionArn: ex.ExecutionArn})
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, e := range hist.Events {
		if e.TaskFailedEventDetails != nil && aws.ToString(e.TaskFailedEventDetails.Error) == "Lambda.TooManyRequestsException" {
			failed++
		}
	}
	t.Logf("%d throttled invocations, %d Process task attempts failed with Lambda.TooManyRequestsException", throttles, failed)
	if failed < 2 {
		t.Fatalf("%d throttled task attempts: the Process retrier was not what waited out the throttling", failed)
	}
}

// sample reads a sample event of events/, with the sample job id replaced
// by jobID.
func sample(t *testing.T, name, jobID string) []byte {
	t.Helper()
	root, err := awstest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), sampleJobID, jobID))
}

// sampleJobID is the job id of the sample events (a job made by
// api-init-job.json has another: replace it, as the tests do).
const sampleJobID = "2f1c3a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"

// TestSampleEvents feeds the sample events of events/ (those `make
// local-invoke-<Function>` gives `sam local`) to the functions' handlers,
// each in a Lambda invocation, with events/env.json's settings (its table,
// bucket and API key; the endpoints are the test servers'), through one
// job's life: init, upload, the upload event, start, the state machine
// processing it, then the tasks, the sweep and a poll. Every line the
// functions log carries its invocation's request id, and the lines about
// the job its id.
func TestSampleEvents(t *testing.T) {
	t.Parallel()
	root, err := awstest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "events", "env.json"))
	if err != nil {
		t.Fatal(err)
	}
	var envFile map[string]map[string]string
	if err := json.Unmarshal(raw, &envFile); err != nil {
		t.Fatal(err)
	}
	p, apiEnv := envFile["Parameters"], envFile["ApiFunction"]
	keySpec := apiEnv["BLUEPRINT_API_KEYS"]
	s := newAWSService(t, serviceOptions{Options: apitest.Options{Engine: apitest.ScriptedEngine()},
		table: p["BLUEPRINT_JOBS_TABLE"], bucket: p["BLUEPRINT_BUCKET"], env: map[string]string{"BLUEPRINT_API_KEYS": keySpec}})
	ctx := context.Background()
	invoke := func(h lambda.Handler, fn string, payload []byte) []byte {
		t.Helper()
		out, err := h.Invoke(invocationContext(ctx, functionARN(fn)), payload)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		return out
	}
	apiCall := func(name, jobID string, want int) map[string]any {
		t.Helper()
		var resp events.APIGatewayV2HTTPResponse
		if err := json.Unmarshal(invoke(s.apiFn, "api", sample(t, name, jobID)), &resp); err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		_ = json.Unmarshal([]byte(resp.Body), &body)
		if resp.StatusCode != want {
			t.Fatalf("%s: %d %s, want %d", name, resp.StatusCode, resp.Body, want)
		}
		return body
	}

	created := apiCall("api-init-job.json", sampleJobID, http.StatusCreated)
	id, _ := created["job_id"].(string)
	pdf, err := os.ReadFile(filepath.Join(root, "events", "sample.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	api := apitest.NewClient(t, s.Base())
	if r := api.PutUpload(created, pdf, "application/pdf"); r.Status != http.StatusOK {
		t.Fatalf("PUT events/sample.pdf (is api-init-job.json's size its size, %d?): %d %s", len(pdf), r.Status, r.Body)
	}
	invoke(s.upload, "upload", sample(t, "upload-object-created.json", id))
	if j := s.job(t, id); j.Upload == nil || j.Upload.Size != int64(len(pdf)) {
		t.Fatalf("upload-object-created.json did not record the upload: %+v", j.Upload)
	}
	apiCall("api-start-job.json", id, http.StatusAccepted)
	if ex := s.waitExecution(t, id, 2*time.Minute); ex.Status != "SUCCEEDED" {
		t.Fatalf("execution %s: %s %s", ex.Status, aws.ToString(ex.Error), aws.ToString(ex.Cause))
	}
	functions.mu.Lock()
	process, webhookFn := functions.fns[functionARN(s.process)].h, functions.fns[functionARN(s.webhook)].h
	functions.mu.Unlock()
	for _, c := range []struct {
		event string
		h     lambda.Handler
		fn    string
	}{
		{"process-task.json", process, s.process},
		{"webhook-deliver-task.json", webhookFn, s.webhook},
		{"webhook-mark-failed-task.json", webhookFn, s.webhook},
	} {
		var out lambdafn.JobOutput
		if err := json.Unmarshal(invoke(c.h, c.fn, sample(t, c.event, id)), &out); err != nil {
			t.Fatal(err)
		}
		if out.JobID != id || out.Webhook != job.WebhookNone {
			t.Fatalf("%s: %+v", c.event, out)
		}
	}
	invoke(lambda.NewHandler(lambdafn.Sweep(s.api.Service, s.api.Logs)), "sweep", sample(t, "sweep-schedule.json", id))
	if got := apiCall("api-get-job.json", id, http.StatusOK); got["status"] != "done" {
		t.Fatalf("api-get-job.json: %v, want done (the mark-failed task leaves a done job alone)", got)
	}

	// The structured logs.
	lines := s.logLines(t)
	seen := map[string]bool{}
	for _, l := range lines {
		msg, _ := l["msg"].(string)
		if l[lambdafn.LogRequestID] == nil {
			t.Errorf("line without %s: %v", lambdafn.LogRequestID, l)
		}
		switch msg {
		case "job created", "processing job", "job done", "upload recorded":
			seen[msg] = true
			if l[lambdafn.LogJobID] != id {
				t.Errorf("%q line without job %s: %v", msg, id, l)
			}
		case "request":
			seen[msg] = true
			if l[lambdafn.LogAPIRequestID] == nil {
				t.Errorf("request line without %s: %v", lambdafn.LogAPIRequestID, l)
			}
			if path, _ := l["path"].(string); strings.HasPrefix(path, "/v1/jobs/"+id) && l[lambdafn.LogJobID] != id {
				t.Errorf("request line of %s without its job id: %v", path, l)
			}
		}
	}
	for _, msg := range []string{"job created", "processing job", "job done", "upload recorded", "request"} {
		if !seen[msg] {
			t.Errorf("no %q line among %d", msg, len(lines))
		}
	}
}
