package apitest

import (
	"context"
	"fmt"
	"math"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/document/documenttest"
)

// searchSymbol is a symbol drawn in PDF points about the origin: a circle
// with a bar to its right ending in a tick.
var searchSymbol = documenttest.CircleOps(0, 0, 6) + " 6 0 m 18 0 l 18 10 l S"

// searchPDF is a two-page PDF (300×200 pt) drawing searchSymbol four
// times: on page 0 upright at (40, 150), turned a quarter at (150, 150) and
// mirrored at (250, 60), beside two look-alikes that are not it (the
// symbol without its tick at (60, 60), a square at (150, 40)); on page 1
// once more, upright at (100, 100).
func searchPDF() []byte {
	at := func(m string) string { return "q " + m + " cm " + searchSymbol + " Q " }
	page0 := "1 w " + at("1 0 0 1 40 150") + at("0 1 -1 0 150 150") + at("-1 0 0 1 250 60") +
		"q 1 0 0 1 60 60 cm " + documenttest.CircleOps(0, 0, 6) + " 6 0 m 18 0 l S Q " +
		"140 30 20 20 re S"
	page1 := "1 w " + at("1 0 0 1 100 100")
	return documenttest.PDF(
		documenttest.Page{MediaBox: "[0 0 300 200]", Content: page0},
		documenttest.Page{MediaBox: "[0 0 300 200]", Content: page1})
}

// pt converts PDF points to pixels of the 200-DPI raster.
func pt(v float64) float64 { return v * float64(detect.RenderDPI) / 72 }

// searchEngine reports one detection on page 0, on the upright symbol
// (x 34–58 pt, y 144–160 pt from the bottom of a 200 pt page).
func searchEngine() detect.Engine {
	return detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		if p.Index != 0 {
			return nil, ctx.Err()
		}
		box := detect.Box{X: pt(34), Y: pt(200 - 160), W: pt(24), H: pt(16)}
		return []detect.Detection{{Class: "socket_outlet", Confidence: 0.9, Box: box, Source: detect.Source{VectorMatching: true}}}, ctx.Err()
	})
}

// contractSearch finds a symbol from a box around one instance: every
// instance on every page (turned and mirrored ones too), none of the
// look-alikes, the detection each overlaps, the pages asked for; bad input
// is refused in the contract's error shape, and searches count against
// the key's rate limit.
func contractSearch(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: searchEngine()})
	id := ProcessPDF(t, svc, api, KeyA, "search.pdf", searchPDF(), nil)
	dets := pageDetections(t, api, id, 0, "")
	if len(dets) != 1 {
		t.Fatalf("page 0 lists %d detections, want the scripted one", len(dets))
	}
	// A reviewer's box around the upright symbol, 3 pt wider on each side.
	box := map[string]any{"x": 31.0 / 300, "y": 37.0 / 200, "width": 30.0 / 300, "height": 22.0 / 200}
	searchFor := func(key string, body map[string]any) Response {
		t.Helper()
		return api.Do("POST", "/v1/jobs/"+id+"/search", key, mustJSON(t, body), nil)
	}
	r := searchFor(KeyA, map[string]any{"page_index": 0, "bbox_norm": box})
	if r.Status != 200 {
		t.Fatalf("search: %d %s", r.Status, r.Body)
	}
	// Where the four instances are, as the centres of their boxes in
	// points from the top-left corner.
	want := []struct {
		page   int
		cx, cy float64
		det    bool
	}{{0, 46, 48, true}, {0, 148, 44, false}, {0, 244, 138, false}, {1, 106, 98, false}}
	got := r.JSON(t)
	matches := got["matches"].([]any)
	if int(got["total"].(float64)) != len(matches) || len(matches) != len(want) {
		t.Fatalf("total %v, %d matches; want %d: %s", got["total"], len(matches), len(want), r.Body)
	}
	if left, _ := got["pages_not_searched"].([]any); got["complete"] != true || left == nil || len(left) != 0 {
		t.Errorf("a search within its time: complete %v, pages_not_searched %v; want true, []", got["complete"], got["pages_not_searched"])
	}
	for _, w := range want {
		found := false
		for _, m := range matches {
			m := m.(map[string]any)
			px := m["bbox_px"].(map[string]any)
			norm := m["bbox_norm"].(map[string]any)
			cx, cy := px["x"].(float64)+px["width"].(float64)/2, px["y"].(float64)+px["height"].(float64)/2
			if int(m["page_index"].(float64)) != w.page || math.Abs(cx-pt(w.cx)) > pt(3) || math.Abs(cy-pt(w.cy)) > pt(3) {
				continue
			}
			found = true
			if s := m["score"].(float64); s < 0.9 || s > 1 {
				t.Errorf("match at page %d (%v, %v) pt: score %v", w.page, w.cx, w.cy, s)
			}
			// bbox_px is rounded to 0.1 px on the wire, bbox_norm to 6
			// decimals: they agree within 0.05 px and a little.
			if math.Abs(norm["x"].(float64)*math.Round(pt(300))-px["x"].(float64)) > 0.06 || math.Abs(norm["height"].(float64)*math.Round(pt(200))-px["height"].(float64)) > 0.06 {
				t.Errorf("bbox_norm %v does not agree with bbox_px %v", norm, px)
			}
			if w.det && m["detection_id"] != dets[0]["id"] {
				t.Errorf("the match on the detected symbol has detection_id %v, want %v", m["detection_id"], dets[0]["id"])
			}
			if !w.det && m["detection_id"] != nil {
				t.Errorf("match at page %d (%v, %v) pt: detection_id %v, want null", w.page, w.cx, w.cy, m["detection_id"])
			}
		}
		if !found {
			t.Errorf("no match at page %d (%v, %v) pt: %s", w.page, w.cx, w.cy, r.Body)
		}
	}
	if first := matches[0].(map[string]any); int(first["page_index"].(float64)) != 0 {
		t.Errorf("matches are not listed page by page: %s", r.Body)
	}

	// Only the pages asked for, in that order.
	r = searchFor(KeyA, map[string]any{"page_index": 0, "bbox_norm": box, "pages": []int{1}})
	if r.Status != 200 {
		t.Fatalf("search of page 1: %d %s", r.Status, r.Body)
	}
	if ms := r.JSON(t)["matches"].([]any); len(ms) != 1 || int(ms[0].(map[string]any)["page_index"].(float64)) != 1 {
		t.Errorf("search of page 1 only: %s", r.Body)
	}

	bad := []struct {
		name   string
		key    string
		body   map[string]any
		status int
		field  string
	}{
		{"other key", KeyB, map[string]any{"page_index": 0, "bbox_norm": box}, 404, ""},
		{"no page", KeyA, map[string]any{"bbox_norm": box}, 422, "page_index"},
		{"page out of range", KeyA, map[string]any{"page_index": 2, "bbox_norm": box}, 422, "page_index"},
		{"no box", KeyA, map[string]any{"page_index": 0}, 422, "bbox_norm"},
		{"box off the page", KeyA, map[string]any{"page_index": 0, "bbox_norm": map[string]any{"x": 0.95, "y": 0, "width": 0.1, "height": 0.1}}, 422, "bbox_norm"},
		{"box of no size", KeyA, map[string]any{"page_index": 0, "bbox_norm": map[string]any{"x": 0.1, "y": 0.1, "width": 0, "height": 0.1}}, 422, "bbox_norm"},
		{"box holding no drawing", KeyA, map[string]any{"page_index": 0, "bbox_norm": map[string]any{"x": 0.9, "y": 0.05, "width": 0.05, "height": 0.05}}, 422, "bbox_norm"},
		{"pages out of range", KeyA, map[string]any{"page_index": 0, "bbox_norm": box, "pages": []int{0, 5}}, 422, "pages[1]"},
		{"page listed twice", KeyA, map[string]any{"page_index": 0, "bbox_norm": box, "pages": []int{1, 1}}, 422, "pages[1]"},
		{"no pages", KeyA, map[string]any{"page_index": 0, "bbox_norm": box, "pages": []int{}}, 422, "pages"},
		{"unknown field", KeyA, map[string]any{"page_index": 0, "bbox_norm": box, "page": 1}, 422, ""},
	}
	for _, c := range bad {
		r := searchFor(c.key, c.body)
		if r.Status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.Status, r.Body, c.status)
			continue
		}
		e := r.JSON(t)["error"].(map[string]any)
		if msg, _ := e["message"].(string); msg == "" {
			t.Errorf("%s: error without a message: %s", c.name, r.Body)
		}
		if c.field != "" {
			if d, _ := e["details"].(map[string]any); d == nil || d["field"] != c.field {
				t.Errorf("%s: details %v, want field %q", c.name, e["details"], c.field)
			}
		}
	}

	// A job that is not done cannot be searched.
	waiting := api.InitJob(KeyA, map[string]any{"file_name": "w.pdf", "mime_type": "application/pdf", "size": 10})
	if r := api.Do("POST", fmt.Sprintf("/v1/jobs/%s/search", waiting["job_id"]), KeyA, mustJSON(t, map[string]any{"page_index": 0, "bbox_norm": box}), nil); r.Status != 409 || r.Code(t) != "conflict" {
		t.Errorf("search of a job awaiting upload: %d %s", r.Status, r.Body)
	}

	// Searches count against the key's rate limit, like every call.
	for i := range RateC {
		if r := searchFor(KeyC, map[string]any{"page_index": 0, "bbox_norm": box}); r.Status != 404 {
			t.Fatalf("search %d with another key: %d %s", i, r.Status, r.Body)
		}
	}
	if r := searchFor(KeyC, map[string]any{"page_index": 0, "bbox_norm": box}); r.Status != 429 || r.Code(t) != "rate_limited" {
		t.Errorf("search past the rate limit: %d %s", r.Status, r.Body)
	}
}

// contractSearchImage: a box on an image page is searched for on the page
// image: the boxed square is found; a box on blank paper is refused.
func contractSearchImage(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: ScriptedEngine()})
	data := PNGImage(160, 120) // a dark square from (40, 30) to (80, 60)
	created := api.InitJob(KeyA, map[string]any{"file_name": "a.png", "mime_type": "image/png", "size": len(data)})
	if r := svc.Upload(t, api, created, data, "image/png"); r.Status != 200 {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	id := created["job_id"].(string)
	if r := api.Do("POST", "/v1/jobs/"+id+"/start", KeyA, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	api.WaitStatus(KeyA, id, "done")
	body := map[string]any{"page_index": 0, "bbox_norm": map[string]any{"x": 0.2, "y": 0.2, "width": 0.35, "height": 0.35}}
	r := api.Do("POST", "/v1/jobs/"+id+"/search", KeyA, mustJSON(t, body), nil)
	if r.Status != 200 {
		t.Fatalf("search on an image page: %d %s", r.Status, r.Body)
	}
	ms := r.JSON(t)["matches"].([]any)
	found := false
	for _, m := range ms {
		px := m.(map[string]any)["bbox_px"].(map[string]any)
		cx, cy := px["x"].(float64)+px["width"].(float64)/2, px["y"].(float64)+px["height"].(float64)/2
		found = found || (math.Abs(cx-60) <= 3 && math.Abs(cy-45) <= 3)
	}
	if !found {
		t.Errorf("the boxed square (centre 60, 45) is not among the matches: %s", r.Body)
	}
	blank := map[string]any{"page_index": 0, "bbox_norm": map[string]any{"x": 0.7, "y": 0.7, "width": 0.2, "height": 0.2}}
	if r := api.Do("POST", "/v1/jobs/"+id+"/search", KeyA, mustJSON(t, blank), nil); r.Status != 422 || r.Code(t) != "unprocessable" {
		t.Errorf("a box on blank paper: %d %s, want 422", r.Status, r.Body)
	}
}
