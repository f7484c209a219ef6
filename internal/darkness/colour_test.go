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
	if !Coloured(img, image.Rect(40, 50, 80, 90)) {
		t.Error("the red ring with its black half is not drawn in colour")
	}
	if Coloured(img, image.Rect(0, 8, 40, 24)) || Coloured(image.NewGray(image.Rect(0, 0, 10, 10)), image.Rect(0, 0, 10, 10)) {
		t.Error("the black and gray wall, or a gray image, is drawn in colour")
	}
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

// TestColouredHairline: a symbol drawn in a light colour's hairline (a
// pink 0.1 mm ring at 200 DPI) against a black wall and a black wire
// running through its box is drawn in colour; a black symbol that a
// coloured wire runs through is not.
func TestColouredHairline(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 120, 120))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	pink, black, magenta := color.RGBA{255, 204, 204, 255}, color.RGBA{0, 0, 0, 255}, color.RGBA{255, 60, 255, 255}
	draw.Draw(img, image.Rect(0, 20, 120, 26), image.NewUniform(black), image.Point{}, draw.Src) // a wall
	draw.Draw(img, image.Rect(0, 49, 50, 52), image.NewUniform(black), image.Point{}, draw.Src)  // its wire
	for y := 30; y < 80; y++ {
		for x := 30; x < 80; x++ {
			if d := math.Hypot(float64(x)-60, float64(y)-50); math.Abs(d-10) <= 0.5 {
				img.SetRGBA(x, y, pink)
			}
		}
	}
	if !Coloured(img, image.Rect(40, 18, 80, 70)) {
		t.Error("the pink hairline ring between a wall and its wire is not drawn in colour")
	}
	// a black square with a magenta wire through its box
	draw.Draw(img, image.Rect(20, 95, 36, 111), image.NewUniform(black), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, 102, 120, 104), image.NewUniform(magenta), image.Point{}, draw.Src)
	if Coloured(img, image.Rect(14, 89, 42, 117)) {
		t.Error("the black square a magenta wire runs through is drawn in colour")
	}
}

// TestColouredCrop: in a crop cut tight round a black glyph, the glyph's
// strokes reach the crop's edge and a small red detail lies wholly inside
// it; the crop is not drawn in colour, though that detail is all the ink
// lying inside the box.
func TestColouredCrop(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 40, 40))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	black, red := color.RGBA{0, 0, 0, 255}, color.RGBA{220, 0, 0, 255}
	for _, r := range []image.Rectangle{{image.Pt(0, 0), image.Pt(40, 3)}, {image.Pt(0, 37), image.Pt(40, 40)}, {image.Pt(0, 0), image.Pt(3, 40)}, {image.Pt(37, 0), image.Pt(40, 40)}} {
		draw.Draw(img, r, image.NewUniform(black), image.Point{}, draw.Src) // a square frame, the crop's edge
	}
	draw.Draw(img, image.Rect(16, 16, 22, 24), image.NewUniform(red), image.Point{}, draw.Src) // a red mark inside
	if ColouredCrop(img, img.Bounds()) {
		t.Error("the black frame's crop is drawn in colour")
	}
	if !Coloured(img, img.Bounds()) {
		t.Error("the red mark lying inside the box does not count as the box's symbol")
	}
}
