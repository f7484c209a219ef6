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
	// ringMaxRadius bounds the largest variant's radius on the coarse
	// level of a glyph searched stretched (newPlan).
	ringMaxRadius = 6 * ringMinRadius
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

// ringSearch measures every place of the coarse level lv for each plan
// (all drawn at that level) and returns, per plan, the local best places
// whose ring profile is like some variant's: the ink of the rings, page
// against template, min over max summed over the rings, at least the
// plan's ringMin. The page's disk sums around a place are measured once
// for every plan still looking there, so plans searched together cost
// little more than the largest of them alone; each plan's candidates are
// those it would find searched alone.
func ringSearch(ctx context.Context, lv *level, pls []*plan, workers int) ([][]candidate, error) {
	ink := lv.ink
	R := 0
	for _, pl := range pls {
		R = max(R, pl.ringRmax)
	}
	dk := newDisk(R)
	gw, gh := (ink.w+ringStride-1)/ringStride, (ink.h+ringStride-1)/ringStride
	const bandSites = 16 // site rows per band
	bands := (gh + bandSites - 1) / bandSites
	// hits[b][j]: band b's places in reading order where plan j scores at
	// least its ringMin (only those can be candidates or outrank one).
	hits := make([][][]ringHit, bands)
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	var cerr error
	for w := 0; w < workers; w++ {
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
			sums := make([]float64, R+1)
			var prof [rings]float64
			// per plan still looking at the place: the next variant to
			// score (by need), and the best likeness and variant so far
			alive := make([]int, 0, len(pls))
			vi := make([]int, len(pls))
			bs := make([]float64, len(pls))
			bv := make([]int, len(pls))
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
				bh := make([][]ringHit, len(pls))
				hits[b] = bh
				// done records plan j's likeness at the place
				done := func(j, site int) {
					if float64(float32(bs[j])) >= pls[j].ringMin {
						bh[j] = append(bh[j], ringHit{site: site, score: float32(bs[j]), variant: uint16(bv[j])})
					}
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
					if g := ink.gain; g != nil {
						for x, v := range src {
							acc += uint32(g[v])
							row[x+R+1] = acc
						}
					} else {
						for x, v := range src {
							acc += uint32(v)
							row[x+R+1] = acc
						}
					}
					for i := ink.w + R + 1; i < pw; i++ {
						row[i] = acc
					}
				}
				rowsHeld := y1 - y0
				clear(sq[:pw])
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
						site := gy*gw + gx
						alive = alive[:0]
						rEnd := 0
						for j, pl := range pls {
							if g := pl.gateRadius; g <= pl.ringRmax {
								// square rows cy-g..cy+g, columns cx-g..cx+g
								top, bot := sq[(cy-g)*pw:], sq[(cy+g+1)*pw:]
								box := bot[cx+g+1] - bot[cx-g] - top[cx+g+1] + top[cx-g]
								if float64(box) < pl.gateMass {
									continue
								}
							}
							alive = append(alive, j)
							vi[j], bs[j], bv[j] = 0, -1, 0
							rEnd = max(rEnd, pl.ringRmax)
						}
						for r := 0; r <= rEnd && len(alive) > 0; r++ {
							// the centre row, then the rows above and below
							// it in pairs (one half width each)
							hw := dk.hw[r]
							mid := cy*pw + cx
							s := buf[mid+hw[0]+1] - buf[mid-hw[0]]
							for dy := 1; dy <= r; dy++ {
								h := hw[dy]
								up, dn := mid-dy*pw, mid+dy*pw
								s += buf[up+h+1] - buf[up-h] + buf[dn+h+1] - buf[dn-h]
							}
							d := float64(s)
							sums[r] = d
							n := 0
							for _, j := range alive {
								pl := pls[j]
								if (r == pl.gateRadius && d < pl.gateMass) || d > pl.ceiling[r] {
									// too little ink for the smallest variant, or too
									// much for every variant still to score
									done(j, site)
									continue
								}
								for ; vi[j] < len(pl.order) && pl.variants[pl.order[vi[j]]].need == r; vi[j]++ {
									v := &pl.variants[pl.order[vi[j]]]
									ringMasses(sums, &v.bnd, &prof)
									var lo, hi float64
									for i, m := range prof {
										t := v.mass[i]
										lo += min(m, t)
										hi += max(m, t)
									}
									if c := lo / hi; c > bs[j] {
										bs[j], bv[j] = c, pl.order[vi[j]]
									}
								}
								if vi[j] == len(pl.order) || r == pl.ringRmax {
									done(j, site)
									continue
								}
								alive[n] = j
								n++
							}
							alive = alive[:n]
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	if cerr != nil {
		return nil, cerr
	}
	out := make([][]candidate, len(pls))
	for j, pl := range pls {
		var hs []ringHit
		for _, bh := range hits {
			hs = append(hs, bh[j]...)
		}
		out[j] = pl.peaks(lv, hs, gw, gh)
	}
	return out, nil
}

// ringHit is a place of the ring stage (site = gy·gw + gx) where a plan's
// likeness reaches its ringMin, with the variant that reached it.
type ringHit struct {
	site    int
	score   float32
	variant uint16
}

// peaks returns the ring stage's hits (in reading order over gw×gh sites,
// every ringStride-th pixel of level lv) that are the best within about a
// quarter of the smallest variant's radius: two instances are never
// closer. A place under ringMin cannot outrank a hit, so the hits alone
// decide.
func (pl *plan) peaks(lv *level, hs []ringHit, gw, gh int) []candidate {
	nr := max(1, int(0.25*pl.variants[pl.order[0]].rc/ringStride+0.5))
	score := make(map[int]float32, len(hs))
	for _, h := range hs {
		score[h.site] = h.score
	}
	var out []candidate
	for _, h := range hs {
		gx, gy := h.site%gw, h.site/gw
		s := h.score
		peak := true
		for dy := -nr; dy <= nr && peak; dy++ {
			for dx := -nr; dx <= nr; dx++ {
				x, y := gx+dx, gy+dy
				if (dx == 0 && dy == 0) || x < 0 || y < 0 || x >= gw || y >= gh {
					continue
				}
				o, ok := score[y*gw+x]
				// ties: the first in reading order wins
				if ok && (o > s || (o == s && (dy < 0 || (dy == 0 && dx < 0)))) {
					peak = false
					break
				}
			}
		}
		if peak {
			out = append(out, candidate{
				x:       fromLevel(float64(gx*ringStride), lv.k),
				y:       fromLevel(float64(gy*ringStride), lv.k),
				variant: int(h.variant),
				score:   float64(s),
			})
		}
	}
	return out
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
