package search

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"testing"
)

var (
	whiteRGBA = image.NewUniform(color.White)
	blackRGBA = image.NewUniform(color.RGBA{0, 0, 0, 255})
)

// ringAt sets the pixels of img within half of w of the circle of radius r
// round (cx, cy) to c.
func ringAt(img *image.RGBA, cx, cy, r, w float64, c color.RGBA) {
	for y := int(cy - r - w); y <= int(cy+r+w); y++ {
		for x := int(cx - r - w); x <= int(cx+r+w); x++ {
			if math.Abs(math.Hypot(float64(x)-cx, float64(y)-cy)-r) <= w/2 {
				img.SetRGBA(x, y, c)
			}
		}
	}
}

// TestColouredRingBesideWall: a red ring with a black half filled inside
// it is drawn in colour; a black wall with its gray band, and a gray
// image, are not.
func TestColouredRingBesideWall(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 200, 120))
	draw.Draw(img, img.Bounds(), whiteRGBA, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, 10, 200, 22), image.NewUniform(color.RGBA{170, 170, 170, 255}), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, 10, 200, 12), blackRGBA, image.Point{}, draw.Src)
	ringAt(img, 60, 70, 15, 3, color.RGBA{220, 0, 0, 255})
	for y := 57; y < 84; y++ {
		for x := 47; x < 60; x++ {
			if math.Hypot(float64(x-60), float64(y-70)) < 13 {
				img.SetRGBA(x, y, color.RGBA{0, 0, 0, 255}) // a filled half, inside the ring
			}
		}
	}
	if !coloured(img, image.Rect(40, 50, 80, 90), true) {
		t.Error("the red ring with its black half is not drawn in colour")
	}
	if coloured(img, image.Rect(0, 8, 40, 24), true) || coloured(image.NewGray(image.Rect(0, 0, 10, 10)), image.Rect(0, 0, 10, 10), true) {
		t.Error("the black and gray wall, or a gray image, is drawn in colour")
	}
}

// TestColouredHairline: a symbol drawn in a light colour's hairline (a
// pink 0.1 mm ring at 200 DPI) against a black wall and a black wire
// running through its box is drawn in colour; a black symbol that a
// coloured wire runs through is not.
func TestColouredHairline(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 120, 120))
	draw.Draw(img, img.Bounds(), whiteRGBA, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, 20, 120, 26), blackRGBA, image.Point{}, draw.Src) // a wall
	draw.Draw(img, image.Rect(0, 49, 50, 52), blackRGBA, image.Point{}, draw.Src)  // its wire
	ringAt(img, 60, 50, 10, 1, color.RGBA{255, 204, 204, 255})
	if !coloured(img, image.Rect(40, 18, 80, 70), true) {
		t.Error("the pink hairline ring between a wall and its wire is not drawn in colour")
	}
	// a black square with a magenta wire through its box
	draw.Draw(img, image.Rect(20, 95, 36, 111), blackRGBA, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, 102, 120, 104), image.NewUniform(color.RGBA{255, 60, 255, 255}), image.Point{}, draw.Src)
	if coloured(img, image.Rect(14, 89, 42, 117), true) {
		t.Error("the black square a magenta wire runs through is drawn in colour")
	}
}

// TestColouredCrop: in a crop cut tight round a black glyph, the glyph's
// strokes reach the crop's edge and a small red detail lies wholly inside
// it; the crop is not drawn in colour, though that detail is all the ink
// lying inside the box.
func TestColouredCrop(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 40, 40))
	draw.Draw(img, img.Bounds(), blackRGBA, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(3, 3, 37, 37), whiteRGBA, image.Point{}, draw.Src)                                      // a square frame, the crop's edge
	draw.Draw(img, image.Rect(16, 16, 22, 24), image.NewUniform(color.RGBA{220, 0, 0, 255}), image.Point{}, draw.Src) // a red mark inside
	if coloured(img, img.Bounds(), false) {
		t.Error("the black frame's crop is drawn in colour")
	}
	if !coloured(img, img.Bounds(), true) {
		t.Error("the red mark lying inside the box does not count as the box's symbol")
	}
}
