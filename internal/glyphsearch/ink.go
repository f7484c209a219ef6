package glyphsearch

import (
	"image"
	"slices"

	dark "blueprint/internal/darkness"
)

// Ink measurement. A pixel's darkness is its smallest colour channel, so
// that a saturated colour (a red or yellow symbol layer) reads as ink as
// well as black does, and a tinted paper as paper. The paper is measured
// per block of bgBlock pixels; ink is how much darker than its paper a
// pixel is, above the page's noise, scaled so that a typical stroke
// saturates.
const (
	bgBlock = 32
	// bgPercentile is the share of a block's pixels at or below its paper
	// level in darkness: the median, as most of a block is paper even on a
	// dense drawing.
	bgPercentile = 0.5
	// inkSaturate: ink reaches 255 at this share of the page's typical
	// stroke contrast, so faded, blurred or thin strokes still read as
	// whole strokes.
	inkSaturate = 0.6
	// minSpan is the least contrast over the noise floor that maps to full
	// ink, so a blank page's noise never becomes strokes.
	minSpan = 40
)

// plane is an 8-bit single-channel raster. Its values are pix through
// gain where gain is set: a page's ink multiplied by a gain step shares
// the ink's pixels (gain.go) rather than copying a whole page.
type plane struct {
	w, h int
	pix  []uint8
	gain *[256]uint8
}

func newPlane(w, h int) *plane { return &plane{w: w, h: h, pix: make([]uint8, w*h)} }

// v returns the value of pixel i (y*w+x).
func (p *plane) v(i int) uint8 {
	if p.gain != nil {
		return p.gain[p.pix[i]]
	}
	return p.pix[i]
}

// at returns the value at (x, y), 0 outside.
func (p *plane) at(x, y int) uint8 {
	if x < 0 || y < 0 || x >= p.w || y >= p.h {
		return 0
	}
	return p.v(y*p.w + x)
}

// copyRow copies the values of row y from x0 to x1 into dst.
func (p *plane) copyRow(dst []uint8, y, x0, x1 int) {
	src := p.pix[y*p.w+x0 : y*p.w+x1]
	if p.gain == nil {
		copy(dst, src)
		return
	}
	for i, v := range src[:min(len(src), len(dst))] {
		dst[i] = p.gain[v]
	}
}

// bilinear samples p at real coordinates (pixel centres at integer+0.5
// are not used: pixel (x, y) covers [x, x+1)×[y, y+1) and is sampled at its
// corner x, y), 0 outside.
func (p *plane) bilinear(x, y float64) float64 {
	if x < 0 || y < 0 {
		return 0
	}
	x0, y0 := int(x), int(y)
	if x0 >= p.w-1 || y0 >= p.h-1 {
		return float64(p.at(x0, y0))
	}
	fx, fy := x-float64(x0), y-float64(y0)
	i := y0*p.w + x0
	a, b := float64(p.v(i)), float64(p.v(i+1))
	c, d := float64(p.v(i+p.w)), float64(p.v(i+p.w+1))
	return (a*(1-fx)+b*fx)*(1-fy) + (c*(1-fx)+d*fx)*fy
}

// darkness converts the rectangle r of an image to its darkness
// (internal/darkness, the smallest channel): 0 white paper, 255 black or
// a fully saturated colour. Faint strokes are found by gain (gain.go):
// darkness.Restored, tried here, moved recall on generated scans from 0.67
// to 0.64 (precision 0.65 to 0.69) and made a 39-Mpx page's preparation
// 1.2 s instead of 0.3 s.
func darkness(img image.Image, r image.Rectangle) *plane {
	r = r.Intersect(img.Bounds())
	return &plane{w: r.Dx(), h: r.Dy(), pix: dark.Of(img, r)}
}

// inkOf turns a darkness plane into ink: for each pixel, how much darker
// than its local paper it is, above the noise floor, scaled so that a
// typical stroke of this raster saturates at 255. It returns the ink and
// the contrast that maps to full ink.
func inkOf(d *plane) *plane {
	bw, bh := (d.w+bgBlock-1)/bgBlock, (d.h+bgBlock-1)/bgBlock
	paper := make([]uint8, bw*bh) // per block: the paper's darkness
	noise := make([]uint8, 0, bw*bh)
	var hist [256]int32
	for by := 0; by < bh; by++ {
		for bx := 0; bx < bw; bx++ {
			clear(hist[:])
			x0, y0 := bx*bgBlock, by*bgBlock
			x1, y1 := min(x0+bgBlock, d.w), min(y0+bgBlock, d.h)
			for y := y0; y < y1; y++ {
				for _, v := range d.pix[y*d.w+x0 : y*d.w+x1] {
					hist[v]++
				}
			}
			n := int32((x1 - x0) * (y1 - y0))
			p := percentile(&hist, n, bgPercentile)
			lightest := percentile(&hist, n, 0.05)
			darker := percentile(&hist, n, 0.75)
			paper[by*bw+bx] = p
			// a block that is mostly paper tells the noise: the spread
			// between its median and its lightest 5 % (1.645 sigma)
			if darker-p < 40 {
				noise = append(noise, p-lightest)
			}
		}
	}
	// A block covered by ink (a wall's hatching, a filled symbol) has no
	// paper of its own: take the lightest paper of its neighbourhood.
	smooth := make([]uint8, len(paper))
	for by := 0; by < bh; by++ {
		for bx := 0; bx < bw; bx++ {
			m := uint8(255)
			for y := max(0, by-1); y <= min(bh-1, by+1); y++ {
				for x := max(0, bx-1); x <= min(bw-1, bx+1); x++ {
					m = min(m, paper[y*bw+x])
				}
			}
			// only lower (lighten) a block that is clearly darker than
			// its neighbours, so uneven light keeps its gradient
			v := paper[by*bw+bx]
			if int(v)-int(m) > 24 {
				v = m
			}
			smooth[by*bw+bx] = v
		}
	}
	// Noise floor: 2.5 sigma of the paper blocks' spread, at least a few
	// levels.
	floor := 6
	if len(noise) > 0 {
		slices.Sort(noise)
		sigma := float64(noise[len(noise)/2]) / 1.645
		floor = max(floor, int(2.5*sigma+0.5))
	}
	// Stroke contrast: a high percentile of the contrast of clear ink.
	var chist [256]int32
	var cn int32
	for y := 0; y < d.h; y++ {
		prow := smooth[(y/bgBlock)*bw:]
		row := d.pix[y*d.w : (y+1)*d.w]
		for x, v := range row {
			c := int(v) - int(prow[x/bgBlock])
			if c > floor+24 {
				chist[c]++
				cn++
			}
		}
	}
	stroke := 255
	if cn > 0 {
		stroke = int(percentile(&chist, cn, 0.9))
	}
	span := max(minSpan, int(inkSaturate*float64(stroke-floor)))
	// Per contrast: the ink level (lookup table over -255..255).
	var lut [511]uint8
	for c := -255; c <= 255; c++ {
		v := (c - floor) * 255 / span
		lut[c+255] = uint8(max(0, min(255, v)))
	}
	out := newPlane(d.w, d.h)
	for y := 0; y < d.h; y++ {
		prow := smooth[(y/bgBlock)*bw:]
		row := d.pix[y*d.w : (y+1)*d.w]
		o := out.pix[y*d.w : (y+1)*d.w]
		for x, v := range row {
			o[x] = lut[int(v)-int(prow[x/bgBlock])+255]
		}
	}
	return out
}

// percentile returns the least value at or below which a share q of the n
// counted values lie.
func percentile(hist *[256]int32, n int32, q float64) uint8 {
	want := int32(q * float64(n))
	var acc int32
	for v, c := range hist {
		acc += c
		if acc > want {
			return uint8(v)
		}
	}
	return 255
}

// downsample averages p over k×k blocks (k ≥ 1); a partial block at the
// right or bottom edge averages what it holds.
func downsample(p *plane, k int) *plane {
	if k <= 1 {
		return p
	}
	w, h := (p.w+k-1)/k, (p.h+k-1)/k
	out := newPlane(w, h)
	sums := make([]uint32, w)
	for oy := 0; oy < h; oy++ {
		clear(sums)
		y0, y1 := oy*k, min(oy*k+k, p.h)
		for y := y0; y < y1; y++ {
			row := p.pix[y*p.w : (y+1)*p.w]
			if g := p.gain; g != nil {
				for x, v := range row {
					sums[x/k] += uint32(g[v])
				}
				continue
			}
			for x, v := range row {
				sums[x/k] += uint32(v)
			}
		}
		rows := uint32(y1 - y0)
		o := out.pix[oy*w : (oy+1)*w]
		for ox := range o {
			cols := uint32(min(ox*k+k, p.w) - ox*k)
			o[ox] = uint8(sums[ox] / (rows * cols))
		}
	}
	return out
}
