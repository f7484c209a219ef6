package imagefile

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"

	"blueprint/internal/document/documenttest"
)

// testImage is a small drawing-like picture: white with a dark square.
func testImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 255, 255, 255}
			if x >= w/4 && x < w/2 && y >= h/4 && y < h/2 {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func pngBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzDecodePNG: decodePNG never panics, and whatever image/png decodes
// it decodes to the same pixels over white.
func FuzzDecodePNG(f *testing.F) {
	r := rand.New(rand.NewPCG(2, 2))
	f.Add(documenttest.RawPNG(r, 17, 5, 16, pngRGBA, true, nil, nil))
	f.Add(documenttest.RawPNG(r, 6, 11, 1, pngGray, false, []byte{0, 1}, nil))
	f.Add(documenttest.RawPNG(r, 8, 8, 8, pngPaletted, true, []byte{0, 128}, bytes.Repeat([]byte{1, 2, 3}, 100)))
	f.Add(documenttest.RawPNG(r, 5, 5, 16, pngRGB, false, []byte{0, 1, 0, 2, 0, 3}, nil))
	f.Add(pngBytes(f, testImage(12, 7)))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err == nil && int64(cfg.Width)*int64(cfg.Height) > 1<<20 {
			return // too large for a fuzz run
		}
		got, err := decodePNG(data)
		if _, serr := png.Decode(bytes.NewReader(data)); serr == nil {
			if err != nil {
				t.Fatalf("image/png decodes it, decodePNG: %v", err)
			}
			samePixels(t, data, got)
		}
	})
}
