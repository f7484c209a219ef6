package legend

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"blueprint/internal/glyph"
)

// colKind is what a column of a legend table holds, known by its head.
type colKind int

const (
	colNone  colKind = iota // no head over it: the glyph's cell
	colDesc                 // the description
	colPart                 // part or catalogue number
	colModel                // model or manufacturer
	colQty                  // printed quantity
	colTag                  // a code or tag the plans write beside instances
	colOther                // user text, remarks, mounting: read as nothing
	colPrice                // price, rate, amount: a bill of quantities
)

// columnHeads are the column heads of legend tables (and of the bills of
// quantities set beside them), compared on a cell's whole text.
var columnHeads = []struct {
	kind  colKind
	heads []string
}{
	{colDesc, []string{"DESCRIPTION", "SELITE", "KUVAUS", "BESKRIVNING", "ITEM DESCRIPTION", "DEVICE", "DEVICE DESCRIPTION"}},
	{colPart, []string{"PART NUMBER", "PART NO", "PART NO.", "PART #", "P/N", "PART", "CAT NO", "CAT. NO.", "CAT. NO", "CATALOG NUMBER", "CATALOGUE NUMBER", "CATALOG NO.", "CATALOGUE NO.", "ORDER NO.", "ORDER NUMBER", "ARTICLE NO.", "PRODUCT CODE", "TUOTENUMERO", "SÄHKÖNUMERO", "SNRO"}},
	{colModel, []string{"MODEL", "MODEL NO.", "MODEL NUMBER", "MANUFACTURER", "MAKE", "PRODUCT", "VALMISTAJA", "TUOTE"}},
	{colQty, qtyWords},
	{colTag, []string{"CODE", "TAG", "REF", "REF.", "MARK", "ITEM", "ITEM NO.", "TYPE", "TUNNUS"}},
	{colOther, []string{"USER TEXT", "REMARKS", "REMARK", "NOTES", "NOTE", "COMMENTS", "MOUNTING", "MOUNTING HEIGHT", "LOCATION", "HUOM", "HUOM.", "HUOMAUTUKSET", "ASENNUSKORKEUS"}},
	{colPrice, []string{"PRICE", "UNIT PRICE", "RATE", "AMOUNT", "TOTAL", "COST", "UNIT COST", "HINTA", "PRIS"}},
}

// headKind returns the kind of column a cell's text heads, ok false for
// text that heads none.
func headKind(text string) (colKind, bool) {
	t := strings.Join(strings.Fields(strings.ToUpper(strings.TrimRight(strings.TrimSpace(text), ":"))), " ")
	// The glyph column's head written close to the next one's reads as
	// one run ("SYMBOL USER TEXT").
	for _, p := range []string{"SYMBOLS", "SYMBOL", "MERKKI"} {
		if rest, ok := strings.CutPrefix(t, p); ok && rest != "" {
			t = strings.TrimSpace(rest)
			break
		}
	}
	for _, c := range columnHeads {
		for _, h := range c.heads {
			if t == strings.ToUpper(h) {
				return c.kind, true
			}
		}
	}
	return colNone, false
}

// headColumn is one headed column of a legend table: its head's text and
// the x span its cells are read in.
type headColumn struct {
	kind   colKind
	text   string
	x0, x1 float64
	head   *run
}

// headLine is the line of column heads over a legend table, left to
// right; nil where the table writes none.
type headLine []headColumn

// A table's column heads start within headStartEm em of its glyphs and
// follow one another within headGapEm em.
const (
	headStartEm = 20.0
	headGapEm   = 30.0
)

// headsOver finds the line of column heads over a column of glyphs whose
// first glyph's top is at top: heads on one line, from the glyph column
// (x0) rightwards up to limit, at most reach above top (or on the first
// row, where the heads' own row is ruled like the rows). The line ends
// before a head that repeats one already on it (a table set beside).
func (ix *pageIndex) headsOver(x0, top, firstMid, reach, limit, em float64) headLine {
	type hd struct {
		kind colKind
		r    *run
	}
	var cands []hd
	for i := range ix.runs {
		r := &ix.runs[i]
		c := r.centre()
		if !r.upright() || c.Y < top-reach || c.Y > firstMid+0.5*em || r.max.X < x0 || r.min.X >= limit {
			continue
		}
		if k, ok := headKind(r.text); ok {
			cands = append(cands, hd{k, r})
		}
	}
	// Group by line; of each line, the heads from the glyph column
	// rightwards: the first within headStartEm of it, each next within
	// headGapEm of the one before, up to one that repeats a kind (a
	// table set beside). The line with the most such heads wins, the
	// lower on a tie.
	sort.Slice(cands, func(a, b int) bool { return cands[a].r.centre().Y < cands[b].r.centre().Y })
	var out headLine
	for a := 0; a < len(cands); {
		b := a + 1
		for b < len(cands) && cands[b].r.centre().Y-cands[a].r.centre().Y <= 0.6*em {
			b++
		}
		line := slices.Clone(cands[a:b])
		a = b
		sort.Slice(line, func(p, q int) bool { return line[p].r.min.X < line[q].r.min.X })
		var walk headLine
		seen := map[colKind]bool{}
		prev := x0
		for _, h := range line {
			gap := headGapEm * em
			if len(walk) == 0 {
				gap = headStartEm * em
			}
			if seen[h.kind] || h.r.min.X-prev > gap {
				break
			}
			seen[h.kind] = true
			prev = h.r.max.X
			walk = append(walk, headColumn{kind: h.kind, text: h.r.text, head: h.r})
		}
		if len(walk) > 0 && len(walk) >= len(out) {
			out = walk
		}
	}
	if len(out) == 0 {
		return nil
	}
	// Each column reaches halfway to its neighbours' heads; the first
	// starts at the glyph column, the last ends headStartEm past its
	// head (or at limit).
	for i := range out {
		h := out[i].head
		out[i].x0, out[i].x1 = x0, math.Min(limit, h.max.X+headStartEm*em)
		if i > 0 {
			out[i].x0 = (out[i-1].head.max.X + h.min.X) / 2
		}
		if i < len(out)-1 {
			out[i].x1 = (h.max.X + out[i+1].head.min.X) / 2
		}
	}
	// The first column's cells may start left of its head, but not in
	// the glyph's cell: it starts halfway from the glyphs to its head.
	out[0].x0 = math.Max(x0, out[0].head.min.X-2*em)
	return out
}

// kindOf returns the kind of column the run r lies in: the headed
// column it overlaps most; colNone where it overlaps none.
func (hl headLine) kindOf(r *run) colKind {
	best, bestOv := colNone, 0.0
	for _, c := range hl {
		if ov := math.Min(r.max.X, c.x1) - math.Max(r.min.X, c.x0); ov > bestOv {
			best, bestOv = c.kind, ov
		}
	}
	return best
}

// has reports whether the line heads a column of kind k.
func (hl headLine) has(k colKind) bool {
	return slices.ContainsFunc(hl, func(c headColumn) bool { return c.kind == k })
}

// column returns the line's column of kind k.
func (hl headLine) column(k colKind) (headColumn, bool) {
	for _, c := range hl {
		if c.kind == k {
			return c, true
		}
	}
	return headColumn{}, false
}

// heads lists the line's heads, left to right.
func (hl headLine) heads() []string {
	out := make([]string, len(hl))
	for i, c := range hl {
		out[i] = c.text
	}
	return out
}

// cellTable reports whether most of a table's glyphs are its own cells:
// bare boxes as tall as the rows (a code column ruled cell by cell), not
// symbols drawn in cells.
func cellTable(rows []Row, pitch float64) bool {
	if pitch <= 0 {
		return false
	}
	n := 0
	for _, r := range rows {
		lines, other := 0, 0
		for _, s := range r.Glyph.Shapes {
			switch s.Kind {
			case glyph.KindLine:
				lines++
			case glyph.KindText:
			default:
				other++
			}
		}
		if other == 0 && lines <= 4 && r.GlyphBox.h() >= 0.8*pitch {
			n++
		}
	}
	return 4*n >= 3*len(rows)
}

// headedRows returns col with the rows its column heads reveal: where a
// table heads a description column, a description there with no glyph
// candidate beside it (its glyph stands further left than a glyph is
// looked for, past cells of part numbers and quantities) has its glyph
// looked for in the table's glyph column.
func (ix *pageIndex) headedRows(col []candidate, limit float64) []candidate {
	if len(col) < 2 {
		return col
	}
	em := 0.0
	box := emptyRect()
	ys := make([]float64, len(col))
	for i, c := range col {
		em += c.em / float64(len(col))
		box = box.union(c.glyph.box)
		ys[i] = c.glyph.box.centre().Y
	}
	gaps := make([]float64, 0, len(col))
	for i := 1; i < len(col); i++ {
		gaps = append(gaps, ys[i]-ys[i-1])
	}
	pitch := math.Min(quantile(gaps, 0.25), maxPitchEm*em)
	heads := ix.headsOver(box.Max.X, col[0].glyph.box.Min.Y, ys[0], math.Max(6*em, headerPitches*pitch), limit, em)
	dc, ok := heads.column(colDesc)
	if !ok || pitch <= 0 {
		return col
	}
	var descs []int
	for i := range ix.runs {
		r := &ix.runs[i]
		if r.upright() && r.letters() >= 2 && heads.kindOf(r) == colDesc && r.min.X >= dc.x0 && r.centre().Y > dc.head.max.Y {
			descs = append(descs, i)
		}
	}
	sort.Slice(descs, func(a, b int) bool { return ix.runs[descs[a]].centre().Y < ix.runs[descs[b]].centre().Y })
	out := slices.Clone(col)
	bottom := ys[len(ys)-1]
	for _, i := range descs {
		r := &ix.runs[i]
		cy := r.centre().Y
		if cy > bottom+1.6*pitch {
			break // the table has ended
		}
		near := false
		for _, c := range out {
			if math.Abs(c.glyph.box.centre().Y-cy) < 0.5*pitch {
				near = true
				break
			}
		}
		if near {
			bottom = math.Max(bottom, cy)
			continue
		}
		cap := rowCap{cy - bandPitch*pitch, cy + bandPitch*pitch}
		g, found := ix.glyphLeftOf(r.min.X-0.2*em, cy-0.8*em, cy+0.8*em, r.min.X-box.Min.X+em, em, cap)
		if !found || math.Abs(g.box.centre().X-box.centre().X) > columnChain*em ||
			math.Max(g.box.w(), g.box.h()) < 0.5*em || math.Min(g.box.w(), g.box.h()) < 0.25*em || ix.crossed(g.box, em) {
			continue
		}
		out = append(out, candidate{run: i, glyph: g, em: r.size})
		bottom = math.Max(bottom, cy)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].glyph.box.centre().Y < out[b].glyph.box.centre().Y })
	return out
}

// partLineRe is a line that gives a part number: "PART# ASD-PL2F",
// "PART NO. 4098-9714", "P/N: SD355", "CAT. NO. 2081".
var partLineRe = regexp.MustCompile(`(?i)^\s*(?:part\s*(?:#|no\.?|number)|p/n|cat(?:alog(?:ue)?)?\.?\s*(?:#|no\.?|number))\s*:?\s*(\S.*?)\s*$`)

// partLine returns the part number a description line gives, ok false
// for a line that gives none.
func partLine(text string) (string, bool) {
	m := partLineRe.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return m[1], true
}
