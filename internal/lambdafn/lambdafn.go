// Package lambdafn holds the Lambda handlers of the functions in
// template.yaml: thin translations between Lambda events (API Gateway HTTP
// API payload 2.0, Step Functions task payloads, EventBridge S3 events,
// schedules) and the job service. The functions' mains hand them to
// lambda.Start; the tests invoke them the same way, through
// lambda.NewHandler.
package lambdafn

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"blueprint/internal/job"
)

// API serves the partner API's router behind API Gateway (HTTP API,
// payload format 2.0) through aws-lambda-go-api-proxy. Lines logged while
// it serves a request carry the Lambda and API Gateway request ids and,
// for a path under /v1/jobs/{id}, the job id.
func API(h http.Handler, logs *Logs) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	proxy := httpadapter.NewV2(h).ProxyWithContext
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		defer logs.begin(ctx, slog.String(LogAPIRequestID, ev.RequestContext.RequestID),
			slog.String(LogJobID, pathJobID(ev.RawPath)))()
		resp, err := proxy(ctx, ev)
		if err == nil && ev.RequestContext.HTTP.Method == http.MethodPost && ev.RawPath == "/v1/jobs/init" && resp.StatusCode/100 == 2 {
			// The job's first line: its id beside the request that made it.
			if id := createdJobID(resp); id != "" {
				logs.Logger().Info("job created", LogJobID, id)
			}
		}
		return resp, err
	}
}

// createdJobID is the job_id of an init response's JSON body, or "".
func createdJobID(resp events.APIGatewayV2HTTPResponse) string {
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(resp.Body); err != nil {
			return ""
		}
	}
	var created struct {
		JobID string `json:"job_id"`
	}
	if json.Unmarshal(body, &created) != nil {
		return ""
	}
	return created.JobID
}

// JobInput is the payload of the state machine's tasks.
type JobInput struct {
	JobID string `json:"job_id"`
	// Error is set on the task that marks a job failed: the error the
	// state machine caught from the processing task.
	Error *TaskError `json:"error,omitempty"`
}

// TaskError is a Step Functions error as a Catch hands it on.
type TaskError struct {
	Error string `json:"Error"`
	Cause string `json:"Cause"`
}

// JobOutput is the result of the state machine's tasks: where the job's
// webhook event stands and, while it is pending, the seconds to wait
// before the next attempt (the backoff the domain computed).
type JobOutput struct {
	JobID       string           `json:"job_id"`
	Webhook     job.WebhookState `json:"webhook"`
	WaitSeconds int              `json:"wait_seconds"`
}

// processMargin is the time kept back from the Lambda's deadline so that
// an interrupted Process returns (and the state machine marks the job
// failed) before the runtime kills the function.
const processMargin = 10 * time.Second

// Process is the processing function's handler for the state machine's
// three processing tasks (ProcessInput): the job's own task processes it
// (render, detect, store) and reports its webhook, or, for a document past
// the page budget, makes its document pass and returns the page batches
// (ProcessOutput.Batched); the Map's tasks process one batch each; the
// merge finishes the job and reports its webhook. An error (processing
// interrupted by the deadline, the store unreachable) goes to the state
// machine, whose Catch marks the job failed.
func Process(svc *job.Service, logs *Logs) func(context.Context, ProcessInput) (ProcessOutput, error) {
	return func(ctx context.Context, in ProcessInput) (ProcessOutput, error) {
		defer logs.begin(ctx, slog.String(LogJobID, in.JobID))()
		if in.JobID == "" {
			return ProcessOutput{}, errors.New("process: no job_id in the input")
		}
		if d, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, d.Add(-processMargin))
			defer cancel()
		}
		out, err := processTask(ctx, svc, in)
		if err != nil {
			if ctx.Err() != nil {
				return ProcessOutput{}, &ProcessingTimeout{JobID: in.JobID, Err: err}
			}
			return ProcessOutput{}, err
		}
		if out.Batched || in.Batch != nil {
			return out, nil
		}
		st, err := status(context.WithoutCancel(ctx), svc, in.JobID)
		return ProcessOutput{JobOutput: st, Batches: out.Batches}, err
	}
}

// ProcessingTimeout is the error of a processing task stopped by the
// function's deadline; the state machine sees its type name as the error
// ("ProcessingTimeout") and marks the job failed with FailureMessage.
type ProcessingTimeout struct {
	JobID string
	Err   error
}

func (e *ProcessingTimeout) Error() string {
	return fmt.Sprintf("processing job %s did not finish before the function's deadline: %v", e.JobID, e.Err)
}

func (e *ProcessingTimeout) Unwrap() error { return e.Err }

// Step is the webhook function's task: with Error set it marks the job
// failed (the processing task failed in a way Process could not record);
// otherwise it makes the due delivery attempt of the job's webhook. Either
// way it reports the webhook's state and wait. An answer that the webhook
// was given up (the state machine's WebhookGaveUp ending) is logged as
// MsgWebhookGaveUp, which the template counts as a metric.
func Step(svc *job.Service, logs *Logs) func(context.Context, JobInput) (JobOutput, error) {
	return func(ctx context.Context, in JobInput) (JobOutput, error) {
		defer logs.begin(ctx, slog.String(LogJobID, in.JobID))()
		if in.JobID == "" {
			return JobOutput{}, errors.New("step: no job_id in the input")
		}
		if in.Error != nil {
			if _, err := svc.FailJob(ctx, in.JobID, FailureMessage(*in.Error)); err != nil {
				return JobOutput{}, err
			}
		} else if err := svc.DeliverWebhook(ctx, in.JobID); err != nil {
			return JobOutput{}, err
		}
		out, err := status(ctx, svc, in.JobID)
		if err == nil && out.Webhook == job.WebhookGaveUp {
			logs.Logger().Warn(MsgWebhookGaveUp, LogJobID, in.JobID)
		}
		return out, err
	}
}

// MsgWebhookGaveUp is the message of the webhook function's line for a
// webhook given up after the last retry; template.yaml's
// WebhookGiveUpsMetricFilter matches it ({ $.msg = "webhook gave up" }).
const MsgWebhookGaveUp = "webhook gave up"

func status(ctx context.Context, svc *job.Service, jobID string) (JobOutput, error) {
	st, err := svc.WebhookStatus(ctx, jobID)
	if err != nil {
		return JobOutput{}, err
	}
	return JobOutput{JobID: jobID, Webhook: st.State, WaitSeconds: int(math.Ceil(st.Wait.Seconds()))}, nil
}

// FailureMessage is the partner's message for a processing task that
// failed with e: a timeout says so; other errors are the service's.
func FailureMessage(e TaskError) string {
	if strings.Contains(e.Error, "Timeout") || strings.Contains(e.Error, "Timedout") || strings.Contains(e.Cause, "timed out") {
		return "processing took longer than the service's time limit for one document; a document with fewer or smaller pages will fit"
	}
	return "processing stopped on the service side (" + e.Error + ")"
}

// Sweep is the scheduled function: expiry and purge (job.Service.Sweep),
// then the recovery of work the state machine dropped (Recover).
func Sweep(svc *job.Service, logs *Logs) func(context.Context) error {
	return func(ctx context.Context) error {
		defer logs.begin(ctx)()
		return errors.Join(svc.Sweep(ctx), svc.Recover(ctx))
	}
}

// UploadEvent is an EventBridge event of S3 ("Object Created") or, the
// same facts in S3's own notification shape, a record list; only the
// bucket and key matter.
type UploadEvent struct {
	DetailType string   `json:"detail-type"`
	Detail     s3Object `json:"detail"`
	Records    []struct {
		S3 s3Object `json:"s3"`
	} `json:"Records"`
}

// s3Object names an object in both event shapes.
type s3Object struct {
	Bucket struct {
		Name string `json:"name"`
	} `json:"bucket"`
	Object struct {
		Key string `json:"key"`
	} `json:"object"`
}

// keys lists the object keys of the event in bucket. S3 notification
// records carry URL-encoded keys (a space is "+"); EventBridge events
// carry them as they are.
func (e UploadEvent) keys(bucket string) ([]string, error) {
	var out []string
	if e.Detail.Object.Key != "" && e.Detail.Bucket.Name == bucket {
		out = append(out, e.Detail.Object.Key)
	}
	for _, r := range e.Records {
		if r.S3.Bucket.Name != bucket {
			continue
		}
		k, err := url.QueryUnescape(r.S3.Object.Key)
		if err != nil {
			return nil, fmt.Errorf("event key %q: %w", r.S3.Object.Key, err)
		}
		out = append(out, k)
	}
	return out, nil
}

// uploadJob returns the job id of an upload key, "jobs/<id>/upload".
func uploadJob(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "jobs/")
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, "/upload")
	if !ok || id == "" || strings.Contains(id, "/") || job.UploadKey(id) != key {
		return "", false
	}
	return id, true
}

// Upload is the upload-event function: for each object created at a job's
// upload key in bucket it records what is stored there now on the job
// (job.Service.RecordUpload) and starts a job created with
// start_on_upload (job.Service.StartUploaded). Other keys are ignored. An
// error makes EventBridge's asynchronous invocation retry.
func Upload(svc *job.Service, bucket string, logs *Logs) func(context.Context, json.RawMessage) error {
	log := logs.Logger()
	return func(ctx context.Context, raw json.RawMessage) error {
		defer logs.begin(ctx)()
		var ev UploadEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return fmt.Errorf("upload event: %w", err)
		}
		keys, err := ev.keys(bucket)
		if err != nil {
			return fmt.Errorf("upload event: %w", err)
		}
		var errs []error
		for _, k := range keys {
			id, ok := uploadJob(k)
			if !ok {
				log.Info("upload event for a key that is not an upload; ignored", "key", k)
				continue
			}
			changed, err := svc.RecordUpload(ctx, id)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			log.Info("upload recorded", "job_id", id, "changed", changed)
			// A job created with start_on_upload starts now, once however
			// often the event repeats (job.Service.StartUploaded).
			started, err := svc.StartUploaded(ctx, id)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if started {
				log.Info("job started on upload", "job_id", id)
			}
		}
		return errors.Join(errs...)
	}
}
