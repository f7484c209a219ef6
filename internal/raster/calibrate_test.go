package raster

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/raster/rastertest"
)

// TestDevCalibrate measures, on a labelled raster set (make
// calibrate-raster; skipped unless RASTER_CALIBRATE_DATA names one), the
// classifier's box corrections (fitBoxScales) and then, with them applied,
// how often a detection of each network score is right, and prints both
// for the model JSON ("box_scale", "calibration"): score bins, precision
// per bin made monotone (pool adjacent violators), as (score, confidence)
// points. Run it on a set other than the one the README's figures come
// from. RASTER_DEV_MODEL swaps in another ONNX file of the same metadata.
func TestDevCalibrate(t *testing.T) {
	dir := os.Getenv("RASTER_CALIBRATE_DATA")
	if dir == "" {
		t.Skip("RASTER_CALIBRATE_DATA not set")
	}
	m := devModel(t)
	identity := Calibration{{0, 0}, {1, 1}} // confidence = score
	if c := m.Meta.Classifier; c != nil {
		cc := *c
		cc.ScoreThreshold = 0.05
		cc.Calibration = identity
		cc.BoxScale = nil
		m.Meta.Classifier = &cc
	} else {
		m.Meta.ScoreThreshold = 0.05
		m.Meta.Calibration = identity
	}
	d, err := NewWithModel(Config{Library: rastertest.Library(t)}, m)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const bins = 20
	var hit, all [bins]int
	gtTotal, anyClass := 0, 0
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	var sheets []calSheet
	for _, js := range files {
		if dets, syms, ok := detectSheet(t, d, js); ok {
			sheets = append(sheets, calSheet{dets, syms})
		}
	}
	scales := map[string][2]float64{}
	if m.Meta.Classifier != nil {
		scales = fitBoxScales(sheets)
		for _, sh := range sheets {
			for i, x := range sh.dets {
				if f, ok := scales[x.Class]; ok {
					sh.dets[i].Box = scaleBox(x.Box, f)
				}
			}
		}
	}
	for _, sh := range sheets {
		dets, syms := sh.dets, sh.syms
		gtTotal += len(syms)
		used := make([]bool, len(syms))
		sort.SliceStable(dets, func(i, j int) bool { return dets[i].Confidence > dets[j].Confidence })
		for _, s := range syms { // would the box be found if the class did not matter?
			for _, x := range dets {
				if x.Box.IoU(s.box()) >= 0.5 {
					anyClass++
					break
				}
			}
		}
		for _, x := range dets {
			b := min(int(x.Confidence*bins), bins-1)
			all[b]++
			for i, s := range syms {
				if !used[i] && s.Class == x.Class && x.Box.IoU(s.box()) >= 0.5 {
					used[i] = true
					hit[b]++
					break
				}
			}
		}
	}
	// Pool adjacent violators: precision must not fall as the score rises.
	type block struct{ hit, all, lo, hi int }
	var blocks []block
	for b := 0; b < bins; b++ {
		if all[b] == 0 {
			continue
		}
		blocks = append(blocks, block{hit[b], all[b], b, b})
		for len(blocks) > 1 {
			n := len(blocks)
			p, q := blocks[n-2], blocks[n-1]
			if float64(p.hit)/float64(p.all) <= float64(q.hit)/float64(q.all) {
				break
			}
			blocks = append(blocks[:n-2], block{p.hit + q.hit, p.all + q.all, p.lo, q.hi})
		}
	}
	var lines []string
	pts := [][2]float64{{0, 0}}
	cum := 0
	for b := bins - 1; b >= 0; b-- {
		cum += hit[b]
		lines = append(lines, fmt.Sprintf("score >= %.2f: %5d detections, %5d right, recall so far %.3f", float64(b)/bins, all[b], hit[b], float64(cum)/float64(max(gtTotal, 1))))
	}
	for _, bl := range blocks {
		mid := (float64(bl.lo) + float64(bl.hi) + 1) / 2 / bins
		p := math.Round(1000*float64(bl.hit)/float64(bl.all)) / 1000
		if last := pts[len(pts)-1]; mid > last[0] && p >= last[1] {
			pts = append(pts, [2]float64{math.Round(mid*1000) / 1000, p})
		}
	}
	pts = append(pts, [2]float64{1, math.Max(pts[len(pts)-1][1], 1)})
	js, _ := json.Marshal(pts)
	bs, _ := json.Marshal(scales)
	t.Logf("%d symbols, %d of them under a detection of any class (IoU >= 0.5)\n%s\n\"box_scale\": %s,\n\"calibration\": %s", gtTotal, anyClass, strings.Join(lines, "\n"), bs, js)
}

// calSheet is one sheet's detections (raw scores) and labelled symbols.
type calSheet struct {
	dets []detect.Detection
	syms []truthSymbol
}

// Box-correction fit (fitBoxScales): a class is corrected when at least
// boxFitMin of its symbols lie under a detection of their class scoring
// boxFitScore or more at IoU boxFitNear or more, and the best factors on
// the grid bring at least boxFitGain more of them (as a share) to IoU 0.5,
// the evaluation's match. The grid is in twentieths (steps of 0.05): the
// longer side's factor 0.8..1.6, the shorter's 0.7..1.3.
const (
	boxFitMin   = 30
	boxFitScore = 0.3
	boxFitNear  = 0.2
	boxFitGain  = 0.02

	boxFitLongLo, boxFitLongHi   = 16, 32
	boxFitShortLo, boxFitShortHi = 14, 26
)

// fitBoxScales finds, per class, the factors of a detection's longer and
// shorter side (ClassifierMeta.BoxScale) that bring the most of its
// symbols' best detections of their class to IoU >= 0.5 with them, and
// returns those that gain enough (boxFitGain) over no correction.
func fitBoxScales(sheets []calSheet) map[string][2]float64 {
	type pair struct{ truth, det detect.Box }
	pairs := map[string][]pair{}
	for _, sh := range sheets {
		for _, s := range sh.syms {
			best, bestIoU := detect.Box{}, boxFitNear
			for _, x := range sh.dets {
				if x.Class == s.Class && x.Confidence >= boxFitScore {
					if v := x.Box.IoU(s.box()); v >= bestIoU {
						best, bestIoU = x.Box, v
					}
				}
			}
			if best.W > 0 {
				pairs[s.Class] = append(pairs[s.Class], pair{s.box(), best})
			}
		}
	}
	out := map[string][2]float64{}
	for class, ps := range pairs {
		if len(ps) < boxFitMin {
			continue
		}
		matched := func(f [2]float64) int {
			n := 0
			for _, p := range ps {
				if scaleBox(p.det, f).IoU(p.truth) >= 0.5 {
					n++
				}
			}
			return n
		}
		base := matched([2]float64{1, 1})
		best, bestN := [2]float64{1, 1}, base
		for l := boxFitLongLo; l <= boxFitLongHi; l++ {
			for sh := boxFitShortLo; sh <= boxFitShortHi; sh++ {
				f := [2]float64{float64(l) / 20, float64(sh) / 20}
				if n := matched(f); n > bestN {
					best, bestN = f, n
				}
			}
		}
		if float64(bestN-base) >= boxFitGain*float64(len(ps)) {
			out[class] = best
		}
	}
	return out
}

// TestFitBoxScales: a class whose detections are all drawn too small gets
// factors that bring them to IoU 0.5 with their symbols; a class boxed
// right, and one with too few symbols, get none.
func TestFitBoxScales(t *testing.T) {
	var sheet calSheet
	add := func(class string, n int, truth, det detect.Box) {
		for i := range n {
			dx := float64(200 * i)
			s := truthSymbol{Class: class}
			s.B.X, s.B.Y, s.B.Width, s.B.Height = truth.X+dx, truth.Y, truth.W, truth.H
			sheet.syms = append(sheet.syms, s)
			sheet.dets = append(sheet.dets, detect.Detection{Class: class, Confidence: 0.9, Box: detect.Box{X: det.X + dx, Y: det.Y, W: det.W, H: det.H}})
		}
	}
	// 100×50 symbols detected as 45×30 about the same centre: IoU 0.27.
	add("duct_detector", 40, detect.Box{X: 0, Y: 0, W: 100, H: 50}, detect.Box{X: 27.5, Y: 10, W: 45, H: 30})
	// Boxed right.
	add("smoke_detector", 40, detect.Box{X: 0, Y: 1000, W: 40, H: 40}, detect.Box{X: 1, Y: 1001, W: 39, H: 39})
	// Too few to measure.
	add("beam_detector", boxFitMin-1, detect.Box{X: 0, Y: 2000, W: 100, H: 50}, detect.Box{X: 27.5, Y: 2010, W: 45, H: 30})
	got := fitBoxScales([]calSheet{sheet})
	if len(got) != 1 {
		t.Fatalf("corrected %v, want duct_detector alone", got)
	}
	f, ok := got["duct_detector"]
	if !ok {
		t.Fatalf("corrected %v, want duct_detector", got)
	}
	if b := scaleBox(detect.Box{X: 27.5, Y: 10, W: 45, H: 30}, f); b.IoU(detect.Box{W: 100, H: 50}) < 0.5 {
		t.Errorf("factors %v give %+v, under IoU 0.5", f, b)
	}
}
