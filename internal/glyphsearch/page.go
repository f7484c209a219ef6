package glyphsearch

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sync"
)

// maxPagePixels bounds the page a search accepts (an A0 at 300 DPI is
// about 140 Mpx; the service renders at most 200 DPI).
const maxPagePixels = 200_000_000

// Page is a page image prepared for searching: its ink, and the coarser
// levels searches ask for, made once and shared by every search of the
// page. It is safe for concurrent use.
type Page struct {
	ink    *plane // full resolution
	bounds image.Rectangle

	mu     sync.Mutex
	levels map[levelKey]*level
}

// levelKey names a level: its block size, and the gain (an index in
// gainSteps) its ink was multiplied by.
type levelKey struct{ gain, k int }

// level is the page's ink averaged over k×k blocks, and what the searches
// read from it.
type level struct {
	k   int
	ink *plane

	once sync.Once
	dil  *plane // ink max-filtered over 3×3: ink within one pixel
	// base is the ungained full-resolution level whose pixels a gained
	// one shares: the maximum of gained ink is the gained maximum, so
	// their dilated planes share pixels too.
	base *level
}

// NewPage measures the ink of a page image (gray or colour, any size up to
// about 200 Mpx). Coordinates of matches are in img's pixels, offset by
// img.Bounds().Min.
func NewPage(ctx context.Context, img image.Image) (*Page, error) {
	if img == nil {
		return nil, errors.New("glyphsearch: no page image")
	}
	b := img.Bounds()
	if b.Dx() < 8 || b.Dy() < 8 {
		return nil, fmt.Errorf("glyphsearch: page of %d×%d pixels is too small", b.Dx(), b.Dy())
	}
	if b.Dx()*b.Dy() > maxPagePixels {
		return nil, fmt.Errorf("glyphsearch: page of %d×%d pixels is larger than %d pixels", b.Dx(), b.Dy(), maxPagePixels)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ink := inkOf(darkness(img, b))
	p := &Page{ink: ink, bounds: b, levels: map[levelKey]*level{}}
	p.levels[levelKey{0, 1}] = &level{k: 1, ink: ink}
	return p, nil
}

// Bounds returns the page image's bounds.
func (p *Page) Bounds() image.Rectangle { return p.bounds }

// level returns the page's ink, multiplied by gainSteps[gain], averaged
// over k×k blocks, made on first use.
func (p *Page) level(gain, k int) *level {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.levelLocked(gain, k)
}

func (p *Page) levelLocked(gain, k int) *level {
	key := levelKey{gain, k}
	l, ok := p.levels[key]
	if !ok {
		if k == 1 {
			l = &level{k: 1, ink: gained(p.ink, gain), base: p.levels[levelKey{0, 1}]}
		} else {
			l = &level{k: k, ink: downsample(p.levelLocked(gain, 1).ink, k)}
		}
		p.levels[key] = l
	}
	return l
}

// dilated returns the level's ink max-filtered over 3×3 pixels.
func (l *level) dilated() *plane {
	l.once.Do(func() {
		if l.base != nil && l.ink.gain != nil {
			d := l.base.dilated()
			l.dil = &plane{w: d.w, h: d.h, pix: d.pix, gain: l.ink.gain}
			return
		}
		l.dil = maxFilter3(l.ink)
	})
	return l.dil
}

// maxFilter3 returns p's 3×3 maximum filter.
func maxFilter3(p *plane) *plane {
	tmp := newPlane(p.w, p.h)
	for y := 0; y < p.h; y++ {
		row := p.pix[y*p.w : (y+1)*p.w]
		o := tmp.pix[y*p.w : (y+1)*p.w]
		for x := range row {
			v := row[x]
			if x > 0 {
				v = max(v, row[x-1])
			}
			if x+1 < p.w {
				v = max(v, row[x+1])
			}
			o[x] = v
		}
	}
	out := newPlane(p.w, p.h)
	for y := 0; y < p.h; y++ {
		o := out.pix[y*p.w : (y+1)*p.w]
		copy(o, tmp.pix[y*p.w:(y+1)*p.w])
		if y > 0 {
			for x, v := range tmp.pix[(y-1)*p.w : y*p.w] {
				o[x] = max(o[x], v)
			}
		}
		if y+1 < p.h {
			for x, v := range tmp.pix[(y+1)*p.w : (y+2)*p.w] {
				o[x] = max(o[x], v)
			}
		}
	}
	return out
}

// toLevel maps a full-resolution coordinate (pixel centres at integers)
// to level k's.
func toLevel(v float64, k int) float64 { return (v - float64(k-1)/2) / float64(k) }

// fromLevel maps a level-k coordinate to full resolution.
func fromLevel(v float64, k int) float64 { return v*float64(k) + float64(k-1)/2 }
