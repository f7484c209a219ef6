package main

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestRunDrawsEveryIcon(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sheet.png")
	if err := run(out, 32, 8, ""); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// 61 classes in rows of 8: 8 rows of 150 × (32+34) px cells.
	if want := image.Rect(0, 0, 8*150, 8*66); img.Bounds() != want {
		t.Fatalf("sheet %v, want %v", img.Bounds(), want)
	}
	// Every cell of the 61 has coloured (not grey) ink where its icon is.
	for i := range 61 {
		x0, y0 := (i%8)*150+(150-32)/2, (i/8)*66+6
		ink := 0
		for y := y0; y < y0+32; y++ {
			for x := x0; x < x0+32; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if r != g || g != b {
					ink++
				}
			}
		}
		if ink == 0 {
			t.Errorf("cell %d has no icon", i)
		}
	}
}

func TestRunRejectsBadOverride(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "override.json")
	if err := os.WriteFile(bad, []byte(`{"symbols": {"toaster": {}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(filepath.Join(t.TempDir(), "sheet.png"), 32, 8, bad); err == nil {
		t.Fatal("bad override accepted")
	}
}
