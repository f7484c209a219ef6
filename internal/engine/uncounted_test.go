package engine

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/pipeline"
)

// TestUncountedPagesNeedNoRender: the production engine keeps the promise
// of detect.DocumentEngine on a real set of drawings with pages it does
// not count (a legend sheet, a schedule, a riser): pipeline.Run gives the
// same detections, sizes and kinds whether it renders those pages and
// encodes every page (KeepPNG, as the AWS deployment processes) or only
// sizes them (as the local server, with lazy page images, does).
func TestUncountedPagesNeedNoRender(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "realdata", "fire_alarm_us_cp4.pdf"))
	if err != nil {
		t.Skipf("real drawing not available (%v): the check runs where ../shared/realdata is present", err)
	}
	if testing.Short() {
		t.Skip("real drawings are slow; skipped with -short")
	}
	eng := newEngine(t)
	ctx := context.Background()
	run := func(keep bool) []pipeline.PageResult {
		doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		defer doc.Close()
		var out []pipeline.PageResult
		err = pipeline.Run(ctx, doc, pipeline.Options{Engine: eng, KeepPNG: keep}, func(r pipeline.PageResult) error {
			r.PNG, r.RenderSeconds, r.DetectSeconds = nil, 0, 0
			out = append(out, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	all, sized := run(true), run(false)
	uncounted := 0
	for i, r := range all {
		if !detect.Counted(r.Kind) {
			uncounted++
			if len(r.Detections) != 0 {
				t.Errorf("page %d (%s): %d detections on a page not counted", i, r.Kind, len(r.Detections))
			}
		}
	}
	if uncounted == 0 {
		t.Fatal("no page of the set is taken for one not counted; the check checks nothing")
	}
	if !reflect.DeepEqual(all, sized) {
		t.Errorf("results differ when uncounted pages are only sized:\n all   %+v\n sized %+v", all, sized)
	}
}
