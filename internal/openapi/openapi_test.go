package openapi

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDocument(t *testing.T) {
	var d struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]map[string]struct {
			Security  *[]any                    `json:"security"`
			Responses map[string]map[string]any `json:"responses"`
		} `json:"paths"`
		Webhooks map[string]any `json:"webhooks"`
	}
	doc := Document()
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatalf("document is not JSON: %v", err)
	}
	if d.OpenAPI != "3.1.0" || d.Info.Version != "1.0.0" {
		t.Fatalf("openapi %q version %q", d.OpenAPI, d.Info.Version)
	}
	doc[0] = 'X'
	if Document()[0] != '{' {
		t.Fatal("Document returns shared memory")
	}
	for _, p := range []string{"/v1/jobs/init", "/uploads/{job_id}", "/v1/jobs/{job_id}/start", "/v1/jobs/{job_id}",
		"/v1/jobs/{job_id}/pages/{page_index}/detections", "/v1/symbols", "/v1/symbols/{class}/icon", "/v1/openapi.json",
		"/v1/jobs", "/v1/jobs/{job_id}/takeoff.csv", "/v1/jobs/{job_id}/takeoff.xlsx", "/v1/review-links", "/v1/review-links/exchange",
		"/v1/jobs/{job_id}/pages/{page_index}/detections/{detection_id}"} {
		if _, ok := d.Paths[p]; !ok {
			t.Errorf("path %s missing", p)
		}
	}
	for _, w := range []string{"job.done", "job.failed"} {
		if _, ok := d.Webhooks[w]; !ok {
			t.Errorf("webhook %s missing", w)
		}
	}
	// The /v1 operations that take no key: the document itself, and the
	// exchange of a review link's handoff token (the token is the secret).
	keylessV1 := map[string]bool{"/v1/openapi.json": true, "/v1/review-links/exchange": true}
	// Every keyed operation documents 401 and 429; keyless ones say so.
	for p, item := range d.Paths {
		for m, op := range item {
			keyless := op.Security != nil && len(*op.Security) == 0
			if strings.HasPrefix(p, "/v1/") && !keylessV1[p] {
				if keyless {
					t.Errorf("%s %s: /v1 operation without security", m, p)
				}
				for _, s := range []string{"401", "429", "500"} {
					if _, ok := op.Responses[s]; !ok {
						t.Errorf("%s %s: no %s response", m, p, s)
					}
				}
			} else if !keyless {
				t.Errorf("%s %s: must declare security: []", m, p)
			}
		}
	}
}
