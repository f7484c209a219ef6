package job

import (
	"testing"

	"blueprint/internal/detect"
)

// TestReviewedPage checks how reviews apply to a page: decisions, a class
// change moving a detection to the legend row of its new class, added
// detections after the stored ones, and what the filter then keeps.
func TestReviewedPage(t *testing.T) {
	legend := []LegendRow{{Description: "socket", Class: "socket_outlet"}, {Description: "speaker", Class: "speaker"}, {Description: "floor box"}}
	sp := storedPage{Detections: []storedDetection{
		{ID: "a", Class: "socket_outlet", Confidence: 0.9, LegendRow: 1},
		{ID: "b", Class: "socket_outlet", Confidence: 0.9, LegendRow: 1},
		{ID: "c", Class: "socket_outlet", Confidence: 0.01, LegendRow: 1},
		{ID: "d", Class: "socket_outlet", Confidence: 0.9, LegendRow: 1},
	}}
	box := detect.Box{X: 1, Y: 2, W: 3, H: 4}
	pr := &PageReviews{Reviews: []Review{
		{DetectionID: "a", Decision: DecisionRejected},
		{DetectionID: "b", Class: "speaker"},
		{DetectionID: "c", Decision: DecisionAccepted},
		{DetectionID: "e", Decision: DecisionAdded, Class: "speaker", Box: &box},
		{DetectionID: "f", Decision: DecisionRejected, Class: "speaker", Box: &box},
	}}
	got := sp.reviewed(pr, legend)
	if len(sp.Detections) != 4 || sp.Detections[1].Class != "socket_outlet" || sp.Detections[0].Reviewed {
		t.Fatal("reviewed changed the stored (shared) page")
	}
	flat := 0.5
	f := detect.Filter{Flat: &flat}
	type row struct {
		id, class, decision string
		legendRow           int
	}
	var kept, all []row
	for _, d := range got.filtered(f, false) {
		kept = append(kept, row{d.ID, d.Class, d.Decision, d.LegendRow})
	}
	for _, d := range got.filtered(f, true) {
		all = append(all, row{d.ID, d.Class, d.Decision, d.LegendRow})
	}
	wantKept := []row{{"b", "speaker", "", 2}, {"c", "socket_outlet", DecisionAccepted, 1}, {"d", "socket_outlet", "", 1}, {"e", "speaker", DecisionAdded, 2}}
	if len(kept) != len(wantKept) {
		t.Fatalf("kept %v, want %v", kept, wantKept)
	}
	for i := range kept {
		if kept[i] != wantKept[i] {
			t.Errorf("kept[%d] = %v, want %v", i, kept[i], wantKept[i])
		}
	}
	if len(all) != 6 || all[0].id != "a" || all[0].decision != DecisionRejected || all[5].id != "f" {
		t.Errorf("with rejected: %v", all)
	}
	if got := legendRowOf(legend, 0, "no_row_class"); got != 0 {
		t.Errorf("legendRowOf(class without a row) = %d, want 0", got)
	}
}

func TestValidNormBox(t *testing.T) {
	for _, c := range []struct {
		b  BoxView
		ok bool
	}{
		{BoxView{0, 0, 1, 1}, true},
		{BoxView{0.5, 0.5, 0.5, 0.5}, true},
		{BoxView{0.5, 0.5, 0.6, 0.1}, false},
		{BoxView{-0.1, 0, 0.1, 0.1}, false},
		{BoxView{0, 0, 0, 0.1}, false},
		{BoxView{0, 0, 0.1, -0.1}, false},
	} {
		if got := validNormBox(c.b); got != c.ok {
			t.Errorf("validNormBox(%v) = %v, want %v", c.b, got, c.ok)
		}
	}
}
