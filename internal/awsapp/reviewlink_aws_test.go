//go:build aws

package awsapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"blueprint/internal/apitest"
	"blueprint/internal/awsapp"
	"blueprint/internal/awstest"
	"blueprint/internal/config"
)

// TestReviewLinkAcrossInstances: two instances of the api function (two
// Apps, each with its own DynamoDB client) on one table. A review link
// made on one is exchanged on the other, once (a second exchange on
// either is "used"); the credential works on both, for its job only.
func TestReviewLinkAcrossInstances(t *testing.T) {
	ctx := context.Background()
	table := fmt.Sprintf("jobs-links-%d", deployments.Add(1))
	if err := awstest.CreateJobsTable(ctx, awstest.DynamoDB(dynamo), table); err != nil {
		t.Fatal(err)
	}
	env := awstest.Env(dynamo, s3srv, moto)
	env[awsapp.EnvTable] = table
	env[awsapp.EnvBucket] = "unused"
	env[config.EnvBaseURL] = "http://127.0.0.1:1"
	env[config.EnvAPIKeys] = apitest.KeysSpec()
	logs := awstest.NewTailBuffer(1 << 20)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", logs.String())
		}
	})
	log := slog.New(slog.NewJSONHandler(logs, nil))
	var handlers []http.Handler
	for range 2 {
		a, err := awsapp.New(ctx, func(k string) string { return env[k] }, awsapp.Needs{Keys: true, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		h, err := a.Handler()
		if err != nil {
			t.Fatal(err)
		}
		handlers = append(handlers, h)
	}
	do := func(i int, method, path, key, body string) (int, map[string]any) {
		t.Helper()
		w := httptest.NewRecorder()
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		if key != "" {
			r.Header.Set("X-API-Key", key)
		}
		r.Header.Set("Content-Type", "application/json")
		handlers[i].ServeHTTP(w, r)
		var m map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &m)
		return w.Code, m
	}
	initBody := `{"file_name":"a.pdf","mime_type":"application/pdf","size":100}`
	code, created := do(0, "POST", "/v1/jobs/init", apitest.KeyA, initBody)
	if code != 201 {
		t.Fatalf("init: %d %v", code, created)
	}
	id := created["job_id"].(string)
	_, other := do(1, "POST", "/v1/jobs/init", apitest.KeyA, initBody)

	code, link := do(0, "POST", "/v1/review-links", apitest.KeyA, `{"job_id":"`+id+`"}`)
	if code != 201 {
		t.Fatalf("link on instance 0: %d %v", code, link)
	}
	handoff := apitest.LinkFragment(t, link["url"].(string)).Get("handoff")
	code, x := do(1, "POST", "/v1/review-links/exchange", "", `{"handoff":"`+handoff+`"}`)
	cred, _ := x["credential"].(string)
	if code != 200 || cred == "" || cred == apitest.KeyA || x["job_id"] != id {
		t.Fatalf("exchange on instance 1 of a link made on instance 0: %d %v", code, x)
	}
	for i := range 2 {
		code, x := do(i, "POST", "/v1/review-links/exchange", "", `{"handoff":"`+handoff+`"}`)
		if d, _ := x["error"].(map[string]any)["details"].(map[string]any); code != 401 || d["reason"] != "used" {
			t.Errorf("second exchange on instance %d: %d %v", i, code, x)
		}
		if code, m := do(i, "GET", "/v1/jobs/"+id, cred, ""); code != 200 || m["job_id"] != id {
			t.Errorf("the credential on instance %d: %d %v", i, code, m)
		}
		if code, _ := do(i, "GET", "/v1/jobs/"+other["job_id"].(string), cred, ""); code != 404 {
			t.Errorf("the credential on another job, instance %d: %d", i, code)
		}
		if code, _ := do(i, "GET", "/v1/jobs", cred, ""); code != 403 {
			t.Errorf("the credential listing jobs, instance %d: %d", i, code)
		}
	}
}
