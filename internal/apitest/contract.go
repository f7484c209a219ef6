package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/job"
	"blueprint/internal/webhook"
)

// Options shape a Service for one contract test.
type Options struct {
	// Engine replaces the production detection engine (nil: production).
	Engine detect.Engine
	// StrictCallbacks applies the production callback policy (https,
	// public addresses only); otherwise private callbacks are allowed so
	// that a receiver on 127.0.0.1 works.
	StrictCallbacks bool
	// Clock replaces the system clock of the API (nil: the system's).
	Clock job.Clock
}

// NewService starts a new, empty deployment accepting Keys and returns it
// with a Client of it; it is stopped at the end of the test.
type NewService func(t *testing.T, o Options) (Service, *Client)

// RunContract runs every contract test of the partner API, each against a
// new Service made by newSvc.
func RunContract(t *testing.T, newSvc NewService) {
	tests := []struct {
		name string
		run  func(t *testing.T, newSvc NewService)
	}{
		{"EndToEnd", contractEndToEnd},
		{"FilterSummaryPagination", contractFilterSummaryPagination},
		{"Errors", contractErrors},
		{"SymbolsAndIcons", contractSymbolsAndIcons},
		{"StartValidation", contractStartValidation},
		{"StartOnUpload", contractStartOnUpload},
		{"ReferenceJobs", contractReferenceJobs},
		{"IdempotencyKey", contractIdempotencyKey},
		{"RateLimit", contractRateLimit},
		{"WrongKeysThrottled", contractWrongKeysThrottled},
		{"CallbackURLGuard", contractCallbackURLGuard},
		{"MethodNotAllowed", contractMethodNotAllowed},
		{"SpecValidatorBites", contractSpecValidatorBites},
		{"UnknownRoute", contractUnknownRoute},
		{"NonCanonicalPathsAndInitBody", contractNonCanonicalPathsAndInitBody},
		{"TakeoffExports", contractTakeoffExports},
		{"PagesFinished", contractPagesFinished},
		{"TakeoffFileName", contractTakeoffFileName},
		{"ListJobs", contractListJobs},
		{"ReviewLinks", contractReviewLinks},
		{"Reviews", contractReviews},
		{"Search", contractSearch},
		{"SearchImage", contractSearchImage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newSvc) })
	}
}

// servedBy reports whether u is a URL of the service itself (local mode's
// signed files) rather than of the blob store.
func servedBy(svc Service, u string) bool {
	a, err1 := url.Parse(u)
	b, err2 := url.Parse(svc.Base())
	return err1 == nil && err2 == nil && a.Host == b.Host
}

// forgeSignature changes one character of the signature of a signed URL:
// the service's own (sig) or S3's (X-Amz-Signature).
func forgeSignature(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for _, name := range []string{"sig", "X-Amz-Signature"} {
		if v := q.Get(name); v != "" {
			flip := "0"
			if v[0] == '0' {
				flip = "1"
			}
			q.Set(name, flip+v[1:])
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	t.Fatalf("%s carries no signature", raw)
	return ""
}

// doneJob drives a two-page PDF to done for key and returns its id.
func doneJob(t *testing.T, svc Service, api *Client, key string, extra map[string]any) string {
	t.Helper()
	return ProcessPDF(t, svc, api, key, "a.pdf", PDFDoc([2]int{144, 72}, [2]int{144, 72}), extra)
}

// ProcessPDF drives data, uploaded as name with the init fields extra, to
// done for key and returns the job's id.
func ProcessPDF(t *testing.T, svc Service, api *Client, key, name string, data []byte, extra map[string]any) string {
	t.Helper()
	req := map[string]any{"file_name": name, "mime_type": "application/pdf", "size": len(data)}
	for k, v := range extra {
		req[k] = v
	}
	created := api.InitJob(key, req)
	if r := svc.Upload(t, api, created, data, "application/pdf"); r.Status != 200 {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	id := created["job_id"].(string)
	if r := api.Do("POST", "/v1/jobs/"+id+"/start", key, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	api.WaitStatus(key, id, "done")
	return id
}

func contractFilterSummaryPagination(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: ScriptedEngine()})
	id := doneJob(t, svc, api, KeyA, nil)
	idJob := doneJob(t, svc, api, KeyA, map[string]any{"confidence": 0.65})
	idFire := doneJob(t, svc, api, KeyA, map[string]any{"models": []string{"fire_alarm"}})
	cases := []struct {
		name       string
		id, query  string
		mode       string
		total      int
		perPage    []int
		bySymbol   map[string]int
		byCategory map[string]int
	}{
		{"per-class default", id, "", "per_class_default", 5, []int{2, 3}, map[string]int{"socket_outlet": 5}, map[string]int{"sockets": 5}},
		{"flat query", id, "?confidence=0.3", "flat", 7, []int{4, 3}, map[string]int{"socket_outlet": 6, "power_supply": 1}, nil},
		{"flat zero", id, "?confidence=0", "flat", 7, []int{4, 3}, nil, nil},
		{"job default", idJob, "", "flat", 4, []int{1, 3}, map[string]int{"socket_outlet": 4}, nil},
		{"query beats job default", idJob, "?confidence=0.95", "flat", 0, []int{0, 0}, map[string]int{}, map[string]int{}},
		{"models subset", idFire, "?confidence=0.1", "flat", 1, []int{1, 0}, map[string]int{"power_supply": 1}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := api.Do("GET", "/v1/jobs/"+c.id+c.query, KeyA, nil, nil)
			m := r.JSON(t)
			if m["confidence_mode"] != c.mode {
				t.Fatalf("mode %v", m["confidence_mode"])
			}
			sum := m["summary"].(map[string]any)
			if sum["total_detections"] != float64(c.total) {
				t.Fatalf("total %v, want %d", sum["total_detections"], c.total)
			}
			withDet := 0
			for i, p := range m["pages"].([]any) {
				pm := p.(map[string]any)
				if pm["detection_count"] != float64(c.perPage[i]) {
					t.Fatalf("page %d count %v, want %d", i, pm["detection_count"], c.perPage[i])
				}
				if c.perPage[i] > 0 {
					withDet++
				}
				if _, ok := pm["detections"]; ok {
					t.Fatal("detections inlined without include")
				}
				q := strings.TrimPrefix(c.query, "?")
				dr := api.Do("GET", fmt.Sprintf("/v1/jobs/%s/pages/%d/detections?%s", c.id, i, q), KeyA, nil, nil)
				if dm := dr.JSON(t); dm["total"] != float64(c.perPage[i]) || len(dm["detections"].([]any)) != c.perPage[i] || dm["confidence_mode"] != c.mode {
					t.Fatalf("page %d endpoint disagrees: %s", i, dr.Body)
				}
			}
			if m["pages_with_detections"] != float64(withDet) {
				t.Fatalf("pages_with_detections %v", m["pages_with_detections"])
			}
			if c.bySymbol != nil {
				got := map[string]int{}
				for _, row := range sum["by_symbol"].([]any) {
					rm := row.(map[string]any)
					got[rm["class"].(string)] = int(rm["count"].(float64))
					if rm["display_name"] == nil || rm["category"] == nil {
						t.Fatalf("by_symbol row lacks catalog metadata: %v", rm)
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(c.bySymbol) {
					t.Fatalf("by_symbol %v, want %v", got, c.bySymbol)
				}
			}
			if c.byCategory != nil {
				got := map[string]int{}
				for k, v := range sum["by_category"].(map[string]any) {
					got[k] = int(v.(float64))
				}
				if fmt.Sprint(got) != fmt.Sprint(c.byCategory) {
					t.Fatalf("by_category %v, want %v", got, c.byCategory)
				}
			}
		})
	}

	t.Run("include detections", func(t *testing.T) {
		m := api.Do("GET", "/v1/jobs/"+id+"?include=detections", KeyA, nil, nil).JSON(t)
		p0 := m["pages"].([]any)[0].(map[string]any)
		ds := p0["detections"].([]any)
		if len(ds) != 2 {
			t.Fatalf("inlined %d detections", len(ds))
		}
		d := ds[0].(map[string]any)
		for _, k := range []string{"id", "class", "display_name", "category", "symbol_category", "color", "talo2010_code", "icon_url", "confidence", "bbox_norm", "bbox_px", "source"} {
			if _, ok := d[k]; !ok {
				t.Fatalf("detection lacks %q: %v", k, d)
			}
		}
		px, norm := d["bbox_px"].(map[string]any), d["bbox_norm"].(map[string]any)
		if px["x"] != 10.0 || px["width"] != 16.0 || norm["x"] != 10.0/400 || norm["height"] != 8.0/200 {
			t.Fatalf("boxes: %v %v", px, norm)
		}
		if d["icon_url"] != svc.Base()+"/v1/symbols/socket_outlet/icon" || d["source"].(map[string]any)["vector_matching"] != true {
			t.Fatalf("detection: %v", d)
		}
		// Ids are stable between reads.
		again := api.Do("GET", "/v1/jobs/"+id+"/pages/0/detections", KeyA, nil, nil).JSON(t)
		if again["detections"].([]any)[0].(map[string]any)["id"] != d["id"] {
			t.Fatal("detection id changed between reads")
		}
		fi := api.Do("GET", "/v1/jobs/"+id+"?include=detections", KeyA, nil, map[string]string{"Accept-Language": "fi"}).JSON(t)
		fd := fi["pages"].([]any)[0].(map[string]any)["detections"].([]any)[0].(map[string]any)
		if fd["display_name"] == d["display_name"] {
			t.Fatalf("Finnish display name not used: %v", fd["display_name"])
		}
	})

	t.Run("pagination", func(t *testing.T) {
		var ids []string
		for _, step := range []struct {
			query string
			n     int
			next  any
		}{{"limit=2", 2, 2.0}, {"limit=2&offset=2", 1, nil}, {"offset=3", 0, nil}, {"offset=99", 0, nil},
			{"limit=2000&offset=9223372036854775807", 0, nil}} { // offset+limit overflows int
			m := api.Do("GET", "/v1/jobs/"+id+"/pages/1/detections?"+step.query, KeyA, nil, nil).JSON(t)
			if len(m["detections"].([]any)) != step.n || m["next"] != step.next || m["total"] != 3.0 {
				t.Fatalf("%s: %v", step.query, m)
			}
			for _, d := range m["detections"].([]any) {
				ids = append(ids, d.(map[string]any)["id"].(string))
			}
		}
		if len(ids) != 3 || ids[0] == ids[1] || ids[1] == ids[2] {
			t.Fatalf("pages do not tile: %v", ids)
		}
	})
}

// TestErrors checks the status and code of every error of the contract
// and of docs/decisions.md.
func contractErrors(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: ScriptedEngine()})
	done := doneJob(t, svc, api, KeyA, nil)
	empty := api.InitJob(KeyA, map[string]any{"file_name": "x.pdf", "mime_type": "application/pdf", "size": 100})["job_id"].(string)
	bad := api.InitJob(KeyA, map[string]any{"file_name": "x.pdf", "mime_type": "application/pdf", "size": 8})
	if r := svc.Upload(t, api, bad, []byte("GIF89a.."), "application/pdf"); r.Status != 200 {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	badID := bad["job_id"].(string)
	valid := `{"file_name":"a.pdf","mime_type":"application/pdf","size":1000}`
	cases := []struct {
		name, method, path, key, body string
		hdr                           map[string]string
		status                        int
		code                          string
		detail                        [2]string // key, value expected in details
	}{
		{"init no key", "POST", "/v1/jobs/init", "", valid, nil, 401, "unauthorized", [2]string{}},
		{"init bad key", "POST", "/v1/jobs/init", "nope", valid, nil, 401, "unauthorized", [2]string{}},
		{"init ok", "POST", "/v1/jobs/init", KeyA, valid, nil, 201, "", [2]string{}},
		{"init image/jpg", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a.jpg","mime_type":"image/jpg","size":10}`, nil, 201, "", [2]string{}},
		{"init not json", "POST", "/v1/jobs/init", KeyA, `{"file_name":`, nil, 422, "unprocessable", [2]string{}},
		{"init no file_name", "POST", "/v1/jobs/init", KeyA, `{"mime_type":"application/pdf","size":10}`, nil, 422, "unprocessable", [2]string{"field", "file_name"}},
		{"init bad mime", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"text/plain","size":10}`, nil, 422, "unprocessable", [2]string{"field", "mime_type"}},
		{"init no size", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"image/png"}`, nil, 422, "unprocessable", [2]string{"field", "size"}},
		{"init size zero", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"image/png","size":0}`, nil, 422, "unprocessable", [2]string{"field", "size"}},
		{"init size over", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"image/png","size":52428801}`, nil, 422, "unprocessable", [2]string{"field", "size"}},
		{"init size max", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"image/png","size":52428800}`, nil, 201, "", [2]string{}},
		{"init size fraction", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"image/png","size":1.5}`, nil, 422, "unprocessable", [2]string{"field", "size"}},
		{"init size string", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"image/png","size":"10"}`, nil, 422, "unprocessable", [2]string{"field", "size"}},
		{"init unknown model", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"image/png","size":10,"models":["water"]}`, nil, 422, "unprocessable", [2]string{"field", "models"}},
		{"init empty models", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"image/png","size":10,"models":[]}`, nil, 422, "unprocessable", [2]string{"field", "models"}},
		{"init confidence over", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"image/png","size":10,"confidence":1.01}`, nil, 422, "unprocessable", [2]string{"field", "confidence"}},
		{"init callback not a url", "POST", "/v1/jobs/init", KeyA, `{"file_name":"a","mime_type":"image/png","size":10,"callback_url":"::"}`, nil, 422, "unprocessable", [2]string{"field", "callback_url"}},
		{"init long idempotency key", "POST", "/v1/jobs/init", KeyA, valid, map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}, 422, "unprocessable", [2]string{}},
		{"start no key", "POST", "/v1/jobs/" + done + "/start", "", "", nil, 401, "unauthorized", [2]string{}},
		{"start unknown", "POST", "/v1/jobs/nope/start", KeyA, "", nil, 404, "not_found", [2]string{}},
		{"start other key", "POST", "/v1/jobs/" + empty + "/start", KeyB, "", nil, 404, "not_found", [2]string{}},
		{"start no upload", "POST", "/v1/jobs/" + empty + "/start", KeyA, "", nil, 422, "unprocessable", [2]string{"reason", "no_upload"}},
		{"start wrong magic", "POST", "/v1/jobs/" + badID + "/start", KeyA, "", nil, 422, "unprocessable", [2]string{"reason", "type_mismatch"}},
		{"start done", "POST", "/v1/jobs/" + done + "/start", KeyA, "", nil, 409, "conflict", [2]string{}},
		{"poll unknown", "GET", "/v1/jobs/nope", KeyA, "", nil, 404, "not_found", [2]string{}},
		{"poll other key", "GET", "/v1/jobs/" + done, KeyB, "", nil, 404, "not_found", [2]string{}},
		{"poll no key", "GET", "/v1/jobs/" + done, "", "", nil, 401, "unauthorized", [2]string{}},
		{"poll confidence over", "GET", "/v1/jobs/" + done + "?confidence=2", KeyA, "", nil, 422, "unprocessable", [2]string{"parameter", "confidence"}},
		{"poll confidence text", "GET", "/v1/jobs/" + done + "?confidence=high", KeyA, "", nil, 422, "unprocessable", [2]string{"parameter", "confidence"}},
		{"poll confidence NaN", "GET", "/v1/jobs/" + done + "?confidence=NaN", KeyA, "", nil, 422, "unprocessable", [2]string{"parameter", "confidence"}},
		{"poll include unknown", "GET", "/v1/jobs/" + done + "?include=pages", KeyA, "", nil, 422, "unprocessable", [2]string{"parameter", "include"}},
		{"poll ok", "GET", "/v1/jobs/" + done + "?confidence=0.5&include=detections", KeyA, "", nil, 200, "", [2]string{}},
		{"detections limit zero", "GET", "/v1/jobs/" + done + "/pages/0/detections?limit=0", KeyA, "", nil, 422, "unprocessable", [2]string{"parameter", "limit"}},
		{"detections limit over", "GET", "/v1/jobs/" + done + "/pages/0/detections?limit=2001", KeyA, "", nil, 422, "unprocessable", [2]string{"parameter", "limit"}},
		{"detections limit max", "GET", "/v1/jobs/" + done + "/pages/0/detections?limit=2000", KeyA, "", nil, 200, "", [2]string{}},
		{"detections offset negative", "GET", "/v1/jobs/" + done + "/pages/0/detections?offset=-1", KeyA, "", nil, 422, "unprocessable", [2]string{"parameter", "offset"}},
		{"detections confidence negative", "GET", "/v1/jobs/" + done + "/pages/0/detections?confidence=-0.1", KeyA, "", nil, 422, "unprocessable", [2]string{"parameter", "confidence"}},
		{"detections page missing", "GET", "/v1/jobs/" + done + "/pages/2/detections", KeyA, "", nil, 404, "not_found", [2]string{}},
		{"detections page not a number", "GET", "/v1/jobs/" + done + "/pages/x/detections", KeyA, "", nil, 404, "not_found", [2]string{}},
		{"detections job not done", "GET", "/v1/jobs/" + empty + "/pages/0/detections", KeyA, "", nil, 404, "not_found", [2]string{}},
		{"detections other key", "GET", "/v1/jobs/" + done + "/pages/0/detections", KeyB, "", nil, 404, "not_found", [2]string{}},
		{"detections no key", "GET", "/v1/jobs/" + done + "/pages/0/detections", "", "", nil, 401, "unauthorized", [2]string{}},
		{"symbols no key", "GET", "/v1/symbols", "", "", nil, 401, "unauthorized", [2]string{}},
		{"symbols ok", "GET", "/v1/symbols", KeyA, "", nil, 200, "", [2]string{}},
		{"icon no key", "GET", "/v1/symbols/socket_outlet/icon", "", "", nil, 401, "unauthorized", [2]string{}},
		{"icon unknown class", "GET", "/v1/symbols/teapot/icon", KeyA, "", nil, 404, "not_found", [2]string{}},
		{"icon bad format", "GET", "/v1/symbols/socket_outlet/icon?format=gif", KeyA, "", nil, 422, "unprocessable", [2]string{"parameter", "format"}},
		{"icon ok", "GET", "/v1/symbols/socket_outlet/icon", KeyA, "", nil, 302, "", [2]string{}},
		{"unknown v1 route", "GET", "/v1/jobz", KeyA, "", nil, 404, "not_found", [2]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body []byte
			if c.body != "" {
				body = []byte(c.body)
			}
			r := api.Do(c.method, c.path, c.key, body, c.hdr)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d: %s", r.Status, c.status, r.Body)
			}
			if c.code != "" {
				if got := r.Code(t); got != c.code {
					t.Fatalf("code %q, want %q: %s", got, c.code, r.Body)
				}
				if msg := r.JSON(t)["error"].(map[string]any)["message"]; msg == "" || msg == nil {
					t.Fatal("error without message")
				}
			}
			if c.detail[0] != "" {
				d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
				if d[c.detail[0]] != c.detail[1] {
					t.Fatalf("details %v, want %s=%s", d, c.detail[0], c.detail[1])
				}
			}
			authed := c.key == KeyA || c.key == KeyB
			if has := r.Header.Get("RateLimit-Limit") != ""; has != authed && !strings.Contains(c.name, "no key") {
				t.Fatalf("RateLimit-Limit present=%v for key %q", has, c.key)
			}
		})
	}

	// The job whose start failed validation stays awaiting_upload, marked
	// not usable, and a new PUT fixes it.
	m := api.Do("GET", "/v1/jobs/"+badID, KeyA, nil, nil).JSON(t)
	if m["status"] != "awaiting_upload" || m["uploaded"] != true {
		t.Fatalf("after a failed start: %v", m)
	}
}

func contractSymbolsAndIcons(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{})
	en := api.Do("GET", "/v1/symbols", KeyA, nil, nil).JSON(t)
	fi := api.Do("GET", "/v1/symbols", KeyA, nil, map[string]string{"Accept-Language": "fi-FI,fi;q=0.9,en;q=0.5"}).JSON(t)
	if en["count"] != float64(61) || len(en["symbols"].([]any)) != 61 || len(en["models"].([]any)) != 2 {
		t.Fatalf("catalog: count %v models %v", en["count"], en["models"])
	}
	s0, f0 := en["symbols"].([]any)[0].(map[string]any), fi["symbols"].([]any)[0].(map[string]any)
	if s0["display_name"] == f0["display_name"] || s0["class"] != f0["class"] {
		t.Fatalf("Finnish names: %v vs %v", s0, f0)
	}
	for _, format := range []string{"", "svg", "png"} {
		r := api.Do("GET", s0["icon_url"].(string)+"?format="+format, KeyA, nil, nil)
		if r.Status != 302 {
			t.Fatalf("icon %q: %d", format, r.Status)
		}
		loc := r.Header.Get("Location")
		img := api.Do("GET", loc, "", nil, nil)
		want := map[string]string{"": "image/svg+xml", "svg": "image/svg+xml", "png": "image/png"}[format]
		if img.Status != 200 || img.Header.Get("Content-Type") != want || len(img.Body) == 0 {
			t.Fatalf("icon file %q: %d %s", loc, img.Status, img.Header.Get("Content-Type"))
		}
		// A forged URL is refused: by the service in its error shape, or by
		// S3 for a presigned URL.
		forged := forgeSignature(t, loc)
		if r := api.Do("GET", forged, "", nil, nil); r.Status != 403 || (servedBy(svc, loc) && r.Code(t) != "forbidden") {
			t.Fatalf("forged icon URL: %d %s", r.Status, r.Body)
		}
	}
}

func contractStartValidation(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{})
	good := PDFDoc([2]int{100, 100})
	huge := PDFDoc([2]int{14400, 14400}) // 200 × 200 inch
	many := make([][2]int, 10000)
	for i := range many {
		many[i] = [2]int{72, 72}
	}
	// 20 MiB of spaces deflate to a few KiB: far over 100× the file size.
	bomb := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 100 100]", Content: strings.Repeat(" ", 20<<20)})
	sheet := SyntheticSheet(t) // a real-looking drawing, 130 symbols
	noise := make([]byte, 5<<10)
	for i := range noise {
		noise[i] = byte(i * 7919 >> 3)
	}
	cases := []struct {
		name, mime string
		data       []byte
		reason     string
		facts      map[string]string // details keys and their values (numbers in plain decimal)
	}{
		{"png claimed as pdf", "application/pdf", PNGImage(10, 10), "type_mismatch", map[string]string{"declared": "application/pdf", "detected": "image/png"}},
		{"pdf claimed as png", "image/png", good, "type_mismatch", nil},
		{"truncated pdf", "application/pdf", good[:len(good)/2], "corrupt", nil},
		{"cut off just before %%EOF", "application/pdf", good[:len(good)-len("%%EOF\n")], "corrupt", nil},
		{"garbage after header", "application/pdf", append([]byte("%PDF-1.4\n"), make([]byte, 200)...), "corrupt", nil},
		{"truncated png", "image/png", PNGImage(50, 50)[:60], "corrupt", nil},
		{"no pages", "application/pdf", documenttest.PDF(), "no_pages", map[string]string{"pages": "0"}},
		{"decompression bomb", "application/pdf", bomb, "decompression_bomb", map[string]string{"max_decompressed_bytes": fmt.Sprint(100 * len(bomb))}},
		{"200 x 200 inch page", "application/pdf", huge, "page_too_large", map[string]string{"page_index": "0", "width_px": "40000", "height_px": "40000"}},
		{"10 000 pages", "application/pdf", PDFDoc(many...), "too_many_pages", map[string]string{"pages": "10000", "max_pages": "500"}},
		// Issue 11: files MuPDF repairs or pads, which used to end done with nothing found.
		{"sheet cut in half, %%EOF appended", "application/pdf", append(bytes.Clone(sheet[:len(sheet)/2]), "\n%%EOF\n"...), "corrupt", map[string]string{"damage": "truncated"}},
		{"200 bytes of a PDF, 5 KB noise, %%EOF", "application/pdf", append(append(bytes.Clone(sheet[:200]), noise...), "\n%%EOF\n"...), "corrupt", map[string]string{"damage": "truncated"}},
		{"MediaBox [0 0 0 0]", "application/pdf", documenttest.PDF(documenttest.Page{MediaBox: "[0 0 0 0]", Content: "0 0 0 rg 10 10 50 50 re f"}), "corrupt", map[string]string{"damage": "page_size"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := api.InitJob(KeyA, map[string]any{"file_name": "f", "mime_type": c.mime, "size": len(c.data)})
			if r := svc.Upload(t, api, j, c.data, c.mime); r.Status != 200 {
				t.Fatalf("PUT: %d %s", r.Status, r.Body)
			}
			id := j["job_id"].(string)
			r := api.Do("POST", "/v1/jobs/"+id+"/start", KeyA, nil, nil)
			if r.Status != 422 {
				t.Fatalf("start: %d %s", r.Status, r.Body)
			}
			d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
			if d["reason"] != c.reason {
				t.Fatalf("reason %v, want %s: %s", d["reason"], c.reason, r.Body)
			}
			for k, v := range c.facts {
				got, ok := d[k]
				if f, isNum := got.(float64); isNum {
					got = strconv.FormatFloat(f, 'f', -1, 64)
				}
				if !ok || fmt.Sprint(got) != v {
					t.Fatalf("details.%s = %v, want %s: %s", k, got, v, r.Body)
				}
			}
			if m := api.Do("GET", "/v1/jobs/"+id, KeyA, nil, nil).JSON(t); m["status"] != "awaiting_upload" {
				t.Fatalf("job moved to %v", m["status"])
			}
			// A new PUT with a good file fixes the job.
			fix, mime := good, "application/pdf"
			if c.mime == "image/png" {
				fix, mime = PNGImage(40, 30), "image/png"
			}
			if len(fix) != len(c.data) {
				return // declared size differs; a new job would be needed
			}
			if r := svc.Upload(t, api, j, fix, mime); r.Status != 200 {
				t.Fatalf("re-PUT: %d", r.Status)
			}
			if r := api.Do("POST", "/v1/jobs/"+id+"/start", KeyA, nil, nil); r.Status != 202 {
				t.Fatalf("start after fix: %d %s", r.Status, r.Body)
			}
		})
	}
}

func contractIdempotencyKey(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{})
	body := []byte(`{"file_name":"a.pdf","mime_type":"application/pdf","size":1000,"external_ref":"po-1"}`)
	const n = 12
	var wg sync.WaitGroup
	res := make([]Response, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = api.Do("POST", "/v1/jobs/init", KeyA, body, map[string]string{"Idempotency-Key": "order-1"})
		}()
	}
	wg.Wait()
	replays := 0
	for _, r := range res {
		if r.Status != 201 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		if string(r.Body) != string(res[0].Body) {
			t.Fatalf("bodies differ:\n%s\n%s", r.Body, res[0].Body)
		}
		if r.Header.Get("Idempotent-Replayed") == "true" {
			replays++
		}
	}
	if replays != n-1 {
		t.Fatalf("%d replays, want %d", replays, n-1)
	}
	ids, err := svc.ListJobs(context.Background(), job.AwaitingUpload)
	if err != nil || len(ids) != 1 {
		t.Fatalf("%d jobs stored (%v), want exactly 1", len(ids), err)
	}
	// Same JSON semantics in another byte form is a replay.
	same := []byte(`{"size":1000, "external_ref":"po-1","mime_type":"application/pdf","file_name":"a.pdf","models":["fire_alarm","electricity"]}`)
	if r := api.Do("POST", "/v1/jobs/init", KeyA, same, map[string]string{"Idempotency-Key": "order-1"}); r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("normalised replay: %d %s", r.Status, r.Body)
	}
	r := api.Do("POST", "/v1/jobs/init", KeyA, []byte(`{"file_name":"b.pdf","mime_type":"application/pdf","size":1000}`), map[string]string{"Idempotency-Key": "order-1"})
	if r.Status != 422 || !strings.Contains(string(r.Body), "different request body") {
		t.Fatalf("different body: %d %s", r.Status, r.Body)
	}
	// The key is scoped to the API key.
	r = api.Do("POST", "/v1/jobs/init", KeyB, body, map[string]string{"Idempotency-Key": "order-1"})
	if r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "" || r.JSON(t)["job_id"] == res[0].JSON(t)["job_id"] {
		t.Fatalf("other key: %d %s", r.Status, r.Body)
	}
}

func contractRateLimit(t *testing.T, newSvc NewService) {
	_, api := newSvc(t, Options{})
	for i := range 3 {
		r := api.Do("GET", "/v1/symbols", KeyC, nil, nil)
		if r.Status != 200 || r.Header.Get("RateLimit-Limit") != "3" || r.Header.Get("RateLimit-Remaining") != fmt.Sprint(2-i) || r.Header.Get("RateLimit-Reset") == "" {
			t.Fatalf("request %d: %d %v", i, r.Status, r.Header)
		}
	}
	r := api.Do("GET", "/v1/symbols", KeyC, nil, nil)
	if r.Status != 429 || r.Code(t) != "rate_limited" || r.Header.Get("Retry-After") == "" || r.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("over the rate: %d %v %s", r.Status, r.Header, r.Body)
	}
	// Other keys and unauthenticated requests are not affected.
	if r := api.Do("GET", "/v1/symbols", KeyA, nil, nil); r.Status != 200 {
		t.Fatalf("other key: %d", r.Status)
	}
	if r := api.Do("GET", "/v1/symbols", "wrong", nil, nil); r.Status != 401 {
		t.Fatalf("bad key: %d", r.Status)
	}
}

// AuthFailuresPerMinute is the service's limit of wrong keys per client
// address and minute (httpapi.AuthFailuresPerMinute).
const AuthFailuresPerMinute = 30

// contractWrongKeysThrottled: wrong keys are counted per client address
// (here every request comes from one); past AuthFailuresPerMinute in a
// minute every request of the address that needs a key is 429
// rate_limited with Retry-After, the right key's too, so that guesses
// cannot go on; missing keys are not counted.
func contractWrongKeysThrottled(t *testing.T, newSvc NewService) {
	_, api := newSvc(t, Options{})
	for range AuthFailuresPerMinute + 5 {
		if r := api.Do("GET", "/v1/symbols", "", nil, nil); r.Status != 401 {
			t.Fatalf("no key: %d", r.Status)
		}
	}
	// A minute's boundary between the guesses would start a new count:
	// start just after one.
	if s := time.Now().Second(); s > 40 {
		time.Sleep(time.Duration(61-s) * time.Second)
	}
	for i := range AuthFailuresPerMinute {
		if r := api.Do("GET", "/v1/symbols", fmt.Sprintf("guess-%016d", i), nil, nil); r.Status != 401 || r.Code(t) != "unauthorized" {
			t.Fatalf("guess %d: %d %s", i, r.Status, r.Body)
		}
	}
	for _, key := range []string{"guess-one-more-0123456789", KeyA} {
		r := api.Do("GET", "/v1/symbols", key, nil, nil)
		d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
		if r.Status != 429 || r.Code(t) != "rate_limited" || r.Header.Get("Retry-After") == "" || d["reason"] != "too_many_failed_authentications" {
			t.Errorf("after %d wrong keys, key %q: %d %v %s", AuthFailuresPerMinute, key, r.Status, r.Header, r.Body)
		}
	}
}

func contractCallbackURLGuard(t *testing.T, newSvc NewService) {
	_, api := newSvc(t, Options{StrictCallbacks: true})
	for _, u := range []string{
		"http://example.com/hook",        // not https
		"https://127.0.0.1/hook",         // loopback
		"https://localhost/hook",         // a name resolving to 127.0.0.1
		"https://169.254.169.254/latest", // cloud metadata
		"https://10.1.2.3/hook",          // private
		"https://100.64.0.1/hook",        // CGNAT
		"https://[fd00::1]/hook",         // unique-local IPv6
		"https://2130706433/hook",        // 127.0.0.1 as a number
	} {
		b, _ := json.Marshal(map[string]any{"file_name": "a", "mime_type": "image/png", "size": 10, "callback_url": u})
		r := api.Do("POST", "/v1/jobs/init", KeyA, b, nil)
		d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
		if r.Status != 422 || d["field"] != "callback_url" || d["reason"] == nil {
			t.Errorf("%s: %d %s", u, r.Status, r.Body)
		}
	}
}

// TestMethodNotAllowed checks that a known path called with a method it
// does not define is 405 method_not_allowed with Allow in the contract's
// error shape (before any key check, not rate-limited), and unknown paths
// stay 404 (after the key check on /v1).
func contractMethodNotAllowed(t *testing.T, newSvc NewService) {
	_, api := newSvc(t, Options{Engine: ScriptedEngine()})
	created := api.InitJob(KeyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": 100})
	id := created["job_id"].(string)
	cases := []struct {
		method, path, key string
		status            int
		code, allow       string
		rateHeaders       bool
	}{
		{"DELETE", "/v1/jobs/" + id, KeyA, 405, "method_not_allowed", "GET, HEAD", false},
		{"PUT", "/v1/jobs/" + id, KeyA, 405, "method_not_allowed", "GET, HEAD", false},
		{"GET", "/v1/jobs/init", KeyA, 405, "method_not_allowed", "POST", false},
		{"GET", "/v1/jobs/" + id + "/start", KeyA, 405, "method_not_allowed", "POST", false},
		{"POST", "/v1/symbols", KeyA, 405, "method_not_allowed", "GET, HEAD", false},
		{"DELETE", "/v1/jobs/" + id + "/pages/0/detections", KeyA, 405, "method_not_allowed", "GET, HEAD, POST", false},
		{"GET", "/v1/jobs/" + id + "/pages/0/detections/d1", KeyA, 405, "method_not_allowed", "PATCH", false},
		{"DELETE", "/v1/openapi.json", "", 405, "method_not_allowed", "GET, HEAD", false},
		{"DELETE", "/v1/jobs/" + id, "", 405, "method_not_allowed", "GET, HEAD", false},
		{"GET", "/v1/jobs/init", "bad-key", 405, "method_not_allowed", "POST", false},
		{"DELETE", "/v1/jobs", "", 405, "method_not_allowed", "GET, HEAD", false},
		{"DELETE", "/v1/jobz", "", 401, "unauthorized", "", false},
		{"POST", "/v1/jobs/" + id + "/takeoff.csv", KeyA, 405, "method_not_allowed", "GET, HEAD", false},
		{"POST", "/app/", "", 405, "method_not_allowed", "GET, HEAD", false},
		{"GET", "/uploads/" + id, "", 405, "method_not_allowed", "PUT", false},
		{"DELETE", "/files/icons/socket_outlet.svg", "", 405, "method_not_allowed", "GET, HEAD", false},
		{"DELETE", "/v1/jobz", KeyA, 404, "not_found", "", true},
		{"GET", "/app/missing.js", "", 404, "not_found", "", false},
		{"GET", "/v2/jobs/" + id, "", 404, "not_found", "", false},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := api.Do(c.method, c.path, c.key, nil, nil)
			if r.Status != c.status || r.Code(t) != c.code {
				t.Fatalf("got %d %s, want %d %s", r.Status, r.Body, c.status, c.code)
			}
			if got := r.Header.Get("Allow"); got != c.allow {
				t.Fatalf("Allow %q, want %q", got, c.allow)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q", ct)
			}
			if has := r.Header.Get("RateLimit-Limit") != ""; has != c.rateHeaders {
				t.Fatalf("RateLimit-Limit present=%v, want %v", has, c.rateHeaders)
			}
			if c.status == 405 {
				d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
				if got := fmt.Sprint(d["allowed_methods"]); got != "["+strings.ReplaceAll(c.allow, ",", "")+"]" {
					t.Fatalf("details.allowed_methods %s, Allow %q", got, c.allow)
				}
			}
		})
	}
}

// TestEndToEnd drives a real PDF and a real PNG through the HTTP API to
// done with the production engine and receives each job's signed webhook.
func contractEndToEnd(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{})
	sink := NewSink(t)
	cases := []struct {
		name, mime string
		data       []byte
		pages      [][2]int // expected raster sizes
	}{
		{"pdf", "application/pdf", PDFDoc([2]int{144, 72}, [2]int{72, 108}), [][2]int{{400, 200}, {200, 300}}},
		{"png", "image/png", PNGImage(320, 240), [][2]int{{320, 240}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref := "ref-" + c.name
			created := api.InitJob(KeyA, map[string]any{"file_name": "plan." + c.name, "mime_type": c.mime,
				"size": len(c.data), "external_ref": ref, "callback_url": sink.URL + "/hook"})
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
			r := svc.Upload(t, api, created, c.data, c.mime)
			if r.Status != 200 {
				t.Fatalf("PUT: %d %s", r.Status, r.Body)
			}
			if servedBy(svc, up["url"].(string)) {
				// The service stores the upload itself and says what it got.
				if m := r.JSON(t); m["size"] != float64(len(c.data)) || len(m["sha256"].(string)) != 64 {
					t.Fatalf("PUT body: %s", r.Body)
				}
			}
			if m := api.WaitStatus(KeyA, id, "awaiting_upload"); m["uploaded"] != true {
				t.Fatalf("awaiting view after PUT: %v", m)
			}
			r = api.Do("POST", "/v1/jobs/"+id+"/start", KeyA, nil, nil)
			if r.Status != 202 {
				t.Fatalf("start: %d %s", r.Status, r.Body)
			}
			if m := r.JSON(t); m["status"] != "queued" || m["poll_url"] != svc.Base()+"/v1/jobs/"+id {
				t.Fatalf("start body: %s", r.Body)
			}
			done := api.WaitStatus(KeyA, id, "done", "failed")
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
				if pm["detections_url"] != fmt.Sprintf("%s/v1/jobs/%s/pages/%d/detections", svc.Base(), id, i) {
					t.Fatalf("detections_url: %v", pm["detections_url"])
				}
				img := api.Do("GET", pm["image_url"].(string), "", nil, nil)
				if img.Status != 200 || img.Header.Get("Content-Type") != "image/png" || !bytes.HasPrefix(img.Body, []byte("\x89PNG")) {
					t.Fatalf("image_url: %d %s", img.Status, img.Header)
				}
				det := api.Do("GET", pm["detections_url"].(string), KeyA, nil, nil)
				if det.Status != 200 {
					t.Fatalf("detections: %d %s", det.Status, det.Body)
				}
				dm := det.JSON(t)
				if dm["total"] != pm["detection_count"] || dm["limit"] != float64(500) || dm["offset"] != float64(0) || dm["next"] != nil {
					t.Fatalf("page detections: %s", det.Body)
				}
			}
			// The webhook: signed, with an event id, the done payload.
			d := sink.Next(t)
			if err := webhook.Verify([]byte(SecretA), d.Header.Get(webhook.SignatureHeader), d.Body, time.Now()); err != nil {
				t.Fatalf("webhook signature: %v", err)
			}
			if d.Header.Get(webhook.EventTypeHeader) != "job.done" || !strings.HasPrefix(d.Header.Get(webhook.EventIDHeader), "evt_") {
				t.Fatalf("webhook headers: %v", d.Header)
			}
			if err := api.Spec.ValidateWebhook("job.done", d.Header, d.Body); err != nil {
				t.Fatalf("webhook does not match the OpenAPI document: %v", err)
			}
			var payload map[string]any
			if err := json.Unmarshal(d.Body, &payload); err != nil || payload["job_id"] != id || payload["status"] != "done" || payload["external_ref"] != ref {
				t.Fatalf("webhook payload: %s", d.Body)
			}
			if err := webhook.Verify([]byte(SecretB), d.Header.Get(webhook.SignatureHeader), d.Body, time.Now()); err == nil {
				t.Fatal("webhook verifies with another key's secret")
			}
		})
	}
}

// TestSpecValidatorBites makes sure the response validation used by every
// test rejects a body that breaks the contract.
func contractSpecValidatorBites(t *testing.T, newSvc NewService) {
	_, api := newSvc(t, Options{})
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}}
	if err := api.Spec.ValidateResponse("GET", "/v1/jobs/abc", 200, h, []byte(`{"job_id":"abc","status":"done"}`)); err == nil {
		t.Fatal("a done body without its fields passed validation")
	}
	r := api.Do("GET", "/v1/openapi.json", "", nil, nil)
	if r.Status != 200 || r.Header.Get("RateLimit-Limit") != "" || r.JSON(t)["openapi"] == nil {
		t.Fatalf("openapi.json: %d %v", r.Status, r.Header)
	}
}

// TestUnknownRoute checks that even unrouted requests get the error body
// and a request id.
func contractUnknownRoute(t *testing.T, newSvc NewService) {
	_, api := newSvc(t, Options{})
	r := api.Do("GET", "/v2/nothing", "", nil, nil)
	if r.Status != http.StatusNotFound || r.Code(t) != "not_found" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// contractNonCanonicalPathsAndInitBody: a path the mux would redirect with
// an HTML body answers the JSON error instead (after the key check on
// /v1); an init body over 64 KiB says it is too large; a wrongly typed
// size says "an integer".
func contractNonCanonicalPathsAndInitBody(t *testing.T, newSvc NewService) {
	_, api := newSvc(t, Options{})
	for _, c := range []struct {
		path, key string
		status    int
		code      string
	}{
		{"//v1/symbols", KeyA, 404, "not_found"},
		{"//v1/symbols", "", 401, "unauthorized"},
		{"/v1/./symbols", KeyA, 404, "not_found"},
		{"/v1/jobs/../symbols", KeyA, 404, "not_found"},
		{"/v1", KeyA, 404, "not_found"},
		{"//x", "", 404, "not_found"},
	} {
		r := api.Do("GET", c.path, c.key, nil, nil)
		if r.Status != c.status || r.Code(t) != c.code || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("GET %s: %d %s %s", c.path, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
		if c.status == 404 && !strings.Contains(string(r.Body), "canonical") {
			t.Errorf("GET %s: the message does not name the canonical path: %s", c.path, r.Body)
		}
	}
	big := fmt.Sprintf(`{"file_name":"a.pdf","mime_type":"application/pdf","size":10,"external_ref":%q}`, strings.Repeat("x", 70<<10))
	r := api.Do("POST", "/v1/jobs/init", KeyA, []byte(big), nil)
	if r.Status != 422 || !strings.Contains(string(r.Body), "too large") || r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)["max_bytes"] != float64(65536) {
		t.Errorf("init body of 70 KiB: %d %s", r.Status, r.Body)
	}
	r = api.Do("POST", "/v1/jobs/init", KeyA, []byte(`{"file_name":"a","mime_type":"image/png","size":"10"}`), nil)
	if msg := string(r.Body); r.Status != 422 || !strings.Contains(msg, "size must be an integer") {
		t.Errorf("size as a string: %d %s", r.Status, msg)
	}
}
