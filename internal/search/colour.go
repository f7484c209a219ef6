package search

import (
	"image"
	"image/color"
	"math"

	"blueprint/internal/detect"
)

// Colour on image pages. A CAD render or export draws its symbols in
// their layers' colours (red sockets, green data outlets, a purple sensor,
// a speaker in its zone's colour) over black and gray walls, hatches and
// text; the glyph search reads darkness, in which a red socket against a
// hatched wall is one shape with its wall and its tag. Where the
// exemplar is drawn mostly in colour, the search reads the page's
// coloured ink (colouredInk), on the exemplar's page and on every page it
// searches: black and gray ink is paper to it, but where coloured ink
// encloses it (a socket's black fill, a luminaire's black quarters, a
// board's black half). An exemplar in black or gray and every gray image
// (a scan) are searched by their darkness as before.
const (
	// colourChroma is the least spread between a pixel's largest and
	// smallest channel (0–255) for it to be of a colour: an anti-aliased
	// edge of a red stroke on white (255, 180, 180) is, a gray hatch is
	// not.
	colourChroma = 40
	// colourInk is the least darkness (255 minus the smallest channel) of
	// an exemplar pixel that tells its colour.
	colourInk = 64
	// colourShare is the least share of the exemplar's ink pixels that
	// are coloured for it to be searched by colour (a socket against its
	// wall is about half wall).
	colourShare = 0.3
)

// coloured reports whether the exemplar in box on img is drawn mostly in
// colour (colourShare), so that it is searched among the page's coloured
// ink (colouredInk); false for black or gray ink and for gray images.
func coloured(img image.Image, box detect.Box) bool {
	if _, gray := img.(*image.Gray); gray {
		return false
	}
	r := boxRect(img, box)
	row := make([]uint8, 3*r.Dx())
	inked, col := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		rgbRow(img, y, r.Min.X, r.Max.X, row)
		for x := 0; x < r.Dx(); x++ {
			c0, c1, c2 := row[3*x], row[3*x+1], row[3*x+2]
			if 255-min(c0, c1, c2) < colourInk {
				continue
			}
			inked++
			if colourful(c0, c1, c2) {
				col++
			}
		}
	}
	return inked > 0 && float64(col) >= colourShare*float64(inked)
}

// boxRect is box on img as whole pixels within img's bounds.
func boxRect(img image.Image, box detect.Box) image.Rectangle {
	r := image.Rect(int(math.Floor(box.X)), int(math.Floor(box.Y)), int(math.Ceil(box.X+box.W)), int(math.Ceil(box.Y+box.H)))
	return r.Add(img.Bounds().Min).Intersect(img.Bounds())
}

// colouredInk returns img as a gray image of its coloured ink: each pixel
// of a colour keeps its gray (its smallest channel, composited on white),
// and so does black or gray ink that coloured ink encloses, within reach
// pixels of it left, right, above and below; the rest is white paper.
func colouredInk(img image.Image, reach int) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(b)
	far := uint8(min(reach+1, 255))
	// per pixel, one bit each: coloured, and coloured ink within reach
	// above it
	col, above := newBits(w*h), newBits(w*h)
	run := make([]uint8, w) // rows up to the column's nearest coloured pixel
	for x := range run {
		run[x] = far
	}
	row := make([]uint8, 3*w)
	for y := 0; y < h; y++ {
		rgbRow(img, b.Min.Y+y, b.Min.X, b.Max.X, row)
		o := out.Pix[y*out.Stride : y*out.Stride+w]
		for x := range o {
			c0, c1, c2 := row[3*x], row[3*x+1], row[3*x+2]
			o[x] = min(c0, c1, c2)
			if colourful(c0, c1, c2) {
				run[x] = 0
				col.set(y*w + x)
			} else {
				run[x] = min(run[x]+1, far)
			}
			if run[x] < far {
				above.set(y*w + x)
			}
		}
	}
	// from the bottom: rows down to the nearest coloured pixel, and along
	// each row the columns to the nearest one on either side
	for x := range run {
		run[x] = far
	}
	left, right := make([]uint8, w), make([]uint8, w)
	for y := h - 1; y >= 0; y-- {
		i0 := y * w
		d := far
		for x := 0; x < w; x++ {
			if col.has(i0 + x) {
				d, run[x] = 0, 0
			} else {
				d, run[x] = min(d+1, far), min(run[x]+1, far)
			}
			left[x] = d
		}
		d = far
		for x := w - 1; x >= 0; x-- {
			if col.has(i0 + x) {
				d = 0
			} else {
				d = min(d+1, far)
			}
			right[x] = d
		}
		o := out.Pix[y*out.Stride : y*out.Stride+w]
		for x := range o {
			if o[x] == 255 || col.has(i0+x) {
				continue
			}
			if !above.has(i0+x) || run[x] == far || left[x] == far || right[x] == far {
				o[x] = 255
			}
		}
	}
	return out
}

// bits is a set of pixel indices.
type bits []uint64

func newBits(n int) bits      { return make(bits, (n+63)/64) }
func (b bits) set(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b bits) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }

// colourful reports whether a pixel is of a colour (colourChroma).
func colourful(r, g, b uint8) bool { return int(max(r, g, b))-int(min(r, g, b)) >= colourChroma }

// rgbRow writes the colour of img's pixels x0..x1-1 of row y, composited on
// white, into dst (three bytes a pixel).
func rgbRow(img image.Image, y, x0, x1 int, dst []uint8) {
	switch m := img.(type) {
	case *image.NRGBA:
		s := m.Pix[m.PixOffset(x0, y):]
		for i := 0; i < x1-x0; i++ {
			a := uint32(s[4*i+3])
			for k := 0; k < 3; k++ {
				dst[3*i+k] = uint8((uint32(s[4*i+k])*a + 255*(255-a)) / 255)
			}
		}
	case *image.RGBA:
		s := m.Pix[m.PixOffset(x0, y):]
		for i := 0; i < x1-x0; i++ {
			a := s[4*i+3]
			for k := 0; k < 3; k++ {
				dst[3*i+k] = s[4*i+k] + (255 - a)
			}
		}
	case *image.YCbCr:
		for i := 0; i < x1-x0; i++ {
			yi, ci := m.YOffset(x0+i, y), m.COffset(x0+i, y)
			dst[3*i], dst[3*i+1], dst[3*i+2] = color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
		}
	default:
		for i := 0; i < x1-x0; i++ {
			r, g, b, a := img.At(x0+i, y).RGBA()
			w := 0xffff - a
			dst[3*i] = uint8((r + w) >> 8)
			dst[3*i+1] = uint8((g + w) >> 8)
			dst[3*i+2] = uint8((b + w) >> 8)
		}
	}
}
