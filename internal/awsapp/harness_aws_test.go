//go:build aws

package awsapp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"blueprint/internal/apitest"
	"blueprint/internal/awsapp"
	"blueprint/internal/awstest"
	"blueprint/internal/catalog"
	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/docfiles"
	"blueprint/internal/engine"
	"blueprint/internal/job"
	"blueprint/internal/lambdafn"
	"blueprint/internal/raster"
	"blueprint/internal/raster/rastertest"
	"blueprint/internal/webhook"
)

// Limits of API Gateway HTTP APIs and Lambda that the harness enforces
// like the real services do.
const (
	apiGatewayMaxBody   = 10 << 20         // request payload
	lambdaMaxResponse   = 6 << 20          // synchronous invocation response
	apiFunctionTimeout  = 29 * time.Second // template.yaml ApiFunction.Timeout, under API Gateway's 30 s
	processTimeout      = 900 * time.Second
	webhookTimeout      = 30 * time.Second
	stateMachineRoleARN = "arn:aws:iam::" + awstest.Account + ":role/blueprint-flow"
)

// testRetries is the deployments' webhook retry schedule: growing waits
// like webhook.RetrySchedule's, jittered the same way, but of seconds
// instead of minutes and hours, so that a test sees the state machine's
// Wait states wait out the wait_seconds the webhook function reports, up
// to giving up, in well under a minute.
var testRetries = webhook.Schedule{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second, 6 * time.Second}

// The servers of the package's tests, started by TestMain.
var (
	dynamo, s3srv, moto *awstest.Server
	functions           *lambdaService
	apiKeysSecretARN    string
)

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	var err error
	functions, err = startLambdaService()
	if err != nil {
		return 0, err
	}
	defer functions.close()
	if dynamo, err = awstest.StartDynamoDB(); err != nil {
		return 0, err
	}
	defer dynamo.Stop()
	if s3srv, err = awstest.StartS3(); err != nil {
		return 0, err
	}
	defer s3srv.Stop()
	if moto, err = awstest.StartMoto(functions.port); err != nil {
		return 0, err
	}
	defer moto.Stop()
	sm := secretsmanager.NewFromConfig(awstest.Config(), func(o *secretsmanager.Options) { o.BaseEndpoint = aws.String(moto.URL) })
	out, err := sm.CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{
		Name: aws.String("blueprint-api-keys"), SecretString: aws.String(apitest.KeysSpec())})
	if err != nil {
		return 0, fmt.Errorf("create the API keys secret in moto: %w", err)
	}
	apiKeysSecretARN = aws.ToString(out.ARN)
	return m.Run(), nil
}

// lambdaService serves the Lambda Invoke API (POST
// /2015-03-31/functions/{name}/invocations) on 127.0.0.1 for moto's state
// machine interpreter: each registered function is the real handler,
// invoked through lambda.NewHandler as the Lambda runtime does, with its
// timeout as the context deadline.
type lambdaService struct {
	port int
	srv  *http.Server
	mu   sync.Mutex
	fns  map[string]registered
	// throttled counts down the invocations of a function to refuse as
	// the Lambda service refuses one past its reserved concurrency.
	throttled map[string]int
}

type registered struct {
	h       lambda.Handler
	timeout time.Duration
}

func startLambdaService() (*lambdaService, error) {
	port, err := awstest.FreePort()
	if err != nil {
		return nil, err
	}
	l := &lambdaService{port: port, fns: map[string]registered{}, throttled: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /2015-03-31/functions/{name}/invocations", l.invoke)
	l.srv = &http.Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), Handler: mux}
	ln, err := net.Listen("tcp", l.srv.Addr)
	if err != nil {
		return nil, err
	}
	go func() { _ = l.srv.Serve(ln) }()
	return l, nil
}

func (l *lambdaService) close() { _ = l.srv.Close() }

// functionARN is the ARN a registered function answers to.
func functionARN(name string) string {
	return "arn:aws:lambda:" + awstest.Region + ":" + awstest.Account + ":function:" + name
}

func (l *lambdaService) register(name string, handler any, timeout time.Duration) {
	l.mu.Lock()
	l.fns[functionARN(name)] = registered{h: lambda.NewHandler(handler), timeout: timeout}
	l.mu.Unlock()
}

func (l *lambdaService) invoke(w http.ResponseWriter, r *http.Request) {
	name, _ := url.PathUnescape(r.PathValue("name"))
	if !strings.HasPrefix(name, "arn:") {
		name = functionARN(name)
	}
	l.mu.Lock()
	fn, ok := l.fns[name]
	throttle := l.throttled[name] > 0
	if throttle {
		l.throttled[name]--
	}
	l.mu.Unlock()
	if ok && throttle {
		w.Header().Set("X-Amzn-ErrorType", "TooManyRequestsException")
		w.Header().Set("X-Amzn-RequestId", fmt.Sprintf("throttled-%08d", invocations.Add(1)))
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"Type":"User","message":"Rate Exceeded.","Reason":"ReservedFunctionConcurrentInvocationLimitExceeded"}`)
		return
	}
	if !ok {
		w.Header().Set("X-Amzn-ErrorType", "ResourceNotFoundException")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"Type":"User","message":"Function not found: %s"}`, name)
		return
	}
	payload, _ := io.ReadAll(r.Body)
	ctx, cancel := context.WithTimeout(r.Context(), fn.timeout)
	defer cancel()
	ctx = invocationContext(ctx, name)
	out, err := fn.h.Invoke(ctx, payload)
	if err != nil {
		// A handler error, as the Lambda service reports it.
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
		out, _ = json.Marshal(map[string]string{"errorMessage": err.Error(), "errorType": errorType(err)})
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

var invocations atomic.Int64

// invocationContext is ctx as the Lambda runtime for Go hands it to a
// handler: with the invocation's LambdaContext (a new request id).
func invocationContext(ctx context.Context, functionARN string) context.Context {
	return lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{
		AwsRequestID:       fmt.Sprintf("req-%08d", invocations.Add(1)),
		InvokedFunctionArn: functionARN,
	})
}

// errorType is the error's type name, which the Lambda runtime for Go
// reports as errorType (and Step Functions as the error name).
func errorType(err error) string {
	t := reflect.TypeOf(err)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// awsService is one deployment of the stack on the test servers: its own
// table, bucket, state machine and functions, the api function behind an
// emulated API Gateway HTTP API. It is an apitest.Service.
type awsService struct {
	t        *testing.T
	front    *httptest.Server
	env      map[string]string
	api      *awsapp.App
	apiFn    lambda.Handler
	upload   lambda.Handler
	bucket   string
	machine  string // state machine ARN
	process  string // function names
	webhook  string
	badFront atomic.Value        // first API Gateway limit the service broke, if any
	logs     *awstest.TailBuffer // every function's log lines (JSON)

	mu    sync.Mutex
	steps []stepCall // the webhook function's invocations, in order
}

// stepCall is one invocation of a deployment's webhook function: when it
// ran, what the state machine passed and what it answered.
type stepCall struct {
	start, end time.Time
	in         lambdafn.JobInput
	out        lambdafn.JobOutput
	err        error
}

var deployments atomic.Int64

// serviceOptions shape a deployment beyond apitest.Options.
type serviceOptions struct {
	apitest.Options
	// processTimeout replaces the process function's 900 s.
	processTimeout time.Duration
	// table and bucket replace the deployment's own names; env adds to its
	// functions' environment (endpoints and the state machine stay the
	// deployment's).
	table, bucket string
	env           map[string]string
	// definition rewrites the state machine's definition.
	definition func(t *testing.T, def string) string
	// throttleProcess is how many invocations of the process function the
	// Lambda service refuses (429 TooManyRequestsException) first.
	throttleProcess int
}

// newAWSService deploys the stack for one test.
func newAWSService(t *testing.T, o serviceOptions) *awsService {
	t.Helper()
	ctx := context.Background()
	n := deployments.Add(1)
	s := &awsService{t: t, bucket: fmt.Sprintf("files-%d", n), process: fmt.Sprintf("process-%d", n), webhook: fmt.Sprintf("webhook-%d", n)}
	table := fmt.Sprintf("jobs-%d", n)
	if o.table != "" {
		table = o.table
	}
	if o.bucket != "" {
		s.bucket = o.bucket
	}
	if err := awstest.CreateJobsTable(ctx, awstest.DynamoDB(dynamo), table); err != nil {
		t.Fatal(err)
	}
	if err := awstest.CreateBucket(ctx, awstest.S3(s3srv), s.bucket); err != nil {
		t.Fatal(err)
	}
	s.machine = s.createStateMachine(t, fmt.Sprintf("flow-%d", n), o.definition)
	s.front = httptest.NewUnstartedServer(nil)
	s.env = awstest.Env(dynamo, s3srv, moto)
	for k, v := range o.env {
		s.env[k] = v
	}
	base := "http://" + s.front.Listener.Addr().String()
	for k, v := range map[string]string{
		awsapp.EnvTable: table, awsapp.EnvBucket: s.bucket, awsapp.EnvStateMachineARN: s.machine,
		awsapp.EnvAPIKeysSecretARN: apiKeysSecretARN, config.EnvBaseURL: base,
	} {
		s.env[k] = v
	}
	if !o.StrictCallbacks {
		s.env[config.EnvAllowPrivateCallbacks] = "1"
	}
	getenv := func(k string) string { return s.env[k] }
	// JSON lines, as the deployed functions log to CloudWatch.
	s.logs = awstest.NewTailBuffer(4 << 20)
	log := slog.New(slog.NewJSONHandler(s.logs, nil))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("service log:\n%s", s.logs.String())
		}
	})
	files := func(c config.Config) job.Files { return docfiles.New(c.MaxPages, c.MaxPagePixels) }
	eng := func(c config.Config, cat *catalog.Catalog) (detect.Engine, error) {
		if o.Engine != nil {
			return o.Engine, nil
		}
		return engine.New(cat, engine.Options{RasterOff: c.Raster.Off, Raster: raster.Config{Library: rastertest.Library(t)}})
	}
	var err error
	// Every function of the deployment retries webhooks on testRetries, as
	// the deployed ones all use the default schedule.
	if s.api, err = awsapp.New(ctx, getenv, awsapp.Needs{Files: files, Flow: true, Keys: true, WebhookRetries: testRetries, Clock: o.Clock, Logger: log}); err != nil {
		t.Fatal(err)
	}
	h, err := s.api.Handler()
	if err != nil {
		t.Fatal(err)
	}
	s.apiFn = lambda.NewHandler(lambdafn.API(h, s.api.Logs))
	s.front.Config.Handler = http.HandlerFunc(s.gateway)
	s.front.Start()
	t.Cleanup(s.front.Close)
	processApp, err := awsapp.New(ctx, getenv, awsapp.Needs{Files: files, Engine: eng, WebhookRetries: testRetries, Clock: o.Clock, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	webhookApp, err := awsapp.New(ctx, getenv, awsapp.Needs{Keys: true, WebhookRetries: testRetries, Clock: o.Clock, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	// The upload function starts jobs created with start_on_upload: it
	// checks the file and hands the job to the state machine.
	uploadApp, err := awsapp.New(ctx, getenv, awsapp.Needs{Files: files, Flow: true, WebhookRetries: testRetries, Clock: o.Clock, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	pt := processTimeout
	if o.processTimeout > 0 {
		pt = o.processTimeout
	}
	functions.register(s.process, lambdafn.Process(processApp.Service, processApp.Logs), pt)
	if o.throttleProcess > 0 {
		functions.mu.Lock()
		functions.throttled[functionARN(s.process)] = o.throttleProcess
		functions.mu.Unlock()
	}
	step := lambdafn.Step(webhookApp.Service, webhookApp.Logs)
	functions.register(s.webhook, func(ctx context.Context, in lambdafn.JobInput) (lambdafn.JobOutput, error) {
		c := stepCall{start: time.Now(), in: in}
		c.out, c.err = step(ctx, in)
		c.end = time.Now()
		s.mu.Lock()
		s.steps = append(s.steps, c)
		s.mu.Unlock()
		return c.out, c.err
	}, webhookTimeout)
	s.upload = lambda.NewHandler(lambdafn.Upload(uploadApp.Service, s.bucket, uploadApp.Logs))
	t.Cleanup(func() {
		if v := s.badFront.Load(); v != nil {
			t.Errorf("the api function broke a limit of API Gateway or Lambda: %v", v)
		}
	})
	return s
}

// webhookSteps returns the invocations of the deployment's webhook
// function for a job, in order.
func (s *awsService) webhookSteps(jobID string) []stepCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []stepCall
	for _, c := range s.steps {
		if c.in.JobID == jobID {
			out = append(out, c)
		}
	}
	return out
}

// createStateMachine creates the state machine of infra/statemachine.asl.json
// in moto, with the deployment's functions substituted as SAM's
// DefinitionSubstitutions do.
func (s *awsService) createStateMachine(t *testing.T, name string, rewrite func(*testing.T, string) string) string {
	t.Helper()
	root, err := awstest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	def, err := os.ReadFile(root + "/infra/statemachine.asl.json")
	if err != nil {
		t.Fatal(err)
	}
	d := strings.NewReplacer("${ProcessFunctionArn}", functionARN(s.process), "${WebhookFunctionArn}", functionARN(s.webhook)).Replace(string(def))
	if rewrite != nil {
		d = rewrite(t, d)
	}
	out, err := sfnClient().CreateStateMachine(context.Background(), &sfn.CreateStateMachineInput{
		Name: aws.String(name), Definition: aws.String(d), RoleArn: aws.String(stateMachineRoleARN)})
	if err != nil {
		t.Fatalf("create state machine: %v", err)
	}
	return aws.ToString(out.StateMachineArn)
}

func sfnClient() *sfn.Client {
	return sfn.NewFromConfig(awstest.Config(), func(o *sfn.Options) { o.BaseEndpoint = aws.String(moto.URL) })
}

// gateway is the emulated API Gateway HTTP API: it turns the request into
// a payload 2.0 event, invokes the api function with it as JSON (as the
// Lambda service does) and turns the function's response back, refusing
// what API Gateway and Lambda refuse.
func (s *awsService) gateway(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, apiGatewayMaxBody+1))
	if err != nil || len(body) > apiGatewayMaxBody {
		http.Error(w, `{"message":"Request Entity Too Large"}`, http.StatusRequestEntityTooLarge)
		return
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "ANY /{proxy+}", RawPath: r.URL.EscapedPath(), RawQueryString: r.URL.RawQuery,
		Headers: map[string]string{},
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			DomainName: r.Host, Stage: "$default", RequestID: fmt.Sprint(time.Now().UnixNano()),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: r.Method, Path: r.URL.Path, Protocol: r.Proto, SourceIP: "127.0.0.1"},
		},
		Body: base64.StdEncoding.EncodeToString(body), IsBase64Encoded: true,
	}
	for k, v := range r.Header {
		if strings.EqualFold(k, "Cookie") {
			ev.Cookies = append(ev.Cookies, v...)
			continue
		}
		ev.Headers[strings.ToLower(k)] = strings.Join(v, ",")
	}
	ev.Headers["host"] = r.Host
	payload, err := json.Marshal(ev)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), apiFunctionTimeout)
	defer cancel()
	out, err := s.apiFn.Invoke(invocationContext(ctx, functionARN("api")), payload)
	switch {
	case err != nil:
		s.badFront.CompareAndSwap(nil, fmt.Sprintf("%s %s: function error %v", r.Method, r.URL.Path, err))
		http.Error(w, `{"message":"Internal Server Error"}`, http.StatusInternalServerError)
		return
	case len(out) > lambdaMaxResponse:
		s.badFront.CompareAndSwap(nil, fmt.Sprintf("%s %s: response of %d bytes, over Lambda's 6 MB", r.Method, r.URL.Path, len(out)))
		http.Error(w, `{"message":"Internal Server Error"}`, http.StatusBadGateway)
		return
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	for _, c := range resp.Cookies {
		w.Header().Add("Set-Cookie", c)
	}
	b := []byte(resp.Body)
	if resp.IsBase64Encoded {
		if b, err = base64.StdEncoding.DecodeString(resp.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(b)
}

// Base is the emulated API's URL.
func (s *awsService) Base() string { return "http://" + s.front.Listener.Addr().String() }

// Upload PUTs data to the job's presigned S3 URL and, when S3 stored it,
// hands the upload function the EventBridge "Object Created" event S3
// sends for it (asynchronously in AWS; at once here).
func (s *awsService) Upload(t *testing.T, c *apitest.Client, created map[string]any, data []byte, ctype string) apitest.Response {
	t.Helper()
	r := c.PutUpload(created, data, ctype)
	if r.Status == http.StatusOK {
		s.objectCreated(t, job.UploadKey(created["job_id"].(string)), len(data), r.Header.Get("ETag"))
	}
	return r
}

// RepeatUploadEvent delivers the "Object Created" event of the job's
// upload key again, as EventBridge may (apitest.UploadEventRepeater). The
// function looks at what is stored, not at the event's facts.
func (s *awsService) RepeatUploadEvent(t *testing.T, jobID string) {
	t.Helper()
	s.objectCreated(t, job.UploadKey(jobID), 0, "")
}

func (s *awsService) objectCreated(t *testing.T, key string, size int, etag string) {
	t.Helper()
	ev := map[string]any{
		"version": "0", "id": fmt.Sprint(time.Now().UnixNano()), "detail-type": "Object Created", "source": "aws.s3",
		"account": awstest.Account, "time": time.Now().UTC().Format(time.RFC3339), "region": awstest.Region,
		"resources": []string{"arn:aws:s3:::" + s.bucket},
		"detail": map[string]any{
			"version": "0", "bucket": map[string]any{"name": s.bucket},
			"object": map[string]any{"key": key, "size": size, "etag": strings.Trim(etag, `"`), "sequencer": fmt.Sprintf("%016X", time.Now().UnixNano())},
			"reason": "PutObject",
		},
	}
	payload, _ := json.Marshal(ev)
	if _, err := s.upload.Invoke(invocationContext(context.Background(), functionARN("upload")), payload); err != nil {
		t.Fatalf("upload function: %v", err)
	}
}

// ListJobs lists the deployment's jobs in a state.
func (s *awsService) ListJobs(ctx context.Context, state job.State) ([]string, error) {
	return s.api.Store.ListJobs(ctx, state, 0)
}

// execution describes the job's execution in moto.
func (s *awsService) execution(t *testing.T, jobID string) *sfn.DescribeExecutionOutput {
	t.Helper()
	out, err := sfnClient().DescribeExecution(context.Background(), &sfn.DescribeExecutionInput{
		ExecutionArn: aws.String(strings.Replace(s.machine, ":stateMachine:", ":execution:", 1) + ":" + jobID)})
	if err != nil {
		t.Fatalf("describe the execution of %s: %v", jobID, err)
	}
	return out
}

// waitExecution waits until the job's execution has ended and returns it.
func (s *awsService) waitExecution(t *testing.T, jobID string, timeout time.Duration) *sfn.DescribeExecutionOutput {
	t.Helper()
	var out *sfn.DescribeExecutionOutput
	apitest.WaitFor(t, timeout, 100*time.Millisecond, func() bool {
		out = s.execution(t, jobID)
		return out.Status != "RUNNING"
	}, func() string { return fmt.Sprintf("execution of %s still %s", jobID, out.Status) })
	return out
}
