package synth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gen2brain/go-fitz"

	"blueprint/internal/catalog"
)

func newTestGenerator(t *testing.T) *Generator {
	t.Helper()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatalf("load catalog: %v", err)
	}
	g, err := New(FromCatalog(cat))
	if err != nil {
		t.Fatalf("new generator: %v", err)
	}
	return g
}

func TestVectorIsDeterministic(t *testing.T) {
	g1, g2 := newTestGenerator(t), newTestGenerator(t)
	for i := 0; i < 4; i++ {
		a, err := g1.Vector(7, i, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := g2.Vector(7, i, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Data, b.Data) {
			t.Errorf("sheet %d: PDF bytes differ between two runs with one seed", i)
		}
		ja, _ := MarshalTruth(a.Truth)
		jb, _ := MarshalTruth(b.Truth)
		if !bytes.Equal(ja, jb) {
			t.Errorf("sheet %d: ground truth differs between two runs with one seed", i)
		}
	}
	a, _ := g1.Vector(7, 0, Options{})
	b, _ := g1.Vector(8, 0, Options{})
	if bytes.Equal(a.Data, b.Data) {
		t.Error("seeds 7 and 8 drew the same sheet")
	}
}

func TestTruthInvariants(t *testing.T) {
	g := newTestGenerator(t)
	classes := map[string]bool{}
	for _, s := range g.symbols {
		classes[s.Class] = true
	}
	var cov coverage
	multi := 0
	scales := map[string]bool{}
	for i := 0; i < 40; i++ {
		pages, err := g.sheet(11, i, Options{MaxPaper: "A2"})
		if err != nil {
			t.Fatal(err)
		}
		tr := vectorTruth(pages, "x.pdf", 11)
		scales[tr.Scale] = true
		if len(tr.Pages) != len(pages) {
			t.Fatalf("sheet %d: %d truth pages for %d drawn", i, len(tr.Pages), len(pages))
		}
		if len(pages) > 1 {
			multi++
		}
		for k, p := range tr.Pages {
			d := pages[k]
			if p.PageIndex != k {
				t.Errorf("sheet %d: page %d has page_index %d", i, k, p.PageIndex)
			}
			checkPage(t, i, d, p, classes, &cov)
		}
	}
	t.Logf("40 sheets: %d multi-page, scales %v, %+v", multi, scales, cov)
	if cov.legends == 0 || cov.empties == 0 || cov.clipped == 0 || cov.mirrored == 0 || cov.oblique == 0 || multi == 0 || len(scales) != 2 {
		t.Error("40 sheets should include legends, empty pages, several pages, clipped, mirrored and oblique symbols, and both scales")
	}
}

// coverage counts what a set of pages shows.
type coverage struct{ legends, empties, total, clipped, mirrored, oblique int }

// checkPage checks one page's truth against its design and counts what it covers.
func checkPage(t *testing.T, i int, d *design, p TruthPage, classes map[string]bool, cov *coverage) {
	t.Helper()
	{
		W, H := float64(p.WidthPx), float64(p.HeightPx)
		if d.legend {
			cov.legends++
			if d.legendBox.w() <= 0 {
				t.Errorf("sheet %d: legend flagged but not drawn", i)
			}
		}
		if len(p.Symbols) == 0 {
			cov.empties++
		}
		for _, s := range p.Symbols {
			cov.total++
			b := s.BBoxPx
			if !classes[s.Class] {
				t.Errorf("sheet %d: unknown class %q", i, s.Class)
			}
			if b.X < 0 || b.Y < 0 || b.Width <= 0 || b.Height <= 0 || b.X+b.Width > W+0.01 || b.Y+b.Height > H+0.01 {
				t.Errorf("sheet %d: %s box %+v outside the %gx%g page", i, s.Class, b, W, H)
			}
			n := s.BBoxNorm
			for _, c := range [][2]float64{{n.X, b.X / W}, {n.Y, b.Y / H}, {n.Width, b.Width / W}, {n.Height, b.Height / H}} {
				if math.Abs(c[0]-c[1]) > 1e-5 {
					t.Errorf("sheet %d: bbox_norm %+v is not bbox_px %+v / page size", i, n, b)
					break
				}
			}
			if s.Rotation < 0 || s.Rotation >= 360 || s.Scale < 0.6 || s.Scale > 1.8 {
				t.Errorf("sheet %d: rotation %g or scale %g out of range", i, s.Rotation, s.Scale)
			}
			if d.legend {
				lb := d.legendBox
				lx0, ly0, lx1, ly1 := lb.x0*pxPerMM, lb.y0*pxPerMM, lb.x1*pxPerMM, lb.y1*pxPerMM
				if b.X < lx1 && lx0 < b.X+b.Width && b.Y < ly1 && ly0 < b.Y+b.Height {
					t.Errorf("sheet %d: instance %s at %+v lies in the legend table", i, s.Class, b)
				}
			}
			if s.Clipped {
				cov.clipped++
			}
			if s.Mirrored {
				cov.mirrored++
			}
			if math.Mod(s.Rotation, 90) != 0 {
				cov.oblique++
			}
		}
	}
}

var mediaBoxRE = regexp.MustCompile(`/MediaBox\s*\[\s*([-0-9.]+)\s+([-0-9.]+)\s+([-0-9.]+)\s+([-0-9.]+)\s*\]`)

// TestPDFRendersWithTruth opens sheets with MuPDF: one truth page per
// PDF page, the page size in the truth is round(points*200/72), and every
// unclipped box has ink in it.
func TestPDFRendersWithTruth(t *testing.T) {
	g := newTestGenerator(t)
	for i := 0; i < 3; i++ {
		s, err := g.Vector(3, i, Options{MaxPaper: "A3"})
		if err != nil {
			t.Fatal(err)
		}
		boxes := mediaBoxRE.FindAllSubmatch(s.Data, -1)
		if len(boxes) != len(s.Truth.Pages) {
			t.Fatalf("sheet %d: %d MediaBoxes for %d truth pages", i, len(boxes), len(s.Truth.Pages))
		}
		doc, err := fitz.NewFromMemory(s.Data)
		if err != nil {
			t.Fatalf("sheet %d: MuPDF cannot open the PDF: %v", i, err)
		}
		if doc.NumPage() != len(s.Truth.Pages) {
			t.Errorf("sheet %d: %d pages, truth has %d", i, doc.NumPage(), len(s.Truth.Pages))
		}
		for k, p := range s.Truth.Pages {
			var box [4]float64
			for j := range box {
				box[j], _ = strconv.ParseFloat(string(boxes[k][j+1]), 64)
			}
			wantW := int(math.Round((box[2] - box[0]) * 200 / 72))
			wantH := int(math.Round((box[3] - box[1]) * 200 / 72))
			if p.WidthPx != wantW || p.HeightPx != wantH {
				t.Errorf("sheet %d page %d: truth %dx%d, MediaBox gives %dx%d", i, k, p.WidthPx, p.HeightPx, wantW, wantH)
			}
			img, err := doc.ImageDPI(k, 200)
			if err != nil {
				t.Fatal(err)
			}
			if dx, dy := img.Bounds().Dx()-p.WidthPx, img.Bounds().Dy()-p.HeightPx; dx < 0 || dx > 1 || dy < 0 || dy > 1 {
				t.Errorf("sheet %d page %d: rendered %v, truth %dx%d", i, k, img.Bounds(), p.WidthPx, p.HeightPx)
			}
			for _, sym := range p.Symbols {
				if !sym.Clipped && !hasInk(img, sym.BBoxPx, 230) {
					t.Errorf("sheet %d page %d: no ink inside %s box %+v", i, k, sym.Class, sym.BBoxPx)
				}
			}
		}
		doc.Close()
	}
}

// hasInk reports whether some pixel inside b (grown by one pixel) has a
// channel darker than limit.
func hasInk(img image.Image, b Box, limit uint32) bool {
	r := image.Rect(int(b.X)-1, int(b.Y)-1, int(math.Ceil(b.X+b.Width))+1, int(math.Ceil(b.Y+b.Height))+1).Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if min(cr, cg, cb)>>8 < limit {
				return true
			}
		}
	}
	return false
}

func TestRasterFollowsVector(t *testing.T) {
	g := newTestGenerator(t)
	opt := Options{MaxPaper: "A4", MaxDPI: 175}
	for i := 0; i < 2; i++ {
		v, err := g.Vector(5, i, opt)
		if err != nil {
			t.Fatal(err)
		}
		r, err := g.Raster(context.Background(), 5, i, opt)
		if err != nil {
			t.Fatal(err)
		}
		img, format, err := image.Decode(bytes.NewReader(r.Data))
		if err != nil {
			t.Fatalf("raster %s does not decode: %v", r.Name, err)
		}
		tr := r.Truth
		p := tr.Pages[0]
		if tr.Kind != KindRaster || tr.DPI < 150 || tr.DPI > 175 || tr.Paper != v.Truth.Paper {
			t.Errorf("raster %s: kind %s dpi %d paper %s", r.Name, tr.Kind, tr.DPI, tr.Paper)
		}
		if img.Bounds().Dx() != p.WidthPx || img.Bounds().Dy() != p.HeightPx {
			t.Errorf("raster %s (%s): image %v, truth %dx%d", r.Name, format, img.Bounds(), p.WidthPx, p.HeightPx)
		}
		if len(p.Symbols) != len(v.Truth.Pages[0].Symbols) {
			t.Errorf("raster %s: %d symbols, vector sheet has %d", r.Name, len(p.Symbols), len(v.Truth.Pages[0].Symbols))
		}
		k := float64(tr.DPI) / 200
		paper := paperLevel(img)
		var boxes, inked int
		for j, s := range p.Symbols {
			vs := v.Truth.Pages[0].Symbols[j]
			if s.Class != vs.Class {
				t.Fatalf("raster %s: symbol %d is %s, vector has %s", r.Name, j, s.Class, vs.Class)
			}
			// Skew is at most 1.5°: centres move by less than 2.7% of the page.
			dx := (s.BBoxPx.X + s.BBoxPx.Width/2) - k*(vs.BBoxPx.X+vs.BBoxPx.Width/2)
			dy := (s.BBoxPx.Y + s.BBoxPx.Height/2) - k*(vs.BBoxPx.Y+vs.BBoxPx.Height/2)
			if math.Hypot(dx, dy) > 0.027*float64(max(p.WidthPx, p.HeightPx)) {
				t.Errorf("raster %s: %s box %+v too far from scaled vector box %+v", r.Name, s.Class, s.BBoxPx, vs.BBoxPx)
			}
			if !s.Clipped {
				boxes++
				if darkerThan(img, s.BBoxPx, paper-12) {
					inked++
				}
			}
		}
		// Noise, fading and pale class colours hide a few; most must show.
		if boxes > 0 && float64(inked) < 0.7*float64(boxes) {
			t.Errorf("raster %s: only %d of %d symbol boxes have ink darker than the paper", r.Name, inked, boxes)
		}
	}
}

// paperLevel returns the mean luminance of the image's centre row band,
// mostly paper.
func paperLevel(img image.Image) float64 {
	b := img.Bounds()
	var sum, n float64
	for y := b.Min.Y + b.Dy()/2 - 2; y < b.Min.Y+b.Dy()/2+2; y++ {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			sum += lum(img, x, y)
			n++
		}
	}
	return sum / n
}

func lum(img image.Image, x, y int) float64 {
	r, g, b, _ := img.At(x, y).RGBA()
	return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 257
}

// darkerThan reports whether a 3x3 mean inside b is below level.
func darkerThan(img image.Image, b Box, level float64) bool {
	r := image.Rect(int(b.X), int(b.Y), int(math.Ceil(b.X+b.Width)), int(math.Ceil(b.Y+b.Height))).Inset(1).Intersect(img.Bounds().Inset(1))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			var s float64
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					s += lum(img, x+dx, y+dy)
				}
			}
			if s/9 < level {
				return true
			}
		}
	}
	return false
}

// The committed fixture set: testdata/synth/README.md gives the commands.
const (
	fixtureDir      = "../../testdata/synth"
	fixtureSeed     = 333
	fixtureVector   = 6
	fixtureRaster   = 4
	fixtureMaxPaper = "A3"
	fixtureMaxDPI   = 150
)

// TestFixturesRegenerate checks that the committed fixtures are exactly
// what the generator makes from their seed, and that they still cover a
// legend, an empty page, clipped symbols and a multi-page sheet.
func TestFixturesRegenerate(t *testing.T) {
	g := newTestGenerator(t)
	opt := Options{MaxPaper: fixtureMaxPaper, MaxDPI: fixtureMaxDPI}
	var legends, empties, clipped, multi int
	check := func(s Sheet) {
		t.Helper()
		want, err := os.ReadFile(filepath.Join(fixtureDir, s.Name))
		if err != nil {
			t.Fatalf("fixture missing: %v", err)
		}
		if !bytes.Equal(want, s.Data) {
			t.Errorf("%s differs from a regeneration with seed %d", s.Name, fixtureSeed)
		}
		stem := strings.TrimSuffix(s.Name, filepath.Ext(s.Name))
		wantJS, err := os.ReadFile(filepath.Join(fixtureDir, stem+".json"))
		if err != nil {
			t.Fatalf("fixture truth missing: %v", err)
		}
		js, _ := MarshalTruth(s.Truth)
		if !bytes.Equal(wantJS, js) {
			t.Errorf("%s.json differs from a regeneration with seed %d", stem, fixtureSeed)
		}
	}
	for i := 0; i < fixtureVector; i++ {
		s, err := g.Vector(fixtureSeed, i, opt)
		if err != nil {
			t.Fatal(err)
		}
		check(s)
		if s.Truth.Legend {
			legends++
		}
		if len(s.Truth.Pages) > 1 {
			multi++
		}
		for _, p := range s.Truth.Pages {
			if len(p.Symbols) == 0 {
				empties++
			}
			for _, sym := range p.Symbols {
				if sym.Clipped {
					clipped++
				}
			}
		}
	}
	if legends == 0 || empties == 0 || clipped == 0 || multi == 0 {
		t.Errorf("fixtures cover %d legends, %d empty pages, %d clipped symbols, %d multi-page sheets; want each > 0 (pick another seed)", legends, empties, clipped, multi)
	}
	if testing.Short() {
		return
	}
	for i := 0; i < fixtureRaster; i++ {
		s, err := g.Raster(context.Background(), fixtureSeed, i, opt)
		if err != nil {
			t.Fatal(err)
		}
		check(s)
	}
	entries, err := os.ReadDir(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2*(fixtureVector+fixtureRaster) + 1; len(entries) != want {
		t.Errorf("%s holds %d files, want %d (sheets, truths and README)", fixtureDir, len(entries), want)
	}
}

func TestRunWritesDataset(t *testing.T) {
	g := newTestGenerator(t)
	dir := t.TempDir()
	if err := g.Run(context.Background(), dir, 3, 4, KindVector, Options{MaxPaper: "A4"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		stem := SheetName(KindVector, i)
		js, err := os.ReadFile(filepath.Join(dir, stem+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var tr Truth
		if err := json.Unmarshal(js, &tr); err != nil {
			t.Fatalf("%s.json: %v", stem, err)
		}
		if tr.File != stem+".pdf" || tr.Kind != KindVector || tr.Seed != 4 || tr.DPI != 200 {
			t.Errorf("%s.json: file %q kind %q seed %d dpi %d", stem, tr.File, tr.Kind, tr.Seed, tr.DPI)
		}
		got, err := os.ReadFile(filepath.Join(dir, tr.File))
		if err != nil {
			t.Fatalf("drawing missing: %v", err)
		}
		// Run draws sheets on several goroutines: each must be the sheet
		// drawn alone.
		want, err := g.Vector(4, i, Options{MaxPaper: "A4"})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Data) {
			t.Errorf("%s: Run wrote %d bytes, Vector alone draws %d different ones", tr.File, len(got), len(want.Data))
		}
	}
	// Options.First extends a set: sheets before it are not written, the
	// rest are the sheets of the whole run.
	ext := t.TempDir()
	if err := g.Run(context.Background(), ext, 3, 4, KindVector, Options{MaxPaper: "A4", First: 2}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		stem := SheetName(KindVector, i)
		got, err := os.ReadFile(filepath.Join(ext, stem+".pdf"))
		if i < 2 {
			if err == nil {
				t.Errorf("First 2 wrote sheet %d", i)
			}
			continue
		}
		if want, _ := os.ReadFile(filepath.Join(dir, stem+".pdf")); err != nil || !bytes.Equal(got, want) {
			t.Errorf("First 2: sheet %d differs from the whole run's (%v)", i, err)
		}
	}
	if err := g.Run(context.Background(), t.TempDir(), 3, 4, KindVector, Options{First: 4}); err == nil {
		t.Error("First beyond n accepted")
	}
	if _, err := ParseKind("svg"); err == nil {
		t.Error("ParseKind accepted svg")
	}
	if _, err := g.Vector(1, 0, Options{MaxPaper: "B5"}); err == nil {
		t.Error("unknown paper size accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Run(ctx, t.TempDir(), 1, 1, KindVector, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: got %v, want context.Canceled", err)
	}
}
