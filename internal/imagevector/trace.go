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
	pg := &drawing.Page{Width: float64(w), Height: float64(h), Styles: []drawing.Style{
		strokeIdx: {Stroke: inkColour, Width: lineWeight},
		fillIdx:   {Fill: inkColour},
	}}
	res := &Result{Page: pg}
	if w == 0 || h == 0 {
		return res, nil
	}
	inked := ink.Fine(ink.Gray(img))
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("imagevector: %w", err)
	}
	runs, root := ink.LabelRuns(inked, w, h)
	inked = nil
	ps := ink.Pieces(runs, root)
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
	ps, runs, root = nil, nil, nil
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

// readText draws the pieces that stand in lines of letters as filled
// outlines, reads them, and marks in text the pieces whose outlines are
// words read; the characters read become res.Page's.
func readText(ctx context.Context, res *Result, ps []ink.Piece, runs []ink.Run, read TextReader, text []bool) error {
	isLetter := letters(ps)
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
	for i, t := range r.Segments {
		if t && i < len(owner) {
			text[owner[i]] = true
		}
	}
	res.Page.Chars = r.Chars
	res.Lines, res.Read, res.Unread = r.Lines, r.Read, r.Unread
	return nil
}

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
