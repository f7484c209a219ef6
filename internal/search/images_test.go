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
	lamp := func(cx, cy, r float64) { lampAt(img, cx, cy, r) }
	lamp(60, 60, 14)
	lamp(200, 160, 14)
	lamp(380, 100, 14*1.4)
	matchAndNearMiss(t, img, detect.Box{X: 40, Y: 40, W: 40, H: 40}, [2]float64{200, 160}, [2]float64{380, 100}, search.ReasonOtherSize)
}

// TestImagesPageScale: another page drawn at its own scale draws the
// symbol at another size; where it holds several close copies at one
// size, they are matches. A single copy at another size on the
// exemplar's own page stays a near miss.
func TestImagesPageScale(t *testing.T) {
	page := func(r float64, at ...[2]float64) *image.Gray {
		img := image.NewGray(image.Rect(0, 0, 500, 300))
		draw.Draw(img, img.Bounds(), image.NewUniform(color.Gray{Y: 255}), image.Point{}, draw.Src)
		for _, c := range at {
			lampAt(img, c[0], c[1], r)
		}
		return img
	}
	q := page(14, [2]float64{60, 60}, [2]float64{200, 160})
	lampAt(q, 380, 100, 14*0.7)
	small := page(14*0.7, [2]float64{60, 60}, [2]float64{200, 160}, [2]float64{380, 100}, [2]float64{300, 240})
	p, err := search.Images{PageSize: true}.Prepare(context.Background(), q, detect.Box{X: 40, Y: 40, W: 40, H: 40}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Find(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Matches {
		if m.Box.X < 380 && m.Box.X+m.Box.W > 380 {
			t.Errorf("the small copy on the exemplar's page is a match %+v", m)
		}
	}
	r, err = p.Find(context.Background(), small)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Matches) != 4 {
		t.Errorf("the page drawn at 0.7 gives matches %+v and near misses %+v; want its 4 copies matched", r.Matches, r.NearMisses)
	}
}

// lampAt draws a ring of radius r, 3 px thick, with a bar across it from
// its centre to the right.
func lampAt(img *image.Gray, cx, cy, r float64) {
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

// matchAndNearMiss searches img for the ink in box and wants the instance
// at match a match and the one at miss a near miss for reason.
func matchAndNearMiss(t *testing.T, img image.Image, box detect.Box, match, miss [2]float64, reason string) {
	t.Helper()
	q, err := search.Images{}.Prepare(context.Background(), img, box, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := q.Find(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	in := func(b detect.Box, p [2]float64) bool {
		return p[0] > b.X && p[0] < b.X+b.W && p[1] > b.Y && p[1] < b.Y+b.H
	}
	found, near := false, false
	for _, m := range r.Matches {
		found = found || in(m.Box, match)
		if in(m.Box, miss) {
			t.Errorf("the instance at %v is a match %+v", miss, m)
		}
	}
	for _, n := range r.NearMisses {
		near = near || (in(n.Box, miss) && n.Reason == reason)
	}
	if !found || !near {
		t.Errorf("matches %+v, near misses %+v: want the instance at %v a match and the one at %v a near miss %q", r.Matches, r.NearMisses, match, miss, reason)
	}
}

var (
	paperRGB = color.RGBA{255, 255, 255, 255}
	redRGB   = color.RGBA{220, 0, 0, 255}
	blackRGB = color.RGBA{0, 0, 0, 255}
	grayRGB  = color.RGBA{170, 170, 170, 255}
)

// drawWall draws a wall as CAD plots one: a gray band with black faces and
// black diagonal hatching, over r.
func drawWall(img *image.RGBA, r image.Rectangle) {
	draw.Draw(img, r, image.NewUniform(grayRGB), image.Point{}, draw.Src)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if (x+y)%8 < 2 {
				img.SetRGBA(x, y, blackRGB)
			}
		}
	}
	face := func(f image.Rectangle) { draw.Draw(img, f, image.NewUniform(blackRGB), image.Point{}, draw.Src) }
	if r.Dx() > r.Dy() {
		face(image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+2))
		face(image.Rect(r.Min.X, r.Max.Y-2, r.Max.X, r.Max.Y))
	} else {
		face(image.Rect(r.Min.X, r.Min.Y, r.Min.X+2, r.Max.Y))
		face(image.Rect(r.Max.X-2, r.Min.Y, r.Max.X, r.Max.Y))
	}
}

// drawSocket draws an industrial socket as building2's sheet draws one: a
// half ring of radius 11 on the wall face at (cx, cy), open side against
// the wall (facing up when up), a stem from the wall through it and a bar
// across, in c; filled, its half disc is black inside an outline closed
// along the wall.
func drawSocket(img *image.RGBA, cx, cy float64, up, filled bool, c color.RGBA) {
	s := 1.0
	if !up {
		s = -1
	}
	for y := int(cy - 16); y <= int(cy+16); y++ {
		for x := int(cx - 16); x <= int(cx+16); x++ {
			dx, dy := float64(x)-cx, (float64(y)-cy)*s
			if dy < -0.5 {
				continue
			}
			d := math.Hypot(dx, dy)
			switch {
			case math.Abs(d-11) <= 1.2, math.Abs(dx) <= 1 && dy <= 15, math.Abs(dy-6) <= 1 && math.Abs(dx) <= 14,
				filled && dy <= 1 && math.Abs(dx) <= 11:
				img.SetRGBA(x, y, c)
			case filled && d < 10:
				img.SetRGBA(x, y, blackRGB)
			}
		}
	}
}

// drawTag writes a black block letter pair "P5" (two filled shapes) at
// (x, y), 10 px high.
func drawTag(img *image.RGBA, x, y int) {
	fill := func(r image.Rectangle) { draw.Draw(img, r, image.NewUniform(blackRGB), image.Point{}, draw.Src) }
	fill(image.Rect(x, y, x+2, y+10))
	fill(image.Rect(x, y, x+6, y+2))
	fill(image.Rect(x, y+4, x+6, y+6))
	fill(image.Rect(x+5, y, x+7, y+6))
	fill(image.Rect(x+10, y, x+16, y+2))
	fill(image.Rect(x+10, y, x+12, y+6))
	fill(image.Rect(x+10, y+4, x+16, y+6))
	fill(image.Rect(x+14, y+4, x+16, y+10))
	fill(image.Rect(x+10, y+8, x+16, y+10))
}

// TestColouredSymbolsBesideWalls: a red socket is found from one exemplar
// whatever wall, hatch and tag stand beside it, not where the same glyph
// is drawn in black (a look-alike of the architect's); with Darkness (the
// request's any_colour) the black one is found too.
func TestColouredSymbolsBesideWalls(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 600, 300))
	draw.Draw(img, img.Bounds(), image.NewUniform(paperRGB), image.Point{}, draw.Src)
	drawWall(img, image.Rect(0, 40, 600, 52))
	drawWall(img, image.Rect(0, 240, 600, 252))
	// the exemplar: under the top wall, its tag below it
	drawSocket(img, 60, 52, true, false, redRGB)
	drawTag(img, 52, 72)
	// a pair under the top wall, tags beside
	drawSocket(img, 200, 52, true, false, redRGB)
	drawSocket(img, 228, 52, true, false, redRGB)
	drawTag(img, 190, 72)
	drawTag(img, 222, 72)
	// turned, above the bottom wall, with no tag
	drawSocket(img, 400, 240, false, false, redRGB)
	// the same glyph in black
	drawSocket(img, 520, 240, false, false, blackRGB)
	want := [][2]float64{{200, 60}, {228, 60}, {400, 232}}
	box := detect.Box{X: 44, Y: 44, W: 32, H: 26} // the socket with a strip of its wall
	find := func(s search.Images) []search.Match {
		ms, err := s.Search(context.Background(), img, box, []image.Image{img})
		if err != nil {
			t.Fatal(err)
		}
		return ms[0]
	}
	near := func(ms []search.Match, x, y float64) bool {
		for _, m := range ms {
			if cx, cy := m.Box.X+m.Box.W/2, m.Box.Y+m.Box.H/2; math.Abs(cx-x) < 8 && math.Abs(cy-y) < 10 {
				return true
			}
		}
		return false
	}
	ms := find(search.Images{})
	for _, w := range want {
		if !near(ms, w[0], w[1]) {
			t.Errorf("the red socket at %v is not found: %+v", w, ms)
		}
	}
	if near(ms, 520, 232) {
		t.Errorf("the black socket is a match of the red one's search: %+v", ms)
	}
	if !near(find(search.Images{Darkness: true}), 520, 232) {
		t.Errorf("with Darkness the black socket is not found")
	}
}

// TestColourExplained: searched in coloured ink, a pose whose box holds
// more coloured ink than the exemplar (a second ring round the same ring,
// another symbol) is a near miss, an extra stroke.
func TestColourExplained(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 400, 200))
	draw.Draw(img, img.Bounds(), image.NewUniform(paperRGB), image.Point{}, draw.Src)
	lamp := func(cx, cy float64, rings ...float64) {
		for y := int(cy - 30); y <= int(cy+30); y++ {
			for x := int(cx - 30); x <= int(cx+30); x++ {
				dx, dy := float64(x)-cx, float64(y)-cy
				d := math.Hypot(dx, dy)
				on := (math.Abs(dx) <= 1 || math.Abs(dy) <= 1) && d <= 18
				for _, r := range rings {
					on = on || math.Abs(d-r) <= 1
				}
				if on {
					img.SetRGBA(x, y, redRGB)
				}
			}
		}
	}
	lamp(50, 50, 10)
	lamp(200, 120, 10)
	lamp(320, 60, 10, 14)
	matchAndNearMiss(t, img, detect.Box{X: 30, Y: 30, W: 41, H: 41}, [2]float64{200, 120}, [2]float64{320, 60}, search.ReasonExtraStroke)
}
