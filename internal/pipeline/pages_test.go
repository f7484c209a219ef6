package pipeline

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/document"
)

// passKinds is a document engine whose pass says the page kinds and
// whose pages find darkEngine's box on counted pages only, as
// detect.DocumentEngine promises.
type passKinds struct{ kinds []string }

func (k passKinds) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	if p.Index < len(k.kinds) && !detect.Counted(k.kinds[p.Index]) {
		return nil, nil
	}
	return darkEngine.Detect(ctx, p)
}

func (k passKinds) Prepare(context.Context, detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	return k, detect.DocumentInfo{Kinds: k.kinds}, nil
}

// TestRunPagesRange: a batch of pages after a document pass gives the
// results Run gives for those pages, in page order, counting its own
// pages as progress; a range outside the document is refused.
func TestRunPagesRange(t *testing.T) {
	kinds := []string{detect.KindFloorPlan, detect.KindLegend, detect.KindFloorPlan}
	eng := passKinds{kinds: kinds}
	strip := func(r PageResult) PageResult { r.RenderSeconds, r.DetectSeconds = 0, 0; return r }
	for _, keep := range []bool{false, true} {
		doc := open(t, threePages(), document.MimePDF)
		var all []PageResult
		if err := Run(context.Background(), doc, Options{Engine: eng, KeepPNG: keep}, func(r PageResult) error {
			all = append(all, strip(r))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var got []PageResult
		progress, told := 0, []int{}
		opt := PagesOptions{Options: Options{Engine: eng, KeepPNG: keep, Progress: func(page, n int) error {
			progress, told = n, append(told, page)
			return nil
		}}, First: 1, End: 3, Kinds: kinds}
		if err := RunPages(context.Background(), doc, opt, func(r PageResult) error {
			got = append(got, strip(r))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, all[1:]) {
			t.Fatalf("keep %v: pages 1-2 in a batch %+v, in one run %+v", keep, got, all[1:])
		}
		if slices.Sort(told); progress != 2 || !slices.Equal(told, []int{1, 2}) {
			t.Fatalf("keep %v: progress %d of pages %v, want 2 of pages [1 2]", keep, progress, told)
		}
		if len(got[0].Detections) != 0 || len(got[1].Detections) != 1 {
			t.Fatalf("keep %v: detections %v, want none on the legend page, one on the plan", keep, got)
		}
		for _, r := range [][2]int{{-1, 2}, {2, 2}, {1, 4}} {
			opt.First, opt.End = r[0], r[1]
			if err := RunPages(context.Background(), doc, opt, func(PageResult) error { return nil }); err == nil {
				t.Errorf("pages %d to %d of 3 accepted", r[0], r[1]-1)
			}
		}
	}
}
