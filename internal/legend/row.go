package legend

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"blueprint/internal/glyph"
)

// readRow reads one row: the glyph drawn between left and the description,
// inside the band, the text inside and beside it, and the description.
func (ix *pageIndex) readRow(left, limit, y0, y1, em float64, c candidate, heads headLine) (Row, string, bool) {
	// The description: the run with the most letters right of the glyph
	// in the band; runs between the glyph and it are tags. Under column
	// heads, the description is in the description column; the part
	// number, tag and quantity columns are read apart, and models and
	// remarks not at all.
	gRight := c.glyph.box.Max.X
	var inBand, partRuns, tagRuns []int
	for i := range ix.runs {
		r := &ix.runs[i]
		cy := r.centre().Y
		if !r.upright() || cy < y0 || cy > y1 || r.max.X < left || r.min.X >= limit {
			continue
		}
		switch heads.kindOf(r) {
		case colPart:
			partRuns = append(partRuns, i)
			continue
		case colTag:
			tagRuns = append(tagRuns, i)
			continue
		case colModel, colQty, colOther, colPrice:
			continue
		case colDesc: // under its head, however far right
		default:
			if r.min.X > gRight+1.5*glyphReach*em {
				continue
			}
		}
		inBand = append(inBand, i)
	}
	descCol := heads.has(colDesc)
	desc := -1
	for _, i := range inBand {
		r := &ix.runs[i]
		if r.min.X < gRight-0.5*em || (descCol && heads.kindOf(r) != colDesc) {
			continue
		}
		if desc < 0 || r.letters() > ix.runs[desc].letters() || (r.letters() == ix.runs[desc].letters() && r.min.X < ix.runs[desc].min.X) {
			if r.letters() >= 2 {
				desc = i
			}
		}
	}
	if desc < 0 {
		return Row{}, "", false
	}
	d := &ix.runs[desc]
	// A wrapped description: the runs in the band that start where the
	// description starts, on consecutive lines above and below it, read
	// top to bottom.
	lines := []int{desc}
	for _, i := range inBand {
		r := &ix.runs[i]
		if i != desc && math.Abs(r.min.X-d.min.X) < 1.5*em && r.letters() >= 1 {
			lines = append(lines, i)
		}
	}
	sort.Slice(lines, func(a, b int) bool { return ix.runs[lines[a]].centre().Y < ix.runs[lines[b]].centre().Y })
	at := slices.Index(lines, desc)
	lo, hi := at, at
	for lo > 0 && ix.runs[lines[lo]].centre().Y-ix.runs[lines[lo-1]].centre().Y <= 1.8*em {
		lo--
	}
	for hi < len(lines)-1 && ix.runs[lines[hi+1]].centre().Y-ix.runs[lines[hi]].centre().Y <= 1.8*em {
		hi++
	}
	var parts []string
	rowBox := emptyRect()
	var inlinePart string
	for _, i := range lines[lo : hi+1] {
		r := &ix.runs[i]
		rowBox = rowBox.union(Rect{r.min, r.max})
		// A line of its own giving the part number ("PART# AMM-2F OR
		// IDP-MONITOR") is the row's part number, not its description.
		if p, ok := partLine(r.text); ok && len(parts) > 0 {
			inlinePart = p
			continue
		}
		parts = append(parts, r.text)
	}
	text := strings.Join(parts, " ")
	if _, ok := headKind(text); ok {
		return Row{}, "", false // the heads' own row, ruled like the rows
	}
	// The glyph: small pieces whose centres lie in the symbol cell.
	cell := Rect{glyph.Point{X: left, Y: y0}, glyph.Point{X: d.min.X - 0.2*em, Y: y1}}
	var idx []int32
	ix.piecesIn(cell, func(i int32) {
		if ix.pieces[i].size <= maxPieceEm*em && !ix.cellSide(ix.pieces[i], em) {
			idx = append(idx, i)
		}
	})
	if len(idx) == 0 {
		return Row{}, "", false
	}
	// Keep the clusters that belong to the glyph: the one found first and
	// those within a glyph's reach of it (a tag marker, a second part).
	cs := clusterPieces(ix, idx, clusterGap*em)
	gbox := emptyRect()
	var keep []int32
	core := c.glyph.box
	for _, k := range cs {
		// A thin piece across the whole band is a rule of the table.
		if math.Min(k.box.w(), k.box.h()) < 0.15*em && math.Max(k.box.w(), k.box.h()) >= 0.8*(y1-y0) {
			continue
		}
		if k.box.Max.X >= core.Min.X-1.5*em && k.box.Min.X <= core.Max.X+1.5*em {
			keep = append(keep, k.pieces...)
			gbox = gbox.union(k.box)
		}
	}
	if len(keep) == 0 {
		return Row{}, "", false
	}
	// Text inside the glyph belongs to it; other text before the
	// description is its tags.
	var inside []int32
	var tags []string
	for _, i := range inBand {
		if slices.Contains(lines[lo:hi+1], i) {
			continue
		}
		r := &ix.runs[i]
		if r.min.X >= d.min.X {
			continue
		}
		var out []string
		var cur strings.Builder
		flush := func() {
			if s := strings.TrimSpace(cur.String()); s != "" {
				out = append(out, s)
			}
			cur.Reset()
		}
		for _, ci := range r.chars {
			ch := ix.pg.Chars[ci]
			cc := glyph.Point{X: (ch.Min.X + ch.Max.X) / 2, Y: (ch.Min.Y + ch.Max.Y) / 2}
			if strings.TrimSpace(ch.Text) != "" && gbox.Contains(cc) {
				inside = append(inside, ci)
				flush()
				continue
			}
			cur.WriteString(ch.Text)
		}
		flush()
		for _, s := range out {
			tags = append(tags, strings.Fields(s)...)
		}
		rowBox = rowBox.union(Rect{r.min, r.max})
	}
	for _, i := range tagRuns {
		tags = append(tags, strings.Fields(ix.runs[i].text)...)
		rowBox = rowBox.union(Rect{ix.runs[i].min, ix.runs[i].max})
	}
	var part []string
	sort.Slice(partRuns, func(a, b int) bool { return ix.runs[partRuns[a]].centre().Y < ix.runs[partRuns[b]].centre().Y })
	for _, i := range partRuns {
		part = append(part, strings.TrimSpace(ix.runs[i].text))
		rowBox = rowBox.union(Rect{ix.runs[i].min, ix.runs[i].max})
	}
	pn := strings.Join(part, " ")
	if pn == "" {
		pn = inlinePart
	}
	row := Row{Description: text, Tags: tags, GlyphBox: gbox, PartNumber: pn}
	row.Box = rowBox.union(gbox)
	row.Glyph, row.GlyphText, row.Color, row.Width = ix.glyphOf(keep, inside, gbox)
	return row, signature(row), true
}

// signature tells glyphs apart for the legend check: counts of pieces by
// kind, the box's proportions and the text inside.
func signature(r Row) string {
	var nl, na int
	for _, s := range r.Glyph.Shapes {
		switch s.Kind {
		case glyph.KindArc, glyph.KindCircle:
			na++
		case glyph.KindText:
		default:
			nl++
		}
	}
	asp := math.Round(4 * r.GlyphBox.w() / math.Max(r.GlyphBox.h(), 1))
	return strconv.Itoa(nl) + "/" + strconv.Itoa(na) + "/" + strconv.FormatFloat(asp, 'f', 0, 64) + "/" + r.GlyphText + "/" + r.Color
}
