package legend

import (
	"context"
	"fmt"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
)

// Explanation is an account, for a person diagnosing a drawing (`blueprint
// explain`), of what the document pass decided about each page and why.
// Explain builds it beside Read and never changes what Read decides: the
// decisions (page kinds, tables, rows) are Read's own; the reasons are
// found by searching each page again with Read's own code, which records
// what it rejects and why.
type Explanation struct {
	Pages []PageExplanation
}

// PageExplanation explains one page.
type PageExplanation struct {
	Page int
	// Kind is the page's kind as Read decided it; KindReason says why.
	Kind, KindReason string
	// Searched says whether the page's drawing was searched for legend
	// tables; SearchReason says why (or why not).
	Searched     bool
	SearchReason string
	// TextRuns is how many upright runs of text looked for a glyph drawn
	// to their left; NoGlyph of them found none.
	TextRuns, NoGlyph int
	// Candidates are the runs that found drawing to their left: glyph
	// candidates, and the ones rejected (Candidate.Rejected).
	Candidates []Candidate
	// Columns are the columns the glyph candidates form, of two or more
	// glyphs, each taken for a legend table or rejected. Singles counts
	// the columns of a single glyph, which are never tables.
	Columns []Column
	Singles int
	// Tables are the boxes of the legend tables Read took on the page;
	// Rows the indexes into Document.Rows of the rows read there.
	Tables []Rect
	Rows   []int
	// Image says the page is an image: no drawing (an image upload) or a
	// scan (drawing.Page.Scan). Its legends are read from its pixels
	// where the engine reads legends on images, not here.
	Image bool
	// TextSource says where the page's text came from (TextPDF, TextOCR,
	// TextNone; "" on an image page); OCR, for TextOCR, what OCR read of its outlines.
	TextSource string
	OCR        *PageText
	// Turned are the angles (90, -90, 180) at which the page was also
	// searched turned, for legends set in a turned column.
	Turned []float64
}

// Candidate is a run of text with drawing to its left.
type Candidate struct {
	Text  string
	Glyph Rect // the drawing found, raster pixels
	// Rejected says why the drawing is no glyph candidate; "" for one.
	Rejected string
}

// Column is a column of glyph candidates.
type Column struct {
	Box   Rect     // the glyphs' extent, raster pixels
	Texts []string // the candidates' texts, top to bottom
	// Table says whether the column was taken for a legend table, of
	// Rows rows; else Rejected says why not.
	Table    bool
	Rows     int
	Rejected string
}

// TemplateRow returns the row whose glyph's template finds the symbols of
// row i: i itself, the first row drawing the same glyph (rows told apart
// by their tags), or the same row on an earlier sheet's legend.
func (d *Document) TemplateRow(i int) int { return d.leader[i] }

// Explain explains d, which Read returned for doc with vocab, page by
// page; each page's drawing is read once more and released.
func Explain(ctx context.Context, doc detect.Drawings, vocab *Vocabulary, d *Document) (*Explanation, error) {
	if doc.NumPages() != len(d.Kinds) {
		return nil, fmt.Errorf("legend: explain: the document has %d pages, its reading %d", doc.NumPages(), len(d.Kinds))
	}
	x := &Explanation{}
	for i := range doc.NumPages() {
		pg, err := doc.Drawing(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("legend: explain page %d: %w", i, err)
		}
		pg = d.Page(i, pg) // with the text read from its outlines
		var rs []run
		if pg != nil {
			rs = runs(pg)
		}
		pe := explainPage(pg, rs, i, vocab)
		if !pe.Image {
			pe.TextSource, pe.OCR = d.TextSource(i), d.OCRText(i)
		}
		pe.Kind = d.Kinds[i]
		pe.Tables = d.tables[i]
		for r, row := range d.Rows {
			if row.Page == i {
				pe.Rows = append(pe.Rows, r)
			}
		}
		_, bare := kindOf(pg, rs, nil) // tables decide only pages of text, never bare
		pe.KindReason = kindReason(pg, rs, len(pe.Tables) > 0, pe.Kind, bare)
		x.Pages = append(x.Pages, pe)
	}
	return x, nil
}

// explainPage searches one page as find does (find records what it
// looks at and rejects), saying why the page is searched or not.
// Text written turned is searched turned as well (deferred: whether or
// not the upright text is searched).
func explainPage(pg *drawing.Page, rs []run, page int, vocab *Vocabulary) (pe PageExplanation) {
	pe = PageExplanation{Page: page, Image: pg == nil || pg.Scan()}
	switch {
	case pg == nil:
		pe.SearchReason = "an image page: no drawing to search"
		return pe
	case len(pg.Chars) == 0:
		pe.SearchReason = "the page writes no text"
		return pe
	}
	maps := vocab.maps()
	if pe.Turned = turnedAngles(pg); len(pe.Turned) > 0 {
		defer findTurned(pg, page, maps, &pe)
	}
	switch header, stack := searched(rs, maps); {
	case header >= 0:
		pe.SearchReason = fmt.Sprintf("it writes header words (%q)", clip(rs[header].text))
	case stack:
		pe.SearchReason = fmt.Sprintf("it writes a stack of %d or more descriptions naming classes (a legend without header words?)", minHeadlessRows)
	default:
		pe.SearchReason = "no header words (LEGEND, SYMBOL, QTY, SELITYKSET, …) and no stack of descriptions naming classes"
		return pe
	}
	pe.Searched = true
	find(pg, page, rs, maps, &pe)
	return pe
}

// kindReason says why a page is of kind, as kindOf and Read decide it;
// hasTable tells whether Read took a legend table on it, bare is kindOf's.
func kindReason(pg *drawing.Page, rs []run, hasTable bool, kind string, bare bool) string {
	if pg == nil {
		return "no drawing: an image page, counted by the raster detector"
	}
	pieces := len(pg.Segments) + len(pg.Arcs)
	if len(pg.Chars) > 0 && float64(len(pg.Chars)) >= textHeavy*float64(pieces) {
		s := fmt.Sprintf("mostly text (%d characters for %d drawn pieces; %.1f or more a piece is text)", len(pg.Chars), pieces, textHeavy)
		if hasTable {
			return s + " holding a legend table"
		}
		return s + " without a legend table"
	}
	title, size := "", 0.0
	for _, r := range rs {
		for _, c := range kindCues {
			if r.size > size && hasWord(r.text, c.words) {
				title, size = r.text, r.size
			}
		}
	}
	if size > 0 {
		return fmt.Sprintf("the title written largest (%q, %.0f px high) names it", clip(title), size)
	}
	if hasDoorSwing(pg) {
		return "no title names the sheet; it draws a door swing"
	}
	words := letterRuns(rs)
	switch {
	case kind == detect.KindSingleLine:
		return "no title names the sheet and it draws no door swing; its words are a single-line diagram's (circuit tables, breaking capacities)"
	case bare && kind == detect.KindRiser:
		return fmt.Sprintf("no title, no door swing and only %d runs of words (fewer than %d), in a set whose plans draw doors: a riser or schematic", words, minPlanRuns)
	case bare:
		return fmt.Sprintf("no title, no door swing and only %d runs of words, but no plan of the set draws doors: kept for a floor plan", words)
	}
	return fmt.Sprintf("no title names the sheet and it draws no door swing, but it writes %d runs of words (rooms, labels): a floor plan", words)
}

// clip shortens a text for a one-line account.
func clip(s string) string {
	const most = 60
	if r := []rune(s); len(r) > most {
		return string(r[:most-1]) + "…"
	}
	return s
}
