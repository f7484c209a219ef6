package main

import (
	"image"
	"image/color"
	"testing"
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
