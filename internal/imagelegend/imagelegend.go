// Package imagelegend reads legend tables on page images (scans, photos,
// PNG and JPEG uploads): it finds the column of glyphs with a description
// beside each, cuts out each glyph's box, and reads each row's text by OCR
// (internal/ocr) for the same vocabulary as PDF legends (internal/legend):
// description, tags beside the glyph, and the printed quantity.
//
// Finding works on the ink alone, so that OCR (the slow part) reads only
// the candidate tables: the page is binarised with a local threshold, its
// connected pieces of ink labelled, pieces of the page's text size chained
// into text lines, and a legend row is a text line with a glyph-sized
// piece of non-text ink to its left; rows whose glyphs and text starts
// line up make a table. docs/raster.md, "Legends on images", says more.
package imagelegend

import (
	"context"
	"fmt"
	"image"
	"slices"
	"sort"

	"blueprint/internal/ink"
	"blueprint/internal/legend"
	"blueprint/internal/ocr"
)

// Row is one legend row read from an image.
type Row struct {
	Description string
	// Class is what the vocabulary maps the description to ("" when it
	// names no class or matched a rule for a device without one); Mapped
	// says whether any vocabulary rule matched.
	Class  string
	Mapped bool
	// Tags are words written between the glyph and the description
	// ("15CD", "135°").
	Tags []string
	// Quantity is the printed quantity, nil when the table has no
	// quantity column or the row's cell is empty.
	Quantity *int
	// Glyph is the box of the row's glyph on the page, in the image's
	// pixels; Box the row's extent (glyph, tags, description).
	Glyph image.Rectangle
	Box   image.Rectangle
}

// Table is one legend table found on an image.
type Table struct {
	Box  image.Rectangle
	Rows []Row
}

// Reader finds and reads legend tables on images.
type Reader struct {
	OCR   *ocr.Reader
	Vocab *legend.Vocabulary
}

// Layout parameters, in text heights (H: the median height of the page's
// character-sized pieces of ink).
const (
	// maxGlyphGap: the glyph ends at most this far left of its text;
	// farGlyphGap where nothing else stands between them (a ruled
	// table's description centred in a wide column).
	maxGlyphGap = 12.0
	farGlyphGap = 30.0
	// wordGap: characters of one text line lie at most this far apart.
	wordGap = 1.1
	// glyphJoin: pieces of one glyph lie at most this far apart.
	glyphJoin = 0.3
	// bandJoin: pieces spanning the same rows (within bandSlack pixels)
	// join up to this share of their height apart.
	bandJoin  = 0.5
	bandSlack = 2
	// maxPitch: rows of one table lie at most this far apart.
	maxPitch = 6.0
	// align: glyph centres (and text starts) of one column agree within
	// this.
	align = 2.0
	// minRows is the fewest rows a table has.
	minRows = 2
	// colGap: words further apart than this belong to different columns.
	colGap = 2.5
	// textStrokes: ink runs a text height along the middle of a line of
	// letters run together (a glyph outline has two across its width).
	textStrokes = 1.2
)

// Glyph size range, in text heights.
const (
	minGlyphH, maxGlyphH = 0.7, 6.0
	minGlyphW, maxGlyphW = 0.6, 12.0
)

// Page is what Find learns of a page image.
type Page struct {
	// Tables are its legend tables with their rows read.
	Tables []Table
	// Text says the page is mostly text (notes, schedules, a title or
	// legend sheet) rather than a drawing: at least textInk as much of
	// its ink lies in character-sized pieces as in the other pieces.
	Text bool
	// Kind is the kind of sheet its title names (legend.TitleKind: the
	// tallest line of large type that names one), "" when none does.
	Kind string
}

// textInk: a page whose ink in character-sized pieces is at least this
// share of its ink in other pieces is a text sheet. Measured at 200 DPI:
// the plans of both development sets and a generated scanned plan 0.14–0.28,
// the US set's notes-and-legend sheet 0.73 and its schedule 1.51.
const textInk = 0.5

// Find returns the legend tables of img with their rows read, and whether
// the page is a text sheet. Tables none of whose rows the vocabulary maps,
// and that have no legend header, are left out. It fails only when OCR
// fails.
func (r *Reader) Find(ctx context.Context, img image.Image) (Page, error) {
	origin := img.Bounds().Min
	g := ink.Gray(img)
	m := binarise(g)
	cs := components(m)
	h := textHeight(cs)
	if h == 0 {
		return Page{}, nil
	}
	page := Page{Text: textSheet(cs, h)}
	if !page.Text {
		kind, err := r.titleKind(ctx, g, cs, h)
		if err != nil {
			return Page{}, err
		}
		page.Kind = kind
	}
	lay := layout(cs, h, m)
	for _, col := range lay.columns() {
		t, ok, err := r.read(ctx, g, lay, col)
		if err != nil {
			return Page{}, err
		}
		if !ok {
			continue
		}
		t.Box = t.Box.Add(origin)
		for i := range t.Rows {
			t.Rows[i].Glyph = t.Rows[i].Glyph.Add(origin)
			t.Rows[i].Box = t.Rows[i].Box.Add(origin)
		}
		page.Tables = append(page.Tables, t)
	}
	return page, nil
}

// Titles: lines of large type, letters minTitleH to maxTitleH text
// heights high, at least minTitleChars of them; at most maxTitles of the
// tallest are read.
const (
	minTitleH, maxTitleH = 1.6, 8.0
	minTitleChars        = 4
	maxTitles            = 8
)

// titleKind reads the page's lines of large type (sheet titles: "RISER
// DETAIL", "FIRST FLOOR PLAN"), tallest first, and returns the kind the
// tallest one naming a kind of sheet names (legend.TitleKind), "" when
// none does. Titles turned on their side (a title block's edge) are not
// read.
func (r *Reader) titleKind(ctx context.Context, g *image.Gray, cs []component, h float64) (string, error) {
	var big []image.Rectangle
	var hs []int
	for _, c := range cs {
		ch := float64(c.box.Dy())
		if ch >= minTitleH*h && ch <= maxTitleH*h && c.box.Dx() <= int(maxLetterW*ch) && float64(c.area) >= 0.12*float64(c.box.Dx()*c.box.Dy()) {
			big = append(big, c.box)
			hs = append(hs, c.box.Dy())
		}
	}
	if len(big) < minTitleChars {
		return "", nil
	}
	slices.Sort(hs)
	lines := chainLines(big, float64(hs[len(hs)/2]))
	lines = slices.DeleteFunc(lines, func(l textLine) bool { return l.chars < minTitleChars })
	sort.Slice(lines, func(a, b int) bool { return lines[a].box.Dy() > lines[b].box.Dy() })
	for _, l := range lines[:min(len(lines), maxTitles)] {
		pad := l.box.Dy() / 4
		read, err := r.OCR.Lines(ctx, g.SubImage(l.box.Inset(-pad).Intersect(g.Rect)), ocr.SingleLine)
		if err != nil {
			return "", fmt.Errorf("imagelegend: read title at %v: %w", l.box, err)
		}
		for _, rl := range read {
			if k, ok := legend.TitleKind(rl.Text()); ok {
				return k, nil
			}
		}
	}
	return "", nil
}

// textSheet reports whether the ink of pieces cs (text height h) lies
// mostly in character-sized pieces (see textInk); specks are left out.
func textSheet(cs []component, h float64) bool {
	var chars, other int
	for _, c := range cs {
		switch {
		case letterHigh(c.box, h) && float64(c.box.Dx()) <= maxLetterW*h:
			chars += c.area
		case !speck(c.box, h):
			other += c.area
		}
	}
	return float64(chars) >= textInk*float64(other) && chars > 0
}

// Character pieces, in text heights: a letter is 0.45–1.6 high and at
// most maxLetterW wide (wider only when letters run together); a piece
// under speckSize in both directions is a speck or dot.
const (
	minLetterH, maxLetterH = 0.45, 1.6
	// smallMinH: the least height of a letter in small type (tags,
	// ratings), in text heights.
	smallMinH = 0.25
	// smallMinChars: the fewest characters of a line in small type (a
	// rating, "15CD 0.25W"; the two or three letters of an abbreviation
	// inside a symbol, "AIM", stay with their glyph).
	smallMinChars = 4
	maxLetterW    = 2.2
	speckSize     = 0.3
)

// letterHigh reports whether r is as high as a letter of text height h.
func letterHigh(r image.Rectangle, h float64) bool {
	ch := float64(r.Dy())
	return ch >= minLetterH*h && ch <= maxLetterH*h
}

// speck reports whether r is a speck or dot at text height h.
func speck(r image.Rectangle, h float64) bool {
	return float64(max(r.Dx(), r.Dy())) < speckSize*h
}

// textHeight returns the median height of the character-sized pieces of
// ink (5 to 80 pixels high, not wider than about two heights, not mostly
// empty), 0 when there are too few to tell.
func textHeight(cs []component) float64 {
	var hs []int
	for _, c := range cs {
		w, h := c.box.Dx(), c.box.Dy()
		if h >= 5 && h <= 80 && w <= 2*h+2 && w >= 1 && float64(c.area) >= 0.12*float64(w*h) {
			hs = append(hs, h)
		}
	}
	if len(hs) < 20 {
		return 0
	}
	slices.Sort(hs)
	return float64(hs[len(hs)/2])
}
