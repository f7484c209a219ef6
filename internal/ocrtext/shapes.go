package ocrtext

import (
	"cmp"
	"image"
	"math"
	"slices"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/median"
)

// Reading lines by their letters' shapes. A CAD export that draws text
// as outlines draws every instance of a character of one font, size and
// orientation with the same outline, give or take where its points fell
// on the export's coordinate grid. So the page's characters fall into a
// few hundred shapes; once OCR has read lines holding each shape, a line
// made only of shapes read, each the same way every time, is spelled
// from them without OCR. A line holding a shape not read, or read
// differently in different words (an I and an l drawn alike), goes to
// OCR as before.
//
// The words of a line spelled so are split where the gap between two
// letters is wider than the gaps inside the words OCR read and narrower
// than those between them; where OCR's lines do not separate the two, no
// line is spelled.

// Shape matching: two outlines are one character's where their boxes
// agree within shapeTolPx page pixels, their bottoms lie within
// shapeTolBase line heights of each other relative to their lines'
// baselines (a comma and an apostrophe, a hyphen and an underscore, are
// one outline at different heights), and, drawn at shapeScale times the
// page's pixels with their boxes' centres laid on each other, at most
// shapeMiss of their ink lies more than a pixel from the other's.
const (
	shapeTolPx   = 1.0
	shapeTolBase = 0.15
	shapeScale   = 2.0
	shapeMiss    = 0.004
)

// mergeShare: a component whose extent along the line lies this much
// within another's belongs to the same character (a counter, an i's dot,
// an accent); letters side by side overlap far less, even kerned.
const mergeShare = 0.7

// smallMark: a component less than this share of its line's height
// across it (a dot, an accent) belongs to the character whose extent
// along the line holds its middle.
const smallMark = 0.35

// cluster is one character's ink on a line: the components that lie over
// each other along the line.
type cluster struct {
	comps    []int       // indexes into the ink components
	min, max glyph.Point // box in page pixels
	shape    int         // index into the page's shapes
}

// lineInk returns the indexes of the ink components whose centres lie in
// the line's box, a little widened across it (accents, commas and dots
// are too small to chain into the line).
func lineInk(cs []component, g *grid, l line) []int {
	pad := 0.25 * l.height
	mn := glyph.Point{X: l.min.X - pad, Y: l.min.Y - pad}
	mx := glyph.Point{X: l.max.X + pad, Y: l.max.Y + pad}
	var out []int
	g.near(mn, mx, func(i int) {
		c := cs[i].centre()
		if c.X >= mn.X && c.X <= mx.X && c.Y >= mn.Y && c.Y <= mx.Y {
			out = append(out, i)
		}
	})
	slices.Sort(out)
	return out
}

// frameBox is the box of the page box [mn, mx] in frame f.
func frameBox(f frame, mn, mx glyph.Point) (lo, hi glyph.Point) {
	lo = glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi = glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range []glyph.Point{mn, mx, {X: mn.X, Y: mx.Y}, {X: mx.X, Y: mn.Y}} {
		q := f.to(p)
		lo, hi = glyph.MinPoint(lo, q), glyph.MaxPoint(hi, q)
	}
	return lo, hi
}

// axisFrame is the frame a line's shapes are drawn in: along its axis,
// whichever way it reads, scaled to the strips' letter height.
func axisFrame(l line) frame {
	angle := 0.0
	if l.vertical {
		angle = 90
	}
	return newFrame(angle, stripHeight/math.Max(l.height, 1))
}

// clusters groups the ink components idx of a line along axis frame f
// into characters, in f's order.
func clusters(cs []component, idx []int, f frame) []cluster {
	type span struct {
		i      int
		u0, u1 float64
		small  bool // a dot, an accent, a comma: under smallMark of the line's height across it
	}
	sp := make([]span, 0, len(idx))
	for _, i := range idx {
		lo, hi := frameBox(f, cs[i].min, cs[i].max)
		sp = append(sp, span{i: i, u0: lo.X, u1: hi.X, small: hi.Y-lo.Y < smallMark*stripHeight})
	}
	// Widest first among those starting together, so that a letter
	// takes in the counter or dot that starts where it does.
	slices.SortStableFunc(sp, func(a, b span) int {
		if c := cmp.Compare(a.u0, b.u0); c != 0 {
			return c
		}
		return cmp.Compare(b.u1, a.u1)
	})
	var out []cluster
	u0, u1 := 0.0, 0.0
	for _, s := range sp {
		c := &cs[s.i]
		if n := len(out); n > 0 {
			overlap := math.Min(u1, s.u1) - math.Max(u0, s.u0)
			if mid := (s.u0 + s.u1) / 2; overlap >= mergeShare*math.Min(u1-u0, s.u1-s.u0) || s.small && mid >= u0 && mid <= u1 {
				k := &out[n-1]
				k.comps = append(k.comps, s.i)
				k.min, k.max = glyph.MinPoint(k.min, c.min), glyph.MaxPoint(k.max, c.max)
				u0, u1 = math.Min(u0, s.u0), math.Max(u1, s.u1)
				continue
			}
		}
		out = append(out, cluster{comps: []int{s.i}, min: c.min, max: c.max})
		u0, u1 = s.u0, s.u1
	}
	return out
}

// shape is a character's outline drawn at shapeScale times the page's
// pixels, its box centred in the image.
type shape struct {
	img      *image.Gray
	w, h     float64 // the box in page pixels
	base     float64 // the bottom below the line's baseline, in line heights
	vertical bool    // seen on a vertical line
	ink      int     // dark pixels in img
}

// shapeOf is cluster c's shape on line l, whose baseline lies at base in
// axis frame f.
func shapeOf(pg *drawing.Page, cs []component, c cluster, l line, f frame, base float64) shape {
	var ps []piece
	for _, i := range c.comps {
		ps = append(ps, cs[i].pieces...)
	}
	_, hi := frameBox(f, c.min, c.max)
	s := shape{w: c.max.X - c.min.X, h: c.max.Y - c.min.Y, base: (hi.Y - base) / stripHeight, vertical: l.vertical}
	const pad = 3
	iw, ih := int(math.Ceil(s.w*shapeScale))+2*pad, int(math.Ceil(s.h*shapeScale))+2*pad
	s.img = image.NewGray(image.Rect(0, 0, iw, ih))
	for i := range s.img.Pix {
		s.img.Pix[i] = 0xff
	}
	g := newFrame(0, shapeScale)
	g.off = glyph.Point{X: float64(iw)/2 - shapeScale*(c.min.X+c.max.X)/2, Y: float64(ih)/2 - shapeScale*(c.min.Y+c.max.Y)/2}
	paint(s.img, pg, ps, g, s.img.Rect)
	for _, v := range s.img.Pix {
		if v < 128 {
			s.ink++
		}
	}
	return s
}

// same reports whether a and b are one character's outline.
func (a *shape) same(b *shape) bool {
	if a.vertical != b.vertical || math.Abs(a.w-b.w) > shapeTolPx || math.Abs(a.h-b.h) > shapeTolPx || math.Abs(a.base-b.base) > shapeTolBase {
		return false
	}
	// Ink a pixel's play apart differs by a stroke's outline at most.
	if d := a.ink - b.ink; 6*max(d, -d) > max(a.ink, b.ink)+24 {
		return false
	}
	m1, i1 := inkMiss(a.img, b.img)
	m2, i2 := inkMiss(b.img, a.img)
	return float64(m1+m2) <= shapeMiss*float64(i1+i2)
}

// inkMiss counts a's ink pixels (dark) and those of them with no ink of b
// within a pixel, the two images' centres laid on each other.
func inkMiss(a, b *image.Gray) (miss, ink int) {
	ox := (b.Rect.Dx() - a.Rect.Dx()) / 2
	oy := (b.Rect.Dy() - a.Rect.Dy()) / 2
	bw, bh := b.Rect.Dx(), b.Rect.Dy()
	for y := range a.Rect.Dy() {
		for x := range a.Rect.Dx() {
			if a.Pix[y*a.Stride+x] >= 128 {
				continue
			}
			ink++
			found := false
			for by := max(y+oy-1, 0); by <= min(y+oy+1, bh-1) && !found; by++ {
				for bx := max(x+ox-1, 0); bx <= min(x+ox+1, bw-1); bx++ {
					if b.Pix[by*b.Stride+bx] < 128 {
						found = true
						break
					}
				}
			}
			if !found {
				miss++
			}
		}
	}
	return miss, ink
}

// shapes is the page's character shapes, each kept once.
type shapes struct {
	all []shape
	// byBox indexes them by orientation and box size in whole pixels.
	byBox map[[3]int][]int
}

func newShapes() *shapes { return &shapes{byBox: map[[3]int][]int{}} }

func boxKey(s *shape) [3]int {
	v := 0
	if s.vertical {
		v = 1
	}
	return [3]int{v, int(math.Round(s.w)), int(math.Round(s.h))}
}

// index returns the index of s's shape among the page's, adding it where
// it is new.
func (x *shapes) index(s shape) int {
	k := boxKey(&s)
	for dw := -1; dw <= 1; dw++ {
		for dh := -1; dh <= 1; dh++ {
			for _, i := range x.byBox[[3]int{k[0], k[1] + dw, k[2] + dh}] {
				if x.all[i].same(&s) {
					return i
				}
			}
		}
	}
	x.all = append(x.all, s)
	x.byBox[k] = append(x.byBox[k], len(x.all)-1)
	return len(x.all) - 1
}

// lineShapes finds each line's characters and their shapes, indexed
// among the page's shapes x.
func lineShapes(x *shapes, pg *drawing.Page, cs []component, g *grid, ls []line) [][]cluster {
	out := make([][]cluster, len(ls))
	for i, l := range ls {
		f := axisFrame(l)
		ink := lineInk(cs, g, l)
		cl := clusters(cs, ink, f)
		base := baseline(l, f)
		for k := range cl {
			cl[k].shape = x.index(shapeOf(pg, cs, cl[k], l, f, base))
		}
		out[i] = cl
	}
	return out
}

// baseline is the line's baseline in f's pixels: where most of its
// letters end below.
func baseline(l line, f frame) float64 {
	bottoms := make([]float64, 0, len(l.boxes))
	for _, bx := range l.boxes {
		_, hi := frameBox(f, bx[0], bx[1])
		bottoms = append(bottoms, hi.Y)
	}
	return median.Of(bottoms)
}

// spanned is a line's character with its extent along a reading frame.
type spanned struct {
	cluster
	u0, u1 float64
}

// inReading returns cl ordered along frame f, with their extents.
func inReading(cl []cluster, f frame) []spanned {
	out := make([]spanned, len(cl))
	for k, c := range cl {
		lo, hi := frameBox(f, c.min, c.max)
		out[k] = spanned{cluster: c, u0: lo.X, u1: hi.X}
	}
	slices.SortStableFunc(out, func(a, b spanned) int { return cmp.Compare(a.u0, b.u0) })
	return out
}
