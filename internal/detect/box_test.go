package detect

import (
	"image"
	"testing"
)

// TestBoxGap: the gap between boxes is the straight distance between
// their nearest edges or corners, 0 where they overlap or touch.
func TestBoxGap(t *testing.T) {
	a := Box{X: 0, Y: 0, W: 10, H: 10}
	for _, c := range []struct {
		b    Box
		want float64
	}{
		{Box{X: 5, Y: 5, W: 10, H: 10}, 0}, // overlapping
		{Box{X: 10, Y: 0, W: 5, H: 5}, 0},  // touching
		{Box{X: 14, Y: 2, W: 5, H: 5}, 4},  // beside
		{Box{X: 2, Y: -9, W: 5, H: 5}, 4},  // above
		{Box{X: 13, Y: 14, W: 5, H: 5}, 5}, // off a corner: 3, 4, 5
		{Box{X: -8, Y: -9, W: 5, H: 5}, 5}, // off the other corner
	} {
		if g, h := a.Gap(c.b), c.b.Gap(a); g != c.want || h != c.want {
			t.Errorf("gap to %+v: %v and %v, want %v", c.b, g, h, c.want)
		}
	}
}

// TestBoxPixels: a box covers the pixels its edges touch, rounded out.
func TestBoxPixels(t *testing.T) {
	for _, c := range []struct {
		b    Box
		want image.Rectangle
	}{
		{Box{X: 2, Y: 3, W: 4, H: 5}, image.Rect(2, 3, 6, 8)},
		{Box{X: 2.5, Y: 3.2, W: 4, H: 5}, image.Rect(2, 3, 7, 9)},
		{Box{X: -1.5, Y: 0, W: 1, H: 0.5}, image.Rect(-2, 0, 0, 1)},
	} {
		if got := c.b.Pixels(); got != c.want {
			t.Errorf("%+v.Pixels() = %v, want %v", c.b, got, c.want)
		}
	}
}
