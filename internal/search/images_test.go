package search_test

import (
	"context"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"math"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/search"
)

// TestImages finds an exemplar drawn in ink on a page image, on that page
// and on another one, and refuses a box on blank paper.
func TestImages(t *testing.T) {
	ink := color.Gray{Y: 0}
	page := func(flags ...[2]int) *image.Gray {
		img := image.NewGray(image.Rect(0, 0, 400, 300))
		draw.Draw(img, img.Bounds(), image.NewUniform(color.Gray{Y: 255}), image.Point{}, draw.Src)
		for _, f := range flags { // a flag: a pole 40 px high with a 20×12 px flag
			x, y := f[0], f[1]
			draw.Draw(img, image.Rect(x, y, x+3, y+40), image.NewUniform(ink), image.Point{}, draw.Src)
			draw.Draw(img, image.Rect(x+3, y, x+23, y+12), image.NewUniform(ink), image.Point{}, draw.Src)
		}
		return img
	}
	q := page([2]int{50, 50}, [2]int{200, 150})
	other := page([2]int{300, 40})
	ms, err := search.Images{}.Search(context.Background(), q, detect.Box{X: 44, Y: 44, W: 36, H: 52}, []image.Image{q, other})
	if err != nil {
		t.Fatal(err)
	}
	near := func(ms []search.Match, x, y float64) bool {
		for _, m := range ms {
			if cx, cy := m.Box.X+m.Box.W/2, m.Box.Y+m.Box.H/2; cx > x-4 && cx < x+4 && cy > y-4 && cy < y+4 {
				return true
			}
		}
		return false
	}
	// The boxed flag itself is glyphsearch's to report or not; the other
	// two must be found.
	if len(ms) != 2 || !near(ms[0], 211.5, 170) || !near(ms[1], 311.5, 60) {
		t.Errorf("matches %+v; want the flag centred at (211.5, 170) on the first page and (311.5, 60) on the second", ms)
	}
	for _, m := range ms[0] {
		if !near([]search.Match{m}, 211.5, 170) && !near([]search.Match{m}, 61.5, 70) {
			t.Errorf("match %+v on the first page is no flag", m)
		}
	}
	if _, err := (search.Images{}).Search(context.Background(), q, detect.Box{X: 300, Y: 200, W: 40, H: 40}, []image.Image{q}); !errors.Is(err, search.ErrEmptyRegion) {
		t.Errorf("a box on blank paper: %v, want ErrEmptyRegion", err)
	}
}

// TestImagesOtherSize: a drawing draws a symbol at one size; a copy drawn
// 1.4 times as large is a near miss for its size, not a match.
func TestImagesOtherSize(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 500, 300))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.Gray{Y: 255}), image.Point{}, draw.Src)
	// lamp draws a ring of radius r, 3 px thick, with a bar across it
	// from its centre to the right.
	lamp := func(cx, cy, r float64) {
		for y := int(cy - r - 3); y <= int(cy+r+3); y++ {
			for x := int(cx - r - 3); x <= int(cx+r+3); x++ {
				dx, dy := float64(x)-cx, float64(y)-cy
				d := math.Hypot(dx, dy)
				if math.Abs(d-r) <= 1.5 || (dx >= 0 && dx <= r && math.Abs(dy) <= 1.5) {
					img.SetGray(x, y, color.Gray{Y: 0})
				}
			}
		}
	}
	lamp(60, 60, 14)
	lamp(200, 160, 14)
	lamp(380, 100, 14*1.4)
	q, err := search.Images{}.Prepare(context.Background(), img, detect.Box{X: 40, Y: 40, W: 40, H: 40}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := q.Find(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	in := func(b detect.Box, x, y float64) bool { return x > b.X && x < b.X+b.W && y > b.Y && y < b.Y+b.H }
	found, other := false, false
	for _, m := range r.Matches {
		found = found || in(m.Box, 200, 160)
		if in(m.Box, 380, 100) {
			t.Errorf("the lamp drawn 1.4 times as large is a match %+v", m)
		}
	}
	for _, n := range r.NearMisses {
		other = other || (in(n.Box, 380, 100) && n.Reason == search.ReasonOtherSize)
	}
	if !found || !other {
		t.Errorf("matches %+v, near misses %+v: want the copy of the same size (200,160) a match and the larger one (380,100) a near miss %q", r.Matches, r.NearMisses, search.ReasonOtherSize)
	}
}
