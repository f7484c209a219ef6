package darkness

import "image"

// Colour. A CAD render or export draws its symbols in their layers'
// colours (red sockets, green data outlets, a purple sensor, a speaker in
// its zone's colour) over black and gray walls, hatches and text. Read by
// darkness, a red socket against a hatched wall is one shape with its wall
// and its tag; read in the page's coloured ink (ColouredInk) it stands
// alone, with the black ink its own strokes enclose (a socket's black
// fill, a luminaire's black quarters, a board's black half). Kinds tells
// a box's coloured ink from its black (package search decides from it
// whether a symbol is drawn in colour).
const (
	// colourChroma is the least spread between a pixel's largest and
	// smallest channel (0–255) for it to be of a colour: an anti-aliased
	// edge of a red stroke on white (255, 180, 180) is, a gray hatch is
	// not.
	colourChroma = 40
	// colourFaint is the least darkness of a pixel Kinds counts as ink:
	// a light colour's hairline, a pink 0.1 mm line rendered at 200 DPI
	// (255, 204, 204), is 51.
	colourFaint = 40
)

// Kinds of a pixel (Kinds).
const (
	KindPaper  uint8 = iota // lighter than colourFaint
	KindBlack               // black or gray ink
	KindColour              // ink of a colour (colourChroma)
)

// Kinds returns the kind of each pixel of img in r (clipped to img's
// bounds), row after row, r.Dx() to a row: paper under colourFaint
// darkness, so that a light colour's hairline is ink; else coloured ink
// or black and gray ink.
func Kinds(img image.Image, r image.Rectangle) []uint8 {
	r = r.Intersect(img.Bounds())
	w, h := r.Dx(), r.Dy()
	kind := make([]uint8, w*h)
	if r.Empty() {
		return kind
	}
	read := rgbReader(img, r)
	rgb := make([]uint8, 3*w)
	for y := 0; y < h; y++ {
		read(y, rgb)
		for x := 0; x < w; x++ {
			c0, c1, c2 := rgb[3*x], rgb[3*x+1], rgb[3*x+2]
			switch {
			case 255-min(c0, c1, c2) < colourFaint:
			case colourful(c0, c1, c2):
				kind[y*w+x] = KindColour
			default:
				kind[y*w+x] = KindBlack
			}
		}
	}
	return kind
}

// ColouredInk returns img as a gray image of its coloured ink: each pixel
// of a colour keeps its gray (its smallest channel, composited on white),
// and so does black or gray ink that coloured ink encloses, within reach
// pixels of it to the left, the right, above and below; the rest is white
// paper. Besides the image it holds a quarter of a byte a pixel while it
// works.
func ColouredInk(img image.Image, reach int) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(b)
	far := uint8(min(max(reach, 0)+1, 255))
	// per pixel, one bit each: coloured, and coloured ink within reach
	// above it
	col, above := newBits(w*h), newBits(w*h)
	run := make([]uint8, w) // rows up to the column's nearest coloured pixel
	for x := range run {
		run[x] = far
	}
	read := rgbReader(img, b)
	rgb := make([]uint8, 3*w)
	for y := 0; y < h; y++ {
		read(y, rgb)
		o := out.Pix[y*out.Stride : y*out.Stride+w]
		for x := range o {
			c0, c1, c2 := rgb[3*x], rgb[3*x+1], rgb[3*x+2]
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

// Colourful returns the pixels of img that are of a colour (colourChroma),
// as a set of indices y·w+x over its bounds: a CAD render's red socket or
// green cable, not its black text or gray hatch. It is nil for a gray
// image and for one without a coloured pixel; it holds a bit a pixel.
func Colourful(img image.Image) Bits {
	if _, gray := img.(*image.Gray); gray {
		return nil
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	read := rgbReader(img, b)
	rgb := make([]uint8, 3*w)
	var out Bits
	for y := 0; y < h; y++ {
		read(y, rgb)
		for x := 0; x < w; x++ {
			if colourful(rgb[3*x], rgb[3*x+1], rgb[3*x+2]) {
				if out == nil {
					out = newBits(w * h)
				}
				out.set(y*w + x)
			}
		}
	}
	return out
}

// colourful reports whether a pixel is of a colour (colourChroma).
func colourful(r, g, b uint8) bool { return int(max(r, g, b))-int(min(r, g, b)) >= colourChroma }

// Bits is a set of pixel indices, a bit each (ColouredInk's working
// sets, Colourful).
type Bits []uint64

func newBits(n int) Bits      { return make(Bits, (n+63)/64) }
func (b Bits) set(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b Bits) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }

// Has reports whether i is in the set; a nil set holds none.
func (b Bits) Has(i int) bool { return b != nil && b.has(i) }
