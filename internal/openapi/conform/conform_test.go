package conform

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"blueprint/internal/openapi"
)

func newValidator(t *testing.T) *Validator {
	t.Helper()
	v, err := NewValidator()
	if err != nil {
		t.Fatalf("NewValidator: %v", err)
	}
	return v
}

// keyed returns the headers of a /v1 response to a valid key.
func keyed(extra ...string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Request-Id", "req_0123")
	h.Set("RateLimit-Limit", "120")
	h.Set("RateLimit-Remaining", "119")
	h.Set("RateLimit-Reset", "42")
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			h.Del(extra[i])
		} else {
			h.Set(extra[i], extra[i+1])
		}
	}
	return h
}

func plain(extra ...string) http.Header {
	h := keyed(extra...)
	for _, k := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
		if !slices.Contains(extra, k) {
			h.Del(k)
		}
	}
	return h
}

const (
	upload = `{"method":"PUT","url":"http://127.0.0.1:8080/uploads/j1?expires=1763800000&sig=` +
		`0000000000000000000000000000000000000000000000000000000000000000","content_type":"application/pdf",` +
		`"max_bytes":52428800,"expires_at":"2026-11-22T06:00:00Z"}`
	detection = `{"id":"0b6f8a4e-3f7e-4a37-9d6b-3b1cbb0d9a11","class":"smoke_detector","display_name":"Smoke detector",` +
		`"category":"detectors","symbol_category":"fire_alarm_symbols","color":"#d62728","talo2010_code":null,` +
		`"icon_url":"http://127.0.0.1:8080/v1/symbols/smoke_detector/icon","confidence":0.97,` +
		`"bbox_norm":{"x":0.1,"y":0.2,"width":0.01,"height":0.012},"bbox_px":{"x":468.0,"y":662.5,"width":47,"height":40},` +
		`"source":{"detector":false,"vector_matching":true}}`
	page = `{"page_index":0,"width_px":4678,"height_px":3311,"render_dpi":200,"detection_count":1,` +
		`"detections_url":"http://127.0.0.1:8080/v1/jobs/j1/pages/0/detections","image_url":null}`
	done = `{"job_id":"j1","status":"done","external_ref":"p-42","completed_at":"2026-11-22T05:40:00.123456Z",` +
		`"file_name":"plan.pdf","page_count":1,"pages_with_detections":1,"confidence_mode":"per_class_default",` +
		`"inference_thresholds":{"fire_alarm":{"confidence":0.1,"single_class":0.25},"electricity":{"confidence":0.1,"single_class":0.25}},` +
		`"summary":{"total_detections":1,"by_symbol":[{"class":"smoke_detector","display_name":"Smoke detector",` +
		`"talo2010_code":null,"category":"detectors","count":1}],"by_category":{"detectors":1}},"pages":[` + page + `]}`
	failed = `{"job_id":"j1","status":"failed","external_ref":null,"completed_at":"2026-11-22T05:40:00Z",` +
		`"error":{"code":"processing_failed","message":"page 3 could not be rendered"}}`
)

// with returns body with the top-level JSON member key replaced by raw
// ("" removes it).
func with(t *testing.T, body, key, raw string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("sample body: %v", err)
	}
	if raw == "" {
		delete(m, key)
	} else {
		m[key] = json.RawMessage(raw)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestValidateResponse(t *testing.T) {
	v := newValidator(t)
	pageWithDetections := with(t, page, "detections", "["+detection+"]")
	doneInline := with(t, done, "pages", "["+pageWithDetections+"]")
	pageDetections := `{"page_index":0,"width_px":4678,"height_px":3311,"render_dpi":200,"confidence_mode":"flat",` +
		`"total":1,"limit":500,"offset":0,"next":null,"detections":[` + detection + `]}`
	symbols := `{"models":["fire_alarm","electricity"],"count":1,"symbols":[{"class":"smoke_detector",` +
		`"display_name":"Palovaroitin","category":"detectors","symbol_category":"fire_alarm_symbols","color":"#d62728",` +
		`"talo2010_code":null,"icon_url":"http://127.0.0.1:8080/v1/symbols/smoke_detector/icon"}]}`
	running := `{"job_id":"j1","status":"queued","external_ref":null,"created_at":"2026-11-22T05:30:00Z",` +
		`"started_at":null,"file_name":"plan.pdf","pages_total":null,"pages_done":null,"pages_finished":null}`
	awaiting := `{"job_id":"j1","status":"awaiting_upload","external_ref":null,"created_at":"2026-11-22T05:30:00Z",` +
		`"file_name":"plan.pdf","uploaded":false,"upload":` + upload + `}`
	expired := `{"job_id":"j1","status":"expired","external_ref":null,"created_at":"2026-11-22T05:30:00Z",` +
		`"expired_at":"2026-11-22T06:30:00Z","expiry_reason":"upload_not_received"}`
	initResp := `{"job_id":"j1","status":"awaiting_upload","external_ref":null,"upload":` + upload + `}`
	errBody := func(code string) string { return `{"error":{"code":"` + code + `","message":"m"}}` }
	detWith := func(key, raw string) string {
		return with(t, pageDetections, "detections", "["+with(t, detection, key, raw)+"]")
	}
	const job = "/v1/jobs/0b6f8a4e-3f7e-4a37-9d6b-3b1cbb0d9a11"
	listItem := `{"job_id":"j1","status":"done","external_ref":null,"file_name":"plan.pdf","created_at":"2026-11-22T05:30:00Z",` +
		`"completed_at":"2026-11-22T05:31:00Z","poll_url":"http://127.0.0.1:8080/v1/jobs/j1"}`
	jobList := `{"jobs":[` + listItem + `,` + with(t, with(t, listItem, "status", `"queued"`), "completed_at", "null") + `],"next":"MTc2Mzc.ajE"}`

	cases := []struct {
		name         string
		method, path string
		status       int
		header       http.Header
		body         string
		want         error // nil, ErrUndocumented or ErrInvalid
	}{
		// init
		{"init created", "POST", "/v1/jobs/init", 201, keyed(), initResp, nil},
		{"init replayed", "POST", "/v1/jobs/init", 201, keyed("Idempotent-Replayed", "true"), initResp, nil},
		{"init bad replay header", "POST", "/v1/jobs/init", 201, keyed("Idempotent-Replayed", "yes"), initResp, ErrInvalid},
		{"init without upload", "POST", "/v1/jobs/init", 201, keyed(), with(t, initResp, "upload", ""), ErrInvalid},
		{"init without external_ref", "POST", "/v1/jobs/init", 201, keyed(), with(t, initResp, "external_ref", ""), ErrInvalid},
		{"init wrong status", "POST", "/v1/jobs/init", 201, keyed(), with(t, initResp, "status", `"queued"`), ErrInvalid},
		{"init max_bytes wrong", "POST", "/v1/jobs/init", 201, keyed(), with(t, initResp, "upload", strings.Replace(upload, "52428800", "100", 1)), ErrInvalid},
		{"init expires_at not a date", "POST", "/v1/jobs/init", 201, keyed(), with(t, initResp, "upload", strings.Replace(upload, "2026-11-22T06:00:00Z", "in an hour", 1)), ErrInvalid},
		{"init no X-Request-Id", "POST", "/v1/jobs/init", 201, keyed("X-Request-Id", ""), initResp, ErrInvalid},
		{"init no RateLimit-Remaining", "POST", "/v1/jobs/init", 201, keyed("RateLimit-Remaining", ""), initResp, ErrInvalid},
		{"init RateLimit-Limit not a number", "POST", "/v1/jobs/init", 201, keyed("RateLimit-Limit", "many"), initResp, ErrInvalid},
		{"init 422", "POST", "/v1/jobs/init", 422, keyed(), `{"error":{"code":"unprocessable","message":"callback_url must be https","details":{"reason":"not_https"}}}`, nil},
		{"init 422 wrong code", "POST", "/v1/jobs/init", 422, keyed(), errBody("conflict"), ErrInvalid},
		{"init 401 without rate headers", "POST", "/v1/jobs/init", 401, plain(), errBody("unauthorized"), nil},
		{"init 429", "POST", "/v1/jobs/init", 429, keyed("Retry-After", "17"), errBody("rate_limited"), nil},
		{"init 429 without Retry-After", "POST", "/v1/jobs/init", 429, keyed(), errBody("rate_limited"), ErrInvalid},
		{"init 409 undocumented", "POST", "/v1/jobs/init", 409, keyed(), errBody("conflict"), ErrUndocumented},
		{"init 200 undocumented", "POST", "/v1/jobs/init", 200, keyed(), initResp, ErrUndocumented},
		{"init text body", "POST", "/v1/jobs/init", 201, keyed("Content-Type", "text/plain"), initResp, ErrInvalid},
		{"init not JSON", "POST", "/v1/jobs/init", 201, keyed(), `{"job_id":`, ErrInvalid},

		// upload PUT
		{"upload stored", "PUT", "/uploads/j1?expires=1763800000&sig=ab", 200, plain(),
			`{"job_id":"j1","status":"awaiting_upload","size":1234,"sha256":"` + strings.Repeat("ab", 32) + `"}`, nil},
		{"upload bad sha", "PUT", "/uploads/j1", 200, plain(), `{"job_id":"j1","status":"awaiting_upload","size":1,"sha256":"XYZ"}`, ErrInvalid},
		{"upload 413", "PUT", "/uploads/j1", 413, plain(), errBody("payload_too_large"), nil},
		{"upload 415", "PUT", "/uploads/j1", 415, plain(), errBody("unsupported_media_type"), nil},
		{"upload 403", "PUT", "/uploads/j1", 403, plain(), errBody("forbidden"), nil},
		{"upload 401 undocumented", "PUT", "/uploads/j1", 401, plain(), errBody("unauthorized"), ErrUndocumented},

		// start
		{"start queued", "POST", job + "/start", 202, keyed(), `{"job_id":"j1","status":"queued","poll_url":"/v1/jobs/j1"}`, nil},
		{"start without poll_url", "POST", job + "/start", 202, keyed(), `{"job_id":"j1","status":"queued"}`, ErrInvalid},
		{"start 422 type mismatch", "POST", job + "/start", 422, keyed(),
			`{"error":{"code":"unprocessable","message":"m","details":{"reason":"type_mismatch","declared":"application/pdf","detected":"image/png"}}}`, nil},
		{"start 422 type mismatch without facts", "POST", job + "/start", 422, keyed(),
			`{"error":{"code":"unprocessable","message":"m","details":{"reason":"type_mismatch"}}}`, ErrInvalid},
		{"start 422 too many pages", "POST", job + "/start", 422, keyed(),
			`{"error":{"code":"unprocessable","message":"m","details":{"reason":"too_many_pages","pages":10000,"max_pages":500}}}`, nil},
		{"start 422 unknown reason", "POST", job + "/start", 422, keyed(),
			`{"error":{"code":"unprocessable","message":"m","details":{"reason":"too_ugly"}}}`, ErrInvalid},
		{"start 409", "POST", job + "/start", 409, keyed(), errBody("conflict"), nil},
		{"start 404", "POST", job + "/start", 404, keyed(), errBody("not_found"), nil},
		{"start GET undocumented", "GET", job + "/start", 200, keyed(), `{}`, ErrUndocumented},

		// poll in every state
		{"poll awaiting_upload", "GET", job, 200, keyed(), awaiting, nil},
		{"poll queued", "GET", job, 200, keyed(), running, nil},
		{"poll processing", "GET", job + "?confidence=0.5", 200, keyed(),
			with(t, with(t, with(t, running, "status", `"processing"`), "started_at", `"2026-11-22T05:31:00Z"`), "pages_total", "12"), nil},
		{"poll running without pages_done", "GET", job, 200, keyed(), with(t, running, "pages_done", ""), ErrInvalid},
		{"poll done", "GET", job, 200, keyed(), done, nil},
		{"poll done inline", "GET", job + "?include=detections", 200, keyed(), doneInline, nil},
		{"poll done completed_at null", "GET", job, 200, keyed(), with(t, done, "completed_at", "null"), nil},
		{"poll done without summary", "GET", job, 200, keyed(), with(t, done, "summary", ""), ErrInvalid},
		{"poll done page_count null", "GET", job, 200, keyed(), with(t, done, "page_count", "null"), ErrInvalid},
		{"poll done unknown model", "GET", job, 200, keyed(), with(t, done, "inference_thresholds", `{"plumbing":{"confidence":0.1,"single_class":0.25}}`), ErrInvalid},
		{"poll done bad mode", "GET", job, 200, keyed(), with(t, done, "confidence_mode", `"fancy"`), ErrInvalid},
		{"poll done extra field is fine", "GET", job, 200, keyed(), with(t, done, "created_at", `"2026-11-22T05:30:00Z"`), nil},
		{"poll failed", "GET", job, 200, keyed(), failed, nil},
		{"poll failed completed_at null", "GET", job, 200, keyed(), with(t, failed, "completed_at", "null"), ErrInvalid},
		{"poll failed without error", "GET", job, 200, keyed(), with(t, failed, "error", ""), ErrInvalid},
		{"poll expired", "GET", job, 200, keyed(), expired, nil},
		{"poll expired bad reason", "GET", job, 200, keyed(), with(t, expired, "expiry_reason", `"bored"`), ErrInvalid},
		{"poll unknown status", "GET", job, 200, keyed(), with(t, expired, "status", `"paused"`), ErrInvalid},
		{"poll 404", "GET", job, 404, keyed(), errBody("not_found"), nil},
		{"poll 404 wrong code", "GET", job, 404, keyed(), errBody("conflict"), ErrInvalid},
		{"poll 404 without message", "GET", job, 404, keyed(), `{"error":{"code":"not_found"}}`, ErrInvalid},
		{"poll 422", "GET", job, 422, keyed(), `{"error":{"code":"unprocessable","message":"m","details":{"parameter":"confidence"}}}`, nil},
		{"poll 422 without parameter", "GET", job, 422, keyed(), errBody("unprocessable"), ErrInvalid},
		{"poll 403 undocumented", "GET", job, 403, keyed(), errBody("forbidden"), ErrUndocumented},
		{"poll DELETE undocumented", "DELETE", job, 204, keyed(), "", ErrUndocumented},

		// detections
		{"detections", "GET", job + "/pages/0/detections?limit=10", 200, keyed(), pageDetections, nil},
		{"detections with review", "GET", job + "/pages/0/detections", 200, keyed(), detWith("review", `{"decision":null,"confidence":null}`), nil},
		{"detections display_name null", "GET", job + "/pages/0/detections", 200, keyed(), detWith("display_name", "null"), nil},
		{"detection without icon_url", "GET", job + "/pages/0/detections", 200, keyed(), detWith("icon_url", ""), ErrInvalid},
		{"detection without source", "GET", job + "/pages/0/detections", 200, keyed(), detWith("source", ""), ErrInvalid},
		{"detection class null", "GET", job + "/pages/0/detections", 200, keyed(), detWith("class", "null"), ErrInvalid},
		{"detection confidence null", "GET", job + "/pages/0/detections", 200, keyed(), detWith("confidence", "null"), ErrInvalid},
		{"detection confidence above 1", "GET", job + "/pages/0/detections", 200, keyed(), detWith("confidence", "1.2"), ErrInvalid},
		{"detection colour not hex", "GET", job + "/pages/0/detections", 200, keyed(), detWith("color", `"red"`), ErrInvalid},
		{"detection id not uuid", "GET", job + "/pages/0/detections", 200, keyed(), detWith("id", `"det-1"`), ErrInvalid},
		{"detection bbox_norm outside page", "GET", job + "/pages/0/detections", 200, keyed(), detWith("bbox_norm", `{"x":1.5,"y":0,"width":0.1,"height":0.1}`), ErrInvalid},
		{"detections next number", "GET", job + "/pages/0/detections", 200, keyed(), with(t, pageDetections, "next", "500"), nil},
		{"detections without next", "GET", job + "/pages/0/detections", 200, keyed(), with(t, pageDetections, "next", ""), ErrInvalid},
		{"detections limit over 2000", "GET", job + "/pages/0/detections", 200, keyed(), with(t, pageDetections, "limit", "5000"), ErrInvalid},
		{"detections 404", "GET", job + "/pages/7/detections", 404, keyed(), errBody("not_found"), nil},
		{"detections 409 undocumented", "GET", job + "/pages/7/detections", 409, keyed(), errBody("conflict"), ErrUndocumented},

		// list of a key's jobs
		{"list", "GET", "/v1/jobs?limit=2", 200, keyed(), jobList, nil},
		{"list last page", "GET", "/v1/jobs", 200, keyed(), with(t, jobList, "next", "null"), nil},
		{"list empty", "GET", "/v1/jobs", 200, keyed(), `{"jobs":[],"next":null}`, nil},
		{"list without next", "GET", "/v1/jobs", 200, keyed(), with(t, jobList, "next", ""), ErrInvalid},
		{"list item without poll_url", "GET", "/v1/jobs", 200, keyed(), with(t, jobList, "jobs", "["+with(t, listItem, "poll_url", "")+"]"), ErrInvalid},
		{"list item unknown status", "GET", "/v1/jobs", 200, keyed(), with(t, jobList, "jobs", "["+with(t, listItem, "status", `"paused"`)+"]"), ErrInvalid},
		{"list 422 cursor", "GET", "/v1/jobs?cursor=x", 422, keyed(), `{"error":{"code":"unprocessable","message":"m","details":{"parameter":"cursor"}}}`, nil},
		{"list 404 undocumented", "GET", "/v1/jobs", 404, keyed(), errBody("not_found"), ErrUndocumented},

		// take-off exports
		{"takeoff csv", "GET", job + "/takeoff.csv?confidence=0.5", 200,
			keyed("Content-Type", "text/csv; charset=utf-8; header=present", "Content-Disposition", "attachment; filename=plan-takeoff.csv"), "class,count\r\n", nil},
		{"takeoff csv without Content-Disposition", "GET", job + "/takeoff.csv", 200, keyed("Content-Type", "text/csv"), "class\r\n", ErrInvalid},
		{"takeoff csv as JSON", "GET", job + "/takeoff.csv", 200, keyed("Content-Disposition", "attachment; filename=a.csv"), "{}", ErrInvalid},
		{"takeoff csv empty body", "GET", job + "/takeoff.csv", 200, keyed("Content-Type", "text/csv", "Content-Disposition", "attachment; filename=a.csv"), "", ErrInvalid},
		{"takeoff xlsx", "GET", job + "/takeoff.xlsx", 200,
			keyed("Content-Type", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "Content-Disposition", "attachment; filename=plan-takeoff.xlsx"), "PK\x03\x04", nil},
		{"takeoff 404", "GET", job + "/takeoff.xlsx", 404, keyed(), errBody("not_found"), nil},
		{"takeoff 422", "GET", job + "/takeoff.csv", 422, keyed(), `{"error":{"code":"unprocessable","message":"m","details":{"parameter":"confidence"}}}`, nil},

		// catalog and icon
		{"symbols", "GET", "/v1/symbols", 200, keyed(), symbols, nil},
		{"symbols count string", "GET", "/v1/symbols", 200, keyed(), with(t, symbols, "count", `"61"`), ErrInvalid},
		{"symbols 404 undocumented", "GET", "/v1/symbols", 404, keyed(), errBody("not_found"), ErrUndocumented},
		{"icon redirect", "GET", "/v1/symbols/smoke_detector/icon?format=png", 302,
			keyed("Location", "http://127.0.0.1:8080/files/icons/smoke_detector.png?expires=1&sig=ab", "Content-Type", "text/html; charset=utf-8"),
			`<a href="/files/icons/smoke_detector.png">Found</a>.`, nil},
		{"icon redirect without Location", "GET", "/v1/symbols/smoke_detector/icon", 302, keyed(), "", ErrInvalid},
		{"icon 422 format", "GET", "/v1/symbols/smoke_detector/icon?format=gif", 422, keyed(),
			`{"error":{"code":"unprocessable","message":"m","details":{"parameter":"format"}}}`, nil},
		{"icon 404", "GET", "/v1/symbols/nope/icon", 404, keyed(), errBody("not_found"), nil},
		{"icon 200 undocumented", "GET", "/v1/symbols/smoke_detector/icon", 200, keyed(), "", ErrUndocumented},

		// openapi and files
		{"openapi.json", "GET", "/v1/openapi.json", 200, plain(), string(openapi.Document()), nil},
		{"page image", "GET", "/files/pages/j1/0.png?expires=1&sig=ab", 200, plain("Content-Type", "image/png"), "\x89PNG\r\n\x1a\n", nil},
		{"page image as JPEG", "GET", "/files/pages/j1/0.png", 200, plain("Content-Type", "image/jpeg"), "\xff\xd8", ErrInvalid},
		{"icon svg", "GET", "/files/icons/smoke_detector.svg", 200, plain("Content-Type", "image/svg+xml"), "<svg/>", nil},
		{"icon png forged", "GET", "/files/icons/smoke_detector.png", 403, plain(), errBody("forbidden"), nil},

		// unknown
		{"unknown path", "GET", "/v2/jobs", 200, keyed(), `{}`, ErrUndocumented},
		{"init is not a job id", "GET", "/v1/jobs/init", 200, keyed(), running, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := v.ValidateResponse(c.method, c.path, c.status, c.header, []byte(c.body))
			switch {
			case c.want == nil && err != nil:
				t.Fatalf("ValidateResponse = %v, want nil", err)
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("ValidateResponse = %v, want %v", err, c.want)
			}
		})
	}
}

func TestValidateWebhook(t *testing.T) {
	v := newValidator(t)
	hdr := func(event string) http.Header {
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		h.Set("X-Service-Signature", "t=1763790000,v1="+strings.Repeat("0a", 32))
		h.Set("X-Service-Event-Id", "evt_0b6f8a4e-3f7e-4a37-9d6b-3b1cbb0d9a11")
		h.Set("X-Service-Event", event)
		return h
	}
	inline := with(t, done, "pages", "["+with(t, page, "detections", "["+detection+"]")+"]")
	cases := []struct {
		name, event string
		header      http.Header
		body        string
		want        error
	}{
		{"done", "job.done", hdr("job.done"), done, nil},
		{"failed", "job.failed", hdr("job.failed"), failed, nil},
		{"done with inlined detections", "job.done", hdr("job.done"), inline, ErrInvalid},
		{"done body for failed event", "job.failed", hdr("job.failed"), done, ErrInvalid},
		{"event header mismatch", "job.done", hdr("job.failed"), done, ErrInvalid},
		{"uppercase signature", "job.done", func() http.Header {
			h := hdr("job.done")
			h.Set("X-Service-Signature", "t=1,v1="+strings.Repeat("0A", 32))
			return h
		}(), done, ErrInvalid},
		{"no event id", "job.done", func() http.Header { h := hdr("job.done"); h.Del("X-Service-Event-Id"); return h }(), done, ErrInvalid},
		{"unknown event", "job.expired", hdr("job.expired"), done, ErrUndocumented},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := v.ValidateWebhook(c.event, c.header, []byte(c.body))
			switch {
			case c.want == nil && err != nil:
				t.Fatalf("ValidateWebhook = %v, want nil", err)
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("ValidateWebhook = %v, want %v", err, c.want)
			}
		})
	}
}
