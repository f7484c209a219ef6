package search

import (
	"image"

	"blueprint/internal/darkness"
	"blueprint/internal/ink"
)

// Telling a symbol's colour (Images.Prepare): its box is searched in the
// page's coloured ink where it is drawn in colour.
const (
	// colourShare is the least share of a symbol's ink pixels that are
	// coloured for it to be drawn in colour (a socket boxed with its wall
	// is about half wall).
	colourShare = 0.3
	// colourMinPiece: smaller pieces (a colour fringe, a speck) are not
	// counted.
	colourMinPiece = 4
)

// coloured reports whether the symbol in r of img is drawn in colour: at
// least colourShare of the pixels of its ink coloured, counting all the
// ink in r or, with inside, also the ink drawn inside r only. Ink is
// pieces of 8-connected pixels of one kind, coloured or not
// (darkness.Kinds: a light colour's hairline counts); the ink drawn inside
// r is the pieces that do not reach r's edge. A symbol drawn in a colour's
// hairline among black walls and wires (a pink socket on a wall, a pink
// luminaire on its dashed wire) is a small share of all the ink in its
// box, but most of what lies wholly inside it: the wall and the wire run
// through. A red symbol on its red wire against a gray hatch is the
// opposite: its own piece reaches the edge, the hatch's short strokes do
// not. A crop cut tight round a glyph is read without inside: the glyph's
// own strokes reach its edge, and what lies wholly inside it is the
// glyph's inner detail (a fill, a tag). False for black or gray ink, for a
// box without ink and for a gray image.
func coloured(img image.Image, r image.Rectangle, inside bool) bool {
	if _, gray := img.(*image.Gray); gray {
		return false
	}
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		return false
	}
	w, h := r.Dx(), r.Dy()
	kind := darkness.Kinds(img, r)
	runs, root := ink.LabelRunsOf(w, h, func(i int) uint8 { return kind[i] })
	var in, all [3]int // pixels by kind: of pieces inside r, of every piece
	for _, p := range ink.Pieces(runs, root) {
		n := p.Area(runs)
		if n < colourMinPiece {
			continue
		}
		first := runs[p.Runs[0]]
		k := kind[first.Y*w+first.X0]
		all[k] += n
		if b := p.Box; b.Min.X > 0 && b.Min.Y > 0 && b.Max.X < w && b.Max.Y < h {
			in[k] += n
		}
	}
	share := func(n [3]int) bool {
		c := n[darkness.KindColour]
		return c > 0 && float64(c) >= colourShare*float64(n[darkness.KindBlack]+c)
	}
	return share(all) || (inside && share(in))
}
