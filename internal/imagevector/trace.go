// Package imagevector turns a page image (an image upload, a scanned PDF
// page) into the drawing geometry a CAD export would have given, so that
// the readers of vector pages (legend tables, schedules, tags, titles in
// internal/legend; symbols in internal/vector) read images too, by one
// pipeline for both kinds of page.
//
// The ink (internal/ink) is split into its connected pieces. Pieces the
// size of letters standing in lines become filled outlines, as a CAD
// export that draws its words as outlines has them, so the page's text is
// read by OCR of those outlines (internal/ocrtext) as it is on such PDFs.
// Every other piece is thinned to the middle line of its strokes, traced
// into lines between ends and junctions, and fitted with straight
// segments and circular arcs, as CAD draws symbols: a legend's glyph and a
// plan's symbol, traced alike, are matched as vector geometry.
package imagevector

import (
	"context"
	"fmt"
	"image"
	"math"

	"blueprint/internal/darkness"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/ink"
	"blueprint/internal/ocrtext"
)

// Paint of the traced geometry: strokes for the lines of drawing, fills
// for the outlines of letters (read as outlined text).
const (
	inkColour  = "#000000"
	strokeIdx  = 0
	fillIdx    = 1
	lineWeight = 1.0
)

// TextReader reads the words a page draws as filled outlines
// (ocrtext.Reader): it returns the characters read and which segments
// are the outlines of words read.
type TextReader interface {
	Read(ctx context.Context, pg *drawing.Page) (*ocrtext.Result, error)
}

// Result is a traced page image.
type Result struct {
	// Page is the traced geometry and the characters read, in the
	// image's pixels: text as a PDF's text layer gives it, drawing as
	// strokes.
	Page *drawing.Page
	// Lines, Read and Unread are the reader's counts of lines of
	// letters (ocrtext.Result); zero without a reader.
	Lines, Read, Unread int
}

// Trace returns the page image's ink as drawing geometry in the image's
// pixels. With a reader, the ink standing in lines of letters is drawn as
// filled outlines and read; the words read become the page's characters
// and their ink leaves the drawing. The rest of the ink is traced to the
// middle lines of its strokes. It stops early when ctx ends.
func Trace(ctx context.Context, img image.Image, read TextReader) (*Result, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	pg := tracedPage(w, h)
	res := &Result{Page: pg}
	if w == 0 || h == 0 {
		return res, nil
	}
	ps, runs, err := inkPieces(ctx, ink.Gray(img), nil)
	if err != nil {
		return nil, err
	}
	text := make([]bool, len(ps)) // pieces read as words
	if read != nil {
		if err := readText(ctx, res, ps, runs, read, text); err != nil {
			return nil, err
		}
	}
	// Drawing: the middle lines of the other pieces' strokes.
	m := make([]uint8, w*h)
	for k, p := range ps {
		if text[k] {
			continue
		}
		for _, i := range p.Runs {
			r := runs[i]
			for x := r.X0; x < r.X1; x++ {
				m[r.Y*w+x] = 1
			}
		}
	}
	ps, runs = nil, nil
	// Filled areas (solid walls, filled symbols) are drawn as filled
	// outlines, as CAD fills them; the strokes are traced.
	splitFills(m, w, h)
	fill := make([]bool, w*h)
	for i, v := range m {
		if v == 2 {
			fill[i] = true
			m[i] = 0
		}
	}
	pg.Segments = append(pg.Segments, outlines(fill, w, h, fillTol, fillIdx)...)
	fill = nil
	thin(m, w, h)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("imagevector: %w", err)
	}
	for _, l := range trace(m, w, h) {
		s := fit(l)
		for _, sg := range s.segs {
			pg.Segments = append(pg.Segments, drawing.Segment{A: sg[0], B: sg[1], Style: strokeIdx})
		}
		for _, a := range s.arcs {
			a.Style = strokeIdx
			pg.Arcs = append(pg.Arcs, a)
		}
	}
	return res, nil
}

// Words returns the words read on the page image, as Trace reads them
// (its Page holds the characters and no drawing): where only what the
// page writes is wanted, its equipment labels, the tracing of its
// drawing is not paid for. With cleanOnly it reads an image rendered or
// exported from a drawing (ink.Clean) and returns nil for a scan or a
// photo, whose specks stand in lines as letters do and cost OCR minutes
// for words it reads less surely. It stops early when ctx ends.
func Words(ctx context.Context, img image.Image, read TextReader, cleanOnly bool) (*Result, error) {
	b := img.Bounds()
	res := &Result{Page: tracedPage(b.Dx(), b.Dy())}
	if b.Empty() {
		return res, nil
	}
	g := ink.Gray(img)
	if cleanOnly && !ink.Clean(g) {
		return nil, nil
	}
	ps, runs, err := inkPieces(ctx, g, darkness.Colourful(img))
	if err != nil {
		return nil, err
	}
	if err := readText(ctx, res, ps, runs, read, make([]bool, len(ps))); err != nil {
		return nil, err
	}
	return res, nil
}

// tracedPage is an empty traced page of w by h pixels with the traced
// geometry's paints.
func tracedPage(w, h int) *drawing.Page {
	return &drawing.Page{Width: float64(w), Height: float64(h), Traced: true, Styles: []drawing.Style{
		strokeIdx: {Stroke: inkColour, Width: lineWeight},
		fillIdx:   {Fill: inkColour},
	}}
}

// inkPieces returns the ink of the gray image g (ink.Gray) split into its
// 8-connected pieces, and the runs they are made of. With col (the
// image's coloured pixels, darkness.Colourful) pieces join only within one
// colour, coloured or black and gray, as a word is written in one: a CAD
// render's black tag touching its red socket's stroke or crossed by a red
// cable's dash is a piece of its own, read as letters, where joined to the
// red it was a symbol's piece (building2's 200-DPI render read 38 of its
// 63 P5 tags). It holds a bit a pixel besides the ink (ink.LabelRunsOf).
func inkPieces(ctx context.Context, g *image.Gray, col darkness.Bits) ([]ink.Piece, []ink.Run, error) {
	inked := ink.Fine(g)
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("imagevector: %w", err)
	}
	w, h := g.Rect.Dx(), g.Rect.Dy()
	var (
		runs []ink.Run
		root []int
	)
	if col == nil {
		runs, root = ink.LabelRuns(inked, w, h)
	} else {
		runs, root = ink.LabelRunsOf(w, h, func(i int) uint8 {
			switch {
			case !inked[i]:
				return 0
			case col.Has(i):
				return 2
			}
			return 1
		})
	}
	return ink.Pieces(runs, root), runs, nil
}

// readText draws the pieces that stand in lines of letters as filled
// outlines, reads them, and marks in text the pieces whose outlines are
// words read; the characters read become res.Page's.
func readText(ctx context.Context, res *Result, ps []ink.Piece, runs []ink.Run, read TextReader, text []bool) error {
	isLetter, adj := letterLines(ps)
	letterPage := &drawing.Page{Width: res.Page.Width, Height: res.Page.Height, Styles: res.Page.Styles}
	var owner []int // per outline segment: its piece
	for k, p := range ps {
		if !isLetter[k] {
			continue
		}
		for _, sg := range pieceOutline(p, runs, letterTol, fillIdx) {
			letterPage.Segments = append(letterPage.Segments, sg)
			owner = append(owner, k)
		}
	}
	if len(letterPage.Segments) == 0 {
		return nil
	}
	r, err := read.Read(ctx, letterPage)
	if err != nil {
		return fmt.Errorf("imagevector: read the words: %w", err)
	}
	var todo []int
	for i, t := range r.Segments {
		if t && i < len(owner) && !text[owner[i]] {
			text[owner[i]] = true
			todo = append(todo, owner[i])
		}
	}
	// A letter OCR left out of the words it stands among (a lone digit,
	// an @) is text all the same: left as drawing, it would stand between
	// a legend's glyph and its description as a glyph of its own. So is a
	// letter-sized piece standing in a line of characters read, a word
	// space from them.
	line := newReadLines(r.Chars)
	for k, p := range ps {
		if !text[k] && line.holds(p.Box) {
			text[k] = true
			todo = append(todo, k)
		}
	}
	for len(todo) > 0 {
		k := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, j := range adj[k] {
			if !text[j] {
				text[j] = true
				todo = append(todo, j)
			}
		}
	}
	res.Page.Chars = r.Chars
	res.Lines, res.Read, res.Unread = r.Lines, r.Read, r.Unread
	return nil
}

// readLines finds the lines of characters read beside a piece.
type readLines struct {
	chars []drawing.Char
	grid  map[[2]int][]int32
}

// readCell is the side, in pixels, of readLines' grid cells.
const readCell = 64

func newReadLines(chars []drawing.Char) *readLines {
	l := &readLines{chars: chars, grid: map[[2]int][]int32{}}
	for i, c := range chars {
		for y := int(c.Min.Y) / readCell; y <= int(c.Max.Y)/readCell; y++ {
			for x := int(c.Min.X) / readCell; x <= int(c.Max.X)/readCell; x++ {
				l.grid[[2]int{x, y}] = append(l.grid[[2]int{x, y}], int32(i))
			}
		}
	}
	return l
}

// holds reports whether a letter-sized piece with box b stands in a
// line of the characters read: beside one at most letterRatio times
// shorter, along its baseline, at most a word space (wordGap of the
// character's height) away.
func (l *readLines) holds(b image.Rectangle) bool {
	if max(b.Dx(), b.Dy()) < minLetterSide || max(b.Dx(), b.Dy()) > maxLetterSide {
		return false
	}
	reach := maxLetterSide
	for y := (b.Min.Y - reach) / readCell; y <= (b.Max.Y+reach)/readCell; y++ {
		for x := (b.Min.X - reach) / readCell; x <= (b.Max.X+reach)/readCell; x++ {
			for _, i := range l.grid[[2]int{x, y}] {
				if beside(b, l.chars[i]) {
					return true
				}
			}
		}
	}
	return false
}

// beside reports whether box b stands beside character c in its line.
func beside(b image.Rectangle, c drawing.Char) bool {
	lo, hi, blo, bhi := c.Min.Y, c.Max.Y, float64(b.Min.Y), float64(b.Max.Y)
	a0, a1, b0, b1 := c.Min.X, c.Max.X, float64(b.Min.X), float64(b.Max.X)
	if c.Angle == 90 || c.Angle == -90 {
		lo, hi, blo, bhi = c.Min.X, c.Max.X, float64(b.Min.X), float64(b.Max.X)
		a0, a1, b0, b1 = c.Min.Y, c.Max.Y, float64(b.Min.Y), float64(b.Max.Y)
	}
	h := hi - lo
	if h <= 0 || bhi-blo > letterRatio*h {
		return false
	}
	overlap := math.Min(hi, bhi) - math.Max(lo, blo)
	gap := math.Max(b0-a1, a0-b1)
	return overlap >= 0.5*math.Min(h, bhi-blo) && gap <= wordGap*h
}

// wordGap is the widest space, in character heights, between a word
// read and a letter OCR left out beside it.
const wordGap = 1.0

// letterTol and fillTol are how far a letter's and a filled area's
// outline may be simplified, in pixels.
const (
	letterTol = 0.5
	fillTol   = 0.9
)

// outlines returns the outlines of the connected pieces of mask (w × h)
// as closed runs of segments in style, simplified within tol.
func outlines(mask []bool, w, h int, tol float64, style int32) []drawing.Segment {
	runs, root := ink.LabelRuns(mask, w, h)
	var out []drawing.Segment
	for _, p := range ink.Pieces(runs, root) {
		out = append(out, pieceOutline(p, runs, tol, style)...)
	}
	return out
}

// pieceOutline is the outline of one piece of ink (its outside and its
// holes) as closed runs of segments in style, simplified within tol.
func pieceOutline(p ink.Piece, runs []ink.Run, tol float64, style int32) []drawing.Segment {
	bw, bh := p.Box.Dx(), p.Box.Dy()
	mask := make([]bool, bw*bh)
	for _, i := range p.Runs {
		r := runs[i]
		for x := r.X0; x < r.X1; x++ {
			mask[(r.Y-p.Box.Min.Y)*bw+x-p.Box.Min.X] = true
		}
	}
	var out []drawing.Segment
	for _, loop := range contours(mask, bw, bh, glyph.Point{X: float64(p.Box.Min.X), Y: float64(p.Box.Min.Y)}) {
		closed := append(loop[:len(loop):len(loop)], loop[0])
		idx := simplify(closed, tol)
		for j := 1; j < len(idx); j++ {
			out = append(out, drawing.Segment{A: closed[idx[j-1]], B: closed[idx[j]], Style: style})
		}
	}
	return out
}
