package imagevector

import (
	"math"

	"blueprint/internal/ink"
)

// fillDepth is how far, in pixels, ink must reach from the paper on every
// side for it to be a filled area rather than a stroke: a band of ink
// more than about 7 pixels wide (0.9 mm at 200 DPI), as a wall drawn
// solid or a filled symbol, where CAD's strokes are 1 to 5 pixels wide.
const fillDepth = 3.5

// minCore is the fewest pixels of a filled area's core: where strokes
// 4 or 5 pixels wide meet, a few pixels lie as deep as fillDepth.
const minCore = 24

// chamfer distances: 3 along an axis, 4 along a diagonal (a pixel is 3).
const (
	chamferAxis = 3
	chamferDiag = 4
)

// distances returns, for each pixel of m (w × h), the chamfer distance
// (3-4, in thirds of a pixel, capped at 255) to the nearest pixel where
// in(m[i]) is false; pixels past the edge are that far from one (0: they
// are not in; 255: far).
func distances(m []uint8, w, h int, in func(uint8) bool, edge int) []uint8 {
	d := make([]uint8, w*h)
	at := func(x, y int) int {
		if x < 0 || y < 0 || x >= w || y >= h {
			return edge
		}
		return int(d[y*w+x])
	}
	for y := range h {
		for x := range w {
			i := y*w + x
			if !in(m[i]) {
				continue
			}
			v := min(at(x-1, y)+chamferAxis, at(x, y-1)+chamferAxis, at(x-1, y-1)+chamferDiag, at(x+1, y-1)+chamferDiag, 255)
			d[i] = uint8(v)
		}
	}
	for y := h - 1; y >= 0; y-- {
		for x := w - 1; x >= 0; x-- {
			i := y*w + x
			if d[i] == 0 {
				continue
			}
			v := min(int(d[i]), at(x+1, y)+chamferAxis, at(x, y+1)+chamferAxis, at(x+1, y+1)+chamferDiag, at(x-1, y+1)+chamferDiag)
			d[i] = uint8(v)
		}
	}
	return d
}

// splitFills marks in m (w × h, 1 for ink, changed in place) the ink of
// filled areas as 2: every ink pixel within fillDepth of a pixel that lies
// deeper than fillDepth inside the ink (the ink's opening by a disc of
// that radius). What stays 1 is strokes.
func splitFills(m []uint8, w, h int) {
	depth := uint8(math.Floor(fillDepth * chamferAxis))
	// Past the image's edge is paper.
	d := distances(m, w, h, func(v uint8) bool { return v != 0 }, 0)
	coreMask := make([]bool, w*h)
	for i, v := range d {
		coreMask[i] = v > depth
	}
	// A core of a few pixels is where thick strokes meet, not an area.
	runs, root := ink.LabelRuns(coreMask, w, h)
	clear(d)
	core := false
	for _, p := range ink.Pieces(runs, root) {
		if p.Area(runs) < minCore {
			continue
		}
		core = true
		for _, i := range p.Runs {
			r := runs[i]
			for x := r.X0; x < r.X1; x++ {
				d[r.Y*w+x] = 1
			}
		}
	}
	if !core {
		return
	}
	// Distance from the core: ink within fillDepth of it is fill.
	// Past the edge is no core: a stroke along the edge is no fill.
	from := distances(d, w, h, func(v uint8) bool { return v == 0 }, 255)
	for i, v := range m {
		if v != 0 && from[i] <= depth {
			m[i] = 2
		}
	}
}
