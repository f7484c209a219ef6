package darkness

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

// minChannel is the darkness without colour given back: 255 minus the
// smallest channel, composited on white.
func minChannel(c color.Color) int {
	r, g, b, a := c.RGBA()
	bg := 0xffff - a
	return 255 - int(min(0xffff, min(r, g, b)+bg)>>8)
}

// page draws, on white, a one-pixel rectangle outline in colour c and a
// solid stroke 4 pixels wide in colour s.
func page(c, s color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for i := 10; i <= 40; i++ {
		img.SetRGBA(i, 10, c)
		img.SetRGBA(i, 40, c)
		img.SetRGBA(10, i, c)
		img.SetRGBA(40, i, c)
	}
	for y := 50; y < 54; y++ {
		for x := 10; x < 50; x++ {
			img.SetRGBA(x, y, s)
		}
	}
	return img
}

var (
	paleGreen = color.RGBA{215, 248, 204, 255}
	red       = color.RGBA{255, 0, 0, 255}
)

// TestLosslessIsMinChannel: on an image that lost no colour, a pixel's
// darkness is its smallest channel's (within rounding), on lines and
// solid strokes alike.
func TestLosslessIsMinChannel(t *testing.T) {
	img := page(paleGreen, red)
	d := Restored(img, img.Bounds())
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			want := minChannel(img.At(x, y))
			if got := int(d[y*64+x]); got < want || got > want+2 {
				t.Fatalf("(%d,%d): darkness %d, want %d", x, y, got, want)
			}
		}
	}
}

// TestJPEGColourGivenBack: a pale one-pixel outline saved as JPEG keeps
// its colour at half resolution, and the smallest channel alone loses a
// third of its darkness; most of it comes back.
func TestJPEGColourGivenBack(t *testing.T) {
	src := page(paleGreen, red)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := img.(*image.YCbCr); !ok {
		t.Fatalf("decoded %T, want subsampled YCbCr", img)
	}
	d := Restored(img, img.Bounds())
	want := minChannel(paleGreen) // 51
	var got, plain, n int
	for i := 12; i <= 38; i++ {
		for _, p := range []image.Point{{i, 10}, {i, 40}, {10, i}, {40, i}} {
			got += int(d[p.Y*64+p.X])
			plain += minChannel(img.At(p.X, p.Y))
			n++
		}
	}
	got, plain = got/n, plain/n
	t.Logf("outline darkness: lossless %d, JPEG smallest channel %d, given back %d", want, plain, got)
	if plain > want*3/4 {
		t.Fatalf("the JPEG kept the outline's colour (%d of %d): the test shows nothing", plain, want)
	}
	// JPEG's quantisation loses some of the colour outright: what is
	// left comes back to about four fifths of the lossless darkness.
	if got < want*78/100 {
		t.Errorf("outline darkness %d after JPEG, want at least 78%% of %d (smallest channel: %d)", got, want, plain)
	}
	// the paper beside the line takes no colour from it
	for i := 12; i <= 38; i++ {
		if v := d[13*64+i]; v > 12 {
			t.Fatalf("paper inside the outline at (%d,13): darkness %d", i, v)
		}
	}
}

// TestGrayAndAlpha: gray images are 255 minus their value; transparent
// pixels are paper.
func TestGrayAndAlpha(t *testing.T) {
	g := image.NewGray(image.Rect(5, 5, 8, 6))
	g.Pix = []uint8{0, 128, 255}
	if d := Restored(g, g.Bounds()); d[0] != 255 || d[1] != 127 || d[2] != 0 {
		t.Errorf("gray: %v", d)
	}
	n := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	n.SetNRGBA(0, 0, color.NRGBA{0, 0, 0, 0})
	n.SetNRGBA(1, 0, color.NRGBA{0, 0, 0, 255})
	if d := Restored(n, n.Bounds()); d[0] != 0 || d[1] != 255 {
		t.Errorf("alpha: %v", d)
	}
}
