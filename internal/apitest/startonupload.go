package apitest

import (
	"encoding/json"
	"testing"
)

// UploadEventRepeater is a deployment where an event announces an upload
// to the service (AWS: S3's "Object Created" through EventBridge, which
// may deliver it more than once). RepeatUploadEvent delivers the event of
// the job's upload key once more.
type UploadEventRepeater interface {
	RepeatUploadEvent(t *testing.T, jobID string)
}

// repeatUpload delivers what announces jobID's upload again: the event
// where the deployment has one, and in every deployment the same PUT once
// more (locally answered 409 once the job has started; on AWS S3 stores it
// and its event follows).
func repeatUpload(t *testing.T, svc Service, api *Client, created map[string]any, data []byte, ctype string) Response {
	t.Helper()
	if rep, ok := svc.(UploadEventRepeater); ok {
		rep.RepeatUploadEvent(t, created["job_id"].(string))
	}
	r := svc.Upload(t, api, created, data, ctype)
	if rep, ok := svc.(UploadEventRepeater); ok {
		rep.RepeatUploadEvent(t, created["job_id"].(string))
	}
	return r
}

// contractStartOnUpload: init's start_on_upload makes the upload start the
// job, with the start call's check, exactly once however often the upload
// is announced; a refused file is reported by the poll's start_error.
func contractStartOnUpload(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: ScriptedEngine()})
	good := PDFDoc([2]int{144, 72})
	poll := func(id string) map[string]any {
		t.Helper()
		r := api.Do("GET", "/v1/jobs/"+id, KeyA, nil, nil)
		if r.Status != 200 {
			t.Fatalf("poll: %d %s", r.Status, r.Body)
		}
		return r.JSON(t)
	}

	t.Run("init field", func(t *testing.T) {
		for _, v := range []any{"yes", 1, []any{true}, map[string]any{}} {
			b, _ := json.Marshal(map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": 10, "start_on_upload": v})
			r := api.Do("POST", "/v1/jobs/init", KeyA, b, nil)
			if r.Status != 422 || r.Code(t) != "unprocessable" {
				t.Fatalf("start_on_upload %v: %d %s", v, r.Status, r.Body)
			}
			if d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any); d["field"] != "start_on_upload" {
				t.Fatalf("start_on_upload %v: details %v", v, d)
			}
		}
		// Idempotency-Key: absent and false are one request, true another.
		base := map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": 10}
		hdr := map[string]string{"Idempotency-Key": "start-on-upload-1"}
		b, _ := json.Marshal(base)
		first := api.Do("POST", "/v1/jobs/init", KeyA, b, hdr)
		base["start_on_upload"] = false
		b, _ = json.Marshal(base)
		again := api.Do("POST", "/v1/jobs/init", KeyA, b, hdr)
		if first.Status != 201 || again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("init, then again with start_on_upload false: %d %d %s", first.Status, again.Status, again.Body)
		}
		base["start_on_upload"] = true
		b, _ = json.Marshal(base)
		if r := api.Do("POST", "/v1/jobs/init", KeyA, b, hdr); r.Status != 422 {
			t.Fatalf("the same key with start_on_upload true: %d %s", r.Status, r.Body)
		}
	})

	t.Run("off by default", func(t *testing.T) {
		j := api.InitJob(KeyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(good)})
		if r := svc.Upload(t, api, j, good, "application/pdf"); r.Status != 200 {
			t.Fatalf("PUT: %d %s", r.Status, r.Body)
		}
		p := poll(j["job_id"].(string))
		if p["status"] != "awaiting_upload" || p["uploaded"] != true || p["start_on_upload"] != false || p["start_error"] != nil {
			t.Fatalf("poll after the upload of a job without start_on_upload: %v", p)
		}
	})

	t.Run("starts once", func(t *testing.T) {
		j := api.InitJob(KeyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(good), "start_on_upload": true})
		id := j["job_id"].(string)
		if p := poll(id); p["status"] != "awaiting_upload" || p["start_on_upload"] != true || p["start_error"] != nil {
			t.Fatalf("poll before the upload: %v", p)
		}
		r := svc.Upload(t, api, j, good, "application/pdf")
		if r.Status != 200 {
			t.Fatalf("PUT: %d %s", r.Status, r.Body)
		}
		if servedBy(svc, j["upload"].(map[string]any)["url"].(string)) {
			if s := r.JSON(t)["status"]; s != "queued" {
				t.Fatalf("the PUT that started the job answered status %v", s)
			}
		}
		if p := poll(id); p["status"] == "awaiting_upload" {
			t.Fatalf("the upload did not start the job: %v", p)
		}
		// The upload is announced again: nothing changes.
		r = repeatUpload(t, svc, api, j, good, "application/pdf")
		if servedBy(svc, j["upload"].(map[string]any)["url"].(string)) && r.Status != 409 {
			t.Fatalf("a PUT after the job started: %d %s", r.Status, r.Body)
		}
		// The start call answers as a repeated start does.
		if r := api.Do("POST", "/v1/jobs/"+id+"/start", KeyA, nil, nil); r.Status != 409 || r.Code(t) != "conflict" {
			t.Fatalf("start after the upload started the job: %d %s", r.Status, r.Body)
		}
		done := api.WaitStatus(KeyA, id, "done", "failed")
		if done["status"] != "done" {
			t.Fatalf("job started on upload: %v", done)
		}
		if pages, _ := done["pages"].([]any); len(pages) != 1 {
			t.Fatalf("done job has %d pages, want 1", len(pages))
		}
		// Once done, another announcement changes nothing either.
		repeatUpload(t, svc, api, j, good, "application/pdf")
		if p := poll(id); p["status"] != "done" {
			t.Fatalf("after a late repeat: %v", p["status"])
		}
	})

	t.Run("refused file", func(t *testing.T) {
		// A PNG, claimed as a PDF of the good file's size (type_mismatch).
		bad := make([]byte, len(good))
		if n := copy(bad, PNGImage(10, 10)); n < 8 {
			t.Fatal("no PNG signature")
		}
		j := api.InitJob(KeyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(bad), "start_on_upload": true})
		id := j["job_id"].(string)
		r := svc.Upload(t, api, j, bad, "application/pdf")
		if r.Status != 200 {
			t.Fatalf("PUT: %d %s", r.Status, r.Body)
		}
		if servedBy(svc, j["upload"].(map[string]any)["url"].(string)) {
			if s := r.JSON(t)["status"]; s != "awaiting_upload" {
				t.Fatalf("the PUT of a refused file answered status %v", s)
			}
		}
		check := func(when string) map[string]any {
			t.Helper()
			p := poll(id)
			se, _ := p["start_error"].(map[string]any)
			d, _ := se["details"].(map[string]any)
			if p["status"] != "awaiting_upload" || p["uploaded"] != true || se["code"] != "unprocessable" || d["reason"] != "type_mismatch" {
				t.Fatalf("%s: poll %v", when, p)
			}
			return se
		}
		se := check("after the upload")
		// Announced again, the refused file is not started.
		repeatUpload(t, svc, api, j, bad, "application/pdf")
		check("after a repeated upload")
		// The start call gives the same refusal as its 422.
		r = api.Do("POST", "/v1/jobs/"+id+"/start", KeyA, nil, nil)
		if r.Status != 422 {
			t.Fatalf("start: %d %s", r.Status, r.Body)
		}
		e := r.JSON(t)["error"].(map[string]any)
		if e["message"] != se["message"] || e["details"].(map[string]any)["reason"] != "type_mismatch" {
			t.Fatalf("start's 422 %v, poll's start_error %v", e, se)
		}
		// A good file, uploaded to the same job, clears it and starts it.
		if r := svc.Upload(t, api, j, good, "application/pdf"); r.Status != 200 {
			t.Fatalf("PUT of a good file: %d %s", r.Status, r.Body)
		}
		if p := api.WaitStatus(KeyA, id, "done", "failed"); p["status"] != "done" {
			t.Fatalf("after a good file: %v", p)
		}
	})
}
