package lambdafn

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestUploadJob(t *testing.T) {
	for key, want := range map[string]string{
		"jobs/0f8e-1/upload":            "0f8e-1",
		"jobs/0f8e-1/uploads/abc":       "",
		"jobs/0f8e-1/pages/0.png":       "",
		"jobs//upload":                  "",
		"jobs/a/b/upload":               "",
		"icons/x.svg":                   "",
		"jobs/0f8e-1/upload/":           "",
		"prefix/jobs/0f8e-1/upload":     "",
		"jobs/0f8e-1/upload.tmp":        "",
		"jobs/0f8e-1/upload-incomplete": "",
	} {
		id, ok := uploadJob(key)
		if ok != (want != "") || id != want {
			t.Errorf("uploadJob(%q) = %q, %v; want %q", key, id, ok, want)
		}
	}
}

func TestUploadEventKeys(t *testing.T) {
	const bucket = "files"
	cases := []struct {
		name, event string
		want        []string
	}{
		{"EventBridge", `{"version":"0","detail-type":"Object Created","source":"aws.s3",
			"detail":{"bucket":{"name":"files"},"object":{"key":"jobs/j1/upload","size":12,"etag":"abc"}}}`, []string{"jobs/j1/upload"}},
		{"EventBridge, another bucket", `{"detail-type":"Object Created","detail":{"bucket":{"name":"other"},"object":{"key":"jobs/j1/upload"}}}`, nil},
		{"S3 notification records, URL-encoded", `{"Records":[{"s3":{"bucket":{"name":"files"},"object":{"key":"jobs/j+2/upload","size":3}}},
			{"s3":{"bucket":{"name":"files"},"object":{"key":"jobs/j%2F3/upload"}}},{"s3":{"bucket":{"name":"nope"},"object":{"key":"jobs/j4/upload"}}}]}`,
			[]string{"jobs/j 2/upload", "jobs/j/3/upload"}},
	}
	for _, c := range cases {
		var ev UploadEvent
		if err := json.Unmarshal([]byte(c.event), &ev); err != nil {
			t.Fatal(err)
		}
		got, err := ev.keys(bucket)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: keys %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestFailureMessage(t *testing.T) {
	for _, e := range []TaskError{{Error: "ProcessingTimeout"}, {Error: "Sandbox.Timedout"}, {Error: "States.Timeout"}} {
		if m := FailureMessage(e); !strings.Contains(m, "time limit") {
			t.Errorf("%s: %q does not name the time limit", e.Error, m)
		}
	}
	if m := FailureMessage(TaskError{Error: "Runtime.ExitError", Cause: "signal: killed"}); strings.Contains(m, "time limit") || !strings.Contains(m, "Runtime.ExitError") {
		t.Errorf("crash message %q", m)
	}
}
