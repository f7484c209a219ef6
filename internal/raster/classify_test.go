package raster

import (
	"encoding/json"
	"os"
	"testing"

	"blueprint/internal/detect"
)

// TestResampleMatchesPillow: the classifier's crops are the pixels
// training/classifier.py trained on (Pillow's resize), within one 8-bit
// level, for crops that enlarge, shrink and reach past the page.
func TestResampleMatchesPillow(t *testing.T) {
	raw, err := os.ReadFile("testdata/resample-pillow.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Size, Width, Height int
		Context             float64
		Crops               []struct {
			Box  [4]float64
			Gray []int
		}
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	g := &gray{w: golden.Width, h: golden.Height, pix: make([]uint8, golden.Width*golden.Height)}
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			g.pix[y*g.w+x] = uint8((x*7 + y*13 + (x*y)%31) % 256)
		}
	}
	n := golden.Size
	for _, c := range golden.Crops {
		b := detect.Box{X: c.Box[0], Y: c.Box[1], W: c.Box[2] - c.Box[0], H: c.Box[3] - c.Box[1]}
		dst := make([]float32, n*n)
		g.resample(dst, cropWindow(b, golden.Context), n)
		worst := 0
		for i, v := range dst {
			got := 255 - int(v*255+0.5)
			worst = max(worst, abs(got-c.Gray[i]))
		}
		if worst > 1 {
			t.Errorf("box %v: a pixel differs from Pillow's by %d levels", c.Box, worst)
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestSuppressNested: a detection mostly inside a better one of its class
// goes; one of another class, or only touching, stays.
func TestSuppressNested(t *testing.T) {
	big := cand{class: 1, score: 0.9, box: detect.Box{X: 0, Y: 0, W: 100, H: 20}}
	part := cand{class: 1, score: 0.8, box: detect.Box{X: 10, Y: 2, W: 20, H: 16}}
	other := cand{class: 2, score: 0.7, box: detect.Box{X: 40, Y: 2, W: 20, H: 16}}
	edge := cand{class: 1, score: 0.6, box: detect.Box{X: 90, Y: 0, W: 40, H: 20}}
	got := suppressNested([]cand{big, part, other, edge}, nestedCover)
	if len(got) != 3 || got[0] != big || got[1] != other || got[2] != edge {
		t.Fatalf("kept %+v", got)
	}
}
