package legend

import (
	"fmt"
	"math"
	"strings"

	"blueprint/internal/glyph"
)

// table checks a column of glyph candidates and reads its rows. others
// are the extents of the page's other columns of two or more glyphs (their
// glyphs and the runs beside them): header words with one of them between
// them and the column head that column, not this one. Where it refuses
// the column and why is not nil, it sets *why to the reason (the first
// condition the column fails, in the order checked); a nil why costs
// nothing.
func (ix *pageIndex) table(col []candidate, page int, limit float64, others []Rect, why *string) (Table, bool) {
	if len(col) < 2 {
		if why != nil {
			*why = "a single glyph, never a table"
		}
		return Table{}, false
	}
	col = ix.headedRows(col, limit)
	em := 0.0
	for _, c := range col {
		em += c.em
	}
	em /= float64(len(col))
	colBox := emptyRect()
	for _, c := range col {
		colBox = colBox.union(c.glyph.box)
	}
	// Row bands: halfway between neighbouring glyph centres.
	n := len(col)
	ys := make([]float64, n)
	for i, c := range col {
		ys[i] = c.glyph.box.centre().Y
	}
	// The typical pitch: that of the closest rows. A row's band reaches
	// no further than bandPitch of it, so the text of a section row
	// ("SWITCHES", spanning the table between two rows) or of a row whose
	// glyph was not found stays out of its neighbours' bands.
	gaps := make([]float64, 0, n)
	for i := 1; i < n; i++ {
		gaps = append(gaps, ys[i]-ys[i-1])
	}
	pitch := quantile(gaps, 0.25)
	reach := math.Inf(1)
	// A pitch of rows no table has (a column of plan symbols) widens
	// nothing below.
	pitch = math.Min(pitch, maxPitchEm*em)
	if pitch > 0 {
		reach = math.Max(bandPitch*pitch, 1.5*em)
	}
	band := func(i int) (float64, float64) {
		var up, down float64
		switch {
		case n == 1:
			up, down = 1.5*em, 1.5*em
		case i == 0:
			down = (ys[1] - ys[0]) / 2
			up = down
		case i == n-1:
			up = (ys[i] - ys[i-1]) / 2
			down = up
		default:
			up, down = (ys[i]-ys[i-1])/2, (ys[i+1]-ys[i])/2
		}
		return ys[i] - math.Min(up, reach), ys[i] + math.Min(down, reach)
	}
	left := colBox.Min.X - 0.5*em
	// Column heads over the table (DESCRIPTION, PART NUMBER, MODEL,
	// QUANTITY, … in any order) say which cell of a row is which.
	heads := ix.headsOver(colBox.Max.X, col[0].glyph.box.Min.Y, ys[0], math.Max(6*em, headerPitches*pitch), limit, em)
	// Heads with another column's rows between them and the first glyph
	// head that column.
	for _, h := range heads {
		if h.head != nil && (blocked(Rect{h.head.min, h.head.max}, colBox, others) || headsOther(Rect{h.head.min, h.head.max}, colBox, others, em)) {
			heads = nil
			break
		}
	}
	rows := make([]Row, 0, n)
	sigs := map[string]bool{}
	// variants: rows told apart by glyph or description (rows sharing one
	// glyph and differing by a tag, 15CD / 30CD, are different devices).
	variants := map[string]bool{}
	tableBox := emptyRect()
	var kept []int
	for i := range col {
		y0, y1 := band(i)
		r, sig, ok := ix.readRow(left, limit, y0, y1, em, col[i], heads)
		if !ok {
			continue
		}
		kept = append(kept, i)
		r.Page, r.Source = page, SourceLegend
		sigs[sig] = true
		variants[sig+"\x00"+strings.ToUpper(strings.Join(strings.Fields(r.Description), " "))] = true
		rows = append(rows, r)
		tableBox = tableBox.union(r.Box)
	}
	// Header words above the first row and over the table's width.
	header := false
	// Column heads and a section row may stand between the title and
	// the first row: the header may be up to headerPitches rows above.
	hdrBox := Rect{glyph.Point{X: tableBox.Min.X - 2*em, Y: tableBox.Min.Y - math.Max(6*em, headerPitches*pitch)}, glyph.Point{X: tableBox.Max.X + 2*em, Y: tableBox.Min.Y + 0.5*em}}
	// A quantity column may stand further right, past part numbers.
	qtyBox := hdrBox
	qtyBox.Max.X += 3 * glyphReach * em
	var qtyHeaders []*run
	for i := range ix.runs {
		r := &ix.runs[i]
		if !r.upright() {
			continue
		}
		if !hdrBox.Contains(r.centre()) && !qtyBox.Contains(r.centre()) {
			continue
		}
		if blocked(Rect{r.min, r.max}, tableBox, others) || headsOther(Rect{r.min, r.max}, colBox, others, em) {
			continue
		}
		if inRow(rows, r.centre()) {
			continue // a row's own description heads nothing
		}
		if hdrBox.Contains(r.centre()) && hasWord(r.text, headerWords) {
			header = true
		}
		if qtyBox.Contains(r.centre()) && hasWord(r.text, qtyWords) {
			qtyHeaders = append(qtyHeaders, r)
		}
	}
	if len(qtyHeaders) > 0 || heads != nil {
		header = true
	}
	if len(rows) < 2 {
		if why != nil {
			*why = fmt.Sprintf("only %d of its %d rows could be read (a row needs a description right of its glyph and a glyph in its cell)", len(rows), n)
		}
		return Table{}, false
	}
	// A bill of quantities (codes, descriptions, quantities, prices) set
	// beside a legend is no legend, nor is a table whose "glyphs" are its
	// own cells (a code column ruled cell by cell).
	if heads.has(colPrice) {
		if why != nil {
			*why = fmt.Sprintf("a bill of quantities (its heads: %s): priced items, not a legend", strings.Join(heads.heads(), ", "))
		}
		return Table{}, false
	}
	if cellTable(rows, pitch) {
		if why != nil {
			*why = "its glyphs are the table's own cells (bare boxes as tall as its rows, holding codes): a bill of quantities or schedule, not a legend"
		}
		return Table{}, false
	}
	// Rows of a table follow one another closely.
	for i := 1; i < len(kept); i++ {
		// A section row between two rows doubles their gap; rows whose
		// descriptions wrap over several lines stand further apart, with
		// no more empty space between them.
		if gap := ys[kept[i]] - ys[kept[i-1]]; gap > maxPitchEm*em && !(gap > 1.5*pitch && gap <= sectionGap*pitch && ix.sectionBetween(rows[i-1], rows[i], em)) &&
			ix.emptyBetween(rows[i-1], rows[i]) > maxEmptyEm*em {
			if why != nil {
				*why = fmt.Sprintf("two of its rows stand %.1f em apart (a table's rows are at most %.0f em apart)", gap/em, maxPitchEm)
			}
			return Table{}, false
		}
	}
	// Legends show different devices: a column of one repeated glyph is
	// a riser or a row of instances. Without header words a column of
	// glyphs with text beside them is a stack of labels as often as a
	// legend: it is not taken.
	if 2*len(sigs) < len(rows) {
		if why != nil {
			*why = fmt.Sprintf("only %d of its %d glyphs are distinct: a riser or a row of instances, not a legend", len(sigs), len(rows))
		}
		return Table{}, false
	}
	if !header && !ix.headless(col, kept, rows, len(variants), why) {
		if why != nil {
			*why = "no header words within 6 em above it, and as a legend without them: " + *why
		}
		return Table{}, false
	}
	if qh := ix.readQuantities(rows, kept, band, heads, qtyHeaders, colBox, limit, em); qh != nil {
		tableBox = tableBox.union(Rect{qh.min, qh.max})
	}
	for _, r := range rows {
		tableBox = tableBox.union(r.Box)
	}
	tableBox = tableBox.union(Rect{glyph.Point{X: tableBox.Min.X, Y: hdrBox.Min.Y}, tableBox.Min})
	return Table{Page: page, Box: tableBox, Rows: rows}, true
}

// inRow reports whether p lies in one of the rows' boxes (a row's own
// description, which heads no table).
func inRow(rows []Row, p glyph.Point) bool {
	for _, r := range rows {
		if r.Box.Contains(p) {
			return true
		}
	}
	return false
}

// blocked reports whether one of others (the rows of another column of
// glyphs) stands between the header text h and the table below it whose
// rows begin at first: its middle below h and above first's top, and it
// overlaps in x the span from h to first. Such a header heads the other
// column.
func blocked(h, first Rect, others []Rect) bool {
	x0, x1 := math.Min(h.Min.X, first.Min.X), math.Max(h.Max.X, first.Max.X)
	for _, o := range others {
		cy := (o.Min.Y + o.Max.Y) / 2
		if cy > h.Max.Y && o.Max.Y < first.Min.Y && o.Max.X > x0 && o.Min.X < x1 {
			return true
		}
	}
	return false
}

// headsOther reports whether another column of glyphs (one of others)
// stands between the header text h and the table's column of glyphs own,
// side by side: wholly between them in x, its top at most maxPitchEm ems
// below h's foot. Such a header heads that column: a legend's quantity
// head, far right of its rows, heads its own legend and not a column of
// plan symbols to the legend's left.
//
// A head also heads another column whose rows start right under it (its
// top at most maxPitchEm ems below h's foot, h over its rows or within a
// row's reach right of them) where this column starts further down: the
// quantity head over a legend's last table heads that table, not a
// column of plan labels a dozen rows below and right of it.
func headsOther(h, own Rect, others []Rect, em float64) bool {
	for _, o := range others {
		between := (o.Min.X >= own.Max.X && o.Max.X <= h.Min.X) || (o.Max.X <= own.Min.X && o.Min.X >= h.Max.X)
		if between && o.Max.Y >= h.Min.Y && o.Min.Y-h.Max.Y <= maxPitchEm*em {
			return true
		}
		under := o.Min.Y >= h.Min.Y && o.Min.Y-h.Max.Y <= maxPitchEm*em && h.Max.X >= o.Min.X && h.Min.X <= o.Max.X+glyphReach*em
		if under && own.Min.Y-h.Max.Y > maxPitchEm*em && own.Min.Y > o.Min.Y {
			return true
		}
	}
	return false
}

// bandPitch bounds a row's band, in typical pitches from its glyph's
// centre; headerPitches is how many typical pitches above its first row a
// table's header words may stand; sectionGap is the largest gap, in
// typical pitches, of two rows with a section row between them.
const (
	bandPitch     = 0.75
	headerPitches = 3.5
	sectionGap    = 3.2
)

// sectionBetween reports whether a section row stands between rows a and
// b (a above b): a run of words in the gap between their boxes, over the
// table's width, belonging to neither.
func (ix *pageIndex) sectionBetween(a, b Row, em float64) bool {
	x0, x1 := math.Min(a.Box.Min.X, b.Box.Min.X), math.Max(a.Box.Max.X, b.Box.Max.X)
	for i := range ix.runs {
		r := &ix.runs[i]
		c := r.centre()
		if r.upright() && r.letters() >= 3 && c.Y > a.Box.Max.Y && c.Y < b.Box.Min.Y && r.max.X > x0 && r.min.X < x1 {
			return true
		}
	}
	return false
}
