package raster

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/raster/rastertest"
)

// TestDevCalibrate measures, on a labelled raster set (make
// calibrate-raster; skipped unless RASTER_CALIBRATE_DATA names one) the
// classes the classifier should look long at (fitLongLook: the set is
// detected without and with the long look for every class, and a third
// time with the chosen classes), the classifier's box corrections
// (fitBoxScales) and then, with both applied, how often a detection of
// each network score is right, and prints all three for the model JSON
// ("long_look", "box_scale", "calibration"): score bins, precision
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
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	// detectAll runs the model on every sheet, the classifier looking long
	// at the given classes.
	detectAll := func(longLook []string) []calSheet {
		if c := m.Meta.Classifier; c != nil {
			c.LongLook = longLook
		}
		d, err := NewWithModel(Config{Library: rastertest.Library(t)}, m)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		var sheets []calSheet
		for _, js := range files {
			if dets, syms, ok := detectSheet(t, d, js); ok {
				sheets = append(sheets, calSheet{dets, syms})
			}
		}
		return sheets
	}
	sheets := detectAll(nil)
	var longLook []string
	if m.Meta.Classifier != nil {
		looked := detectAll(m.Meta.Classes)
		var report []string
		longLook, report = fitLongLook(sheets, looked)
		t.Logf("long look, symbols under a detection of their class:\n%s", strings.Join(report, "\n"))
		switch len(longLook) {
		case len(m.Meta.Classes):
			sheets = looked
		case 0:
		default:
			sheets = detectAll(longLook)
		}
	}
	const bins = 20
	var hit, all [bins]int
	gtTotal, anyClass := 0, 0
	scales := map[string][2]float64{}
	if m.Meta.Classifier != nil {
		scales = fitBoxScales(sheets)
		applyBoxScales(sheets, scales)
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
	ll, _ := json.Marshal(longLook)
	t.Logf("%d symbols, %d of them under a detection of any class (IoU >= 0.5)\n%s\n\"long_look\": %s,\n\"box_scale\": %s,\n\"calibration\": %s", gtTotal, anyClass, strings.Join(lines, "\n"), ll, bs, js)
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

// applyBoxScales applies the box corrections to the sheets' detections.
func applyBoxScales(sheets []calSheet, scales map[string][2]float64) {
	for _, sh := range sheets {
		for i, x := range sh.dets {
			if f, ok := scales[x.Class]; ok {
				sh.dets[i].Box = scaleBox(x.Box, f)
			}
		}
	}
}

// fitLongLook compares the same sheets detected without the long look
// (plain) and with it for every class (looked), each with its own box
// corrections (fitBoxScales), symbol by symbol: a symbol is matched when a
// detection of its class scoring boxFitScore or more lies on it at IoU
// 0.5. It returns, sorted, the classes the long look helps beyond chance:
// more of their symbols matched only with it (up) than only without it
// (down), by at least two standard deviations of a fair coin's difference
// (up - down >= 2·sqrt(up + down), a sign test); and a line for each class
// with any such symbol. A single yes or no per class is not a fit on a
// grid as the box corrections are, so the sign test, not their share
// (boxFitGain), guards it against chance.
func fitLongLook(plain, looked []calSheet) (classes, report []string) {
	matched := func(sheets []calSheet) [][]bool {
		sheets = cloneSheets(sheets)
		applyBoxScales(sheets, fitBoxScales(sheets))
		out := make([][]bool, len(sheets))
		for i, sh := range sheets {
			out[i] = make([]bool, len(sh.syms))
			for j, s := range sh.syms {
				for _, x := range sh.dets {
					if x.Class == s.Class && x.Confidence >= boxFitScore && x.Box.IoU(s.box()) >= 0.5 {
						out[i][j] = true
						break
					}
				}
			}
		}
		return out
	}
	a, b := matched(plain), matched(looked)
	up, down := map[string]int{}, map[string]int{}
	for i, sh := range plain {
		for j, s := range sh.syms {
			switch {
			case b[i][j] && !a[i][j]:
				up[s.Class]++
			case a[i][j] && !b[i][j]:
				down[s.Class]++
			}
		}
	}
	seen := map[string]bool{}
	for _, m := range []map[string]int{up, down} {
		for class := range m {
			seen[class] = true
		}
	}
	for class := range seen {
		u, d := up[class], down[class]
		report = append(report, fmt.Sprintf("%s: %d symbols matched only with the long look, %d only without", class, u, d))
		if u > d && float64(u-d) >= 2*math.Sqrt(float64(u+d)) {
			classes = append(classes, class)
		}
	}
	sort.Strings(classes)
	sort.Strings(report)
	return classes, report
}

// cloneSheets copies the sheets' detections (the symbols are shared).
func cloneSheets(sheets []calSheet) []calSheet {
	out := make([]calSheet, len(sheets))
	for i, sh := range sheets {
		out[i] = calSheet{append([]detect.Detection(nil), sh.dets...), sh.syms}
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

// TestFitLongLook: a class whose boxes the long look brings from under a
// third of their symbols' length (too short for any box correction) to the
// whole is chosen; one it leaves as they were, one it makes worse, and one
// it helps on too few symbols to tell from chance (the sign test) are not.
func TestFitLongLook(t *testing.T) {
	var plain, looked calSheet
	add := func(class string, n int, truth, before, after detect.Box) {
		for range n {
			dy := float64(100 * len(plain.syms))
			s := truthSymbol{Class: class}
			s.B.X, s.B.Y, s.B.Width, s.B.Height = truth.X, truth.Y+dy, truth.W, truth.H
			plain.syms = append(plain.syms, s)
			looked.syms = append(looked.syms, s)
			for sh, b := range map[*calSheet]detect.Box{&plain: before, &looked: after} {
				sh.dets = append(sh.dets, detect.Detection{Class: class, Confidence: 0.9, Box: detect.Box{X: b.X, Y: b.Y + dy, W: b.W, H: b.H}})
			}
		}
	}
	long, short := detect.Box{X: 0, Y: 0, W: 100, H: 20}, detect.Box{X: 35, Y: 0, W: 30, H: 20}
	add("beam_detector", 40, long, short, long)
	add("smoke_detector", 40, detect.Box{W: 30, H: 30}, detect.Box{W: 30, H: 30}, detect.Box{W: 30, H: 30})
	add("electric_heater", 40, long, long, short)
	add("luminaire_linear", 3, long, short, long)
	if got, _ := fitLongLook([]calSheet{plain}, []calSheet{looked}); !slices.Equal(got, []string{"beam_detector"}) {
		t.Errorf("long look for %v, want [beam_detector]", got)
	}
}
