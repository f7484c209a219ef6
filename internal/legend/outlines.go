package legend

import (
	"context"
	"fmt"
	"math"
	"sort"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/ocrtext"
)

// OutlineReader reads the text a page draws as outlines (ocrtext.Reader):
// characters in the page's own pixels, and which of its pieces drew them.
type OutlineReader interface {
	Read(ctx context.Context, pg *drawing.Page) (*ocrtext.Result, error)
}

// Options choose how ReadWith reads a document.
type Options struct {
	// Outlines, when set, reads the words of pages that draw them as
	// outlines (no text layer: Document.Textless without it), so that
	// their legends, schedules, tags and titles are read as a PDF's text
	// is. Without it such pages are read for their drawing alone.
	Outlines OutlineReader
}

// Text sources of a page (PageText.Source, PageExplanation.TextSource).
const (
	TextPDF  = "pdf"  // the PDF's text layer
	TextOCR  = "ocr"  // OCR of the letters the page draws as outlines
	TextNone = "none" // no text read
)

// PageText is the text the document pass read from a page's outlines.
type PageText struct {
	// Chars are the characters read, in page pixels.
	Chars []drawing.Char
	// Segments and Arcs are the runs [from, to) of indexes of the
	// page's pieces that drew the words read: text, not drawing.
	Segments, Arcs [][2]int32
	// NumSegments and NumArcs are how many pieces the page had when read:
	// the runs apply only to the same drawing.
	NumSegments, NumArcs int
	// Lines, Read, Unread and ByShape are ocrtext.Result's: lines of
	// outlined letters found, read, left unread past the time bound, and
	// of those read, spelled from their letters' shapes without OCR.
	Lines, Read, Unread, ByShape int
}

// Page returns page i's drawing pg as the document pass read it: where
// the page's words are drawn as outlines and were read, with the text
// read as its characters and without the outlines that drew it (as a
// PDF with a text layer draws its words); otherwise pg itself.
func (d *Document) Page(i int, pg *drawing.Page) *drawing.Page {
	t, ok := d.ocr[i]
	if !ok || pg == nil {
		return pg
	}
	return t.apply(pg)
}

// TextSource says where page i's text came from: TextPDF, TextOCR, or
// TextNone for a page whose words are drawn as outlines and not read.
func (d *Document) TextSource(i int) string {
	if _, ok := d.ocr[i]; ok {
		return TextOCR
	}
	for _, j := range d.Textless {
		if j == i {
			return TextNone
		}
	}
	return TextPDF
}

// OCRText returns what OCR read of page i's outlines, nil where the page
// was not read so.
func (d *Document) OCRText(i int) *PageText {
	t, ok := d.ocr[i]
	if !ok {
		return nil
	}
	return &t
}

// apply is pg with t's characters and without t's outlines.
func (t PageText) apply(pg *drawing.Page) *drawing.Page {
	out := *pg
	out.Chars = append(append([]drawing.Char(nil), pg.Chars...), t.Chars...)
	if len(pg.Segments) == t.NumSegments && len(pg.Arcs) == t.NumArcs {
		out.Segments = without(pg.Segments, t.Segments)
		out.Arcs = without(pg.Arcs, t.Arcs)
	}
	return &out
}

// without is s less the runs of indexes rs (sorted, disjoint).
func without[T any](s []T, rs [][2]int32) []T {
	if len(rs) == 0 {
		return s
	}
	out := make([]T, 0, len(s))
	at := 0
	for _, r := range rs {
		out = append(out, s[at:r[0]]...)
		at = int(r[1])
	}
	return append(out, s[at:]...)
}

// runsOf packs the true indexes of marks into runs [from, to).
func runsOf(marks []bool) [][2]int32 {
	var out [][2]int32
	for i := 0; i < len(marks); i++ {
		if !marks[i] {
			continue
		}
		j := i
		for j < len(marks) && marks[j] {
			j++
		}
		out = append(out, [2]int32{int32(i), int32(j)})
		i = j
	}
	return out
}

// readOutlines reads page i's outlined words with r, records them, and
// returns the page as read. It keeps the page among Textless where
// nothing could be read.
func (d *Document) readOutlines(ctx context.Context, r OutlineReader, i int, pg *drawing.Page) (*drawing.Page, error) {
	res, err := r.Read(ctx, pg)
	if err != nil {
		return nil, fmt.Errorf("legend: read page %d's outlined text: %w", i, err)
	}
	if len(res.Chars) == 0 {
		return pg, nil
	}
	t := PageText{Chars: res.Chars, Segments: runsOf(res.Segments), Arcs: runsOf(res.Arcs),
		NumSegments: len(pg.Segments), NumArcs: len(pg.Arcs), Lines: res.Lines, Read: res.Read, Unread: res.Unread, ByShape: res.ByShape}
	if d.ocr == nil {
		d.ocr = map[int]PageText{}
	}
	d.ocr[i] = t
	return t.apply(pg), nil
}

// minTurnedChars is the fewest characters written at one angle other
// than upright for the page to be searched turned to that angle as well:
// legends set in a column turned 90° on the sheet.
const minTurnedChars = 40

// turnedAngles are the baseline angles, other than upright, at which pg
// writes at least minTurnedChars characters, most written first.
func turnedAngles(pg *drawing.Page) []float64 {
	n := map[float64]int{}
	for _, c := range pg.Chars {
		a := normAngle(math.Round(c.Angle))
		if a != 0 && math.Mod(a, 90) == 0 {
			n[a]++
		}
	}
	var out []float64
	for a, k := range n {
		if k >= minTurnedChars {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if n[out[i]] != n[out[j]] {
			return n[out[i]] > n[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// normAngle maps degrees to (-180, 180].
func normAngle(a float64) float64 {
	a = math.Mod(a, 360)
	if a <= -180 {
		a += 360
	}
	if a > 180 {
		a -= 360
	}
	return a
}

// turn is a quarter turn of a page: it maps the page's pixels to those of
// the page turned so that text written at angle reads upright.
type turn struct {
	angle float64 // 90, -90 or 180
	w, h  float64 // the page's size before turning
}

func (t turn) to(p glyph.Point) glyph.Point {
	switch t.angle {
	case 90: // read top to bottom: the page's right is up
		return glyph.Point{X: p.Y, Y: t.w - p.X}
	case -90:
		return glyph.Point{X: t.h - p.Y, Y: p.X}
	default:
		return glyph.Point{X: t.w - p.X, Y: t.h - p.Y}
	}
}

func (t turn) from(p glyph.Point) glyph.Point {
	switch t.angle {
	case 90:
		return glyph.Point{X: t.w - p.Y, Y: p.X}
	case -90:
		return glyph.Point{X: p.Y, Y: t.h - p.X}
	default:
		return glyph.Point{X: t.w - p.X, Y: t.h - p.Y}
	}
}

func (t turn) rect(r Rect, f func(glyph.Point) glyph.Point) Rect {
	a, b := f(r.Min), f(r.Max)
	return Rect{glyph.MinPoint(a, b), glyph.MaxPoint(a, b)}
}

// page returns pg turned.
func (t turn) page(pg *drawing.Page) *drawing.Page {
	out := &drawing.Page{Width: pg.Width, Height: pg.Height, Styles: pg.Styles, ImageArea: pg.ImageArea}
	if t.angle != 180 {
		out.Width, out.Height = pg.Height, pg.Width
	}
	out.Segments = make([]drawing.Segment, len(pg.Segments))
	for i, s := range pg.Segments {
		out.Segments[i] = drawing.Segment{A: t.to(s.A), B: t.to(s.B), Style: s.Style}
	}
	out.Arcs = make([]drawing.Arc, len(pg.Arcs))
	for i, a := range pg.Arcs {
		out.Arcs[i] = drawing.Arc{C: t.to(a.C), R: a.R, Start: normAngle(a.Start - t.angle), Sweep: a.Sweep, Style: a.Style}
	}
	out.Chars = make([]drawing.Char, len(pg.Chars))
	for i, c := range pg.Chars {
		a, b := t.to(c.Min), t.to(c.Max)
		out.Chars[i] = drawing.Char{Text: c.Text, Min: glyph.MinPoint(a, b), Max: glyph.MaxPoint(a, b),
			Origin: t.to(c.Origin), Size: c.Size, Angle: normAngle(c.Angle - t.angle)}
	}
	return out
}

// findTurned finds the legend tables written at each turned angle of pg
// (turnedAngles) by reading the page turned so that they read upright,
// and returns them in pg's own pixels.
func findTurned(pg *drawing.Page, page int, maps func(string) bool, pe *PageExplanation) []Table {
	var out []Table
	for _, a := range turnedAngles(pg) {
		t := turn{angle: a, w: pg.Width, h: pg.Height}
		tp := t.page(pg)
		var nc, ncol int
		if pe != nil {
			nc, ncol = len(pe.Candidates), len(pe.Columns)
		}
		tables := find(tp, page, runs(tp), maps, pe)
		if pe != nil { // its account in the page's own pixels
			for k := nc; k < len(pe.Candidates); k++ {
				pe.Candidates[k].Glyph = t.rect(pe.Candidates[k].Glyph, t.from)
			}
			for k := ncol; k < len(pe.Columns); k++ {
				pe.Columns[k].Box = t.rect(pe.Columns[k].Box, t.from)
			}
		}
		for _, tb := range tables {
			tb.Box = t.rect(tb.Box, t.from)
			for k := range tb.Rows {
				tb.Rows[k].Box = t.rect(tb.Rows[k].Box, t.from)
				tb.Rows[k].GlyphBox = t.rect(tb.Rows[k].GlyphBox, t.from)
			}
			out = append(out, tb)
		}
	}
	return out
}
