package darkness

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"testing"
)

// TestColouredInk: the coloured ink keeps a red ring and the black fill it
// encloses; a black wall with its gray band and a black letter beside the
// ring (coloured ink on one side of it only) are paper.
func TestColouredInk(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 200, 120))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	red, black, gray := color.RGBA{220, 0, 0, 255}, color.RGBA{0, 0, 0, 255}, color.RGBA{170, 170, 170, 255}
	draw.Draw(img, image.Rect(0, 10, 200, 22), image.NewUniform(gray), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, 10, 200, 12), image.NewUniform(black), image.Point{}, draw.Src)
	for y := 40; y < 100; y++ {
		for x := 20; x < 100; x++ {
			d := math.Hypot(float64(x-60), float64(y-70))
			switch {
			case math.Abs(d-15) <= 1.5:
				img.SetRGBA(x, y, red)
			case d < 13 && x < 60:
				img.SetRGBA(x, y, black) // a filled half, inside the ring
			}
		}
	}
	draw.Draw(img, image.Rect(80, 64, 86, 76), image.NewUniform(black), image.Point{}, draw.Src) // a letter beside
	g := ColouredInk(img, 40)
	for _, c := range []struct {
		x, y int
		ink  bool
		what string
	}{
		{75, 70, true, "the red ring"},
		{52, 70, true, "the black half inside the ring"},
		{150, 11, false, "the wall's black face"},
		{150, 18, false, "the wall's gray hatch"},
		{83, 70, false, "the letter beside the ring"},
	} {
		if v := g.GrayAt(c.x, c.y).Y; (v < 128) != c.ink {
			t.Errorf("%s (%d, %d) reads %d, want ink %v", c.what, c.x, c.y, v, c.ink)
		}
	}
}

// TestKinds: a red stroke and a pink hairline (255, 204, 204) are
// coloured ink, black and a gray hatch black ink, white and a very light
// gray paper.
func TestKinds(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 6, 1))
	for x, c := range []color.RGBA{{220, 0, 0, 255}, {255, 204, 204, 255}, {0, 0, 0, 255}, {170, 170, 170, 255}, {255, 255, 255, 255}, {235, 235, 235, 255}} {
		img.SetRGBA(x, 0, c)
	}
	want := []uint8{KindColour, KindColour, KindBlack, KindBlack, KindPaper, KindPaper}
	if got := Kinds(img, image.Rect(0, 0, 6, 1)); string(got) != string(want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
}
