package apitest

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"blueprint/internal/detect"
)

// contractPagesFinished checks the processing poll's pages_finished: while
// the last of three pages is held in detection, the poll lists the pages
// finished (0 and 1), as many as pages_done; once the job is done the poll
// is the done view.
func contractPagesFinished(t *testing.T, newSvc NewService) {
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	t.Cleanup(open)
	eng := detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		if p.Index == 2 {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return nil, ctx.Err()
	})
	svc, api := newSvc(t, Options{Engine: eng})
	data := PDFDoc([2]int{144, 72}, [2]int{144, 72}, [2]int{144, 72})
	created := api.InitJob(KeyA, map[string]any{"file_name": "slow.pdf", "mime_type": "application/pdf", "size": len(data)})
	if r := svc.Upload(t, api, created, data, "application/pdf"); r.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	id := created["job_id"].(string)
	if r := api.Do("POST", "/v1/jobs/"+id+"/start", KeyA, nil, nil); r.Status != http.StatusAccepted {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	var poll map[string]any
	WaitFor(t, 60*time.Second, 20*time.Millisecond, func() bool {
		poll = api.Do("GET", "/v1/jobs/"+id, KeyA, nil, nil).JSON(t)
		if _, ok := poll["pages_finished"]; !ok && poll["status"] != "done" {
			t.Fatalf("a %s poll has no pages_finished: %v", poll["status"], poll)
		}
		return poll["status"] == "processing" && poll["pages_done"] == float64(2)
	}, func() string { return fmt.Sprintf("the job never had 2 pages done with page 2 held: %v", poll) })
	if got := fmt.Sprint(poll["pages_finished"]); got != "[0 1]" {
		t.Errorf("pages_finished %s with pages 0 and 1 done and page 2 held, want [0 1]", got)
	}
	open()
	done := api.WaitStatus(KeyA, id, "done")
	if _, ok := done["pages_finished"]; ok {
		t.Errorf("the done poll carries pages_finished: %v", done)
	}
}

// checkGlyphBoxes checks the legend rows of a done poll of a job of
// ScriptedLegendEngine: row 1's glyph box as fractions of its page's
// size, row 2's null (present, never absent).
func checkGlyphBoxes(t *testing.T, poll map[string]any) {
	t.Helper()
	legend := poll["legend"].([]any)
	pages := poll["pages"].([]any)
	if len(legend) != 2 || len(pages) == 0 {
		t.Fatalf("legend %v on %d pages, want the engine's 2 rows", legend, len(pages))
	}
	p0 := pages[0].(map[string]any)
	w, h := p0["width_px"].(float64), p0["height_px"].(float64)
	g := scriptedLegendRows[0].GlyphBox
	want := []float64{g.X / w, g.Y / h, g.W / w, g.H / h}
	b, ok := legend[0].(map[string]any)["glyph_bbox_norm"].(map[string]any)
	if !ok {
		t.Fatalf("row 1 glyph_bbox_norm %v, want a box", legend[0].(map[string]any)["glyph_bbox_norm"])
	}
	for i, k := range []string{"x", "y", "width", "height"} {
		if v, _ := b[k].(float64); math.Abs(v-want[i]) > 1e-9 {
			t.Errorf("row 1 glyph_bbox_norm %v, want x, y, width, height %v", b, want)
			break
		}
	}
	if v, ok := legend[1].(map[string]any)["glyph_bbox_norm"]; !ok || v != nil {
		t.Errorf("row 2 glyph_bbox_norm %v (present %v), want null", v, ok)
	}
}
