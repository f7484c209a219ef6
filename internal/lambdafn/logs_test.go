package lambdafn

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

// lines parses JSON log lines.
func lines(t *testing.T, b *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		out = append(out, m)
	}
	b.Reset()
	return out
}

func TestLogsCarryInvocationIDs(t *testing.T) {
	var b bytes.Buffer
	logs := NewLogs(slog.NewJSONHandler(&b, nil))
	log := logs.Logger()
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-1"})

	log.Info("before")
	end := logs.begin(ctx, slog.String(LogJobID, "job-1"), slog.String(LogAPIRequestID, ""))
	log.Info("during")
	log.Info("own job", LogJobID, "job-2")
	log.With(LogJobID, "job-3").Info("logger's job")
	end()
	log.Info("after")

	got := lines(t, &b)
	if len(got) != 5 {
		t.Fatalf("%d lines", len(got))
	}
	want := []map[string]any{
		{},
		{LogRequestID: "req-1", LogJobID: "job-1"},
		{LogRequestID: "req-1", LogJobID: "job-2"},
		{LogRequestID: "req-1", LogJobID: "job-3"},
		{},
	}
	for i, l := range got {
		for _, k := range []string{LogRequestID, LogJobID, LogAPIRequestID} {
			if v, ok := want[i][k]; ok != (l[k] != nil) || (ok && l[k] != v) {
				t.Errorf("line %d %q: %s = %v, want %v", i, l["msg"], k, l[k], v)
			}
		}
	}
	// A key is never written twice (the JSON decoder keeps the last).
	logs.begin(ctx, slog.String(LogJobID, "job-1"))
	log.Info("own job", LogJobID, "job-2")
	if n := strings.Count(b.String(), `"job_id"`); n != 1 {
		t.Errorf("job_id written %d times: %s", n, b.String())
	}
	// A nil Logs adds nothing and logs nowhere.
	var none *Logs
	none.begin(ctx)()
	none.Logger().Info("dropped")
}

// TestLogsEndKeepsALaterInvocation: the end of an invocation clears only
// its own ids, not those of one begun after it.
func TestLogsEndKeepsALaterInvocation(t *testing.T) {
	var b bytes.Buffer
	logs := NewLogs(slog.NewJSONHandler(&b, nil))
	end1 := logs.begin(context.Background(), slog.String(LogJobID, "a"))
	end2 := logs.begin(context.Background(), slog.String(LogJobID, "b"))
	end1()
	logs.Logger().Info("x")
	end2()
	if l := lines(t, &b); l[0][LogJobID] != "b" {
		t.Fatalf("line %v, want job b", l[0])
	}
}

func TestPathJobID(t *testing.T) {
	for path, want := range map[string]string{
		"/v1/jobs/abc":                        "abc",
		"/v1/jobs/abc/start":                  "abc",
		"/v1/jobs/abc/pages/0/detections":     "abc",
		"/v1/jobs/init":                       "",
		"/v1/jobs":                            "",
		"/v1/symbols":                         "",
		"/files/pages/abc/0.png":              "",
		"/v1/jobs/abc/takeoff.csv":            "abc",
		"/v1/jobs/abc%2Fdef/takeoff.csv?x=1":  "abc%2Fdef",
		"/prefix/v1/jobs/abc/start":           "",
		"/v1/jobs//start":                     "",
		"/v1/jobs/0f8e2c6a-aaaa-4bbb-8ccc-01": "0f8e2c6a-aaaa-4bbb-8ccc-01",
	} {
		if got := pathJobID(path); got != want {
			t.Errorf("pathJobID(%q) = %q, want %q", path, got, want)
		}
	}
}
