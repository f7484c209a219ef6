package imagelegend

import (
	"image"
	"math/rand/v2"
	"testing"
)

// TestBinariseWindowMean checks the sliding window sums against each
// pixel's window mean summed directly, on noisy gray with dark strokes.
func TestBinariseWindowMean(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	g := image.NewGray(image.Rect(0, 0, 137, 91))
	for i := range g.Pix {
		g.Pix[i] = uint8(200 + r.IntN(56))
		if r.IntN(9) == 0 {
			g.Pix[i] = uint8(r.IntN(200))
		}
	}
	m := binarise(g)
	w, h := 137, 91
	rad := inkWindow / 2
	for y := range h {
		for x := range w {
			var sum, n int
			for yy := max(0, y-rad); yy < min(h, y+rad+1); yy++ {
				for xx := max(0, x-rad); xx < min(w, x+rad+1); xx++ {
					sum += int(g.Pix[yy*g.Stride+xx])
					n++
				}
			}
			v := int(g.Pix[y*g.Stride+x])
			want := v < inkCeiling && v <= sum/n-inkContrast
			if m.ink[y*w+x] != want {
				t.Fatalf("pixel (%d, %d): ink %v, want %v", x, y, m.ink[y*w+x], want)
			}
		}
	}
}
