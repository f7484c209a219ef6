package rasterserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"blueprint/internal/detect"
)

// fakeDetector records what it was asked and answers fixed detections.
type fakeDetector struct {
	page  detect.Page
	boxes []detect.Box
	err   error
}

var found = []detect.Detection{{Class: "smoke_detector", Confidence: 0.8125, Box: detect.Box{X: 1.5, Y: 2.25, W: 10, H: 12.125}, Source: detect.Source{Detector: true}}}

func (f *fakeDetector) Detect(_ context.Context, p detect.Page) ([]detect.Detection, error) {
	f.page = p
	return found, f.err
}

func (f *fakeDetector) Verify(_ context.Context, p detect.Page, boxes []detect.Box) ([]detect.Detection, error) {
	f.page, f.boxes = p, boxes
	return found, f.err
}

func testPage() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 30, 20))
	for y := range 20 {
		for x := range 30 {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 8), uint8(y * 12), 90, 255})
		}
	}
	return img
}

func invoke(t *testing.T, h http.Handler, ctype string, body []byte) (*httptest.ResponseRecorder, ErrorBody) {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/invocations", bytes.NewReader(body))
	r.Header.Set("Content-Type", ctype)
	h.ServeHTTP(w, r)
	var e ErrorBody
	if w.Code != 200 {
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error.Message == "" {
			t.Fatalf("%d answer is not the error shape: %s", w.Code, w.Body)
		}
	}
	return w, e
}

func TestInvocations(t *testing.T) {
	det := &fakeDetector{}
	h := Handler(det, 1000, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/ping", nil))
	if w.Code != 200 {
		t.Fatalf("ping: %d", w.Code)
	}
	page, err := EncodePage(testPage())
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{ModeDetect, ModeVerify} {
		body, _ := json.Marshal(Request{Mode: mode, PageIndex: 3, Page: page, Boxes: []Box{{X: 1, Y: 2, W: 3, H: 4}}})
		w, _ := invoke(t, h, ContentType, body)
		var resp Response
		if err := json.Unmarshal(w.Body.Bytes(), &resp); w.Code != 200 || err != nil {
			t.Fatalf("%s: %d %s", mode, w.Code, w.Body)
		}
		want := Response{Detections: []Detection{{Class: "smoke_detector", Confidence: 0.8125, Box: Box{X: 1.5, Y: 2.25, W: 10, H: 12.125}}}}
		if !reflect.DeepEqual(resp, want) || w.Header().Get("Content-Type") != ContentType {
			t.Fatalf("%s: %+v", mode, resp)
		}
		g, ok := det.page.Raster.(*image.Gray)
		if !ok || det.page.Index != 3 || det.page.Width != 30 || det.page.Height != 20 {
			t.Fatalf("%s: page %+v", mode, det.page)
		}
		// The page arrives as the detector's own luma of the sent raster.
		if want := testPage(); g.GrayAt(29, 19).Y != uint8((299*int(want.RGBAAt(29, 19).R)+587*int(want.RGBAAt(29, 19).G)+114*90+500)/1000) {
			t.Fatalf("%s: pixel %v", mode, g.GrayAt(29, 19))
		}
	}
	if !reflect.DeepEqual(det.boxes, []detect.Box{{X: 1, Y: 2, W: 3, H: 4}}) {
		t.Fatalf("verify boxes %v", det.boxes)
	}

	big, _ := EncodePage(image.NewGray(image.Rect(0, 0, 100, 100)))
	bigBody, _ := json.Marshal(Request{Mode: ModeDetect, Page: big})
	okBody, _ := json.Marshal(Request{Mode: ModeDetect, Page: page})
	for _, c := range []struct {
		name, ctype string
		body        []byte
		status      int
	}{
		{"wrong type", "image/png", page, 415},
		{"not JSON", ContentType, []byte("{"), 400},
		{"no mode", ContentType, []byte(`{"page":""}`), 400},
		{"not a PNG", ContentType, []byte(`{"mode":"detect","page":"aGVsbG8="}`), 400},
		{"over the page pixels", ContentType, bigBody, 400},
		{"over the payload", ContentType, append(okBody, bytes.Repeat([]byte(" "), MaxRequestBytes)...), 413},
	} {
		if w, e := invoke(t, h, c.ctype, c.body); w.Code != c.status || e.Error.Code != "bad_request" {
			t.Errorf("%s: %d %s", c.name, w.Code, w.Body)
		}
	}
	// Staged pages: read from the server's bucket under StagePrefix only.
	objects := &memObjects{bucket: "files", data: map[string][]byte{StagePrefix + "p.png": page}}
	hs := Handler(det, 1000, objects, slog.New(slog.NewTextHandler(io.Discard, nil)))
	staged := func(bucket, key string) []byte {
		b, _ := json.Marshal(Request{Mode: ModeDetect, PageIndex: 4, PageS3: &S3Object{Bucket: bucket, Key: key}})
		return b
	}
	if w, _ := invoke(t, hs, ContentType, staged("files", StagePrefix+"p.png")); w.Code != 200 || det.page.Index != 4 || det.page.Width != 30 {
		t.Fatalf("staged page: %d %s", w.Code, w.Body)
	}
	for _, c := range []struct {
		name string
		h    http.Handler
		body []byte
	}{
		{"other bucket", hs, staged("other", StagePrefix+"p.png")},
		{"outside the prefix", hs, staged("files", "jobs/x/upload")},
		{"no bucket configured", h, staged("files", StagePrefix+"p.png")},
	} {
		if w, e := invoke(t, c.h, ContentType, c.body); w.Code != 400 || e.Error.Code != "bad_request" {
			t.Errorf("%s: %d %s", c.name, w.Code, w.Body)
		}
	}
	if w, e := invoke(t, hs, ContentType, staged("files", StagePrefix+"missing.png")); w.Code != 500 || e.Error.Code != "internal_error" {
		t.Errorf("missing staged page: %d %s", w.Code, w.Body)
	}

	det.err = errors.New("model exploded")
	if w, e := invoke(t, h, ContentType, okBody); w.Code != 500 || e.Error.Code != "internal_error" || !strings.Contains(e.Error.Message, "model exploded") {
		t.Errorf("detector error: %d %s", w.Code, w.Body)
	}
}

// memObjects is a bucket in memory.
type memObjects struct {
	bucket string
	data   map[string][]byte
}

func (m *memObjects) Bucket() string { return m.bucket }

func (m *memObjects) Get(_ context.Context, key string) (io.ReadCloser, error) {
	b, ok := m.data[key]
	if !ok {
		return nil, errors.New("no such key")
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}
