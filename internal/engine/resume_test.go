package engine

import (
	"context"
	"reflect"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/pipeline"
	"blueprint/internal/synth"
)

// TestResume: the engine resumed from a saved document pass reports what
// the prepared one reports, page by page, with the same document
// information; a state of another kind is refused.
func TestResume(t *testing.T) {
	e := engineNoRaster(t)
	g, err := synth.New(synth.FromCatalog(e.cat))
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.LegendDocument(52817, 1, 3, synth.Options{MaxPaper: "A4"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	doc, err := document.Open(ctx, s.Data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	prepared, info, state, err := e.PrepareSaved(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Legend) == 0 {
		t.Fatal("the generated set has no legend rows: nothing to resume")
	}
	resumed, info2, err := e.Resume(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(info, info2) {
		t.Fatalf("document information:\nprepared %+v\nresumed  %+v", info, info2)
	}
	found := func(eng detect.Engine) [][]detect.Detection {
		var out [][]detect.Detection
		opt := pipeline.PagesOptions{Options: pipeline.Options{Engine: eng}, First: 0, End: doc.NumPages(), Kinds: info.Kinds}
		if err := pipeline.RunPages(ctx, doc, opt, func(r pipeline.PageResult) error {
			out = append(out, r.Detections)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := found(prepared), found(resumed)
	n := 0
	for _, ds := range a {
		n += len(ds)
	}
	if n == 0 || !reflect.DeepEqual(a, b) {
		t.Fatalf("%d detections prepared; resumed the same: %v", n, reflect.DeepEqual(a, b))
	}
	t.Logf("%d pages, %d legend rows, %d detections, state of %d bytes", doc.NumPages(), len(info.Legend), n, len(state))
	for _, bad := range [][]byte{nil, []byte("not a state"), append([]byte(stateMagic), "garbage"...)} {
		if _, _, err := e.Resume(ctx, bad); err == nil {
			t.Errorf("Resume(%q) accepted", bad)
		}
	}
}
