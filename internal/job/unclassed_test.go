package job

import (
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
)

// TestUnclassedRowsCounted: what the glyph of a legend row of no class
// finds is kept (whatever the job's models), stored apart from the
// page's detections, kept through reviews, and counted under its row by
// the read filter; a find of no row and no class is dropped.
func TestUnclassedRowsCounted(t *testing.T) {
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{cfg: Config{Catalog: cat}}
	model, _ := cat.Model("socket_outlet")
	j := &Job{Models: []string{model}}
	in := []detect.Detection{
		{Class: "socket_outlet", Confidence: 0.9, LegendRow: 1},
		{Class: "", Confidence: 0.9, LegendRow: 2},
		{Class: "", Confidence: 0.05, LegendRow: 2},
		{Class: "", Confidence: 0.9},
	}
	got := s.ofModels(j, in)
	if len(got) != 3 || got[1].LegendRow != 2 || got[2].Confidence != 0.05 {
		t.Fatalf("ofModels kept %+v", got)
	}
	sp := storedPage{
		Detections: []storedDetection{{ID: "a", Class: "socket_outlet", Confidence: 0.9, LegendRow: 1}},
		Unclassed:  []storedDetection{{ID: "b", Confidence: 0.9, LegendRow: 2}, {ID: "c", Confidence: 0.05, LegendRow: 2}},
	}
	legend := []LegendRow{{Description: "socket", Class: "socket_outlet"}, {Description: "Hydroboil"}}
	rv := sp.reviewed(&PageReviews{Reviews: []Review{{DetectionID: "a", Decision: DecisionRejected}}}, legend)
	if len(rv.Unclassed) != 2 {
		t.Fatalf("reviews dropped the finds of rows of no class: %+v", rv)
	}
	f := detect.DefaultFilter(cat.Threshold)
	views := []LegendView{{Description: "socket"}, {Description: "Hydroboil"}}
	countRows(views, storedPage{Detections: rv.Unclassed}.visible(f), func(l *LegendView, _ storedDetection) { l.Detected++ })
	if views[0].Detected != 0 || views[1].Detected != 1 {
		t.Fatalf("detected %d, %d; want 0, 1 (the find under the stored floor left out)", views[0].Detected, views[1].Detected)
	}
	for _, d := range rv.visible(f) {
		if d.Class == "" {
			t.Fatalf("a find of no class listed among detections: %+v", d)
		}
	}
}
