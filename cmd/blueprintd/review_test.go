package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"blueprint/internal/apitest"
)

// TestReviewSurvivesKillNine reviews a done job on a real server process,
// kills it with SIGKILL right after the answers, and checks on a new
// process over the same data directory that every review is there and
// every count still reflects them.
func TestReviewSurvivesKillNine(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	e := &testEnv{t: t, dir: dir, base: "http://" + addr, api: apitest.NewClient(t, "http://"+addr)}
	data := killPDF()
	c := startChild(t, dir, addr, 1)
	created := e.initJob(keyA, map[string]any{"file_name": "plan.pdf", "mime_type": "application/pdf", "size": len(data)})
	if r := e.upload(created, data, "application/pdf"); r.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	id := created["job_id"].(string)
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != http.StatusAccepted {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	waitUntil(t, 120*time.Second, "job done", func() bool {
		var m map[string]any
		_ = json.Unmarshal(e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).Body, &m)
		return m["status"] == "done"
	})
	before := detectionIDs(e, id, 0)
	add := []byte(`{"class":"socket_outlet","bbox_norm":{"x":0.1,"y":0.1,"width":0.05,"height":0.05}}`)
	if r := e.do("POST", "/v1/jobs/"+id+"/pages/0/detections", keyA, add, nil); r.Status != http.StatusCreated {
		t.Fatalf("add: %d %s", r.Status, r.Body)
	}
	want := len(before) + 1
	if len(before) > 0 {
		path := fmt.Sprintf("/v1/jobs/%s/pages/0/detections/%s", id, before[0])
		if r := e.do("PATCH", path, keyA, []byte(`{"decision":"rejected"}`), nil); r.Status != http.StatusOK {
			t.Fatalf("reject: %d %s", r.Status, r.Body)
		}
		want--
	}
	c.kill(t)

	startChild(t, dir, addr, 2)
	var m struct {
		Review struct {
			Added, Rejected int
			ReviewedAt      *string `json:"reviewed_at"`
		}
		Pages []struct {
			DetectionCount int `json:"detection_count"`
		}
	}
	if err := json.Unmarshal(e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).Body, &m); err != nil {
		t.Fatal(err)
	}
	after := detectionIDs(e, id, 0)
	if len(after) != want || m.Pages[0].DetectionCount != want || m.Review.Added != 1 || m.Review.Rejected != min(len(before), 1) || m.Review.ReviewedAt == nil {
		t.Errorf("after kill -9: page 0 lists %d, detection_count %d, review %+v; want %d with 1 added and %d rejected",
			len(after), m.Pages[0].DetectionCount, m.Review, want, min(len(before), 1))
	}
}

// detectionIDs lists the ids of a page's detections under the default
// filter.
func detectionIDs(e *testEnv, id string, page int) []string {
	m := e.do("GET", fmt.Sprintf("/v1/jobs/%s/pages/%d/detections?limit=2000", id, page), keyA, nil, nil).JSON(e.t)
	var out []string
	for _, d := range m["detections"].([]any) {
		out = append(out, d.(map[string]any)["id"].(string))
	}
	return out
}
