package glyphsearch

import (
	"context"
	"math"
	"sync"
)

// Ring stage ("circular sampling", after Kim and Araújo's Ciratefi): the
// ink within rings around a point does not change when the glyph turns or
// is mirrored about that point, so one comparison per place and size
// tells where an instance may stand, at any angle. The page is looked at
// on a coarse level where the smallest instance sought is about
// ringMinRadius pixels in radius, on every ringStride-th pixel.
const (
	rings         = 8
	ringMinRadius = 8
	ringStride    = 2
	// gateShare: a place whose ink within the smallest variant's radius
	// is under this share of what the template holds there is skipped
	// before its rings are measured (faded, broken strokes keep half).
	gateShare = 0.45
)

// disk holds the half-widths of the digital disks of radius 0..rmax:
// hw[r][dy] is the largest dx with dx² + dy² ≤ r².
type disk struct {
	rmax int
	hw   [][]int
}

func newDisk(rmax int) *disk {
	d := &disk{rmax: rmax, hw: make([][]int, rmax+1)}
	for r := 0; r <= rmax; r++ {
		d.hw[r] = make([]int, r+1)
		for dy := 0; dy <= r; dy++ {
			d.hw[r][dy] = int(math.Sqrt(float64(r*r - dy*dy)))
		}
	}
	return d
}

// interp returns the disk sum at real radius rho by linear interpolation
// between the integer radii's sums.
func interp(sums []float64, rho float64) float64 {
	if rho <= 0 {
		return sums[0]
	}
	i := int(rho)
	if i >= len(sums)-1 {
		return sums[len(sums)-1]
	}
	f := rho - float64(i)
	return sums[i] + f*(sums[i+1]-sums[i])
}

// ringMasses fills out with the ink of each ring of a variant from the
// disk sums around one point.
func ringMasses(sums []float64, bnd *[rings + 1]float64, out *[rings]float64) {
	prev := 0.0
	for i := 1; i <= rings; i++ {
		d := interp(sums, bnd[i])
		out[i-1] = d - prev
		prev = d
	}
}

// normalise makes v zero-mean and of unit length; it reports false when v
// has no spread.
func normalise(v []float64) bool {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	n := 0.0
	for i := range v {
		v[i] -= m
		n += v[i] * v[i]
	}
	if n < 1e-12 {
		return false
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] /= n
	}
	return true
}

// candidate is a place where an instance may stand, with the variant
// whose rings fit best there.
type candidate struct {
	x, y    float64 // centre at full resolution
	variant int
	score   float64
}

// ringSearch measures every place of the coarse level and returns the
// local best places whose ring profile is like some variant's: the ink of
// the rings, page against template, min over max summed over the rings,
// at least pl.ringMin.
func (pl *plan) ringSearch(ctx context.Context, lv *level) ([]candidate, error) {
	minScore := pl.ringMin
	ink := lv.ink
	R := pl.ringRmax
	dk := newDisk(R)
	gw, gh := (ink.w+ringStride-1)/ringStride, (ink.h+ringStride-1)/ringStride
	scores := make([]float32, gw*gh)
	best := make([]uint16, gw*gh)

	const bandSites = 16 // site rows per band
	bands := (gh + bandSites - 1) / bandSites
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	var cerr error
	for w := 0; w < pl.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pw := ink.w + 2*R + 1
			buf := make([]uint32, (bandSites*ringStride+2*R+1)*pw)
			// sq: column prefix sums of buf's rows (the band's 2-D
			// prefix sums), for an O(1) test of the gate disk's
			// bounding square: a place whose square holds too little ink
			// cannot hold enough in the disk.
			sq := make([]uint32, len(buf)+pw)
			g := pl.gateRadius
			sums := make([]float64, R+1)
			var prof [rings]float64
			for {
				mu.Lock()
				b := next
				next++
				if cerr == nil {
					cerr = ctx.Err()
				}
				stop := cerr != nil
				mu.Unlock()
				if stop || b >= bands {
					return
				}
				gy0, gy1 := b*bandSites, min(gh, (b+1)*bandSites)
				y0 := gy0*ringStride - R // first prefix row held
				y1 := (gy1-1)*ringStride + R + 1
				// prefix sums of rows y0..y1-1, padded by R zeros each side
				for y := y0; y < y1; y++ {
					row := buf[(y-y0)*pw : (y-y0+1)*pw]
					clear(row)
					if y < 0 || y >= ink.h {
						continue
					}
					src := ink.pix[y*ink.w : (y+1)*ink.w]
					var acc uint32
					for i := 0; i <= R; i++ {
						row[i] = 0
					}
					for x, v := range src {
						acc += uint32(v)
						row[x+R+1] = acc
					}
					for i := ink.w + R + 1; i < pw; i++ {
						row[i] = acc
					}
				}
				rowsHeld := y1 - y0
				copy(sq[:pw], make([]uint32, pw))
				for y := 0; y < rowsHeld; y++ {
					prev, cur, row := sq[y*pw:(y+1)*pw], sq[(y+1)*pw:(y+2)*pw], buf[y*pw:(y+1)*pw]
					for x := range cur {
						cur[x] = prev[x] + row[x]
					}
				}
				// rowsum(y, x-h..x+h) = row[x+h+R+1] - row[x-h+R]
				for gy := gy0; gy < gy1; gy++ {
					cy := gy*ringStride - y0
					for gx := 0; gx < gw; gx++ {
						cx := gx*ringStride + R
						bs, bv := -1.0, 0
						if g <= R {
							// square rows cy-g..cy+g, columns cx-g..cx+g
							top, bot := sq[(cy-g)*pw:], sq[(cy+g+1)*pw:]
							box := bot[cx+g+1] - bot[cx-g] - top[cx+g+1] + top[cx-g]
							if float64(box) < pl.gateMass {
								scores[gy*gw+gx] = -1
								continue
							}
						}
						vi := 0 // next variant to score, by need
						for r := 0; r <= R; r++ {
							hw := dk.hw[r]
							var s uint32
							for dy := -r; dy <= r; dy++ {
								h := hw[abs(dy)]
								row := buf[(cy+dy)*pw:]
								s += row[cx+h+1] - row[cx-h]
							}
							d := float64(s)
							sums[r] = d
							if r == pl.gateRadius && d < pl.gateMass {
								break // too little ink for the smallest variant
							}
							if d > pl.ceiling[r] {
								break // too much for every variant still to score
							}
							for ; vi < len(pl.order) && pl.variants[pl.order[vi]].need == r; vi++ {
								v := &pl.variants[pl.order[vi]]
								ringMasses(sums, &v.bnd, &prof)
								var lo, hi float64
								for i, m := range prof {
									t := v.mass[i]
									lo += min(m, t)
									hi += max(m, t)
								}
								if c := lo / hi; c > bs {
									bs, bv = c, pl.order[vi]
								}
							}
						}
						scores[gy*gw+gx] = float32(bs)
						best[gy*gw+gx] = uint16(bv)
					}
				}
			}
		}()
	}
	wg.Wait()
	if cerr != nil {
		return nil, cerr
	}
	// A candidate is the best place within about a quarter of the
	// smallest variant's radius: two instances are never closer.
	nr := max(1, int(0.25*pl.variants[pl.order[0]].rc/ringStride+0.5))
	var out []candidate
	for gy := 0; gy < gh; gy++ {
		for gx := 0; gx < gw; gx++ {
			s := scores[gy*gw+gx]
			if float64(s) < minScore {
				continue
			}
			peak := true
			for dy := -nr; dy <= nr && peak; dy++ {
				for dx := -nr; dx <= nr; dx++ {
					x, y := gx+dx, gy+dy
					if (dx == 0 && dy == 0) || x < 0 || y < 0 || x >= gw || y >= gh {
						continue
					}
					o := scores[y*gw+x]
					// ties: the first in reading order wins
					if o > s || (o == s && (dy < 0 || (dy == 0 && dx < 0))) {
						peak = false
						break
					}
				}
			}
			if peak {
				out = append(out, candidate{
					x:       fromLevel(float64(gx*ringStride), lv.k),
					y:       fromLevel(float64(gy*ringStride), lv.k),
					variant: int(best[gy*gw+gx]),
					score:   float64(s),
				})
			}
		}
	}
	return out, nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
