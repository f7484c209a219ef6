package sagemakerdetect

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime"

	"blueprint/internal/detect"
	"blueprint/internal/raster"
	"blueprint/internal/rasterserve"
)

// fakeEndpoint answers invocations with fixed detections, or an error.
type fakeEndpoint struct {
	reqs []rasterserve.Request
	err  error
}

func (f *fakeEndpoint) InvokeEndpoint(_ context.Context, in *sagemakerruntime.InvokeEndpointInput, _ ...func(*sagemakerruntime.Options)) (*sagemakerruntime.InvokeEndpointOutput, error) {
	var r rasterserve.Request
	if err := json.Unmarshal(in.Body, &r); err != nil {
		return nil, err
	}
	if aws.ToString(in.EndpointName) != "ep" || aws.ToString(in.ContentType) != rasterserve.ContentType {
		return nil, errors.New("wrong endpoint or content type")
	}
	f.reqs = append(f.reqs, r)
	if f.err != nil {
		return nil, f.err
	}
	return &sagemakerruntime.InvokeEndpointOutput{Body: []byte(`{"detections":[{"class":"exit_sign","confidence":0.5,"box":{"x":1,"y":2,"width":3,"height":4}}]}`)}, nil
}

// fakeLocal stands for the in-process detector.
type fakeLocal struct{ calls int }

func (l *fakeLocal) Detect(context.Context, detect.Page) ([]detect.Detection, error) {
	l.calls++
	return []detect.Detection{{Class: "local"}}, nil
}

func (l *fakeLocal) Verify(context.Context, detect.Page, []detect.Box) ([]detect.Detection, error) {
	l.calls++
	return []detect.Detection{{Class: "local"}}, nil
}

func (l *fakeLocal) Meta() raster.Meta { return raster.Meta{Classifier: &raster.ClassifierMeta{}} }

func TestDetector(t *testing.T) {
	ctx := context.Background()
	ep, local := &fakeEndpoint{}, &fakeLocal{}
	d := New(ep, "ep", local, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	page := detect.Page{Index: 2, Width: 40, Height: 30, Raster: image.NewGray(image.Rect(0, 0, 40, 30))}
	got, err := d.Detect(ctx, page)
	want := []detect.Detection{{Class: "exit_sign", Confidence: 0.5, Box: detect.Box{X: 1, Y: 2, W: 3, H: 4}, Source: detect.Source{Detector: true}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("detect: %+v %v", got, err)
	}
	if _, err := d.Verify(ctx, page, []detect.Box{{X: 5, Y: 6, W: 7, H: 8}}); err != nil {
		t.Fatal(err)
	}
	if len(ep.reqs) != 2 || ep.reqs[0].Mode != rasterserve.ModeDetect || ep.reqs[0].PageIndex != 2 ||
		ep.reqs[1].Mode != rasterserve.ModeVerify || !reflect.DeepEqual(ep.reqs[1].Boxes, []rasterserve.Box{{X: 5, Y: 6, W: 7, H: 8}}) {
		t.Fatalf("requests %+v", ep.reqs)
	}
	// No boxes: nothing to judge, no call.
	if got, err := d.Verify(ctx, page, nil); got != nil || err != nil || len(ep.reqs) != 2 {
		t.Fatalf("verify without boxes: %v %v, %d calls", got, err, len(ep.reqs))
	}
	// A page over the payload limit runs in this process.
	d.maxRequest = 10
	if got, err := d.Detect(ctx, page); err != nil || len(got) != 1 || got[0].Class != "local" || local.calls != 1 || len(ep.reqs) != 2 {
		t.Fatalf("over the limit: %+v %v", got, err)
	}
	// With staging, it is staged instead, named in the request, and
	// deleted after the invocation.
	st := &memStaging{data: map[string][]byte{}}
	d.staging = st
	if got, err := d.Detect(ctx, page); err != nil || !reflect.DeepEqual(got, want) || local.calls != 1 {
		t.Fatalf("staged: %+v %v", got, err)
	}
	last := ep.reqs[len(ep.reqs)-1]
	if last.Page != nil || last.PageS3 == nil || last.PageS3.Bucket != "files" || !strings.HasPrefix(last.PageS3.Key, rasterserve.StagePrefix) ||
		len(st.puts) != 1 || st.puts[0] != last.PageS3.Key || len(st.data) != 0 {
		t.Fatalf("staged request %+v; puts %v; left %d", last, st.puts, len(st.data))
	}
	d.maxRequest, d.staging = rasterserve.MaxRequestBytes, nil
	// The endpoint's failure is the page's, with the endpoint named.
	ep.err = errors.New("ModelError: received server error (500)")
	if _, err := d.Detect(ctx, page); err == nil || !strings.Contains(err.Error(), "endpoint ep") || !strings.Contains(err.Error(), "ModelError") {
		t.Fatalf("endpoint error: %v", err)
	}
}

func TestFromEnvWithoutEndpoint(t *testing.T) {
	d, err := FromEnv(context.Background(), func(string) string { return "" }, raster.Config{}, nil)
	if d != nil || err != nil {
		t.Fatalf("no endpoint: %v %v", d, err)
	}
}

// memStaging is a bucket in memory.
type memStaging struct {
	data map[string][]byte
	puts []string
}

func (m *memStaging) Bucket() string { return "files" }

func (m *memStaging) PutBytes(_ context.Context, key, _ string, data []byte) error {
	m.data[key] = data
	m.puts = append(m.puts, key)
	return nil
}

func (m *memStaging) Delete(_ context.Context, key string) error {
	delete(m.data, key)
	return nil
}
