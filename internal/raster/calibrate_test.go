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
// each network score is right (fitCalibration), and prints them for the
// model JSON ("long_look", "box_scale", "calibration", "class_calibration":
// score bins, precision per bin made monotone (pool adjacent violators),
// as (score, confidence) points) with the break-even threshold for the
// catalog's defaults. Run it on a set other than the one the README's
// figures come from. RASTER_DEV_MODEL swaps in another ONNX file of the same metadata.
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
		cc.ClassCalibration = nil
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
	scales := map[string][2]float64{}
	if m.Meta.Classifier != nil {
		scales = fitBoxScales(sheets)
		applyBoxScales(sheets, scales)
	}
	fit := fitCalibration(sheets)
	bs, _ := json.Marshal(scales)
	ll, _ := json.Marshal(longLook)
	js, _ := json.Marshal(fit.pooled)
	cc, _ := json.Marshal(fit.byClass)
	t.Logf("%s\n\"long_look\": %s,\n\"box_scale\": %s,\n\"calibration\": %s,\n\"class_calibration\": %s\ncatalog threshold (break-even): %.2f",
		strings.Join(fit.report, "\n"), ll, bs, js, cc, fit.breakEven)
}

// Calibration fit (fitCalibration). Scores fall in calBins bins. A class's
// own map counts its detections in each bin plus calPrior imagined ones
// right as often as the pooled map says there, so a class seen a few
// times keeps nearly the pooled map and one seen hundreds of times its
// own. The break-even threshold is searched in hundredths from
// breakEvenLo to breakEvenHi: not under 0.3, because a raster-only
// detection on a page the vector matcher read is scaled to at most 0.25
// (engine.Fuse) and must stay under every default threshold.
const (
	calBins     = 20
	calPrior    = 20
	breakEvenLo = 30
	breakEvenHi = 70
)

// calibrationFit is what fitCalibration measured.
type calibrationFit struct {
	pooled  Calibration
	byClass map[string]Calibration
	// breakEven is the lowest confidence threshold (after the class maps)
	// at which the detections kept are no more than the symbols: there a
	// take-off's count is right on average, and precision and recall are
	// about equal.
	breakEven float64
	report    []string
}

// fitCalibration measures, on sheets whose detections carry the network's
// score as their confidence, how often a detection of each score is right
// (its class, IoU >= 0.5, each symbol matched once, best score first):
// pooled over classes and per class (calPrior), both made monotone (pool
// adjacent violators) and written as (score, confidence) points; and the
// break-even threshold of the confidences they give.
func fitCalibration(sheets []calSheet) calibrationFit {
	type tally struct{ hit, all [calBins]float64 }
	var pooled tally
	byClass := map[string]*tally{}
	type scored struct {
		class string
		score float64
	}
	var dets []scored
	gtTotal, anyClass := 0, 0
	for _, sh := range sheets {
		ds, syms := slices.Clone(sh.dets), sh.syms
		gtTotal += len(syms)
		used := make([]bool, len(syms))
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].Confidence > ds[j].Confidence })
		for _, s := range syms { // would the box be found if the class did not matter?
			for _, x := range ds {
				if x.Box.IoU(s.box()) >= 0.5 {
					anyClass++
					break
				}
			}
		}
		for _, x := range ds {
			b := min(int(x.Confidence*calBins), calBins-1)
			tc := byClass[x.Class]
			if tc == nil {
				tc = &tally{}
				byClass[x.Class] = tc
			}
			pooled.all[b]++
			tc.all[b]++
			dets = append(dets, scored{x.Class, x.Confidence})
			for i, s := range syms {
				if !used[i] && s.Class == x.Class && x.Box.IoU(s.box()) >= 0.5 {
					used[i] = true
					pooled.hit[b]++
					tc.hit[b]++
					break
				}
			}
		}
	}
	fit := calibrationFit{byClass: map[string]Calibration{}}
	fit.report = append(fit.report, fmt.Sprintf("%d symbols, %d of them under a detection of any class (IoU >= 0.5)", gtTotal, anyClass))
	cum := 0.0
	for b := calBins - 1; b >= 0; b-- {
		cum += pooled.hit[b]
		fit.report = append(fit.report, fmt.Sprintf("score >= %.2f: %5.0f detections, %5.0f right, recall so far %.3f",
			float64(b)/calBins, pooled.all[b], pooled.hit[b], cum/float64(max(gtTotal, 1))))
	}
	prec := monotone(pooled.hit[:], pooled.all[:])
	fit.pooled = calibrationPoints(prec, pooled.all[:])
	for class, tc := range byClass {
		var hit, all [calBins]float64
		for b := range calBins {
			hit[b] = tc.hit[b] + calPrior*prec[b]
			all[b] = tc.all[b] + calPrior
		}
		fit.byClass[class] = calibrationPoints(monotone(hit[:], all[:]), all[:])
	}
	conf := make([]float64, len(dets))
	for i, d := range dets {
		conf[i] = fit.byClass[d.class].At(d.score)
	}
	fit.breakEven = breakEvenHi / 100.0
	for th := breakEvenLo; th <= breakEvenHi; th++ {
		kept := 0
		for _, c := range conf {
			if c >= float64(th)/100 {
				kept++
			}
		}
		if kept <= gtTotal {
			fit.breakEven = float64(th) / 100
			break
		}
	}
	return fit
}

// monotone returns each bin's precision hit/all with adjacent bins pooled
// where it would fall as the score rises (pool adjacent violators); empty
// bins take their neighbours' pooled value.
func monotone(hit, all []float64) []float64 {
	type block struct {
		hit, all float64
		lo, hi   int
	}
	var blocks []block
	for b := range hit {
		if all[b] == 0 {
			continue
		}
		blocks = append(blocks, block{hit[b], all[b], b, b})
		for len(blocks) > 1 {
			n := len(blocks)
			p, q := blocks[n-2], blocks[n-1]
			if p.hit/p.all <= q.hit/q.all {
				break
			}
			blocks = append(blocks[:n-2], block{p.hit + q.hit, p.all + q.all, p.lo, q.hi})
		}
	}
	out := make([]float64, len(hit))
	for i, bl := range blocks { // each block reaches to the next one's first bin
		lo, hi := bl.lo, len(hit)-1
		if i == 0 {
			lo = 0
		}
		if i+1 < len(blocks) {
			hi = blocks[i+1].lo - 1
		}
		for b := lo; b <= hi; b++ {
			out[b] = bl.hit / bl.all
		}
	}
	return out
}

// calibrationPoints writes monotone per-bin precision as calibration
// points: (0, 0), each run of equal precision at the middle of its
// non-empty bins, and (1, at least 1's due).
func calibrationPoints(prec, all []float64) Calibration {
	pts := Calibration{{0, 0}}
	n := len(prec)
	for lo := 0; lo < n; {
		hi := lo
		for hi+1 < n && prec[hi+1] == prec[lo] {
			hi++
		}
		first, last := -1, -1
		for b := lo; b <= hi; b++ {
			if all[b] > 0 {
				if first < 0 {
					first = b
				}
				last = b
			}
		}
		if first >= 0 {
			mid := math.Round(1000*(float64(first)+float64(last)+1)/2/float64(n)) / 1000
			p := math.Round(1000*prec[lo]) / 1000
			if l := pts[len(pts)-1]; mid > l[0] && p >= l[1] {
				pts = append(pts, [2]float64{mid, p})
			}
		}
		lo = hi + 1
	}
	return append(pts, [2]float64{1, math.Max(pts[len(pts)-1][1], 1)})
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

// TestFitCalibration: a class right more often than the others at a given
// score gets a higher confidence there than the pooled map gives, one right
// less often a lower one, and a class seen a few times nearly the pooled
// map; the break-even threshold keeps no more detections than there are
// symbols, and a hundredth lower would keep more.
func TestFitCalibration(t *testing.T) {
	var sheet calSheet
	x := 0.0
	add := func(class string, score float64, right bool) {
		d := detect.Detection{Class: class, Confidence: score, Box: detect.Box{X: x, Y: 0, W: 30, H: 30}}
		sheet.dets = append(sheet.dets, d)
		if right {
			s := truthSymbol{Class: class}
			s.B.X, s.B.Width, s.B.Height = x, 30, 30
			sheet.syms = append(sheet.syms, s)
		}
		x += 100
	}
	for b := 2; b < calBins; b++ {
		s := (float64(b) + 0.5) / calBins
		for i := range 50 {
			add("smoke_detector", s, float64(i) < 50*min(1, s+0.3))
			add("heat_detector", s, float64(i) < 50*max(0, s-0.3))
		}
	}
	add("fan", 0.475, false)
	add("fan", 0.475, false)
	for range 300 { // symbols no detection lies on
		s := truthSymbol{Class: "smoke_detector"}
		s.B.X, s.B.Y, s.B.Width, s.B.Height = x, 500, 30, 30
		sheet.syms = append(sheet.syms, s)
		x += 100
	}
	fit := fitCalibration([]calSheet{sheet})
	pooled := fit.pooled.At(0.475)
	if smoke, heat := fit.byClass["smoke_detector"].At(0.475), fit.byClass["heat_detector"].At(0.475); smoke < pooled+0.2 || heat > pooled-0.2 {
		t.Errorf("at score 0.475: smoke detector %.3f, heat detector %.3f, pooled %.3f; want them 0.3 above and below", smoke, heat, pooled)
	}
	if fan := fit.byClass["fan"].At(0.475); math.Abs(fan-pooled) > 0.1 {
		t.Errorf("at score 0.475: fan (two detections) %.3f, pooled %.3f", fan, pooled)
	}
	for class, c := range fit.byClass {
		if err := c.check(); err != nil {
			t.Errorf("%s: %v", class, err)
		}
	}
	kept := func(th float64) int {
		n := 0
		for _, d := range sheet.dets {
			if fit.byClass[d.Class].At(d.Confidence) >= th {
				n++
			}
		}
		return n
	}
	th := fit.breakEven
	if th <= breakEvenLo/100.0 || th >= breakEvenHi/100.0 {
		t.Fatalf("break-even %.2f at a bound of the search; the test should place it inside", th)
	}
	if k := kept(th); k > len(sheet.syms) {
		t.Errorf("break-even %.2f keeps %d detections, more than the %d symbols", th, k, len(sheet.syms))
	}
	if k := kept(th - 0.01); k <= len(sheet.syms) {
		t.Errorf("a hundredth under the break-even %.2f keeps %d detections, no more than the %d symbols", th, k, len(sheet.syms))
	}
}
