package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/engine"
	"blueprint/internal/eval/dataset"
	"blueprint/internal/glyph"
	"blueprint/internal/raster"
	"blueprint/internal/raster/rastertest"
)

// pxPerPt converts PDF points to 200-DPI raster pixels.
const pxPerPt = float64(detect.RenderDPI) / 72

// instance is one catalog glyph placed on a test page, in PDF points with
// a top-left origin.
type instance struct {
	class string
	at    glyph.Point
	scale float64
	rot   float64
}

// sheetPDF writes a PDF whose pages stroke the catalog glyphs of each
// instance list, and returns it with the ground truth of every page.
func sheetPDF(t *testing.T, cat *catalog.Catalog, wPt, hPt float64, pages [][]instance) ([]byte, []dataset.Page) {
	t.Helper()
	var docPages []documenttest.Page
	var gt []dataset.Page
	for pi, insts := range pages {
		var content strings.Builder
		// y down, like the raster: flip once for the whole page.
		fmt.Fprintf(&content, "1 0 0 -1 0 %g cm 0.5 w 1 J 1 j\n", hPt)
		page := dataset.Page{PageIndex: pi, WidthPx: int(math.Round(wPt * pxPerPt)), HeightPx: int(math.Round(hPt * pxPerPt))}
		for _, in := range insts {
			sym, ok := cat.Lookup(in.class)
			if !ok {
				t.Fatalf("class %s not in catalog", in.class)
			}
			g := sym.Glyph.Transform(glyph.Placement{At: in.at, Scale: in.scale, Rotation: in.rot}.Matrix(72 / 25.4))
			for _, line := range g.Polylines(0.05) {
				for i, p := range line {
					op := "l"
					if i == 0 {
						op = "m"
					}
					fmt.Fprintf(&content, "%.3f %.3f %s\n", p.X, p.Y, op)
				}
				content.WriteString("S\n")
			}
			lo, hi := g.Bounds()
			page.Symbols = append(page.Symbols, dataset.Symbol{Class: in.class, Rotation: in.rot, Scale: in.scale,
				BBoxPx: &dataset.Box{X: lo.X * pxPerPt, Y: lo.Y * pxPerPt, Width: (hi.X - lo.X) * pxPerPt, Height: (hi.Y - lo.Y) * pxPerPt}})
		}
		docPages = append(docPages, documenttest.Page{MediaBox: fmt.Sprintf("[0 0 %g %g]", wPt, hPt), Content: content.String()})
		gt = append(gt, page)
	}
	return documenttest.PDF(docPages...), gt
}

// sheetPNG draws the glyphs of insts (placed in pixels) in black on white
// and returns the PNG with its ground truth.
func sheetPNG(t *testing.T, cat *catalog.Catalog, w, h int, insts []instance) ([]byte, dataset.Page) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	page := dataset.Page{WidthPx: w, HeightPx: h}
	for _, in := range insts {
		sym, _ := cat.Lookup(in.class)
		// 150 DPI scan: millimetres to pixels.
		g := sym.Glyph.Transform(glyph.Placement{At: in.at, Scale: in.scale, Rotation: in.rot}.Matrix(150 / 25.4))
		for _, line := range g.Polylines(0.3) {
			for i := 1; i < len(line); i++ {
				a, b := line[i-1], line[i]
				n := int(math.Ceil(math.Hypot(b.X-a.X, b.Y-a.Y)*2)) + 1
				for k := 0; k <= n; k++ {
					f := float64(k) / float64(n)
					img.Set(int(a.X+f*(b.X-a.X)), int(a.Y+f*(b.Y-a.Y)), color.Gray{})
				}
			}
		}
		lo, hi := g.Bounds()
		page.Symbols = append(page.Symbols, dataset.Symbol{Class: in.class, BBoxPx: &dataset.Box{X: lo.X, Y: lo.Y, Width: hi.X - lo.X, Height: hi.Y - lo.Y}})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), page
}

func writeSheet(t *testing.T, dir, name string, data []byte, s dataset.Sheet) {
	t.Helper()
	s.File = name
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, stem+".json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tinyDataset writes a two-page vector sheet (page 0 a negative, page 1
// with four symbols), a raster sheet with two, and a manifest that is not
// ground truth.
func tinyDataset(t *testing.T, cat *catalog.Catalog) (dir string, gt int) {
	dir = t.TempDir()
	pdf, pages := sheetPDF(t, cat, 420, 297, [][]instance{
		nil,
		{{"luminaire", glyph.Point{X: 100, Y: 100}, 1.5, 0}, {"luminaire", glyph.Point{X: 200, Y: 100}, 1, 30},
			{"smoke_detector", glyph.Point{X: 100, Y: 200}, 1.2, 0}, {"socket_outlet", glyph.Point{X: 300, Y: 200}, 1, 90}},
	})
	writeSheet(t, dir, "sheet-00001.pdf", pdf, dataset.Sheet{Kind: "vector", DPI: 200, Pages: pages})
	img, page := sheetPNG(t, cat, 600, 400, []instance{{"luminaire", glyph.Point{X: 150, Y: 150}, 1.5, 0}, {"sounder", glyph.Point{X: 400, Y: 250}, 1.2, 45}})
	writeSheet(t, dir, "sheet-00002.png", img, dataset.Sheet{Kind: "raster", DPI: 150, Pages: []dataset.Page{page}})
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"sheets": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, 4 + 2
}

func loadCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestRunProductionEngine runs the real pipeline and the production engine
// on a dataset made here, and checks what must hold whatever the engine
// finds.
func TestRunProductionEngine(t *testing.T) {
	cat := loadCatalog(t)
	eng, err := engine.New(cat, engine.Options{Raster: raster.Config{Library: rastertest.Library(t)}})
	if err != nil {
		t.Fatal(err)
	}
	dir, nGT := tinyDataset(t, cat)
	var progressLog bytes.Buffer
	rep, err := Run(context.Background(), Config{Data: dir, Catalog: cat, Engine: eng, Progress: &progressLog})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sheets != 2 || rep.Timing.Pages != 3 || rep.Overall.Pages != 3 || len(rep.PerSheet) != 2 {
		t.Fatalf("sheets %d, pages run %d, scored %d, per sheet %d", rep.Sheets, rep.Timing.Pages, rep.Overall.Pages, len(rep.PerSheet))
	}
	o := rep.Overall
	if o.GT != nGT || o.TP+o.FN != o.GT || o.TP+o.FP != o.Pred {
		t.Fatalf("overall counts inconsistent: %+v", o)
	}
	var gt, pred, tp int
	for c, s := range rep.PerClass {
		if s.TP+s.FN != s.GT || s.TP+s.FP != s.Pred || s.Pred > s.Stored {
			t.Errorf("%s: counts inconsistent: %+v", c, s)
		}
		if (s.AP50 == nil) != (s.GT == 0) {
			t.Errorf("%s: ap50 must be set exactly when there is ground truth: %+v", c, s)
		}
		gt, pred, tp = gt+s.GT, pred+s.Pred, tp+s.TP
	}
	if gt != o.GT || pred != o.Pred || tp != o.TP {
		t.Fatalf("per-class sums %d/%d/%d differ from overall %+v", gt, pred, tp, o)
	}
	for _, c := range []string{"luminaire", "smoke_detector", "socket_outlet", "sounder"} {
		if rep.PerClass[c].GT == 0 {
			t.Errorf("class %s missing from per_class", c)
		}
	}
	if o.Recall == nil || *o.Recall < 0 || *o.Recall > 1 || o.MAP50 == nil {
		t.Fatalf("recall and map50 are defined with ground truth: %+v", o)
	}
	// The count error is at least what the totals alone imply.
	if o.CountMAEPerPage < math.Abs(float64(o.Pred-o.GT))/3-1e-9 {
		t.Fatalf("count MAE %v below |pred-gt|/pages", o.CountMAEPerPage)
	}
	tm := rep.Timing
	if tm.SecondsPerPageMean <= 0 || tm.SecondsPerPageP95 > tm.SecondsPerPageMax || tm.SecondsPerPageMean > tm.SecondsPerPageMax ||
		tm.RenderSecondsMean <= 0 || tm.RenderSecondsMean > tm.SecondsPerPageMean || tm.PeakRSSMB == nil || *tm.PeakRSSMB <= 0 {
		t.Fatalf("timing %+v", tm)
	}
	if !strings.Contains(progressLog.String(), "manifest.json: not sheet ground truth") {
		t.Fatalf("progress log: %s", progressLog.String())
	}

	// The report has the contract's shape.
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	doc := map[string]map[string]any{}
	for _, k := range []string{"overall", "timing", "per_class"} {
		m := map[string]any{}
		if err := json.Unmarshal(top[k], &m); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		doc[k] = m
	}
	for k, keys := range map[string][]string{
		"overall": {"precision", "recall", "f1", "map50", "count_mae_per_page"},
		"timing":  {"pages", "seconds_per_page_mean", "seconds_per_page_p95", "render_seconds_mean", "peak_rss_mb"},
	} {
		for _, key := range keys {
			if _, ok := doc[k][key]; !ok {
				t.Errorf("%s.%s missing", k, key)
			}
		}
	}
	lum, _ := doc["per_class"]["luminaire"].(map[string]any)
	for _, key := range []string{"precision", "recall", "f1", "ap50", "gt", "pred"} {
		if _, ok := lum[key]; !ok {
			t.Errorf("per_class.luminaire.%s missing", key)
		}
	}
	if lum["gt"] != 3.0 {
		t.Errorf("luminaire gt %v, want 3", lum["gt"])
	}

	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil || !strings.Contains(table.String(), "luminaire") {
		t.Fatalf("table: %v\n%s", err, table.String())
	}
	t.Logf("production engine on the tiny set:\n%s", table.String())
}

// TestRunScoresWhatTheEngineReports drives the same pipeline with an engine
// scripted to report the ground truth of page 1 of the PDF (and one extra
// box on page 0), so the wiring can be checked number by number: page
// indexes, the job-wide storage rules and the read filter.
func TestRunScoresWhatTheEngineReports(t *testing.T) {
	cat := loadCatalog(t)
	dir, _ := tinyDataset(t, cat)
	sheets, _, err := dataset.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	truth := sheets[0].Pages[1].Symbols
	scripted := detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		if p.PDF == nil {
			return nil, nil // the raster sheet: everything missed
		}
		if p.Index == 0 {
			// A lone weak detection: the storage rules drop it.
			return []detect.Detection{{Class: "doorbell", Confidence: 0.2, Box: detect.Box{X: 10, Y: 10, W: 20, H: 20}}}, nil
		}
		var out []detect.Detection
		for i, s := range truth {
			b := s.BBoxPx
			conf := 0.9
			if i == 0 {
				conf = 0.3 // stored, but under luminaire's display threshold
			}
			out = append(out, detect.Detection{Class: s.Class, Confidence: conf, Box: detect.Box{X: b.X + 1, Y: b.Y, W: b.Width, H: b.Height}})
		}
		return out, nil
	})
	var findings bytes.Buffer
	rep, err := Run(context.Background(), Config{Data: dir, Catalog: cat, Engine: scripted, Findings: &findings})
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Overall
	// One line per error: the three missed objects, no false positive. The
	// weak luminaire is filtered out, so the miss has no reported neighbour.
	var lines []FindingLine
	dec := json.NewDecoder(&findings)
	for dec.More() {
		var l FindingLine
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if len(lines) != o.FP+o.FN || len(lines) != 3 || lines[0].Kind != "fn" || lines[0].Class != "luminaire" || lines[0].PageIndex != 1 ||
		lines[0].NearestClass != "" || lines[0].NearestIoU != 0 || !strings.HasSuffix(lines[2].File, "sheet-00002.png") {
		t.Fatalf("findings %+v", lines)
	}
	// 6 labelled: 3 found above threshold, the weak luminaire filtered out,
	// the raster sheet's 2 missed. The doorbell was never stored.
	if o.GT != 6 || o.Pred != 3 || o.TP != 3 || o.FP != 0 || o.FN != 3 {
		t.Fatalf("overall %+v", o)
	}
	if _, ok := rep.PerClass["doorbell"]; ok {
		t.Fatal("a dropped detection was scored")
	}
	lum := rep.PerClass["luminaire"]
	if lum.GT != 3 || lum.Pred != 1 || lum.Stored != 2 || lum.TP != 1 || lum.AP50 == nil || math.Abs(*lum.AP50-2.0/3) > 1e-9 {
		t.Fatalf("luminaire %+v", lum)
	}
	// Pages: the negative 0 vs 0, page 1 off by the filtered luminaire,
	// the raster page off by 2.
	if math.Abs(o.CountMAEPerPage-1) > 1e-9 {
		t.Fatalf("count MAE %v, want 1", o.CountMAEPerPage)
	}
	// A flat floor lets the weak luminaire through.
	low := 0.25
	rep, err = Run(context.Background(), Config{Data: dir, Catalog: cat, Engine: scripted, Flat: &low})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overall.TP != 4 || rep.ConfidenceMode != "flat" {
		t.Fatalf("flat: %+v", rep.Overall)
	}
	if rep.Withheld != 0 {
		t.Fatalf("withheld %d of detections no finder claims", rep.Withheld)
	}

	// The same boxes from the raster detector, no legend naming their
	// classes: guesses below its floor, withheld as the service
	// withholds them, so not scored.
	guess := detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		ds, err := scripted(ctx, p)
		for i := range ds {
			ds[i].Source = detect.Source{Detector: true}
		}
		return ds, err
	})
	rep, err = Run(context.Background(), Config{Data: dir, Catalog: cat, Engine: guess})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Withheld != 3 || rep.Overall.Pred != 0 || rep.Overall.TP != 0 {
		t.Fatalf("raster guesses: withheld %d, overall %+v; want the 3 reported withheld", rep.Withheld, rep.Overall)
	}
}

func TestRunRejectsBadData(t *testing.T) {
	cat := loadCatalog(t)
	eng, err := engine.New(cat, engine.Options{Raster: raster.Config{Library: rastertest.Library(t)}})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(dir string){
		"unknown class": func(dir string) {
			writeSheet(t, dir, "a.png", mustPNG(t), dataset.Sheet{Pages: []dataset.Page{{Symbols: []dataset.Symbol{{Class: "toaster", BBoxPx: &dataset.Box{Width: 1, Height: 1}}}}}})
		},
		"page beyond the drawing": func(dir string) {
			writeSheet(t, dir, "a.png", mustPNG(t), dataset.Sheet{Pages: []dataset.Page{{PageIndex: 3}}})
		},
		"corrupt drawing": func(dir string) {
			writeSheet(t, dir, "a.png", []byte("\x89PNG\r\n\x1a\nbroken"), dataset.Sheet{Pages: []dataset.Page{{}}})
		},
		"not a drawing": func(dir string) {
			writeSheet(t, dir, "a.png", []byte("hello"), dataset.Sheet{Pages: []dataset.Page{{}}})
		},
		"boxes in another frame": func(dir string) {
			writeSheet(t, dir, "a.png", mustPNG(t), dataset.Sheet{Pages: []dataset.Page{{WidthPx: 2000, HeightPx: 1000}}})
		},
	}
	for name, mk := range cases {
		dir := t.TempDir()
		mk(dir)
		if _, err := Run(context.Background(), Config{Data: dir, Catalog: cat, Engine: eng}); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.Contains(err.Error(), "a.") {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
	}
	// An engine reporting a class the catalog does not know is a bug worth
	// stopping for.
	dir := t.TempDir()
	writeSheet(t, dir, "a.png", mustPNG(t), dataset.Sheet{Pages: []dataset.Page{{}}})
	bad := detect.EngineFunc(func(context.Context, detect.Page) ([]detect.Detection, error) {
		return []detect.Detection{{Class: "toaster", Confidence: 0.9}}, nil
	})
	if _, err := Run(context.Background(), Config{Data: dir, Catalog: cat, Engine: bad}); err == nil || !strings.Contains(err.Error(), "toaster") {
		t.Fatalf("unknown predicted class: %v", err)
	}
}

func mustPNG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 40, 20))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestParseVmHWM(t *testing.T) {
	mb, err := parseVmHWM([]byte("Name:\teval\nVmPeak:\t  999 kB\nVmHWM:\t   204800 kB\nVmRSS:\t 1000 kB\n"))
	if err != nil || mb != 200 {
		t.Fatalf("%v %v", mb, err)
	}
	for _, bad := range []string{"Name: x\n", "VmHWM: lots\n", "VmHWM: 12 MB\n"} {
		if _, err := parseVmHWM([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
