package legend

import (
	"context"
	"fmt"
	"math"
	"strings"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// Explanation is an account, for a person diagnosing a drawing (`blueprint
// explain`), of what the document pass decided about each page and why.
// Explain builds it beside Read and never changes what Read decides: the
// decisions (page kinds, tables, rows) are Read's own; the reasons are
// found by looking at each page again with the same rules.
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
		var rs []run
		if pg != nil {
			rs = runs(pg)
		}
		pe := explainPage(pg, rs, i, vocab)
		pe.Kind = d.Kinds[i]
		pe.Tables = d.tables[i]
		for r, row := range d.Rows {
			if row.Page == i {
				pe.Rows = append(pe.Rows, r)
			}
		}
		taken := 0
		for _, c := range pe.Columns {
			if c.Table {
				taken++
			}
		}
		if taken != len(pe.Tables) {
			// The account follows find's steps; say so where it has
			// drifted from them.
			pe.SearchReason += fmt.Sprintf(" (this account takes %d columns for tables where the reading took %d: find has changed since explain was written)", taken, len(pe.Tables))
		}
		_, bare := kindOf(pg, rs, nil) // tables decide only pages of text, never bare
		pe.KindReason = kindReason(pg, rs, len(pe.Tables) > 0, pe.Kind, bare)
		x.Pages = append(x.Pages, pe)
	}
	return x, nil
}

// explainPage follows find on one page, recording what it rejects.
func explainPage(pg *drawing.Page, rs []run, page int, vocab *Vocabulary) PageExplanation {
	pe := PageExplanation{Page: page}
	if pg == nil || len(pg.Chars) == 0 {
		pe.SearchReason = "the page writes no text"
		return pe
	}
	maps := vocab.maps()
	switch {
	case headed(rs):
		pe.Searched = true
		for i := range rs {
			if rs[i].upright() && (hasWord(rs[i].text, headerWords) || hasWord(rs[i].text, qtyWords)) {
				pe.SearchReason = fmt.Sprintf("it writes header words (%q)", clip(rs[i].text))
				break
			}
		}
	case maps != nil && describedStack(rs, maps):
		pe.Searched = true
		pe.SearchReason = fmt.Sprintf("it writes a stack of %d or more descriptions naming classes (a legend without header words?)", minHeadlessRows)
	default:
		pe.SearchReason = "no header words (LEGEND, SYMBOL, QTY, SELITYKSET, …) and no stack of descriptions naming classes"
		return pe
	}
	ix := newIndex(pg, rs)
	ix.maps = maps
	caps := rowCaps(rs)
	// As find: candidates, one per glyph, in columns.
	var cands []candidate
	for i := range ix.runs {
		r := &ix.runs[i]
		if !r.upright() || r.letters() < 2 {
			continue
		}
		pe.TextRuns++
		em := r.size
		cy := (r.min.Y + r.max.Y) / 2
		c, ok := ix.glyphLeftOf(r.min.X-0.2*em, cy-0.8*em, cy+0.8*em, glyphReach*em, em, caps[i])
		if !ok {
			pe.NoGlyph++
			continue
		}
		k := Candidate{Text: clip(r.text), Glyph: c.box}
		switch {
		case math.Max(c.box.w(), c.box.h()) < 0.5*em || math.Min(c.box.w(), c.box.h()) < 0.25*em:
			k.Rejected = fmt.Sprintf("the drawing to its left is too small for a glyph (%.0f × %.0f px; the text is %.0f px high)", c.box.w(), c.box.h(), em)
		case ix.crossed(c.box, em):
			k.Rejected = "a long line (a wall, a wire) runs through the drawing: a symbol on a plan, not a key"
		default:
			cands = append(cands, candidate{run: i, glyph: c, em: em})
		}
		pe.Candidates = append(pe.Candidates, k)
	}
	type gkey struct{ x, y int }
	byGlyph := map[gkey]int{}
	var glyphs []candidate
	for _, c := range cands {
		k := gkey{int(math.Round(c.glyph.box.Min.X)), int(math.Round(c.glyph.box.Min.Y))}
		if j, ok := byGlyph[k]; ok {
			em := math.Max(c.em, glyphs[j].em)
			if area(c.glyph.box) > area(glyphs[j].glyph.box) {
				glyphs[j] = c
			}
			glyphs[j].em = em
			continue
		}
		byGlyph[k] = len(glyphs)
		glyphs = append(glyphs, c)
	}
	cols := columns(glyphs)
	boxes := make([]Rect, len(cols))
	for k, col := range cols {
		boxes[k] = emptyRect()
		for _, c := range col {
			boxes[k] = boxes[k].union(c.glyph.box)
		}
	}
	for k, col := range cols {
		if len(col) < 2 {
			pe.Singles++
			continue
		}
		limit := math.Inf(1)
		for j, b := range boxes {
			if j != k && len(cols[j]) >= 2 && b.Min.X > boxes[k].Max.X && b.Min.Y < boxes[k].Max.Y && b.Max.Y > boxes[k].Min.Y {
				limit = math.Min(limit, b.Min.X)
			}
		}
		cl := Column{Box: boxes[k]}
		for _, c := range col {
			cl.Texts = append(cl.Texts, clip(ix.runs[c.run].text))
		}
		if t, ok := ix.table(col, page, limit); ok {
			cl.Table, cl.Rows = true, len(t.Rows)
		} else {
			cl.Rejected = ix.rejection(col, page, limit)
		}
		pe.Columns = append(pe.Columns, cl)
	}
	return pe
}

// unnamed is the reason given where explain's account of table finds no
// condition the column fails: table has changed since.
const unnamed = "rejected for a reason explain does not name"

// rejection says why table refuses a column, checking its conditions in
// its order.
func (ix *pageIndex) rejection(col []candidate, page int, limit float64) string {
	em := 0.0
	colBox := emptyRect()
	for _, c := range col {
		em += c.em / float64(len(col))
		colBox = colBox.union(c.glyph.box)
	}
	n := len(col)
	ys := make([]float64, n)
	for i, c := range col {
		ys[i] = c.glyph.box.centre().Y
	}
	left := colBox.Min.X - 0.5*em
	var rows []Row
	var kept []int
	sigs := map[string]bool{}
	tableBox := emptyRect()
	for i := range col {
		// table's row bands: halfway to the neighbouring glyphs; the
		// first and last rows reach as far out as in.
		var up, down float64
		if i > 0 {
			up = (ys[i] - ys[i-1]) / 2
		}
		if i < n-1 {
			down = (ys[i+1] - ys[i]) / 2
		}
		if i == 0 {
			up = down
		}
		if i == n-1 {
			down = up
		}
		y0, y1 := ys[i]-up, ys[i]+down
		r, sig, ok := ix.readRow(left, limit, y0, y1, em, col[i])
		if !ok {
			continue
		}
		r.Page = page
		kept = append(kept, i)
		rows = append(rows, r)
		sigs[sig] = true
		tableBox = tableBox.union(r.Box)
	}
	if len(rows) < 2 {
		return fmt.Sprintf("only %d of its %d rows could be read (a row needs a description right of its glyph and a glyph in its cell)", len(rows), n)
	}
	for i := 1; i < len(kept); i++ {
		if gap := ys[kept[i]] - ys[kept[i-1]]; gap > maxPitchEm*em {
			return fmt.Sprintf("two of its rows stand %.1f em apart (a table's rows are at most %.0f em apart)", gap/em, maxPitchEm)
		}
	}
	if 2*len(sigs) < len(rows) {
		return fmt.Sprintf("only %d of its %d glyphs are distinct: a riser or a row of instances, not a legend", len(sigs), len(rows))
	}
	hdrBox := Rect{Min: glyph.Point{X: tableBox.Min.X - 2*em, Y: tableBox.Min.Y - 6*em}, Max: glyph.Point{X: tableBox.Max.X + 2*em, Y: tableBox.Min.Y + 0.5*em}}
	qtyBox := hdrBox
	qtyBox.Max.X += 3 * glyphReach * em
	for i := range ix.runs {
		r := &ix.runs[i]
		if r.upright() && (hdrBox.Contains(r.centre()) && hasWord(r.text, headerWords) || qtyBox.Contains(r.centre()) && hasWord(r.text, qtyWords)) {
			return unnamed
		}
	}
	return "no header words within 6 em above it, and as a legend without them: " + ix.headlessRejection(col, kept, rows, len(sigs))
}

// headlessRejection says which condition of headless the rows fail.
func (ix *pageIndex) headlessRejection(col []candidate, kept []int, rows []Row, sigs int) string {
	n := len(rows)
	switch {
	case ix.maps == nil:
		return "no vocabulary to read descriptions with"
	case n < minHeadlessRows:
		return fmt.Sprintf("%d rows, fewer than %d", n, minHeadlessRows)
	case float64(sigs) < headlessMapped*float64(n):
		return fmt.Sprintf("%d of %d glyphs distinct, fewer than %.0f %%", sigs, n, 100*headlessMapped)
	}
	var em float64
	var cx, lx, sizes, ys []float64
	for _, k := range kept {
		b := col[k].glyph.box
		em += col[k].em / float64(n)
		cx = append(cx, b.centre().X)
		lx = append(lx, b.Min.X)
		sizes = append(sizes, math.Max(b.w(), b.h()))
		ys = append(ys, b.centre().Y)
	}
	if spreadOf(cx) > headlessAlignEm*em && spreadOf(lx) > headlessAlignEm*em {
		return fmt.Sprintf("glyph centres and left edges spread over more than %.1f em", headlessAlignEm)
	}
	lo, hi := math.Inf(1), 0.0
	for _, s := range sizes {
		lo, hi = math.Min(lo, s), math.Max(hi, s)
	}
	if hi > headlessSizeRatio*lo {
		return fmt.Sprintf("glyph sizes differ %.1f×, more than %.1f×", hi/lo, headlessSizeRatio)
	}
	var pitches []float64
	for i := 1; i < n; i++ {
		pitches = append(pitches, ys[i]-ys[i-1])
	}
	med := quantile(pitches, 0.5)
	for _, p := range pitches {
		if p > headlessPitchRatio*med || p*headlessPitchRatio < med {
			return fmt.Sprintf("uneven rows: a pitch of %.0f px against a median of %.0f px (within %.1f× needed)", p, med, headlessPitchRatio)
		}
	}
	mapped := 0
	for _, r := range rows {
		if ix.maps(r.Description + " " + r.GlyphText + " " + strings.Join(r.Tags, " ")) {
			mapped++
		}
	}
	if float64(mapped) >= headlessMapped*float64(n) {
		return unnamed
	}
	return fmt.Sprintf("%d of %d descriptions name a class (%.0f %% needed)", mapped, n, 100*headlessMapped)
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
