package synth

import (
	"bytes"
	"context"
	"image"
	"math"
	"testing"

	"github.com/gen2brain/go-fitz"

	"blueprint/internal/glyph"
)

func TestHomographyMapsCorners(t *testing.T) {
	src := [4]glyph.Point{{X: 0, Y: 0}, {X: 100, Y: 0}, {X: 100, Y: 80}, {X: 0, Y: 80}}
	dst := [4]glyph.Point{{X: 2, Y: -1}, {X: 103, Y: 1}, {X: 98, Y: 79}, {X: -1, Y: 82}}
	h := homographyOf(src, dst)
	inv := h.inverse()
	for k := range src {
		got := h.apply(src[k])
		if math.Hypot(got.X-dst[k].X, got.Y-dst[k].Y) > 1e-9 {
			t.Errorf("corner %d maps to %v, want %v", k, got, dst[k])
		}
		back := inv.apply(got)
		if math.Hypot(back.X-src[k].X, back.Y-src[k].Y) > 1e-9 {
			t.Errorf("inverse takes %v to %v, want %v", got, back, src[k])
		}
	}
}

// A scanned legend set is a PDF of one image a page, with the legend
// set's truth moved by at most the skew and perspective.
func TestScanLegendIsAScannedSet(t *testing.T) {
	g := newTestGenerator(t)
	opt := Options{MaxPaper: "A4", MaxDPI: 150}
	leg, err := g.Legend(9, 0, opt)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.ScanLegend(context.Background(), 9, 0, opt)
	if err != nil {
		t.Fatal(err)
	}
	if s.Truth.Kind != KindScanLegend || s.Name != "scanlegend-00001.pdf" || len(s.Truth.Pages) != len(leg.Truth.Pages) {
		t.Fatalf("%s: kind %s, %d truth pages (legend set has %d)", s.Name, s.Truth.Kind, len(s.Truth.Pages), len(leg.Truth.Pages))
	}
	doc, err := fitz.NewFromMemory(s.Data)
	if err != nil {
		t.Fatalf("scanned set does not open: %v", err)
	}
	defer doc.Close()
	if doc.NumPage() != len(leg.Truth.Pages) {
		t.Fatalf("scanned set has %d pages, legend set %d", doc.NumPage(), len(leg.Truth.Pages))
	}
	for k, p := range s.Truth.Pages {
		lp := leg.Truth.Pages[k]
		if p.WidthPx != lp.WidthPx || p.HeightPx != lp.HeightPx {
			t.Errorf("page %d: truth %dx%d, legend set %dx%d", k, p.WidthPx, p.HeightPx, lp.WidthPx, lp.HeightPx)
		}
		if len(p.Symbols) < len(lp.Symbols)-2 || len(p.Symbols) > len(lp.Symbols) {
			t.Errorf("page %d: %d symbols, legend set %d", k, len(p.Symbols), len(lp.Symbols))
		}
		img, err := doc.ImageDPI(k, 200)
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Dx() < p.WidthPx-3 || img.Bounds().Dx() > p.WidthPx+3 {
			t.Errorf("page %d renders %v wide at 200 DPI, truth says %d", k, img.Bounds(), p.WidthPx)
		}
		// Skew ≤ 2° and perspective ≤ 2.5 %: a box's centre moves less
		// than 6 % of the page's longer side.
		limit := 0.06 * float64(max(p.WidthPx, p.HeightPx))
		for j, sym := range p.Symbols {
			if j >= len(lp.Symbols) {
				break
			}
			ls := lp.Symbols[j]
			if sym.Class != ls.Class || sym.Case != ls.Case {
				continue // one dropped off the page shifts the rest
			}
			dx := sym.BBoxPx.X + sym.BBoxPx.Width/2 - ls.BBoxPx.X - ls.BBoxPx.Width/2
			dy := sym.BBoxPx.Y + sym.BBoxPx.Height/2 - ls.BBoxPx.Y - ls.BBoxPx.Height/2
			if math.Hypot(dx, dy) > limit {
				t.Errorf("page %d symbol %d moved %.0f px", k, j, math.Hypot(dx, dy))
			}
		}
		gray := ink(img)
		if gray < 0.002 {
			t.Errorf("page %d: almost no ink (%.4f of pixels dark)", k, gray)
		}
	}
}

// ink returns the share of the image's pixels darker than mid-grey.
func ink(img image.Image) float64 {
	b := img.Bounds()
	var dark, n float64
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			if lum(img, x, y) < 128 {
				dark++
			}
			n++
		}
	}
	return dark / n
}

func TestScanCopyIsReproducible(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 400, 300))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y := 148; y < 152; y++ { // a 0.5 mm line at 200 DPI
		for x := 50; x < 350; x++ {
			img.Pix[y*400+x] = 0
		}
	}
	a, err := ScanCopy(img, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ScanCopy(img, 7)
	c, _ := ScanCopy(img, 8)
	if !bytes.Equal(a, b) || bytes.Equal(a, c) {
		t.Fatalf("same seed gives the same copy: %v; another seed another copy: %v", bytes.Equal(a, b), !bytes.Equal(a, c))
	}
	got, format, err := image.Decode(bytes.NewReader(a))
	if err != nil || format != "jpeg" || got.Bounds().Dx() != 300 || got.Bounds().Dy() != 225 {
		t.Fatalf("copy is %s %v (%v), want a 300x225 JPEG (150 DPI)", format, got.Bounds(), err)
	}
	if ink(got) == 0 {
		t.Error("the line did not survive the copy")
	}
}
