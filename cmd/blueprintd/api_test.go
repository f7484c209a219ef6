package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/job"
	"blueprint/internal/signing"
)

// scriptedEngine reports fixed detections per page index, so that the
// filter, summary and pagination rules can be checked against known
// numbers. (The production engine is exercised by TestEndToEnd.)
func scriptedEngine() detect.Engine {
	box := func(i int) detect.Box { return detect.Box{X: float64(10 + 20*i), Y: 20, W: 16, H: 8} }
	return detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		var ds []detect.Detection
		add := func(class string, conf float64) {
			ds = append(ds, detect.Detection{Class: class, Confidence: conf, Box: box(len(ds)), Source: detect.Source{VectorMatching: true}})
		}
		switch p.Index {
		case 0:
			add("socket_outlet", 0.9)
			add("socket_outlet", 0.6)
			add("socket_outlet", 0.3)
			add("socket_outlet", 0.05)    // below the stored floor
			add("alarm_transmitter", 0.2) // lone and below 0.25: dropped
			add("power_supply", 0.4)      // lone but kept
		case 1:
			add("socket_outlet", 0.7)
			add("socket_outlet", 0.7)
			add("socket_outlet", 0.7)
		}
		return ds, ctx.Err()
	})
}

// doneJob drives a two-page PDF to done for key and returns its id.
func doneJob(t *testing.T, e *testEnv, key string, extra map[string]any) string {
	t.Helper()
	return processPDF(t, e, key, "a.pdf", pdfDoc([2]int{144, 72}, [2]int{144, 72}), extra)
}

// processPDF drives data, uploaded as name with the init fields extra, to
// done for key and returns the job's id.
func processPDF(t *testing.T, e *testEnv, key, name string, data []byte, extra map[string]any) string {
	t.Helper()
	req := map[string]any{"file_name": name, "mime_type": "application/pdf", "size": len(data)}
	for k, v := range extra {
		req[k] = v
	}
	created := e.initJob(key, req)
	if r := e.upload(created, data, "application/pdf"); r.Status != 200 {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	id := created["job_id"].(string)
	if r := e.do("POST", "/v1/jobs/"+id+"/start", key, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	e.waitStatus(key, id, "done")
	return id
}

func TestFilterSummaryPagination(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: scriptedEngine()})
	id := doneJob(t, e, keyA, nil)
	idJob := doneJob(t, e, keyA, map[string]any{"confidence": 0.65})
	idFire := doneJob(t, e, keyA, map[string]any{"models": []string{"fire_alarm"}})
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
			r := e.do("GET", "/v1/jobs/"+c.id+c.query, keyA, nil, nil)
			m := r.json(t)
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
				dr := e.do("GET", fmt.Sprintf("/v1/jobs/%s/pages/%d/detections?%s", c.id, i, q), keyA, nil, nil)
				if dm := dr.json(t); dm["total"] != float64(c.perPage[i]) || len(dm["detections"].([]any)) != c.perPage[i] || dm["confidence_mode"] != c.mode {
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
		m := e.do("GET", "/v1/jobs/"+id+"?include=detections", keyA, nil, nil).json(t)
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
		if d["icon_url"] != e.base+"/v1/symbols/socket_outlet/icon" || d["source"].(map[string]any)["vector_matching"] != true {
			t.Fatalf("detection: %v", d)
		}
		// Ids are stable between reads.
		again := e.do("GET", "/v1/jobs/"+id+"/pages/0/detections", keyA, nil, nil).json(t)
		if again["detections"].([]any)[0].(map[string]any)["id"] != d["id"] {
			t.Fatal("detection id changed between reads")
		}
		fi := e.do("GET", "/v1/jobs/"+id+"?include=detections", keyA, nil, map[string]string{"Accept-Language": "fi"}).json(t)
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
			m := e.do("GET", "/v1/jobs/"+id+"/pages/1/detections?"+step.query, keyA, nil, nil).json(t)
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
func TestErrors(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: scriptedEngine()})
	done := doneJob(t, e, keyA, nil)
	empty := e.initJob(keyA, map[string]any{"file_name": "x.pdf", "mime_type": "application/pdf", "size": 100})["job_id"].(string)
	bad := e.initJob(keyA, map[string]any{"file_name": "x.pdf", "mime_type": "application/pdf", "size": 8})
	if r := e.upload(bad, []byte("GIF89a.."), "application/pdf"); r.Status != 200 {
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
		{"init ok", "POST", "/v1/jobs/init", keyA, valid, nil, 201, "", [2]string{}},
		{"init image/jpg", "POST", "/v1/jobs/init", keyA, `{"file_name":"a.jpg","mime_type":"image/jpg","size":10}`, nil, 201, "", [2]string{}},
		{"init not json", "POST", "/v1/jobs/init", keyA, `{"file_name":`, nil, 422, "unprocessable", [2]string{}},
		{"init no file_name", "POST", "/v1/jobs/init", keyA, `{"mime_type":"application/pdf","size":10}`, nil, 422, "unprocessable", [2]string{"field", "file_name"}},
		{"init bad mime", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"text/plain","size":10}`, nil, 422, "unprocessable", [2]string{"field", "mime_type"}},
		{"init no size", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"image/png"}`, nil, 422, "unprocessable", [2]string{"field", "size"}},
		{"init size zero", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"image/png","size":0}`, nil, 422, "unprocessable", [2]string{"field", "size"}},
		{"init size over", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"image/png","size":52428801}`, nil, 422, "unprocessable", [2]string{"field", "size"}},
		{"init size max", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"image/png","size":52428800}`, nil, 201, "", [2]string{}},
		{"init size fraction", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"image/png","size":1.5}`, nil, 422, "unprocessable", [2]string{"field", "size"}},
		{"init size string", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"image/png","size":"10"}`, nil, 422, "unprocessable", [2]string{"field", "size"}},
		{"init unknown model", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"image/png","size":10,"models":["water"]}`, nil, 422, "unprocessable", [2]string{"field", "models"}},
		{"init empty models", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"image/png","size":10,"models":[]}`, nil, 422, "unprocessable", [2]string{"field", "models"}},
		{"init confidence over", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"image/png","size":10,"confidence":1.01}`, nil, 422, "unprocessable", [2]string{"field", "confidence"}},
		{"init callback not a url", "POST", "/v1/jobs/init", keyA, `{"file_name":"a","mime_type":"image/png","size":10,"callback_url":"::"}`, nil, 422, "unprocessable", [2]string{"field", "callback_url"}},
		{"init long idempotency key", "POST", "/v1/jobs/init", keyA, valid, map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}, 422, "unprocessable", [2]string{}},
		{"start no key", "POST", "/v1/jobs/" + done + "/start", "", "", nil, 401, "unauthorized", [2]string{}},
		{"start unknown", "POST", "/v1/jobs/nope/start", keyA, "", nil, 404, "not_found", [2]string{}},
		{"start other key", "POST", "/v1/jobs/" + empty + "/start", keyB, "", nil, 404, "not_found", [2]string{}},
		{"start no upload", "POST", "/v1/jobs/" + empty + "/start", keyA, "", nil, 422, "unprocessable", [2]string{"reason", "no_upload"}},
		{"start wrong magic", "POST", "/v1/jobs/" + badID + "/start", keyA, "", nil, 422, "unprocessable", [2]string{"reason", "type_mismatch"}},
		{"start done", "POST", "/v1/jobs/" + done + "/start", keyA, "", nil, 409, "conflict", [2]string{}},
		{"poll unknown", "GET", "/v1/jobs/nope", keyA, "", nil, 404, "not_found", [2]string{}},
		{"poll other key", "GET", "/v1/jobs/" + done, keyB, "", nil, 404, "not_found", [2]string{}},
		{"poll no key", "GET", "/v1/jobs/" + done, "", "", nil, 401, "unauthorized", [2]string{}},
		{"poll confidence over", "GET", "/v1/jobs/" + done + "?confidence=2", keyA, "", nil, 422, "unprocessable", [2]string{"parameter", "confidence"}},
		{"poll confidence text", "GET", "/v1/jobs/" + done + "?confidence=high", keyA, "", nil, 422, "unprocessable", [2]string{"parameter", "confidence"}},
		{"poll confidence NaN", "GET", "/v1/jobs/" + done + "?confidence=NaN", keyA, "", nil, 422, "unprocessable", [2]string{"parameter", "confidence"}},
		{"poll include unknown", "GET", "/v1/jobs/" + done + "?include=pages", keyA, "", nil, 422, "unprocessable", [2]string{"parameter", "include"}},
		{"poll ok", "GET", "/v1/jobs/" + done + "?confidence=0.5&include=detections", keyA, "", nil, 200, "", [2]string{}},
		{"detections limit zero", "GET", "/v1/jobs/" + done + "/pages/0/detections?limit=0", keyA, "", nil, 422, "unprocessable", [2]string{"parameter", "limit"}},
		{"detections limit over", "GET", "/v1/jobs/" + done + "/pages/0/detections?limit=2001", keyA, "", nil, 422, "unprocessable", [2]string{"parameter", "limit"}},
		{"detections limit max", "GET", "/v1/jobs/" + done + "/pages/0/detections?limit=2000", keyA, "", nil, 200, "", [2]string{}},
		{"detections offset negative", "GET", "/v1/jobs/" + done + "/pages/0/detections?offset=-1", keyA, "", nil, 422, "unprocessable", [2]string{"parameter", "offset"}},
		{"detections confidence negative", "GET", "/v1/jobs/" + done + "/pages/0/detections?confidence=-0.1", keyA, "", nil, 422, "unprocessable", [2]string{"parameter", "confidence"}},
		{"detections page missing", "GET", "/v1/jobs/" + done + "/pages/2/detections", keyA, "", nil, 404, "not_found", [2]string{}},
		{"detections page not a number", "GET", "/v1/jobs/" + done + "/pages/x/detections", keyA, "", nil, 404, "not_found", [2]string{}},
		{"detections job not done", "GET", "/v1/jobs/" + empty + "/pages/0/detections", keyA, "", nil, 404, "not_found", [2]string{}},
		{"detections other key", "GET", "/v1/jobs/" + done + "/pages/0/detections", keyB, "", nil, 404, "not_found", [2]string{}},
		{"detections no key", "GET", "/v1/jobs/" + done + "/pages/0/detections", "", "", nil, 401, "unauthorized", [2]string{}},
		{"symbols no key", "GET", "/v1/symbols", "", "", nil, 401, "unauthorized", [2]string{}},
		{"symbols ok", "GET", "/v1/symbols", keyA, "", nil, 200, "", [2]string{}},
		{"icon no key", "GET", "/v1/symbols/socket_outlet/icon", "", "", nil, 401, "unauthorized", [2]string{}},
		{"icon unknown class", "GET", "/v1/symbols/teapot/icon", keyA, "", nil, 404, "not_found", [2]string{}},
		{"icon bad format", "GET", "/v1/symbols/socket_outlet/icon?format=gif", keyA, "", nil, 422, "unprocessable", [2]string{"parameter", "format"}},
		{"icon ok", "GET", "/v1/symbols/socket_outlet/icon", keyA, "", nil, 302, "", [2]string{}},
		{"unknown v1 route", "GET", "/v1/jobz", keyA, "", nil, 404, "not_found", [2]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body []byte
			if c.body != "" {
				body = []byte(c.body)
			}
			r := e.do(c.method, c.path, c.key, body, c.hdr)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d: %s", r.Status, c.status, r.Body)
			}
			if c.code != "" {
				if got := r.code(t); got != c.code {
					t.Fatalf("code %q, want %q: %s", got, c.code, r.Body)
				}
				if msg := r.json(t)["error"].(map[string]any)["message"]; msg == "" || msg == nil {
					t.Fatal("error without message")
				}
			}
			if c.detail[0] != "" {
				d, _ := r.json(t)["error"].(map[string]any)["details"].(map[string]any)
				if d[c.detail[0]] != c.detail[1] {
					t.Fatalf("details %v, want %s=%s", d, c.detail[0], c.detail[1])
				}
			}
			authed := c.key == keyA || c.key == keyB
			if has := r.Header.Get("RateLimit-Limit") != ""; has != authed && !strings.Contains(c.name, "no key") {
				t.Fatalf("RateLimit-Limit present=%v for key %q", has, c.key)
			}
		})
	}

	// The job whose start failed validation stays awaiting_upload, marked
	// not usable, and a new PUT fixes it.
	m := e.do("GET", "/v1/jobs/"+badID, keyA, nil, nil).json(t)
	if m["status"] != "awaiting_upload" || m["uploaded"] != true {
		t.Fatalf("after a failed start: %v", m)
	}
}

func TestSymbolsAndIcons(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	en := e.do("GET", "/v1/symbols", keyA, nil, nil).json(t)
	fi := e.do("GET", "/v1/symbols", keyA, nil, map[string]string{"Accept-Language": "fi-FI,fi;q=0.9,en;q=0.5"}).json(t)
	if en["count"] != float64(61) || len(en["symbols"].([]any)) != 61 || len(en["models"].([]any)) != 2 {
		t.Fatalf("catalog: count %v models %v", en["count"], en["models"])
	}
	s0, f0 := en["symbols"].([]any)[0].(map[string]any), fi["symbols"].([]any)[0].(map[string]any)
	if s0["display_name"] == f0["display_name"] || s0["class"] != f0["class"] {
		t.Fatalf("Finnish names: %v vs %v", s0, f0)
	}
	for _, format := range []string{"", "svg", "png"} {
		r := e.do("GET", s0["icon_url"].(string)+"?format="+format, keyA, nil, nil)
		if r.Status != 302 {
			t.Fatalf("icon %q: %d", format, r.Status)
		}
		loc := r.Header.Get("Location")
		img := e.do("GET", loc, "", nil, nil)
		want := map[string]string{"": "image/svg+xml", "svg": "image/svg+xml", "png": "image/png"}[format]
		if img.Status != 200 || img.Header.Get("Content-Type") != want || len(img.Body) == 0 {
			t.Fatalf("icon file %q: %d %s", loc, img.Status, img.Header.Get("Content-Type"))
		}
		forged := strings.Replace(loc, "sig=", "sig=0", 1)
		if r := e.do("GET", forged, "", nil, nil); r.Status != 403 || r.code(t) != "forbidden" {
			t.Fatalf("forged icon URL: %d", r.Status)
		}
	}
}

func TestUploadAttacks(t *testing.T) {
	clock := &fakeClock{t: time.Now().UTC()}
	dir := t.TempDir()
	e := startEnv(t, dir, options{runner: runnerOpts(), clock: clock})
	data := pdfDoc([2]int{100, 100})
	newJob := func() map[string]any {
		return e.initJob(keyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(data)})
	}
	signer, err := signing.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	j := newJob()
	u := j["upload"].(map[string]any)["url"].(string)
	pu, _ := url.Parse(u)
	q := pu.Query()
	withQuery := func(mod func(url.Values)) string {
		c := url.Values{}
		for k, v := range q {
			c[k] = v
		}
		mod(c)
		return e.base + pu.Path + "?" + c.Encode()
	}
	otherJob := newJob()["job_id"].(string)
	cases := []struct {
		name, url, ctype string
		body             []byte
		status           int
		code             string
	}{
		{"forged signature", withQuery(func(v url.Values) { v.Set("sig", strings.Repeat("0", 64)) }), "application/pdf", data, 403, "forbidden"},
		{"no signature", e.base + pu.Path, "application/pdf", data, 403, "forbidden"},
		{"extended expiry", withQuery(func(v url.Values) { v.Set("expires", "99999999999") }), "application/pdf", data, 403, "forbidden"},
		{"signature of another job", e.base + "/uploads/" + otherJob + "?" + q.Encode(), "application/pdf", data, 403, "forbidden"},
		{"signed for an unknown job", signer.URL(e.base, "PUT", "/uploads/nope", clock.Now().Add(time.Hour)), "application/pdf", data, 403, "forbidden"},
		{"wrong content type", u, "image/png", data, 415, "unsupported_media_type"},
		{"no content type", u, "", data, 415, "unsupported_media_type"},
		{"too long", u, "application/pdf", append(append([]byte{}, data...), ' '), 413, "payload_too_large"},
		{"too short", u, "application/pdf", data[:len(data)-1], 422, "unprocessable"},
		{"stored", u, "application/pdf", data, 200, ""},
		{"replaced", u, "application/pdf; charset=binary", data, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("PUT", c.url, "", c.body, map[string]string{"Content-Type": c.ctype})
			if r.Status != c.status || (c.code != "" && r.code(t) != c.code) {
				t.Fatalf("%d %s, want %d %s", r.Status, r.Body, c.status, c.code)
			}
			if r.Header.Get("RateLimit-Limit") != "" {
				t.Fatal("rate limit headers on the upload PUT")
			}
		})
	}
	// Streaming more than the declared size without a Content-Length.
	t.Run("chunked too long", func(t *testing.T) {
		j := newJob()
		pr, pw := io.Pipe()
		go func() {
			for range 64 {
				if _, err := pw.Write(make([]byte, 1024)); err != nil {
					break
				}
			}
			pw.Close()
		}()
		req, _ := http.NewRequest("PUT", j["upload"].(map[string]any)["url"].(string), pr)
		req.Header.Set("Content-Type", "application/pdf")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 413 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if m := e.do("GET", "/v1/jobs/"+j["job_id"].(string), keyA, nil, nil).json(t); m["uploaded"] != false {
			t.Fatal("an over-size upload was kept")
		}
	})
	id := j["job_id"].(string)
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	if r := e.do("PUT", u, "", data, map[string]string{"Content-Type": "application/pdf"}); r.Status != 409 || r.code(t) != "conflict" {
		t.Fatalf("PUT after start: %d %s", r.Status, r.Body)
	}
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 409 {
		t.Fatalf("second start: %d %s", r.Status, r.Body)
	}
	// An upload URL past its expiry is refused.
	late := newJob()
	clock.Advance(job.DefaultUploadTTL + time.Second)
	if r := e.upload(late, data, "application/pdf"); r.Status != 403 || r.code(t) != "forbidden" {
		t.Fatalf("expired upload URL: %d %s", r.Status, r.Body)
	}
}

func TestStartValidation(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	good := pdfDoc([2]int{100, 100})
	huge := pdfDoc([2]int{14400, 14400}) // 200 × 200 inch
	many := make([][2]int, 10000)
	for i := range many {
		many[i] = [2]int{72, 72}
	}
	// 20 MiB of spaces deflate to a few KiB: far over 100× the file size.
	bomb := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 100 100]", Content: strings.Repeat(" ", 20<<20)})
	sheet, err := os.ReadFile("../../testdata/synth/sheet-00002.pdf") // a real-looking drawing, 130 symbols
	if err != nil {
		t.Fatal(err)
	}
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
		{"png claimed as pdf", "application/pdf", pngImage(10, 10), "type_mismatch", map[string]string{"declared": "application/pdf", "detected": "image/png"}},
		{"pdf claimed as png", "image/png", good, "type_mismatch", nil},
		{"truncated pdf", "application/pdf", good[:len(good)/2], "corrupt", nil},
		{"cut off just before %%EOF", "application/pdf", good[:len(good)-len("%%EOF\n")], "corrupt", nil},
		{"garbage after header", "application/pdf", append([]byte("%PDF-1.4\n"), make([]byte, 200)...), "corrupt", nil},
		{"truncated png", "image/png", pngImage(50, 50)[:60], "corrupt", nil},
		{"no pages", "application/pdf", documenttest.PDF(), "no_pages", map[string]string{"pages": "0"}},
		{"decompression bomb", "application/pdf", bomb, "decompression_bomb", map[string]string{"max_decompressed_bytes": fmt.Sprint(100 * len(bomb))}},
		{"200 x 200 inch page", "application/pdf", huge, "page_too_large", map[string]string{"page_index": "0", "width_px": "40000", "height_px": "40000"}},
		{"10 000 pages", "application/pdf", pdfDoc(many...), "too_many_pages", map[string]string{"pages": "10000", "max_pages": "500"}},
		// Issue 11: files MuPDF repairs or pads, which used to end done with nothing found.
		{"sheet cut in half, %%EOF appended", "application/pdf", append(bytes.Clone(sheet[:len(sheet)/2]), "\n%%EOF\n"...), "corrupt", map[string]string{"damage": "truncated"}},
		{"200 bytes of a PDF, 5 KB noise, %%EOF", "application/pdf", append(append(bytes.Clone(sheet[:200]), noise...), "\n%%EOF\n"...), "corrupt", map[string]string{"damage": "truncated"}},
		{"MediaBox [0 0 0 0]", "application/pdf", documenttest.PDF(documenttest.Page{MediaBox: "[0 0 0 0]", Content: "0 0 0 rg 10 10 50 50 re f"}), "corrupt", map[string]string{"damage": "page_size"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := e.initJob(keyA, map[string]any{"file_name": "f", "mime_type": c.mime, "size": len(c.data)})
			if r := e.upload(j, c.data, c.mime); r.Status != 200 {
				t.Fatalf("PUT: %d %s", r.Status, r.Body)
			}
			id := j["job_id"].(string)
			r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil)
			if r.Status != 422 {
				t.Fatalf("start: %d %s", r.Status, r.Body)
			}
			d, _ := r.json(t)["error"].(map[string]any)["details"].(map[string]any)
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
			if m := e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).json(t); m["status"] != "awaiting_upload" {
				t.Fatalf("job moved to %v", m["status"])
			}
			// A new PUT with a good file fixes the job.
			fix, mime := good, "application/pdf"
			if c.mime == "image/png" {
				fix, mime = pngImage(40, 30), "image/png"
			}
			if len(fix) != len(c.data) {
				return // declared size differs; a new job would be needed
			}
			if r := e.upload(j, fix, mime); r.Status != 200 {
				t.Fatalf("re-PUT: %d", r.Status)
			}
			if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 202 {
				t.Fatalf("start after fix: %d %s", r.Status, r.Body)
			}
		})
	}
}

func TestIdempotencyKey(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	body := []byte(`{"file_name":"a.pdf","mime_type":"application/pdf","size":1000,"external_ref":"po-1"}`)
	const n = 12
	var wg sync.WaitGroup
	res := make([]response, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = e.do("POST", "/v1/jobs/init", keyA, body, map[string]string{"Idempotency-Key": "order-1"})
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
	ids, err := e.app.store.ListJobs(context.Background(), job.AwaitingUpload, 0)
	if err != nil || len(ids) != 1 {
		t.Fatalf("%d jobs stored (%v), want exactly 1", len(ids), err)
	}
	// Same JSON semantics in another byte form is a replay.
	same := []byte(`{"size":1000, "external_ref":"po-1","mime_type":"application/pdf","file_name":"a.pdf","models":["fire_alarm","electricity"]}`)
	if r := e.do("POST", "/v1/jobs/init", keyA, same, map[string]string{"Idempotency-Key": "order-1"}); r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("normalised replay: %d %s", r.Status, r.Body)
	}
	r := e.do("POST", "/v1/jobs/init", keyA, []byte(`{"file_name":"b.pdf","mime_type":"application/pdf","size":1000}`), map[string]string{"Idempotency-Key": "order-1"})
	if r.Status != 422 || !strings.Contains(string(r.Body), "different request body") {
		t.Fatalf("different body: %d %s", r.Status, r.Body)
	}
	// The key is scoped to the API key.
	r = e.do("POST", "/v1/jobs/init", keyB, body, map[string]string{"Idempotency-Key": "order-1"})
	if r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "" || r.json(t)["job_id"] == res[0].json(t)["job_id"] {
		t.Fatalf("other key: %d %s", r.Status, r.Body)
	}
}

func TestRateLimit(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	for i := range 3 {
		r := e.do("GET", "/v1/symbols", keyC, nil, nil)
		if r.Status != 200 || r.Header.Get("RateLimit-Limit") != "3" || r.Header.Get("RateLimit-Remaining") != fmt.Sprint(2-i) || r.Header.Get("RateLimit-Reset") == "" {
			t.Fatalf("request %d: %d %v", i, r.Status, r.Header)
		}
	}
	r := e.do("GET", "/v1/symbols", keyC, nil, nil)
	if r.Status != 429 || r.code(t) != "rate_limited" || r.Header.Get("Retry-After") == "" || r.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("over the rate: %d %v %s", r.Status, r.Header, r.Body)
	}
	// Other keys and unauthenticated requests are not affected.
	if r := e.do("GET", "/v1/symbols", keyA, nil, nil); r.Status != 200 {
		t.Fatalf("other key: %d", r.Status)
	}
	if r := e.do("GET", "/v1/symbols", "wrong", nil, nil); r.Status != 401 {
		t.Fatalf("bad key: %d", r.Status)
	}
}

func TestCallbackURLGuard(t *testing.T) {
	srv := startEnvStrict(t)
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
		r := srv.do("POST", "/v1/jobs/init", keyA, b, nil)
		d, _ := r.json(t)["error"].(map[string]any)["details"].(map[string]any)
		if r.Status != 422 || d["field"] != "callback_url" || d["reason"] == nil {
			t.Errorf("%s: %d %s", u, r.Status, r.Body)
		}
	}
}

// startEnvStrict starts a service with the production callback policy.
func startEnvStrict(t *testing.T) *testEnv {
	return startEnv(t, t.TempDir(), options{runner: runnerOpts()}, func(c *config.Config) { c.AllowPrivateCallbacks = false })
}

// TestMethodNotAllowed checks that a known path called with a method it
// does not define is 405 method_not_allowed with Allow in the contract's
// error shape (before any key check, not rate-limited), and unknown paths
// stay 404 (after the key check on /v1).
func TestMethodNotAllowed(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: scriptedEngine()})
	created := e.initJob(keyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": 100})
	id := created["job_id"].(string)
	cases := []struct {
		method, path, key string
		status            int
		code, allow       string
		rateHeaders       bool
	}{
		{"DELETE", "/v1/jobs/" + id, keyA, 405, "method_not_allowed", "GET, HEAD", false},
		{"PUT", "/v1/jobs/" + id, keyA, 405, "method_not_allowed", "GET, HEAD", false},
		{"GET", "/v1/jobs/init", keyA, 405, "method_not_allowed", "POST", false},
		{"GET", "/v1/jobs/" + id + "/start", keyA, 405, "method_not_allowed", "POST", false},
		{"POST", "/v1/symbols", keyA, 405, "method_not_allowed", "GET, HEAD", false},
		{"POST", "/v1/jobs/" + id + "/pages/0/detections", keyA, 405, "method_not_allowed", "GET, HEAD", false},
		{"DELETE", "/v1/openapi.json", "", 405, "method_not_allowed", "GET, HEAD", false},
		{"DELETE", "/v1/jobs/" + id, "", 405, "method_not_allowed", "GET, HEAD", false},
		{"GET", "/v1/jobs/init", "bad-key", 405, "method_not_allowed", "POST", false},
		{"DELETE", "/v1/jobs", "", 405, "method_not_allowed", "GET, HEAD", false},
		{"DELETE", "/v1/jobz", "", 401, "unauthorized", "", false},
		{"POST", "/v1/jobs/" + id + "/takeoff.csv", keyA, 405, "method_not_allowed", "GET, HEAD", false},
		{"POST", "/app/", "", 405, "method_not_allowed", "GET, HEAD", false},
		{"GET", "/uploads/" + id, "", 405, "method_not_allowed", "PUT", false},
		{"DELETE", "/files/icons/socket_outlet.svg", "", 405, "method_not_allowed", "GET, HEAD", false},
		{"DELETE", "/v1/jobz", keyA, 404, "not_found", "", true},
		{"GET", "/app/missing.js", "", 404, "not_found", "", false},
		{"GET", "/v2/jobs/" + id, "", 404, "not_found", "", false},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := e.do(c.method, c.path, c.key, nil, nil)
			if r.Status != c.status || r.code(t) != c.code {
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
				d, _ := r.json(t)["error"].(map[string]any)["details"].(map[string]any)
				if got := fmt.Sprint(d["allowed_methods"]); got != "["+strings.ReplaceAll(c.allow, ",", "")+"]" {
					t.Fatalf("details.allowed_methods %s, Allow %q", got, c.allow)
				}
			}
		})
	}
}

// TestNonCanonicalPathsAndInitBody: a path the mux would redirect with an
// HTML body answers the JSON error instead (after the key check on /v1);
// an init body over 64 KiB says it is too large; a wrongly typed size says
// "an integer".
func TestNonCanonicalPathsAndInitBody(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	for _, c := range []struct {
		path, key string
		status    int
		code      string
	}{
		{"//v1/symbols", keyA, 404, "not_found"},
		{"//v1/symbols", "", 401, "unauthorized"},
		{"/v1/./symbols", keyA, 404, "not_found"},
		{"/v1/jobs/../symbols", keyA, 404, "not_found"},
		{"/v1", keyA, 404, "not_found"},
		{"//x", "", 404, "not_found"},
	} {
		r := e.do("GET", c.path, c.key, nil, nil)
		if r.Status != c.status || r.code(t) != c.code || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("GET %s: %d %s %s", c.path, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
		if c.status == 404 && !strings.Contains(string(r.Body), "canonical") {
			t.Errorf("GET %s: the message does not name the canonical path: %s", c.path, r.Body)
		}
	}
	big := fmt.Sprintf(`{"file_name":"a.pdf","mime_type":"application/pdf","size":10,"external_ref":%q}`, strings.Repeat("x", 70<<10))
	r := e.do("POST", "/v1/jobs/init", keyA, []byte(big), nil)
	if r.Status != 422 || !strings.Contains(string(r.Body), "too large") || r.json(t)["error"].(map[string]any)["details"].(map[string]any)["max_bytes"] != float64(65536) {
		t.Errorf("init body of 70 KiB: %d %s", r.Status, r.Body)
	}
	r = e.do("POST", "/v1/jobs/init", keyA, []byte(`{"file_name":"a","mime_type":"image/png","size":"10"}`), nil)
	if msg := string(r.Body); r.Status != 422 || !strings.Contains(msg, "size must be an integer") {
		t.Errorf("size as a string: %d %s", r.Status, msg)
	}
}
