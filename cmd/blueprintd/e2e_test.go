package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"blueprint/internal/config"
	"blueprint/internal/webhook"
)

// TestEndToEnd drives a real PDF and a real PNG through the HTTP API to
// done with the production engine and receives each job's signed webhook.
func TestEndToEnd(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	sink := newSink(t)
	cases := []struct {
		name, mime string
		data       []byte
		pages      [][2]int // expected raster sizes
	}{
		{"pdf", "application/pdf", pdfDoc([2]int{144, 72}, [2]int{72, 108}), [][2]int{{400, 200}, {200, 300}}},
		{"png", "image/png", pngImage(320, 240), [][2]int{{320, 240}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref := "ref-" + c.name
			created := e.initJob(keyA, map[string]any{"file_name": "plan." + c.name, "mime_type": c.mime,
				"size": len(c.data), "external_ref": ref, "callback_url": sink.srv.URL + "/hook"})
			id := created["job_id"].(string)
			if created["status"] != "awaiting_upload" || created["external_ref"] != ref {
				t.Fatalf("created: %v", created)
			}
			up := created["upload"].(map[string]any)
			if up["method"] != "PUT" || up["content_type"] != c.mime || up["max_bytes"] != float64(52428800) {
				t.Fatalf("upload descriptor: %v", up)
			}
			if _, err := time.Parse(time.RFC3339, up["expires_at"].(string)); err != nil {
				t.Fatalf("expires_at: %v", err)
			}
			r := e.upload(created, c.data, c.mime)
			if r.Status != 200 {
				t.Fatalf("PUT: %d %s", r.Status, r.Body)
			}
			if m := r.json(t); m["size"] != float64(len(c.data)) || len(m["sha256"].(string)) != 64 {
				t.Fatalf("PUT body: %s", r.Body)
			}
			if m := e.waitStatus(keyA, id, "awaiting_upload"); m["uploaded"] != true {
				t.Fatalf("awaiting view after PUT: %v", m)
			}
			r = e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil)
			if r.Status != 202 {
				t.Fatalf("start: %d %s", r.Status, r.Body)
			}
			if m := r.json(t); m["status"] != "queued" || m["poll_url"] != e.base+"/v1/jobs/"+id {
				t.Fatalf("start body: %s", r.Body)
			}
			done := e.waitStatus(keyA, id, "done", "failed")
			if done["status"] != "done" {
				t.Fatalf("job failed: %v", done)
			}
			if done["page_count"] != float64(len(c.pages)) || done["confidence_mode"] != "per_class_default" || done["file_name"] != "plan."+c.name {
				t.Fatalf("done: %v", done)
			}
			th := done["inference_thresholds"].(map[string]any)
			if len(th) != 2 || th["electricity"].(map[string]any)["confidence"] != 0.1 || th["fire_alarm"].(map[string]any)["single_class"] != 0.25 {
				t.Fatalf("inference_thresholds: %v", th)
			}
			pages := done["pages"].([]any)
			for i, p := range pages {
				pm := p.(map[string]any)
				if pm["page_index"] != float64(i) || pm["width_px"] != float64(c.pages[i][0]) || pm["height_px"] != float64(c.pages[i][1]) || pm["render_dpi"] != float64(200) {
					t.Fatalf("page %d: %v", i, pm)
				}
				if pm["detections_url"] != fmt.Sprintf("%s/v1/jobs/%s/pages/%d/detections", e.base, id, i) {
					t.Fatalf("detections_url: %v", pm["detections_url"])
				}
				img := e.do("GET", pm["image_url"].(string), "", nil, nil)
				if img.Status != 200 || img.Header.Get("Content-Type") != "image/png" || !bytes.HasPrefix(img.Body, []byte("\x89PNG")) {
					t.Fatalf("image_url: %d %s", img.Status, img.Header)
				}
				det := e.do("GET", pm["detections_url"].(string), keyA, nil, nil)
				if det.Status != 200 {
					t.Fatalf("detections: %d %s", det.Status, det.Body)
				}
				dm := det.json(t)
				if dm["total"] != pm["detection_count"] || dm["limit"] != float64(500) || dm["offset"] != float64(0) || dm["next"] != nil {
					t.Fatalf("page detections: %s", det.Body)
				}
			}
			// The webhook: signed, with an event id, the done payload.
			d := sink.next(t)
			if err := webhook.Verify([]byte(secretA), d.Header.Get(webhook.SignatureHeader), d.Body, time.Now()); err != nil {
				t.Fatalf("webhook signature: %v", err)
			}
			if d.Header.Get(webhook.EventTypeHeader) != "job.done" || !strings.HasPrefix(d.Header.Get(webhook.EventIDHeader), "evt_") {
				t.Fatalf("webhook headers: %v", d.Header)
			}
			if err := e.spec.ValidateWebhook("job.done", d.Header, d.Body); err != nil {
				t.Fatalf("webhook does not match the OpenAPI document: %v", err)
			}
			var payload map[string]any
			if err := json.Unmarshal(d.Body, &payload); err != nil || payload["job_id"] != id || payload["status"] != "done" || payload["external_ref"] != ref {
				t.Fatalf("webhook payload: %s", d.Body)
			}
			if err := webhook.Verify([]byte(secretB), d.Header.Get(webhook.SignatureHeader), d.Body, time.Now()); err == nil {
				t.Fatal("webhook verifies with another key's secret")
			}
		})
	}
}

// TestSpecValidatorBites makes sure the response validation used by every
// test rejects a body that breaks the contract.
func TestSpecValidatorBites(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}}
	if err := e.spec.ValidateResponse("GET", "/v1/jobs/abc", 200, h, []byte(`{"job_id":"abc","status":"done"}`)); err == nil {
		t.Fatal("a done body without its fields passed validation")
	}
	r := e.do("GET", "/v1/openapi.json", "", nil, nil)
	if r.Status != 200 || r.Header.Get("RateLimit-Limit") != "" || r.json(t)["openapi"] == nil {
		t.Fatalf("openapi.json: %d %v", r.Status, r.Header)
	}
}

// TestUnknownRoute checks that even unrouted requests get the error body
// and a request id.
func TestUnknownRoute(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	r := e.do("GET", "/v2/nothing", "", nil, nil)
	if r.Status != http.StatusNotFound || r.code(t) != "not_found" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// TestRefusesBadConfiguration: a key list with no usable key, a short key,
// a malformed rate or duration stops the server before it listens or
// writes anything, with one line naming the variable; " , " does not fall
// back to a development key.
func TestRefusesBadConfiguration(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{config.EnvAPIKeys, " , "},
		{config.EnvAPIKeys, "short:whsec"},
		{config.EnvAPIKeys, keyA + ":" + secretA + ":often"},
		{config.EnvRetention, "30 days"},
		{config.EnvUploadTTL, "0s"},
	} {
		dir := t.TempDir()
		env := map[string]string{config.EnvDataDir: dir, config.EnvListenAddr: "127.0.0.1:0", c.name: c.value}
		var out bytes.Buffer
		err := run(context.Background(), func(k string) string { return env[k] }, &out, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err == nil || !strings.HasPrefix(err.Error(), c.name+": ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%q: %v; want one line starting with %s", c.name, c.value, err, c.name)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 || out.Len() != 0 {
			t.Errorf("%s=%q: wrote %v and printed %q before refusing", c.name, c.value, entries, out.String())
		}
	}
}
