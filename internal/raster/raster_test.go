package raster

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/raster/rastertest"
)

func newDetector(t *testing.T) *Detector {
	t.Helper()
	d, err := New(Config{Library: rastertest.Library(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestEmbeddedModel: the committed ONNX file is the one its JSON names, and
// the model's classes are the catalog's, in order.
func TestEmbeddedModel(t *testing.T) {
	model, err := EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	m := model.Meta
	if len(model.Detector)+len(model.Classifier) > 8<<20 {
		t.Errorf("networks are %d bytes; keep them a few MB", len(model.Detector)+len(model.Classifier))
	}
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	syms := cat.Symbols()
	if len(m.Classes) != len(syms) {
		t.Fatalf("model has %d classes, catalog %d", len(m.Classes), len(syms))
	}
	for i, s := range syms {
		if m.Classes[i] != s.Class {
			t.Errorf("class %d: model %q, catalog %q", i, m.Classes[i], s.Class)
		}
	}
	if m.Overlap < 110 {
		t.Errorf("tile overlap %d px is not larger than the largest symbol (~110 px at 300 DPI)", m.Overlap)
	}
	bad := model
	bad.Detector = append([]byte(nil), model.Detector...)
	bad.Detector[len(bad.Detector)/2] ^= 1
	if err := bad.Check(); err == nil {
		t.Error("a changed detector passed the checksum")
	}
	if m.Classifier != nil {
		bad = model
		bad.Classifier = append([]byte(nil), model.Classifier...)
		bad.Classifier[len(bad.Classifier)/2] ^= 1
		if err := bad.Check(); err == nil {
			t.Error("a changed classifier passed the checksum")
		}
		bad.Classifier = nil
		if err := bad.Check(); err == nil {
			t.Error("metadata naming a classifier passed without one")
		}
	}
}

func TestParseMetaRejects(t *testing.T) {
	model, err := EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	m := model.Meta
	for name, mod := range map[string]func(*Meta){
		"no classes":        func(m *Meta) { m.Classes = nil },
		"tile not /16":      func(m *Meta) { m.Tile = 500 },
		"overlap too big":   func(m *Meta) { m.Overlap = m.Tile / 2 },
		"threshold 0":       func(m *Meta) { m.ScoreThreshold = 0 },
		"calibration short": func(m *Meta) { m.Calibration = [][2]float64{{0, 0}} },
		"calibration falls": func(m *Meta) { m.Calibration = [][2]float64{{0, 0}, {0.5, 0.8}, {1, 0.7}} },
		"page scale target above high": func(m *Meta) {
			m.PageScale = &PageScale{High: 10, Target: 12, MinScore: 0.5, MinProposals: 10}
		},
		"coarse look at full size": func(m *Meta) {
			m.CoarseLook = &CoarseLook{Factor: 1, MinSide: 80, MinScore: 0.3}
		},
		"coarse look without a side": func(m *Meta) {
			m.CoarseLook = &CoarseLook{Factor: 0.5, MinScore: 0.3}
		},
		"coarse look score 1": func(m *Meta) {
			m.CoarseLook = &CoarseLook{Factor: 0.5, MinSide: 80, MinScore: 1}
		},
		"coarse look without a classifier": func(m *Meta) {
			m.Classifier = nil
			m.CoarseLook = &CoarseLook{Factor: 0.5, MinSide: 80, MinScore: 0.3}
		},
	} {
		c := m
		mod(&c)
		js, _ := json.Marshal(c)
		if _, err := ParseMeta(js); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if m.Classifier != nil {
		for name, mod := range map[string]func(*ClassifierMeta){
			"classifier path":       func(c *ClassifierMeta) { c.Model = "../x.onnx" },
			"classifier input":      func(c *ClassifierMeta) { c.Input.Size = 50 },
			"classifier context":    func(c *ClassifierMeta) { c.Context = 0.5 },
			"classifier background": func(c *ClassifierMeta) { c.Background = 3 },
			"proposal threshold":    func(c *ClassifierMeta) { c.ProposalThreshold = 0 },
			"classifier views":      func(c *ClassifierMeta) { c.Views = maxViews + 1 },
			"refine views":          func(c *ClassifierMeta) { c.RefineViews = -1 },
			"classifier calibration": func(c *ClassifierMeta) {
				c.Calibration = Calibration{{0, 0.5}, {1, 0.4}}
			},
			"box scale of no class": func(c *ClassifierMeta) {
				c.BoxScale = map[string][2]float64{"no_such_class": {1.1, 1}}
			},
			"box scale too large": func(c *ClassifierMeta) {
				c.BoxScale = map[string][2]float64{m.Classes[0]: {maxBoxScale + 0.1, 1}}
			},
			"box scale zero": func(c *ClassifierMeta) {
				c.BoxScale = map[string][2]float64{m.Classes[0]: {1, 0}}
			},
			"class calibration of no class": func(c *ClassifierMeta) {
				c.ClassCalibration = map[string]Calibration{"no_such_class": {{0, 0}, {1, 1}}}
			},
			"class calibration falls": func(c *ClassifierMeta) {
				c.ClassCalibration = map[string]Calibration{m.Classes[0]: {{0, 0}, {0.5, 0.8}, {1, 0.7}}}
			},
			"long look of no class": func(c *ClassifierMeta) {
				c.LongLook = []string{m.Classes[0], "no_such_class"}
			},
		} {
			c := m
			cm := *m.Classifier
			mod(&cm)
			c.Classifier = &cm
			js, _ := json.Marshal(c)
			if _, err := ParseMeta(js); err == nil {
				t.Errorf("%s: accepted", name)
			}
		}
	}
}

// TestConfidence: a class with its own calibration is mapped through it,
// the others through the pooled one; without a classifier the detector's
// calibration maps every class.
func TestConfidence(t *testing.T) {
	m := Meta{
		Classes:     []string{"smoke_detector", "heat_detector"},
		Calibration: Calibration{{0, 0}, {1, 0.5}},
	}
	if got := m.Confidence("smoke_detector", 0.6); got != 0.3 {
		t.Errorf("detector alone: confidence %v, want 0.3", got)
	}
	m.Classifier = &ClassifierMeta{
		Calibration:      Calibration{{0, 0}, {1, 1}},
		ClassCalibration: map[string]Calibration{"smoke_detector": {{0, 0}, {0.5, 0.2}, {1, 1}}},
	}
	for _, c := range []struct {
		class       string
		score, want float64
	}{
		{"smoke_detector", 0.5, 0.2},
		{"smoke_detector", 0.75, 0.6},
		{"heat_detector", 0.5, 0.5},
		{"heat_detector", 0, 0},
	} {
		if got := m.Confidence(c.class, c.score); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s at %v: confidence %v, want %v", c.class, c.score, got, c.want)
		}
	}
}

// TestBoxScale: a class's box correction scales the longer side by the
// first factor and the shorter by the second, whichever way the box lies,
// about its centre; other classes and square boxes' sides are read as
// the box says (width first when equal).
func TestBoxScale(t *testing.T) {
	c := &ClassifierMeta{BoxScale: map[string][2]float64{"duct_detector": {1.2, 0.5}}}
	for _, tc := range []struct {
		class    string
		in, want detect.Box
	}{
		{"duct_detector", detect.Box{X: 100, Y: 100, W: 50, H: 20}, detect.Box{X: 95, Y: 105, W: 60, H: 10}},
		{"duct_detector", detect.Box{X: 100, Y: 100, W: 20, H: 50}, detect.Box{X: 105, Y: 95, W: 10, H: 60}},
		{"duct_detector", detect.Box{X: 0, Y: 0, W: 40, H: 40}, detect.Box{X: -4, Y: 10, W: 48, H: 20}},
		{"smoke_detector", detect.Box{X: 10, Y: 10, W: 50, H: 20}, detect.Box{X: 10, Y: 10, W: 50, H: 20}},
	} {
		if got := c.rescale(tc.class, tc.in); got != tc.want {
			t.Errorf("rescale(%s, %+v) = %+v, want %+v", tc.class, tc.in, got, tc.want)
		}
	}
	// The committed model's corrections are in force: a detection comes out
	// corrected and clipped to the page.
	m, err := EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	d := &Detector{meta: m.Meta}
	for class, f := range m.Meta.Classifier.BoxScale {
		ci := slices.Index(m.Meta.Classes, class)
		got := d.detections([]cand{{class: ci, score: 0.9, box: detect.Box{X: 0, Y: 100, W: 100, H: 40}}}, 1000, 1000)
		w, h := 100*f[0], 40*f[1]
		want := clip(detect.Box{X: 50 - w/2, Y: 120 - h/2, W: w, H: h}, 1000, 1000)
		if len(got) != 1 || got[0].Box != want {
			t.Errorf("%s: detection box %+v, want %+v", class, got, want)
		}
	}
}

// TestPositions: tiles are at most the tile size, a multiple of 16, cover
// every pixel, and every pixel is owned by exactly one tile, about half the
// overlap or more from that tile's inner edges.
func TestPositions(t *testing.T) {
	for _, n := range []int{100, 512, 513, 900, 1024, 1025, 1754, 4961, 7016} {
		org, l, own := positions(n, 1024, 128)
		if l > 1024 || l%16 != 0 || (len(org) == 1 && l < n) {
			t.Fatalf("n=%d: %d tiles of %d", n, len(org), l)
		}
		if want := max(1, (n-128+1024-128-1)/(1024-128)); len(org) != want {
			t.Fatalf("n=%d: %d tiles, want %d", n, len(org), want)
		}
		for x := 0; x < n; x++ {
			covered, owners := false, 0
			for i, o := range org {
				if x >= o && x < o+l {
					covered = true
				}
				if x >= own[i][0] && x < own[i][1] {
					owners++
					if (i > 0 && x-o < 63) || (i < len(org)-1 && o+l-x < 63) {
						t.Fatalf("n=%d: pixel %d owned by tile at %d within half the overlap of its edge", n, x, o)
					}
				}
			}
			if !covered || owners != 1 {
				t.Fatalf("n=%d: pixel %d covered %v, %d owners", n, x, covered, owners)
			}
		}
	}
}

// TestBlankTiles: a blank (grey, noisy-free) page gives no tiles; a short
// faint stroke makes its tiles non-blank.
func TestBlankTiles(t *testing.T) {
	d := newDetector(t)
	img := image.NewGray(image.Rect(0, 0, 1500, 1100))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.Gray{Y: 215}), image.Point{}, draw.Src)
	if ts, _, _ := d.tiles(luma(img)); len(ts) != 0 {
		t.Fatalf("blank page: %d tiles", len(ts))
	}
	for x := 700; x < 720; x++ {
		img.SetGray(x, 300, color.Gray{Y: 150})
		img.SetGray(x, 301, color.Gray{Y: 150})
	}
	ts, _, _ := d.tiles(luma(img))
	if len(ts) == 0 || len(ts) > 4 {
		t.Fatalf("stroke page: %d tiles, want 1..4", len(ts))
	}
	dets, err := d.Detect(context.Background(), detect.Page{Width: 1500, Height: 1100, Raster: img})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range dets {
		if !x.Source.Detector || x.Source.VectorMatching {
			t.Errorf("source %+v", x.Source)
		}
	}
}

// TestLumaFormats: every decoded image type gives the same luma.
func TestLumaFormats(t *testing.T) {
	rgba := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range rgba.Pix {
		rgba.Pix[i] = uint8(i * 7)
	}
	for i := 3; i < len(rgba.Pix); i += 4 {
		rgba.Pix[i] = 255
	}
	want := luma(rgba)
	nrgba := image.NewNRGBA(rgba.Bounds())
	draw.Draw(nrgba, nrgba.Bounds(), rgba, image.Point{}, draw.Src)
	got := luma(nrgba)
	for i := range want.pix {
		if d := int(want.pix[i]) - int(got.pix[i]); d < -1 || d > 1 {
			t.Fatalf("pixel %d: RGBA %d, NRGBA %d", i, want.pix[i], got.pix[i])
		}
	}
}

// TestDetectFixtureScans runs the detector on the committed scan fixtures
// (150 DPI, degraded, never trained on) and scores it against their ground
// truth at the default per-class thresholds.
func TestDetectFixtureScans(t *testing.T) {
	d := newDetector(t)
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../testdata/synth/scan-*.json")
	if len(files) == 0 {
		t.Fatal("no scan fixtures")
	}
	var gt, tp, fp int
	for _, js := range files {
		dets, syms, ok := detectSheet(t, d, js)
		if !ok {
			t.Fatalf("%s: not a sheet's ground truth", js)
		}
		gt += len(syms)
		t1, f1 := scoreDetections(cat, dets, syms)
		tp, fp = tp+t1, fp+f1
	}
	p, r := float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(gt)
	t.Logf("fixture scans: %d symbols, %d true, %d false detections: precision %.3f recall %.3f", gt, tp, fp, p, r)
	if p < minFixturePrecision || r < minFixtureRecall {
		t.Errorf("precision %.3f, recall %.3f: want at least %.2f and %.2f", p, r, minFixturePrecision, minFixtureRecall)
	}
}

// scoreDetections counts the detections at or above their class's default
// threshold that match a symbol of syms (its class, IoU >= 0.5, each
// symbol once) and those that do not.
func scoreDetections(cat *catalog.Catalog, dets []detect.Detection, syms []truthSymbol) (tp, fp int) {
	used := make([]bool, len(syms))
	for _, x := range dets {
		if th, _ := cat.Threshold(x.Class); x.Confidence < th {
			continue
		}
		hit := false
		for i, s := range syms {
			if !used[i] && s.Class == x.Class && x.Box.IoU(s.box()) >= 0.5 {
				used[i], hit = true, true
				break
			}
		}
		if hit {
			tp++
		} else {
			fp++
		}
	}
	return tp, fp
}

// TestVerifyFixtureBoxes: given the true boxes of the fixture scans (as a
// vector matcher would give them), Verify names nearly all with their own
// class, one detection per box at most, its box refined near the true one.
func TestVerifyFixtureBoxes(t *testing.T) {
	d := newDetector(t)
	if d.Meta().Classifier == nil {
		t.Skip("the committed model has no classifier")
	}
	files, _ := filepath.Glob("../../testdata/synth/scan-*.json")
	var total, right int
	for _, js := range files {
		dets, syms, ok := runSheet(t, js, func(page detect.Page, syms []truthSymbol) ([]detect.Detection, error) {
			boxes := make([]detect.Box, len(syms))
			for i, s := range syms {
				boxes[i] = s.box()
			}
			return d.Verify(context.Background(), page, boxes)
		})
		if !ok {
			t.Fatalf("%s: not a sheet's ground truth", js)
		}
		if len(dets) > len(syms) {
			t.Fatalf("%s: %d detections for %d boxes", js, len(dets), len(syms))
		}
		total += len(syms)
		for _, s := range syms {
			for _, x := range dets {
				if x.Class == s.Class && x.Box.IoU(s.box()) >= 0.5 && x.Source.Detector {
					right++
					break
				}
			}
		}
	}
	share := float64(right) / float64(max(total, 1))
	t.Logf("fixture scans: %d of %d true boxes named with their class (%.3f)", right, total, share)
	if share < minVerifyShare {
		t.Errorf("%.3f of the true boxes verified, want at least %.2f", share, minVerifyShare)
	}
}

// minVerifyShare is below the measured share (README), so a broken crop or
// classifier fails while one symbol more or less does not.
const minVerifyShare = 0.93

// Floors for the fixture scans: below the model's measured figures
// (README), so a broken decoder or model fails while one symbol more or
// less does not.
const (
	minFixturePrecision = 0.90
	minFixtureRecall    = 0.85
)

// openPage opens an image through the document package, as a job does, and
// returns its page and the document's closer.
func openPage(t *testing.T, path string) (detect.Page, func()) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := document.Open(context.Background(), data, document.Sniff(data), document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	page, err := doc.Page(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return page, func() { doc.Close() }
}

// truthSymbol is one labelled symbol of a generated sheet.
type truthSymbol struct {
	Class string                                `json:"class"`
	B     struct{ X, Y, Width, Height float64 } `json:"bbox_px"`
}

func (s truthSymbol) box() detect.Box {
	return detect.Box{X: s.B.X, Y: s.B.Y, W: s.B.Width, H: s.B.Height}
}

// detectSheet runs d on the first page of the generated sheet whose ground
// truth is js and returns its detections and labelled symbols; ok is false
// when js is not a sheet's ground truth.
func detectSheet(t *testing.T, d *Detector, js string) (dets []detect.Detection, syms []truthSymbol, ok bool) {
	t.Helper()
	return runSheet(t, js, func(page detect.Page, _ []truthSymbol) ([]detect.Detection, error) {
		return d.Detect(context.Background(), page)
	})
}

// runSheet opens the sheet a ground-truth JSON names and runs f on its
// page.
func runSheet(t *testing.T, js string, f func(detect.Page, []truthSymbol) ([]detect.Detection, error)) (dets []detect.Detection, syms []truthSymbol, ok bool) {
	t.Helper()
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var truth struct {
		File  string `json:"file"`
		Pages []struct {
			Symbols []truthSymbol `json:"symbols"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(raw, &truth); err != nil || truth.File == "" || len(truth.Pages) == 0 {
		return nil, nil, false
	}
	page, closeDoc := openPage(t, filepath.Join(filepath.Dir(js), truth.File))
	defer closeDoc()
	if dets, err = f(page, truth.Pages[0].Symbols); err != nil {
		t.Fatal(err)
	}
	return dets, truth.Pages[0].Symbols, true
}

// TestSymbolsOnTileSeams: symbols of the fixture scans pasted with their
// centres on the seam between two tiles (a few pixels either side) are
// found as often as the same symbols in the middle of a tile. Two tiles
// predict such a symbol's centre a few pixels apart, and a strict split at
// the seam dropped both predictions.
func TestSymbolsOnTileSeams(t *testing.T) {
	d := newDetector(t)
	const patch, width = 160, 2000
	_, _, owns := positions(width, d.meta.Tile, d.meta.Overlap)
	seam := owns[0][1] // the first split between two tiles' own parts
	files, _ := filepath.Glob("../../testdata/synth/scan-*.json")
	type placed struct {
		class string
		src   detect.Box
		img   image.Image
	}
	var syms []placed
	for _, js := range files {
		runSheet(t, js, func(page detect.Page, truth []truthSymbol) ([]detect.Detection, error) {
			for _, s := range truth {
				b := s.box()
				if b.W > patch/2 || b.H > patch/2 {
					continue
				}
				syms = append(syms, placed{class: s.Class, src: b, img: page.Raster})
			}
			return nil, nil
		})
	}
	if len(syms) < 40 {
		t.Fatalf("only %d fixture symbols", len(syms))
	}
	// found pastes every symbol, each in its own band of the page, centred
	// at x = at(i), and counts those detected with their class and box.
	found := func(at func(i int) int) int {
		page := image.NewRGBA(image.Rect(0, 0, width, len(syms)*patch))
		draw.Draw(page, page.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		want := make([]detect.Box, len(syms))
		for i, s := range syms {
			cx, cy := s.src.X+s.src.W/2, s.src.Y+s.src.H/2
			dx, dy := at(i)-int(cx), i*patch+patch/2-int(cy)
			src := image.Rect(int(cx)-patch/2+4, int(cy)-patch/2+4, int(cx)+patch/2-4, int(cy)+patch/2-4)
			draw.Draw(page, src.Add(image.Pt(dx, dy)), s.img, src.Min, draw.Src)
			want[i] = detect.Box{X: s.src.X + float64(dx), Y: s.src.Y + float64(dy), W: s.src.W, H: s.src.H}
		}
		dets, err := d.Detect(context.Background(), detect.Page{Raster: page})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, s := range syms {
			for _, x := range dets {
				if x.Class == s.class && x.Box.IoU(want[i]) >= 0.5 {
					n++
					break
				}
			}
		}
		return n
	}
	inside := found(func(int) int { return 300 })
	onSeam := found(func(i int) int { return seam + i%9 - 4 })
	t.Logf("%d symbols: %d found inside a tile, %d on a seam (x %d±4)", len(syms), inside, onSeam, seam)
	if onSeam < inside-len(syms)/50 {
		t.Errorf("%d of %d symbols found on a tile seam, %d inside a tile", onSeam, len(syms), inside)
	}
}
