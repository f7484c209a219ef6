package main

import (
	"image"
	"image/color"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"blueprint/internal/document"
	"blueprint/internal/drawing"
)

// TestTurnImage: a 3 × 2 image turned clockwise puts its top-left pixel at
// the top right (90), the bottom right (180) or the bottom left (270).
func TestTurnImage(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	red := color.NRGBA{R: 255, A: 255}
	img.Set(0, 0, red)
	for _, c := range []struct {
		deg  int
		w, h int
		x, y int
	}{{90, 2, 3, 1, 0}, {180, 3, 2, 2, 1}, {270, 2, 3, 0, 2}} {
		out := turnImage(img, c.deg)
		b := out.Bounds()
		if b.Dx() != c.w || b.Dy() != c.h || out.At(c.x, c.y) != red {
			t.Errorf("turned %d: %v, the red pixel not at (%d, %d) of %d × %d", c.deg, b, c.x, c.y, c.w, c.h)
		}
	}
	for _, d := range []int{0, 90, 180, 270} {
		if !validTurn(d) {
			t.Errorf("turn %d refused", d)
		}
	}
	if validTurn(45) || validTurn(-90) {
		t.Error("turns of 45 or -90 degrees taken")
	}
}

// TestScaledCopyLeavesImages: -scale plots PDFs anew; an image is measured
// as it is (its pixels are its size).
func TestScaledCopyLeavesImages(t *testing.T) {
	got, err := scaledCopy(t.Context(), "mutool-not-run", "/data/sheet.png", t.TempDir(), 0.5)
	if err != nil || got != "/data/sheet.png" {
		t.Errorf("scaledCopy of an image: %q %v, want the image itself", got, err)
	}
}

// TestOutlinedCopy: -outline draws a PDF's words as outlines: the copy has
// the same pages, of the same size, drawing as much, and no text layer;
// an image is measured as it is.
func TestOutlinedCopy(t *testing.T) {
	got, err := outlinedCopy(t.Context(), "mutool-not-run", "/data/sheet.png", t.TempDir())
	if err != nil || got != "/data/sheet.png" {
		t.Errorf("outlinedCopy of an image: %q %v, want the image itself", got, err)
	}
	mutool, err := exec.LookPath("mutool")
	if err != nil {
		t.Skip("no mutool (Debian: mupdf-tools)")
	}
	src := filepath.Join("..", "..", "testdata", "synth", "sheet-00003.pdf")
	out, err := outlinedCopy(t.Context(), mutool, src, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	open := func(path string) *drawing.Page {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := document.Open(t.Context(), data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { doc.Close() })
		pg, err := doc.Drawing(t.Context(), 0)
		if err != nil {
			t.Fatal(err)
		}
		return pg
	}
	a, b := open(src), open(out)
	if len(a.Chars) == 0 {
		t.Fatal("the source sheet writes no text: the test shows nothing")
	}
	if len(b.Chars) != 0 {
		t.Errorf("the outlined copy still writes %d characters", len(b.Chars))
	}
	if math.Abs(a.Width-b.Width) > 1 || math.Abs(a.Height-b.Height) > 1 {
		t.Errorf("page %g × %g outlined as %g × %g", a.Width, a.Height, b.Width, b.Height)
	}
	if len(b.Segments)+len(b.Arcs) <= len(a.Segments)+len(a.Arcs) {
		t.Errorf("outlined copy draws %d pieces, the source %d: the words' outlines are missing", len(b.Segments)+len(b.Arcs), len(a.Segments)+len(a.Arcs))
	}
}
