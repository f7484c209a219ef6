package raster

import (
	"context"
	"image"
	"math"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
)

func TestPageScaleFactor(t *testing.T) {
	s := &PageScale{High: 14, Target: 9, MinScore: 0.5, MinProposals: 4}
	sides := []float64{4, 10} // a small class and a long one
	props := func(class int, unit, score float64, n int) []cand {
		var cs []cand
		for i := range n {
			side := unit * sides[class]
			cs = append(cs, cand{class: class, score: score, box: detect.Box{X: float64(i) * 200, W: side / 3, H: side}})
		}
		return cs
	}
	for _, tc := range []struct {
		name  string
		props []cand
		want  float64
	}{
		{"symbols in the band", props(0, 10, 0.9, 10), 1},
		{"at the band's edge", append(props(0, 14, 0.9, 3), props(1, 14, 0.9, 4)...), 1},
		{"large symbols", props(0, 18, 0.9, 10), 0.5},
		{"measured against each class's glyph", append(props(0, 18, 0.9, 5), props(1, 18, 0.9, 6)...), 0.5},
		{"large but too few", props(0, 18, 0.9, 3), 1},
		{"large but unsure", props(0, 18, 0.4, 10), 1},
		{"the median of the confident ones", append(append(props(0, 18, 0.9, 5), props(1, 10, 0.9, 4)...), props(0, 10, 0.1, 50)...), 0.5},
		{"even count: the mean of the middle two", append(props(0, 16, 0.9, 2), props(1, 20, 0.9, 2)...), 0.5},
		{"tiny symbols are not enlarged", props(1, 3, 0.9, 10), 1},
	} {
		if got := s.factor(tc.props, sides); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: factor %v, want %v", tc.name, got, tc.want)
		}
	}
	var none *PageScale
	if got := none.factor(props(0, 18, 0.9, 10), sides); got != 1 {
		t.Errorf("no page_scale: factor %v, want 1", got)
	}
}

func TestPageScaleCheck(t *testing.T) {
	ok := PageScale{High: 14, Target: 9, MinScore: 0.5, MinProposals: 10}
	if err := ok.check(); err != nil {
		t.Error(err)
	}
	for name, mod := range map[string]func(*PageScale){
		"target at high":   func(s *PageScale) { s.Target = s.High },
		"target zero":      func(s *PageScale) { s.Target = 0 },
		"min_score 1":      func(s *PageScale) { s.MinScore = 1 },
		"min_score < 0":    func(s *PageScale) { s.MinScore = -0.1 },
		"no min_proposals": func(s *PageScale) { s.MinProposals = 0 },
	} {
		s := ok
		mod(&s)
		if err := s.check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestGlyphSides(t *testing.T) {
	got, err := glyphSides([]string{"smoke_detector", "beam_detector"})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] <= 0 || got[1] < 2*got[0] {
		t.Errorf("glyph sides %v: want a beam detector more than twice a smoke detector", got)
	}
	if _, err := glyphSides([]string{"no_such_class"}); err == nil {
		t.Error("a class not in the catalog: accepted")
	}
}

// TestScaledGray: a page resampled to half keeps its paper level and puts
// a square where half its coordinates say, with the square's ink.
func TestScaledGray(t *testing.T) {
	img := newBlank(400, 300)
	for y := 100; y < 140; y++ {
		for x := 200; x < 260; x++ {
			img.Pix[y*img.Stride+x] = 0
		}
	}
	g := luma(img).scaled(0.5)
	if g.w != 200 || g.h != 150 {
		t.Fatalf("size %d×%d, want 200×150", g.w, g.h)
	}
	if g.paper != 255 {
		t.Errorf("paper %d, want 255", g.paper)
	}
	at := func(x, y int) uint8 { return g.pix[y*g.w+x] }
	for _, p := range [][2]int{{101, 51}, {128, 68}, {110, 60}} {
		if v := at(p[0], p[1]); v != 0 {
			t.Errorf("inside the square at %v: %d, want 0", p, v)
		}
	}
	for _, p := range [][2]int{{98, 60}, {132, 60}, {110, 48}, {110, 72}, {10, 10}} {
		if v := at(p[0], p[1]); v != 255 {
			t.Errorf("outside the square at %v: %d, want 255", p, v)
		}
	}
	var ink float64
	for _, v := range g.pix {
		ink += float64(255 - v)
	}
	if want := 30.0 * 20 * 255; math.Abs(ink-want) > want*0.02 {
		t.Errorf("ink %.0f, want %.0f (the square's, resampled)", ink, want)
	}
}

func TestScaleCands(t *testing.T) {
	got := scaleCands([]cand{{box: detect.Box{X: 10, Y: 20, W: 30, H: 40}}}, 0.5)
	if want := (detect.Box{X: 20, Y: 40, W: 60, H: 80}); got[0].box != want {
		t.Errorf("box %+v, want %+v", got[0].box, want)
	}
}

// TestPageScaleDetect: a fixture scan (150 DPI, median symbol scale 0.7)
// enlarged 2.5 times looks like a sheet drawn at a symbol scale of 1.77
// and scanned at 300 DPI, near the largest the generator draws (1.8). The page scale
// looks at it smaller and finds more of its symbols, with their boxes on
// the page as given, and no more false ones.
func TestPageScaleDetect(t *testing.T) {
	d := newDetector(t)
	// The settings measured in docs/raster.md; the committed JSON has none.
	d.meta.PageScale = &PageScale{High: 14, Target: 9, MinScore: 0.5, MinProposals: 10}
	var err error
	if d.glyphSide, err = glyphSides(d.meta.Classes); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	page, truth := enlargedFixture(t, 2.5)
	props, err := d.propose(context.Background(), luma(page.Raster))
	if err != nil {
		t.Fatal(err)
	}
	if f := d.meta.PageScale.factor(props, d.glyphSide); f >= 1 {
		t.Fatalf("factor %v: the enlarged page is not looked at smaller", f)
	}
	scaled, err := d.Detect(context.Background(), page)
	if err != nil {
		t.Fatal(err)
	}
	ps := d.meta.PageScale
	d.meta.PageScale = nil
	plain, err := d.Detect(context.Background(), page)
	d.meta.PageScale = ps
	if err != nil {
		t.Fatal(err)
	}
	tp, fp := scoreDetections(cat, scaled, truth)
	tp0, fp0 := scoreDetections(cat, plain, truth)
	t.Logf("%d symbols: looked at smaller %d true %d false, as it is %d true %d false", len(truth), tp, fp, tp0, fp0)
	if tp <= tp0 || fp > fp0 {
		t.Errorf("looked at smaller %d true %d false, as it is %d true %d false: want more true, no more false", tp, fp, tp0, fp0)
	}
}

// enlargedFixture returns a fixture scan (150 DPI, median symbol scale
// 0.7) enlarged by f, and its symbols with their boxes enlarged with it.
func enlargedFixture(t *testing.T, f float64) (detect.Page, []truthSymbol) {
	t.Helper()
	var truth []truthSymbol
	var page detect.Page
	runSheet(t, "../../testdata/synth/scan-00002.json", func(p detect.Page, syms []truthSymbol) ([]detect.Detection, error) {
		g := luma(p.Raster).scaled(f)
		img := image.NewGray(image.Rect(0, 0, g.w, g.h))
		copy(img.Pix, g.pix)
		page = detect.Page{Index: 0, Raster: img}
		for _, s := range syms {
			s.B.X, s.B.Y, s.B.Width, s.B.Height = s.B.X*f, s.B.Y*f, s.B.Width*f, s.B.Height*f
			truth = append(truth, s)
		}
		return nil, nil
	})
	return page, truth
}
