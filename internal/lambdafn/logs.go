package lambdafn

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

// Log keys the handlers add to every line logged during an invocation.
// The domain's own lines already carry job_id where they concern a job;
// a key a line has is never added twice.
const (
	// LogRequestID is the Lambda request id of the invocation (the
	// requestId of Lambda's START/END/REPORT lines and, for the api
	// function, lambdaRequestId in the API's access log).
	LogRequestID = "aws_request_id"
	// LogAPIRequestID is API Gateway's request id (requestId in the
	// API's access log); api function only.
	LogAPIRequestID = "api_request_id"
	// LogJobID is the job the invocation is about, where its event names
	// one: the state machine's task payloads, an API path under /v1/jobs/.
	LogJobID = "job_id"
)

// Logs gives a function's log lines the ids of the invocation they were
// written in: request id and job id (LogRequestID, LogAPIRequestID,
// LogJobID). The domain logs through a *slog.Logger without a context, so
// the ids are kept here for the invocation being handled and added by the
// Logger's handler. The Lambda runtime hands an execution environment one
// invocation at a time, so every line between an invocation's start and
// its end belongs to it. A nil *Logs adds nothing.
type Logs struct {
	log *slog.Logger
	cur atomic.Pointer[[]slog.Attr]
}

// NewLogs returns the Logs of a function writing through h.
func NewLogs(h slog.Handler) *Logs {
	l := &Logs{}
	l.log = slog.New(invocationHandler{next: h, logs: l})
	return l
}

// Logger is the function's logger: h's lines with the invocation's ids.
func (l *Logs) Logger() *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.log
}

// begin records the ids of the invocation ctx belongs to (the Lambda
// request id from ctx, then attrs) until the returned end is called.
func (l *Logs) begin(ctx context.Context, attrs ...slog.Attr) (end func()) {
	if l == nil {
		return func() {}
	}
	var ids []slog.Attr
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		ids = append(ids, slog.String(LogRequestID, lc.AwsRequestID))
	}
	for _, a := range attrs {
		if a.Value.String() != "" {
			ids = append(ids, a)
		}
	}
	p := &ids
	l.cur.Store(p)
	return func() { l.cur.CompareAndSwap(p, nil) }
}

// invocationHandler adds the current invocation's ids to each record.
type invocationHandler struct {
	next slog.Handler
	logs *Logs
	// has lists the keys the logger's own attributes (With) already hold.
	has []string
}

func (h invocationHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h invocationHandler) Handle(ctx context.Context, r slog.Record) error {
	if p := h.logs.cur.Load(); p != nil && len(*p) > 0 {
		present := map[string]bool{}
		for _, k := range h.has {
			present[k] = true
		}
		r.Attrs(func(a slog.Attr) bool {
			present[a.Key] = true
			return true
		})
		r = r.Clone()
		for _, a := range *p {
			if !present[a.Key] {
				r.AddAttrs(a)
			}
		}
	}
	return h.next.Handle(ctx, r)
}

func (h invocationHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	has := append([]string(nil), h.has...)
	for _, a := range attrs {
		has = append(has, a.Key)
	}
	return invocationHandler{next: h.next.WithAttrs(attrs), logs: h.logs, has: has}
}

func (h invocationHandler) WithGroup(name string) slog.Handler {
	return invocationHandler{next: h.next.WithGroup(name), logs: h.logs, has: h.has}
}

// pathJobID returns the job id of an API path /v1/jobs/{id}[/...], or ""
// (/v1/jobs/init creates a job: its id is in the response).
func pathJobID(path string) string {
	rest, ok := strings.CutPrefix(path, "/v1/jobs/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	if id == "init" {
		return ""
	}
	return id
}
