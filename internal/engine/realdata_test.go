package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/drawing"
)

// drawingPage serves a drawing read by the document pass as a page's
// vector side, so the test needs no raster.
type drawingPage struct{ pg *drawing.Page }

func (d drawingPage) Drawing(context.Context) (*drawing.Page, error) { return d.pg, nil }

// countRealData runs the document pass and the page pass over a real PDF
// and returns the detections per class at the catalog's default thresholds.
func countRealData(t *testing.T, name string) (map[string]int, detect.DocumentInfo) {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "realdata", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("real drawing %s not available (%v): the real-data check runs where ../shared/realdata is present", name, err)
	}
	if testing.Short() {
		t.Skip("real drawings are slow; skipped with -short")
	}
	ctx := context.Background()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := New(cat)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	pe, info, err := eng.Prepare(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for i := range doc.NumPages() {
		pg, err := doc.Drawing(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := pe.Detect(ctx, detect.Page{Index: i, PDF: drawingPage{pg}})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if th, _ := cat.Threshold(d.Class); d.Confidence >= th {
				counts[d.Class]++
			}
		}
	}
	return counts, info
}

// within is the tolerance on a printed quantity: exact below 10,
// within 1 from 10 to 29, within 5 % from 30 up.
func within(got, want int) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	switch {
	case want < 10:
		return d == 0
	case want < 30:
		return d <= 1
	}
	return float64(d) <= 0.05*float64(want)
}

// TestRealDataFireAlarmLegend: the US fire-alarm set's F0 legend prints a
// quantity per row; every class with a printed quantity is counted within
// tolerance (../shared/realdata/README.md lists the mapping).
func TestRealDataFireAlarmLegend(t *testing.T) {
	counts, info := countRealData(t, "fire_alarm_us_cp4.pdf")
	printed := map[string]int{
		"fire_alarm_panel": 1, "power_supply": 1, "fire_brigade_panel": 1, "alarm_transmitter": 1,
		"manual_call_point": 11, "smoke_detector": 1, "duct_detector": 4, "io_module": 6,
		"speaker_visual": 53, "visual_alarm": 4, "speaker": 4, "sounder_visual": 1,
	}
	for class, want := range printed {
		if got := counts[class]; !within(got, want) {
			t.Errorf("%s: detected %d, printed %d", class, got, want)
		}
	}
	for class, n := range counts {
		if _, ok := printed[class]; !ok {
			t.Errorf("%s: %d detections of a class the legend does not list", class, n)
		}
	}
	wantKinds := []string{detect.KindLegend, detect.KindFloorPlan, detect.KindFloorPlan, detect.KindSchedule, detect.KindRiser}
	for i, k := range wantKinds {
		if i >= len(info.Kinds) || info.Kinds[i] != k {
			t.Errorf("page kinds %v, want %v", info.Kinds, wantKinds)
			break
		}
	}
	if len(info.Legend) != 19 {
		t.Errorf("%d legend rows, want the 19 symbol rows of F0", len(info.Legend))
	}
	t.Logf("detected %v", counts)
}
