package raster

import (
	"image"
	"image/color"
	"testing"
)

// TestGrayIsWhatTheDetectorReads: the detector's luma of Gray(img) is the
// luma of img, for the image types pages come in.
func TestGrayIsWhatTheDetectorReads(t *testing.T) {
	r := image.Rect(3, 5, 40, 29)
	rgba := image.NewRGBA(r)
	nrgba := image.NewNRGBA(r)
	ycc := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
	pal := image.NewPaletted(r, color.Palette{color.White, color.Black, color.RGBA{200, 30, 90, 255}})
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			v := uint8((x*37 + y*11) % 256)
			rgba.SetRGBA(x, y, color.RGBA{v, 255 - v, v / 2, 255})
			nrgba.SetNRGBA(x, y, color.NRGBA{v, v / 3, 255 - v, uint8(x * 7)})
			ycc.Y[ycc.YOffset(x, y)] = v
			pal.SetColorIndex(x, y, uint8((x+y)%3))
		}
	}
	for name, img := range map[string]image.Image{"rgba": rgba, "nrgba": nrgba, "ycbcr": ycc, "paletted": pal} {
		g := Gray(img)
		if g.Bounds() != r {
			t.Fatalf("%s: bounds %v, want %v", name, g.Bounds(), r)
		}
		want, got := lumaPixels(img), lumaPixels(g)
		if string(want.pix) != string(got.pix) {
			t.Errorf("%s: the luma of Gray differs from the image's", name)
		}
	}
}
