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

	"blueprint/internal/raster/rastertest"
)

// TestDevCalibrate measures how often a detection of each network score is
// right on a labelled raster set (make calibrate-raster; skipped unless
// RASTER_CALIBRATE_DATA names one) and prints the calibration for the
// model JSON: score bins, precision per bin made monotone (pool adjacent
// violators), as (score, confidence) points. Run it on a set other than
// the one the README's figures come from. RASTER_DEV_MODEL swaps in another
// ONNX file of the same metadata.
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
	for _, js := range files {
		dets, syms, ok := detectSheet(t, d, js)
		if !ok {
			continue
		}
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
	t.Logf("%d symbols, %d of them under a detection of any class (IoU >= 0.5)\n%s\n\"calibration\": %s", gtTotal, anyClass, strings.Join(lines, "\n"), js)
}
