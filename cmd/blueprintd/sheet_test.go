package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// truth is the part of a generated sheet's ground truth this test reads.
type truth struct {
	Pages []struct {
		WidthPx  int `json:"width_px"`
		HeightPx int `json:"height_px"`
		Symbols  []struct {
			Class string             `json:"class"`
			BBox  map[string]float64 `json:"bbox_px"`
		} `json:"symbols"`
	} `json:"pages"`
}

func iou(a, b map[string]float64) float64 {
	x0, y0 := max(a["x"], b["x"]), max(a["y"], b["y"])
	x1, y1 := min(a["x"]+a["width"], b["x"]+b["width"]), min(a["y"]+a["height"], b["y"]+b["height"])
	if x1 <= x0 || y1 <= y0 {
		return 0
	}
	inter := (x1 - x0) * (y1 - y0)
	return inter / (a["width"]*a["height"] + b["width"]*b["height"] - inter)
}

// TestSyntheticSheetThroughAPI sends a generated vector sheet with known
// ground truth through the whole HTTP flow with the production engine and
// checks that the page geometry is the ground truth's and that the
// detections read back through the API land on the drawn symbols.
func TestSyntheticSheetThroughAPI(t *testing.T) {
	const stem = "../../testdata/synth/sheet-00001"
	data, err := os.ReadFile(stem + ".pdf")
	if err != nil {
		t.Skipf("fixture not available: %v", err)
	}
	raw, err := os.ReadFile(stem + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var gt truth
	if err := json.Unmarshal(raw, &gt); err != nil {
		t.Fatal(err)
	}
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	id, done := e.runJob(keyA, filepath.Base(stem)+".pdf", "application/pdf", data)
	if done["status"] != "done" {
		t.Fatalf("job: %v", done)
	}
	pages := done["pages"].([]any)
	if len(pages) != len(gt.Pages) {
		t.Fatalf("%d pages, ground truth has %d", len(pages), len(gt.Pages))
	}
	matched, predicted, total := 0, 0, 0
	for i, p := range pages {
		pm := p.(map[string]any)
		if int(pm["width_px"].(float64)) != gt.Pages[i].WidthPx || int(pm["height_px"].(float64)) != gt.Pages[i].HeightPx {
			t.Fatalf("page %d is %vx%v, ground truth %dx%d", i, pm["width_px"], pm["height_px"], gt.Pages[i].WidthPx, gt.Pages[i].HeightPx)
		}
		var dets []map[string]any
		for offset := 0; ; {
			m := e.do("GET", fmt.Sprintf("/v1/jobs/%s/pages/%d/detections?confidence=0&limit=2000&offset=%d", id, i, offset), keyA, nil, nil).JSON(t)
			for _, d := range m["detections"].([]any) {
				dets = append(dets, d.(map[string]any))
			}
			if m["next"] == nil {
				break
			}
			offset = int(m["next"].(float64))
		}
		used := make([]bool, len(dets))
		for _, s := range gt.Pages[i].Symbols {
			for k, d := range dets {
				if !used[k] && d["class"] == s.Class && iou(toBox(d["bbox_px"]), s.BBox) >= 0.5 {
					used[k] = true
					matched++
					break
				}
			}
		}
		predicted += len(dets)
		total += len(gt.Pages[i].Symbols)
	}
	t.Logf("synthetic sheet through the API: %d ground-truth symbols, %d detections, %d matched (IoU >= 0.5, same class)", total, predicted, matched)
	// The engine's accuracy is scored by make eval; here the API must
	// carry what the engine finds to the right place on the page.
	if total > 0 && matched*2 < total {
		t.Fatalf("only %d of %d symbols found through the API", matched, total)
	}
}

func toBox(v any) map[string]float64 {
	out := map[string]float64{}
	for k, x := range v.(map[string]any) {
		out[k] = x.(float64)
	}
	return out
}
