package imagevector

// Neighbour order around a pixel, clockwise from north (Zhang and Suen's
// P2..P9): N, NE, E, SE, S, SW, W, NW.
var around = [8][2]int{{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}}

// neighbours returns the 8 neighbours of (x, y) in m (w × h, 1 for ink)
// as bits, bit k for around[k]; pixels past the edge are paper.
func neighbours(m []uint8, w, h, x, y int) uint8 {
	var b uint8
	for k, d := range around {
		xx, yy := x+d[0], y+d[1]
		if xx >= 0 && yy >= 0 && xx < w && yy < h && m[yy*w+xx] != 0 {
			b |= 1 << k
		}
	}
	return b
}

// thinTable[s][bits] says whether a pixel with those neighbours is removed
// in sub-iteration s of Zhang–Suen thinning: it has 2 to 6 ink
// neighbours, exactly one paper-to-ink step going round them (removing
// it keeps its neighbours connected), and it lies on the south-east
// boundary (s = 0) or the north-west one (s = 1).
var thinTable = func() (t [2][256]bool) {
	for bits := range 256 {
		p := func(k int) bool { return bits>>k&1 != 0 }
		n, steps := 0, 0
		for k := range 8 {
			if p(k) {
				n++
			}
			if !p(k) && p((k+1)%8) {
				steps++
			}
		}
		if n < 2 || n > 6 || steps != 1 {
			continue
		}
		// P2=N(0) P4=E(2) P6=S(4) P8=W(6)
		t[0][bits] = !(p(0) && p(2) && p(4)) && !(p(2) && p(4) && p(6))
		t[1][bits] = !(p(0) && p(2) && p(6)) && !(p(0) && p(4) && p(6))
	}
	return t
}()

// staircase[bits] says whether a pixel of a thinned line is a step of a
// diagonal that Zhang–Suen leaves two pixels thick: two of its
// 4-neighbours at a right angle are ink (they touch each other at a
// corner), the other two and the diagonal pixel opposite are paper, so
// every ink neighbour stays connected without it.
var staircase = func() (t [256]bool) {
	for bits := range 256 {
		p := func(k int) bool { return bits>>k&1 != 0 }
		for _, c := range [4][3]int{{0, 1, 2}, {2, 3, 4}, {4, 5, 6}, {6, 7, 0}} {
			a, mid, b := c[0], c[1], c[2]
			if p(a) && p(b) && !p((a+4)%8) && !p((b+4)%8) && !p((mid+4)%8) {
				t[bits] = true
			}
		}
	}
	return t
}()

// thin reduces the ink of m (w × h, 1 for ink, changed in place) to lines
// one pixel wide along the middle of each stroke (Zhang and Suen, 1984),
// then takes out the steps of diagonal lines, so that every pixel of a
// line but its ends and junctions has exactly two ink neighbours. Only
// pixels next to paper are examined, so its time follows the ink, not the
// page.
func thin(m []uint8, w, h int) {
	var border []int32
	for y := range h {
		for x := range w {
			i := y*w + x
			if m[i] != 0 && neighbours(m, w, h, x, y)&0b01010101 != 0b01010101 {
				border = append(border, int32(i))
			}
		}
	}
	// queued marks pixels in the next round's list.
	queued := make([]bool, w*h)
	var del []int32
	for len(border) > 0 {
		changed := false
		for s := range 2 {
			del = del[:0]
			for _, i := range border {
				if m[i] == 0 {
					continue
				}
				x, y := int(i)%w, int(i)/w
				if thinTable[s][neighbours(m, w, h, x, y)] {
					del = append(del, i)
				}
			}
			for _, i := range del {
				m[i] = 0
			}
			if len(del) > 0 {
				changed = true
			}
		}
		if !changed {
			break
		}
		// The next round examines what is left beside what was removed.
		next := border[:0:0]
		for _, i := range border {
			if m[i] == 0 {
				x, y := int(i)%w, int(i)/w
				for _, d := range around {
					xx, yy := x+d[0], y+d[1]
					if xx >= 0 && yy >= 0 && xx < w && yy < h {
						j := int32(yy*w + xx)
						if m[j] != 0 && !queued[j] {
							queued[j] = true
							next = append(next, j)
						}
					}
				}
			} else if !queued[i] {
				queued[i] = true
				next = append(next, i)
			}
		}
		for _, i := range next {
			queued[i] = false
		}
		border = next
	}
	for y := range h {
		for x := range w {
			i := y*w + x
			if m[i] != 0 && staircase[neighbours(m, w, h, x, y)] {
				m[i] = 0
			}
		}
	}
}
