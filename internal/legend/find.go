package legend

import (
	"math"
	"sort"
	"strings"

	"blueprint/internal/drawing"
)

// Legend finding parameters, in em sizes of the description text.
const (
	// glyphReach is how far left of a description its glyph may start.
	glyphReach = 20.0
	// maxPieceEm: a drawn piece longer than this is a table rule or
	// other drawing, never part of a legend glyph.
	maxPieceEm = 6.0
	// clusterGap joins pieces of one glyph.
	clusterGap = 0.6
	// columnChain: glyph centres of one column lie within this of the
	// next one.
	columnChain = 2.0
	// maxPitchEm: rows of one table lie at most this far apart.
	maxPitchEm = 6.0
	// maxEmptyEm: rows further apart than maxPitchEm still follow one
	// another where no band of empty space taller than this is left
	// between them (descriptions wrapped over four lines or more, in two
	// languages; emptyBetween).
	maxEmptyEm = 4.0
)

// headerWords open a legend table (upper case, compared on whole words or
// phrases of the header's text).
var headerWords = []string{
	"LEGEND", "SYMBOL LEGEND", "SYMBOLS", "SYMBOL", "KEY", "LEGEND OF SYMBOLS",
	"SELITYKSET", "MERKKIEN SELITYKSET", "MERKINNÄT", "MERKKISELITYKSET", "MERKKI", "SELITE",
	"DESCRIPTION", "TECKENFÖRKLARING", "SYMBOLER",
	// Other languages of the sheets we read: Romanian, Italian, Spanish,
	// Portuguese, Polish, Czech ("LEGENDA"), German and Dutch
	// ("LEGENDE", "ZEICHENERKLÄRUNG", "SYMBOLE"), French ("LÉGENDE"),
	// Spanish and Italian symbol keys ("SIMBOLOGÍA", "SIMBOLOGIA").
	"LEGENDA", "LEGENDE", "LÉGENDE", "ZEICHENERKLÄRUNG", "SYMBOLE", "SIMBOLOGIA", "SIMBOLOGÍA", "SIMBOLI",
}

// searched says whether find searches the page writing rs for legend
// tables, and why: header is the index of the first upright run writing
// a legend header or a quantity header, -1 for none; where there is none
// and maps is not nil, stack reports whether the page writes a stack of
// descriptions naming classes (describedStack). A page is searched where
// header >= 0 or stack.
func searched(rs []run, maps func(string) bool) (header int, stack bool) {
	for i := range rs {
		if rs[i].upright() && (hasWord(rs[i].text, headerWords) || hasWord(rs[i].text, qtyWords)) {
			return i, false
		}
	}
	return -1, maps != nil && describedStack(rs, maps)
}

// Find reads the legend tables of one page: tables under header words,
// and, where vocab is not nil, tables without them whose shape and
// descriptions make a legend (headless). Find only reads; Read maps the
// rows to classes.
func Find(pg *drawing.Page, page int, vocab *Vocabulary) []Table {
	if pg == nil || len(pg.Chars) == 0 {
		return nil
	}
	return find(pg, page, runs(pg), vocab.maps(), nil)
}

// maps returns whether a text names a class by its words, its codes
// left out (withoutCodes); nil for a nil vocabulary. A plan's circuit
// labels ("DB-S1", "P1 DB-S1") name a board by a code, and a column of
// them beside the marks drawn at their wires was taken for a legend
// without header words (newmark with its words drawn as outlines: a
// bar-shaped "glyph" counted 66 distribution boards).
func (v *Vocabulary) maps() func(string) bool {
	if v == nil {
		return nil
	}
	return func(text string) bool {
		_, ok := v.Class(withoutCodes(text))
		return ok
	}
}

// find is Find with the page's runs of text. maps, when not nil, says
// whether a row's text names a class: it admits legends without header
// words, found by their shape alone (headless). Where pe is not nil, find
// also records in it what it looked at and rejected on a searched page
// (PageExplanation's TextRuns, NoGlyph, Candidates, Columns and Singles);
// the tables it returns are the same either way.
func find(pg *drawing.Page, page int, rs []run, maps func(text string) bool, pe *PageExplanation) []Table {
	if header, stack := searched(rs, maps); header < 0 && !stack {
		// No table is taken without header words or a stack of
		// descriptions (table): the drawing need not be indexed.
		return nil
	}
	ix := newIndex(pg, rs)
	ix.maps = maps
	cols := ix.glyphColumns(pe)
	// A row's text ends where the next column of glyphs to its right
	// starts (legends set side by side).
	boxes := make([]Rect, len(cols))
	for k, col := range cols {
		boxes[k] = emptyRect()
		for _, c := range col {
			boxes[k] = boxes[k].union(c.glyph.box)
		}
	}
	// The extent of each column's rows as far as its candidates go: the
	// glyphs and the runs beside them. A header above another column's
	// rows is that column's, not a header of a column further down.
	rowBoxes := make([]Rect, len(cols))
	for k, col := range cols {
		rowBoxes[k] = boxes[k]
		for _, c := range col {
			r := &ix.runs[c.run]
			rowBoxes[k] = rowBoxes[k].union(Rect{r.min, r.max})
		}
	}
	var tables []Table
	for k, col := range cols {
		if len(col) < 2 {
			// Never a table (table).
			if pe != nil {
				pe.Singles++
			}
			continue
		}
		limit := math.Inf(1)
		for j, b := range boxes {
			if j != k && len(cols[j]) >= 2 && b.Min.X > boxes[k].Max.X {
				limit = math.Min(limit, besideRows(cols[j], boxes[k]))
			}
		}
		var cl Column
		var why *string // the reason is built only for pe
		if pe != nil {
			why = &cl.Rejected
		}
		var others []Rect
		for j, b := range rowBoxes {
			if j != k && len(cols[j]) >= 2 {
				others = append(others, b)
			}
		}
		t, ok := ix.table(col, page, limit, others, why)
		if ok {
			tables = append(tables, t)
		}
		if pe != nil {
			cl.Box, cl.Table = boxes[k], ok
			if ok {
				cl.Rows = len(t.Rows)
			}
			for _, c := range col {
				cl.Texts = append(cl.Texts, clip(ix.runs[c.run].text))
			}
			pe.Columns = append(pe.Columns, cl)
		}
	}
	return tables
}

// quantile returns the q-quantile (0..1) of v, 0 for none.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}

// roundLetters folds the round capitals OCR reads for one another (Q, G
// and the digit 0 for O) in a word compared with a vocabulary's: the
// outlined "QTYS" heading newmark's quantity columns reads "GTYS" and
// "OTYS", and its legend was left unread on two sheets. No header or
// quantity word differs from another by them alone.
var roundLetters = strings.NewReplacer("Q", "O", "G", "O", "0", "O")

func hasWord(text string, words []string) bool {
	up := " " + roundLetters.Replace(strings.Join(strings.Fields(strings.ToUpper(strings.NewReplacer(":", " ", ",", " ", "-", " ").Replace(text))), " ")) + " "
	for _, w := range words {
		if strings.Contains(up, " "+roundLetters.Replace(strings.ToUpper(w))+" ") {
			return true
		}
	}
	return false
}

// besideRows returns where a column of glyphs set beside a table whose
// glyphs span box starts: the left edge of its glyphs that stand beside
// the table's rows, where at least two do (+Inf otherwise). A column's
// span is no evidence: a few glyphs far apart down a sheet (callouts,
// or words OCR left unread inside a description cell) span a table
// they do not stand beside.
func besideRows(col []candidate, box Rect) float64 {
	x, n := math.Inf(1), 0
	for _, c := range col {
		if c.glyph.box.Min.Y < box.Max.Y && c.glyph.box.Max.Y > box.Min.Y {
			x = math.Min(x, c.glyph.box.Min.X)
			n++
		}
	}
	if n < 2 {
		return math.Inf(1)
	}
	return x
}
