package raster

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/glyph"
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

// TestSettledWindows: in the passes over the fixture scans' true boxes,
// a window the first pass names confidently with a box that hardly moved
// is not cut again (settleScore), the rest are, and what comes back still
// names the symbols as Verify does.
func TestSettledWindows(t *testing.T) {
	d := newDetector(t)
	cm := d.Meta().Classifier
	if cm == nil {
		t.Skip("the committed model has no classifier")
	}
	files, _ := filepath.Glob("../../testdata/synth/scan-*.json")
	var boxes, cuts, settled, kept, right, total int
	for _, js := range files {
		_, syms, ok := runSheet(t, js, func(page detect.Page, syms []truthSymbol) ([]detect.Detection, error) {
			g := luma(page.Raster)
			in := make([]detect.Box, len(syms))
			for i, s := range syms {
				in[i] = s.box()
			}
			named, err := d.name(context.Background(), in, 2, cm.refineViews(), cm.views(), false, func(w window, dst []float32) {
				cuts++
				g.resample(dst, w, cm.Input.Size)
			}, g.w, g.h)
			if err != nil {
				return nil, err
			}
			boxes += len(in)
			kept += len(named)
			for _, c := range named {
				if slices.Contains(in, c.from) {
					settled++
					if c.score < settleScore || c.box.IoU(c.from) < settleIoU {
						t.Errorf("settled %+v: score %.3f, IoU %.3f with its window's box", c.box, c.score, c.box.IoU(c.from))
					}
				}
			}
			for _, s := range syms {
				total++
				for _, c := range named {
					if d.Meta().Classes[c.class] == s.Class && c.box.IoU(s.box()) >= 0.5 {
						right++
						break
					}
				}
			}
			return nil, nil
		})
		if !ok || len(syms) == 0 {
			t.Fatalf("%s: not a sheet's ground truth", js)
		}
	}
	t.Logf("%d boxes: %d settled after the first pass, %d windows cut in all, %d of %d symbols named right", boxes, settled, cuts, right, total)
	if settled == 0 || settled == boxes {
		t.Errorf("%d of %d windows settled, want some and not all", settled, boxes)
	}
	// Every box is cut once; a second time only those the first pass kept
	// and did not settle, which includes every unsettled one named.
	if second := cuts - boxes; second > boxes-settled || second < kept-settled {
		t.Errorf("%d windows cut in the second pass, want %d..%d", second, kept-settled, boxes-settled)
	}
	if share := float64(right) / float64(max(total, 1)); share < minVerifyShare {
		t.Errorf("%.3f of the true boxes named right, want at least %.2f", share, minVerifyShare)
	}
}

// drawGlyph draws the catalog glyph of class, unit pixels a glyph unit and
// its strokes pen pixels wide, centred on a white w×h page, and returns
// the page and the glyph's box on it (stroke centrelines, as the
// generator's ground truth).
func drawGlyph(t *testing.T, class string, unit, pen float64, w, h int) (*image.Gray, detect.Box) {
	t.Helper()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	s, ok := cat.Lookup(class)
	if !ok {
		t.Fatalf("no class %s", class)
	}
	lo, hi := s.Glyph.Bounds()
	cx, cy := float64(w)/2, float64(h)/2
	at := func(p glyph.Point) (float64, float64) {
		return cx + (p.X-(lo.X+hi.X)/2)*unit, cy + (p.Y-(lo.Y+hi.Y)/2)*unit
	}
	img := newBlank(w, h)
	r := pen / 2
	for _, line := range s.Glyph.Polylines(0.05) {
		for i := 1; i < len(line); i++ {
			x0, y0 := at(line[i-1])
			x1, y1 := at(line[i])
			steps := int(math.Hypot(x1-x0, y1-y0)) + 1
			for k := 0; k <= steps; k++ {
				f := float64(k) / float64(steps)
				px, py := x0+(x1-x0)*f, y0+(y1-y0)*f
				for y := int(py - r); y <= int(py+r)+1; y++ {
					for x := int(px - r); x <= int(px+r)+1; x++ {
						if math.Hypot(float64(x)+0.5-px, float64(y)+0.5-py) <= r {
							img.SetGray(x, y, color.Gray{})
						}
					}
				}
			}
		}
	}
	x0, y0 := at(lo)
	x1, y1 := at(hi)
	return img, detect.Box{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// TestLongLook: a beam detector (two boxes joined by a dashed line) named
// with a box over the middle of its length, too short to match it, gets its
// length from the long look and keeps its width; a class the classifier
// does not look long at keeps its box, and so does a window the long look
// names otherwise.
func TestLongLook(t *testing.T) {
	d := newDetector(t)
	cm := d.Meta().Classifier
	if cm == nil {
		t.Skip("the committed model has no classifier")
	}
	beam := slices.Index(d.meta.Classes, "beam_detector")
	smoke := slices.Index(d.meta.Classes, "smoke_detector")
	img, truth := drawGlyph(t, "beam_detector", 12, 2.5, 480, 240)
	g := luma(img)
	crop := func(w window, dst []float32) { g.resample(dst, w, cm.Input.Size) }
	short := detect.Box{X: truth.X + truth.W*0.3, Y: truth.Y - 2, W: truth.W * 0.4, H: truth.H + 4}
	if v := short.IoU(truth); v >= 0.5 {
		t.Fatalf("the short box already matches: IoU %.2f", v)
	}
	d.longLook = map[int]bool{beam: true}
	got, err := d.lookLong(context.Background(), []cand{
		{class: beam, score: 0.9, box: short},
		{class: smoke, score: 0.9, box: short},
	}, crop, g.w, g.h)
	if err != nil {
		t.Fatal(err)
	}
	if b := got[0].box; b.IoU(truth) < 0.5 || b.Y != short.Y || b.H != short.H || got[0].score != 0.9 {
		t.Errorf("beam detector: box %+v (IoU %.2f with %+v), score %v; want its length found, its width and score kept", b, b.IoU(truth), truth, got[0].score)
	}
	if got[1].box != short {
		t.Errorf("smoke detector: box %+v, want %+v (no long look)", got[1].box, short)
	}
	d.longLook = map[int]bool{smoke: true}
	if got, err := d.lookLong(context.Background(), []cand{{class: smoke, score: 0.9, box: short}}, crop, g.w, g.h); err != nil || got[0].box != short {
		t.Errorf("a beam detector named smoke detector: box %+v (err %v), want %+v: the long look names it otherwise", got[0].box, err, short)
	}
}

// newBlank returns a white w×h page.
func newBlank(w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	return img
}
