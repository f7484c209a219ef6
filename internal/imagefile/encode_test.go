package imagefile

import (
	"bytes"
	"hash/adler32"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"
)

// TestEncodePNGDecodesToRaster checks that the parallel RGB writer gives a
// PNG that image/png decodes to the raster's pixels, for sizes around the
// part boundaries and for one to many parts, and that other images go
// through image/png.
func TestEncodePNGDecodesToRaster(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range []image.Point{{1, 1}, {3, 1}, {17, 63}, {101, 64}, {257, 129}, {640, 700}} {
		img := image.NewRGBA(image.Rect(0, 0, sz.X, sz.Y))
		for i := range img.Pix {
			img.Pix[i] = 255
			if i%4 != 3 && rng.IntN(5) == 0 {
				img.Pix[i] = byte(rng.IntN(256))
			}
		}
		for _, parts := range []int{1, 2, 7} {
			b := encodeRGB(img, parts)
			got, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%v, %d parts: %v", sz, parts, err)
			}
			if !sameRGBA(got, img) {
				t.Errorf("%v, %d parts: decoded pixels differ", sz, parts)
			}
		}
	}
	gray := image.NewGray(image.Rect(0, 0, 5, 4))
	gray.Set(2, 2, color.Gray{Y: 7})
	b, err := EncodePNG(gray)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := png.Decode(bytes.NewReader(b)); err != nil || got.At(2, 2) != (color.Gray{Y: 7}) {
		t.Errorf("gray image: %v, %v", err, got)
	}
}

func sameRGBA(got image.Image, want *image.RGBA) bool {
	if got.Bounds() != want.Bounds() {
		return false
	}
	for y := 0; y < want.Rect.Dy(); y++ {
		for x := 0; x < want.Rect.Dx(); x++ {
			r, g, b, a := got.At(x, y).RGBA()
			w := want.RGBAAt(x, y)
			if uint8(r>>8) != w.R || uint8(g>>8) != w.G || uint8(b>>8) != w.B || uint8(a>>8) != w.A {
				return false
			}
		}
	}
	return true
}

func TestAdler32Combine(t *testing.T) {
	a := bytes.Repeat([]byte("drawing "), 9000)
	b := bytes.Repeat([]byte{0xff, 0, 7}, 70001)
	want := adler32.Checksum(append(append([]byte{}, a...), b...))
	if got := adler32Combine(adler32.Checksum(a), adler32.Checksum(b), int64(len(b))); got != want {
		t.Errorf("combined %08x, want %08x", got, want)
	}
}
