package raster

import (
	"math"
	"testing"
)

// TestViews: each view moves the crop's pixels as its symmetry moves
// points, the eight views are distinct, and a box found in a view maps
// back to the box in the crop.
func TestViews(t *testing.T) {
	const n = 16
	// An L of ink: rows 2..5 of columns 3..10 and column 3 down to row 12,
	// whose ink box is columns 3..10, rows 2..12 (x0, y0, x1, y1 in crop
	// units: 3/16, 2/16, 11/16, 13/16).
	src := make([]float32, n*n)
	for y := 2; y <= 12; y++ {
		for x := 3; x <= 10; x++ {
			if y <= 5 || x == 3 {
				src[y*n+x] = 1
			}
		}
	}
	want := [4]float64{3.0 / n, 2.0 / n, 11.0 / n, 13.0 / n}
	seen := map[string]bool{}
	for i, s := range viewOrder {
		dst := make([]float32, n*n)
		s.view(dst, src, n)
		key := ""
		x0, y0, x1, y1 := n, n, -1, -1
		for y := range n {
			for x := range n {
				if dst[y*n+x] > 0 {
					key += string(rune('a'+x)) + string(rune('a'+y))
					x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
				}
			}
		}
		if seen[key] {
			t.Errorf("view %d repeats an earlier one", i)
		}
		seen[key] = true
		// Every ink pixel of the view is where the symmetry takes the
		// crop pixel's centre.
		for y := range n {
			for x := range n {
				if src[y*n+x] == 0 {
					continue
				}
				vx, vy := s.apply((float64(x)+0.5)/n, (float64(y)+0.5)/n)
				px, py := int(math.Floor(vx*n)), int(math.Floor(vy*n))
				if dst[py*n+px] != 1 {
					t.Fatalf("view %d: crop pixel (%d,%d) is not at (%d,%d)", i, x, y, px, py)
				}
			}
		}
		got := s.unview([]float32{float32(x0) / n, float32(y0) / n, float32(x1+1) / n, float32(y1+1) / n})
		for k := range got {
			if math.Abs(got[k]-want[k]) > 1e-6 {
				t.Fatalf("view %d: box maps back to %v, want %v", i, got, want)
			}
		}
	}
}
