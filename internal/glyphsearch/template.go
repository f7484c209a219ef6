package glyphsearch

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"slices"

	"blueprint/internal/detect"
)

// inkOn is the ink level at which a pixel counts as part of a stroke.
const inkOn = 128

// minTemplateInk is the least number of stroke pixels an exemplar needs:
// fewer is a speck, not a glyph.
const minTemplateInk = 12

// ErrNoGlyph is the error of an exemplar that holds no glyph: blank, or
// a few specks.
var ErrNoGlyph = errors.New("glyphsearch: the exemplar holds no glyph")

// ErrTooLarge is the error of an exemplar box that holds far more than one
// symbol: a side over MaxExemplarSide pixels, or over MaxExemplarPieces
// pieces of ink. Such a template (a room, a sheet) matches nothing and
// costs minutes to look for.
var ErrTooLarge = errors.New("glyphsearch: the exemplar holds more than one symbol")

// Bounds of an exemplar box. A symbol at the 300 DPI of the finest sheets
// partners send is at most a few hundred pixels a side (a 40 mm panel is
// 470); one symbol with its tag and the ends of its wires is a handful of
// pieces of ink, a dozen with a long label.
const (
	MaxExemplarSide   = 1024
	MaxExemplarPieces = 60
	// minPiecePixels: smaller specks (scan noise) are not pieces.
	minPiecePixels = 4
)

// vec is a 2-D vector in pixels.
type vec struct{ x, y float64 }

// tpoint is a stroke pixel of a template: its offset from the centre and
// its ink (0..1].
type tpoint struct {
	x, y, w float64
}

// Template is an exemplar glyph ready to be searched for: its ink at full
// resolution around a centre, and the shape facts the search derives its
// variants from. Build one with (*Page).Template or TemplateFromImage; a
// Template is read-only and may be searched for on many pages at once.
type Template struct {
	ink    *plane  // exemplar crop's ink
	cx, cy float64 // centre in ink's pixels
	radius float64 // largest distance from the centre to a stroke pixel
	pts    []tpoint
	hull   []vec   // convex hull of the stroke pixels inside the box, offsets from the centre
	axis   float64 // long axis, radians
	elong  float64 // extent along the long axis over extent across
	width  float64 // exemplar box's size, for reference
	height float64
	// gain (an index in gainSteps) is the gain its ink and the page's
	// are searched with: its faint strokes count as fully as dark ones.
	gain int
	// ignore (ink's size, 255: ignored, or nil) marks the stray strokes
	// left out of the template: a pose is not judged there.
	ignore *plane
	// onPage: the exemplar is a box of the page searched, at box (page
	// pixels from the page's corner); its own match does not vote in the
	// consensus.
	onPage bool
	box    detect.Box
}

// Template cuts the exemplar in r (page pixels) out of the page: the
// strokes inside r and within a small margin of it. Blank rows and columns
// at r's edges are trimmed, so a loosely drawn box works as well as a
// tight one.
func (p *Page) Template(r image.Rectangle) (*Template, error) {
	r = r.Intersect(p.bounds)
	if r.Empty() {
		return nil, fmt.Errorf("glyphsearch: exemplar box outside the page %v: %w", p.bounds, ErrNoGlyph)
	}
	r = r.Sub(p.bounds.Min)
	if r.Dx() > MaxExemplarSide || r.Dy() > MaxExemplarSide {
		return nil, fmt.Errorf("exemplar box of %d×%d pixels, more than %d a side: %w", r.Dx(), r.Dy(), MaxExemplarSide, ErrTooLarge)
	}
	if n := pieces(p.ink, r, MaxExemplarPieces+1); n > MaxExemplarPieces {
		return nil, fmt.Errorf("exemplar box holds more than %d pieces of ink: %w", MaxExemplarPieces, ErrTooLarge)
	}
	g := gainFor(p.ink, r)
	t, err := newTemplate(p.level(g, 1).ink, r)
	if err != nil {
		return nil, err
	}
	t.gain = g
	t.onPage = true
	t.box = detect.Box{X: float64(r.Min.X), Y: float64(r.Min.Y), W: float64(r.Dx()), H: float64(r.Dy())}
	return t, nil
}

// pieces counts the 8-connected pieces of ink (at least inkOn) in r of ink
// that hold minPiecePixels pixels or more, stopping at limit.
func pieces(ink *plane, r image.Rectangle, limit int) int {
	w, h := r.Dx(), r.Dy()
	seen := make([]bool, w*h)
	on := func(x, y int) bool { return ink.v((y+r.Min.Y)*ink.w+x+r.Min.X) >= inkOn }
	var stack []int
	n := 0
	for i := range seen {
		if seen[i] || !on(i%w, i/w) {
			continue
		}
		seen[i] = true
		stack = append(stack[:0], i)
		size := 0
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			size++
			x, y := j%w, j/w
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					k := ny*w + nx
					if !seen[k] && on(nx, ny) {
						seen[k] = true
						stack = append(stack, k)
					}
				}
			}
		}
		if size >= minPiecePixels {
			if n++; n >= limit {
				return n
			}
		}
	}
	return n
}

// TemplateFromImage makes a template of a separate glyph image, such as a
// legend row's glyph cut from a page or a rendered catalog icon: the whole
// image is the exemplar.
func TemplateFromImage(ctx context.Context, img image.Image) (*Template, error) {
	if img == nil {
		return nil, errors.New("glyphsearch: no exemplar image")
	}
	b := img.Bounds()
	if b.Dx() < 3 || b.Dy() < 3 || b.Dx()*b.Dy() > 4_000_000 {
		return nil, fmt.Errorf("glyphsearch: exemplar image of %d×%d pixels: want 3 to 2000 pixels a side", b.Dx(), b.Dy())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ink := inkOf(darkness(img, b))
	r := image.Rect(0, 0, b.Dx(), b.Dy())
	g := gainFor(ink, r)
	t, err := newTemplate(gained(ink, g), r)
	if err != nil {
		return nil, err
	}
	t.gain = g
	return t, nil
}

// newTemplate builds the template of the strokes in r of ink, less the
// stray strokes that cross r's edge from outside (wires, walls).
func newTemplate(ink *plane, r image.Rectangle) (*Template, error) {
	r = trimBlank(ink, r)
	if r.Empty() {
		return nil, ErrNoGlyph
	}
	c := templateCrop(ink, r)
	var ignore *plane
	if stray := strayStrokes(ink, r, c); stray != nil {
		sub := newPlane(c.Dx(), c.Dy())
		for y := c.Min.Y; y < c.Max.Y; y++ {
			ink.copyRow(sub.pix[(y-c.Min.Y)*sub.w:], y, c.Min.X, c.Max.X)
		}
		if strayMinor(sub, stray) {
			// Without them the box may be smaller: trimmed again.
			for i, v := range stray.pix {
				if v != 0 {
					sub.pix[i] = 0
				}
			}
			r = trimBlank(sub, r.Sub(c.Min))
			if r.Empty() {
				return nil, ErrNoGlyph
			}
			ink, c = sub, templateCrop(sub, r)
			ignore = newPlane(c.Dx(), c.Dy())
			for y := c.Min.Y; y < c.Max.Y; y++ {
				copy(ignore.pix[(y-c.Min.Y)*ignore.w:], stray.pix[y*stray.w+c.Min.X:y*stray.w+c.Max.X])
			}
		}
	}
	t := &Template{
		ink:    newPlane(c.Dx(), c.Dy()),
		width:  float64(r.Dx()),
		height: float64(r.Dy()),
		ignore: ignore,
	}
	for y := c.Min.Y; y < c.Max.Y; y++ {
		ink.copyRow(t.ink.pix[(y-c.Min.Y)*t.ink.w:], y, c.Min.X, c.Max.X)
	}
	t.cx = float64(r.Min.X+r.Max.X-1)/2 - float64(c.Min.X)
	t.cy = float64(r.Min.Y+r.Max.Y-1)/2 - float64(c.Min.Y)
	for y := 0; y < t.ink.h; y++ {
		for x := 0; x < t.ink.w; x++ {
			if v := t.ink.pix[y*t.ink.w+x]; v >= inkOn {
				t.pts = append(t.pts, tpoint{float64(x) - t.cx, float64(y) - t.cy, float64(v) / 255})
			}
		}
	}
	if len(t.pts) < minTemplateInk {
		return nil, ErrNoGlyph
	}
	for _, p := range t.pts {
		t.radius = max(t.radius, math.Hypot(p.x, p.y))
	}
	t.radius += 0.5
	// The match box bounds the strokes inside the exemplar's box (not its
	// margin, where a wire or a neighbour's stroke may reach in).
	var inner []tpoint
	ix0, iy0 := float64(r.Min.X-c.Min.X)-t.cx, float64(r.Min.Y-c.Min.Y)-t.cy
	ix1, iy1 := float64(r.Max.X-c.Min.X-1)-t.cx, float64(r.Max.Y-c.Min.Y-1)-t.cy
	for _, p := range t.pts {
		if p.x >= ix0 && p.x <= ix1 && p.y >= iy0 && p.y <= iy1 {
			inner = append(inner, p)
		}
	}
	t.hull = convexHull(inner)
	t.axis, t.elong = principalAxis(t.pts)
	return t, nil
}

// strayMaxShare: stray strokes that would take more than this share of
// the centre lines of the exemplar's strokes are kept in the template: a
// glyph whose own stroke runs on as a wire (a switch's lever), or that
// sits against a wall, is more its strokes than what is left.
const strayMaxShare = 0.2

// strayMinor reports whether the stray pixels (255 in stray) take at
// most strayMaxShare of the centre lines of ink's strokes.
func strayMinor(ink, stray *plane) bool {
	centre := thin(threshold(ink, inkOn))
	total, cut := 0, 0
	for i, on := range centre.on {
		if on {
			total++
			if stray.pix[i] != 0 {
				cut++
			}
		}
	}
	return float64(cut) <= strayMaxShare*float64(total)
}

// trimBlank returns r less its blank rows and columns at the edges.
func trimBlank(ink *plane, r image.Rectangle) image.Rectangle {
	on := func(x, y int) bool { return ink.v(y*ink.w+x) >= inkOn }
	rowOn := func(y int) bool {
		for x := r.Min.X; x < r.Max.X; x++ {
			if on(x, y) {
				return true
			}
		}
		return false
	}
	colOn := func(x int) bool {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			if on(x, y) {
				return true
			}
		}
		return false
	}
	for r.Min.Y < r.Max.Y && !rowOn(r.Min.Y) {
		r.Min.Y++
	}
	for r.Max.Y > r.Min.Y && !rowOn(r.Max.Y-1) {
		r.Max.Y--
	}
	for r.Min.X < r.Max.X && !colOn(r.Min.X) {
		r.Min.X++
	}
	for r.Max.X > r.Min.X && !colOn(r.Max.X-1) {
		r.Max.X--
	}
	return r
}

// templateCrop returns the crop of ink a template of the strokes in r
// keeps: r grown a little, as a stroke whose centre line is on the box's
// edge reaches over it by half its width.
func templateCrop(ink *plane, r image.Rectangle) image.Rectangle {
	pad := max(1, int(math.Round(0.04*float64(max(r.Dx(), r.Dy())))))
	return r.Inset(-pad).Intersect(image.Rect(0, 0, ink.w, ink.h))
}

// Size returns the exemplar's box size in pixels (after trimming).
func (t *Template) Size() (w, h float64) { return t.width, t.height }

// Elongated reports whether the glyph is long and thin enough to be
// searched stretched along its long axis.
func (t *Template) Elongated() bool { return t.elong >= elongatedRatio }

// elongatedRatio is the extent ratio from which a glyph is elongated.
const elongatedRatio = 2

// principalAxis returns the direction of the points' largest spread and
// the ratio of their extents along it and across it.
func principalAxis(pts []tpoint) (angle, ratio float64) {
	var sw, mx, my float64
	for _, p := range pts {
		sw += p.w
		mx += p.w * p.x
		my += p.w * p.y
	}
	mx, my = mx/sw, my/sw
	var sxx, syy, sxy float64
	for _, p := range pts {
		dx, dy := p.x-mx, p.y-my
		sxx += p.w * dx * dx
		syy += p.w * dy * dy
		sxy += p.w * dx * dy
	}
	angle = 0.5 * math.Atan2(2*sxy, sxx-syy)
	c, s := math.Cos(angle), math.Sin(angle)
	lo, hi := vec{math.Inf(1), math.Inf(1)}, vec{math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		u, v := c*p.x+s*p.y, -s*p.x+c*p.y
		lo.x, lo.y = min(lo.x, u), min(lo.y, v)
		hi.x, hi.y = max(hi.x, u), max(hi.y, v)
	}
	return angle, (hi.x - lo.x + 1) / (hi.y - lo.y + 1)
}

// convexHull returns the convex hull of the points' pixel squares' centres,
// counter-clockwise (Andrew's monotone chain).
func convexHull(pts []tpoint) []vec {
	ps := make([]vec, len(pts))
	for i, p := range pts {
		ps[i] = vec{p.x, p.y}
	}
	slices.SortFunc(ps, func(a, b vec) int {
		if a.x != b.x {
			if a.x < b.x {
				return -1
			}
			return 1
		}
		if a.y < b.y {
			return -1
		}
		if a.y > b.y {
			return 1
		}
		return 0
	})
	ps = slices.Compact(ps)
	if len(ps) < 3 {
		return ps
	}
	cross := func(o, a, b vec) float64 { return (a.x-o.x)*(b.y-o.y) - (a.y-o.y)*(b.x-o.x) }
	h := make([]vec, 0, 2*len(ps))
	for _, p := range ps {
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	for i, t := len(ps)-2, len(h)+1; i >= 0; i-- {
		p := ps[i]
		for len(h) >= t && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	return h[:len(h)-1]
}
