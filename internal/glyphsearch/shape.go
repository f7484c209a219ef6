package glyphsearch

import "math"

// mask is a binary raster.
type mask struct {
	w, h int
	on   []bool
}

// threshold returns the pixels of p at or above v.
func threshold(p *plane, v uint8) *mask {
	m := &mask{w: p.w, h: p.h, on: make([]bool, len(p.pix))}
	for i, x := range p.pix {
		m.on[i] = x >= v
	}
	return m
}

// distance returns, for every pixel, its distance to the nearest set
// pixel of m (chamfer 3-4 weights, within a few per cent of Euclidean);
// pixels far from any are at most a large value.
func distance(m *mask) []float64 {
	const far = 1 << 20
	d := make([]int32, len(m.on))
	for i, on := range m.on {
		if !on {
			d[i] = far
		}
	}
	w, h := m.w, m.h
	relax := func(i int, x, y, dx, dy int, c int32) {
		xx, yy := x+dx, y+dy
		if xx < 0 || yy < 0 || xx >= w || yy >= h {
			return
		}
		if v := d[yy*w+xx] + c; v < d[i] {
			d[i] = v
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			relax(i, x, y, -1, 0, 3)
			relax(i, x, y, -1, -1, 4)
			relax(i, x, y, 0, -1, 3)
			relax(i, x, y, 1, -1, 4)
		}
	}
	for y := h - 1; y >= 0; y-- {
		for x := w - 1; x >= 0; x-- {
			i := y*w + x
			relax(i, x, y, 1, 0, 3)
			relax(i, x, y, 1, 1, 4)
			relax(i, x, y, 0, 1, 3)
			relax(i, x, y, -1, 1, 4)
		}
	}
	out := make([]float64, len(d))
	for i, v := range d {
		out[i] = float64(v) / 3
	}
	return out
}

// thin returns the centre lines of m's strokes (Zhang and Suen's
// thinning): one pixel wide, connected as the strokes are.
func thin(m *mask) *mask {
	w, h := m.w, m.h
	on := append([]bool(nil), m.on...)
	get := func(x, y int) int {
		if x < 0 || y < 0 || x >= w || y >= h || !on[y*w+x] {
			return 0
		}
		return 1
	}
	var del []int
	for changed := true; changed; {
		changed = false
		for pass := 0; pass < 2; pass++ {
			del = del[:0]
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					if !on[y*w+x] {
						continue
					}
					// neighbours clockwise from north
					n := [8]int{get(x, y-1), get(x+1, y-1), get(x+1, y), get(x+1, y+1), get(x, y+1), get(x-1, y+1), get(x-1, y), get(x-1, y-1)}
					b := 0
					for _, v := range n {
						b += v
					}
					if b < 2 || b > 6 {
						continue
					}
					a := 0
					for i := 0; i < 8; i++ {
						if n[i] == 0 && n[(i+1)%8] == 1 {
							a++
						}
					}
					if a != 1 {
						continue
					}
					if pass == 0 && (n[0]*n[2]*n[4] != 0 || n[2]*n[4]*n[6] != 0) {
						continue
					}
					if pass == 1 && (n[0]*n[2]*n[6] != 0 || n[0]*n[4]*n[6] != 0) {
						continue
					}
					del = append(del, y*w+x)
				}
			}
			for _, i := range del {
				on[i] = false
			}
			if len(del) > 0 {
				changed = true
			}
		}
	}
	return &mask{w: w, h: h, on: on}
}

// strokeWidth estimates the width of m's strokes: twice the mean distance
// from the centre line to the strokes' edge, in pixels.
func strokeWidth(m, centre *mask) float64 {
	inv := &mask{w: m.w, h: m.h, on: make([]bool, len(m.on))}
	for i, v := range m.on {
		inv.on[i] = !v
	}
	d := distance(inv)
	sum, n := 0.0, 0
	for i, v := range centre.on {
		if v {
			sum += d[i]
			n++
		}
	}
	if n == 0 {
		return 1
	}
	// a pixel's distance to the nearest background pixel counts whole
	// pixels: a one-pixel stroke measures 1
	return math.Max(1, 2*sum/float64(n)-1)
}
