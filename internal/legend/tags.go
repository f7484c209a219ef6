package legend

import (
	"math"
	"strings"
	"unicode"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// Tag is a schedule row's code written on a page beside a symbol.
type Tag struct {
	// Row is the row the tag names, an index into Document.Rows; -1 for
	// a run of text that writes a code among other words (Tags).
	Row  int
	Code string
	// Box is the tag's own extent (raster pixels) and Em its text size.
	Box Rect
	Em  float64
}

// rectGap is the distance between two boxes, 0 where they overlap.
func rectGap(a, b Rect) float64 {
	dx := math.Max(0, math.Max(a.Min.X-b.Max.X, b.Min.X-a.Max.X))
	dy := math.Max(0, math.Max(a.Min.Y-b.Max.Y, b.Min.Y-a.Max.Y))
	return math.Hypot(dx, dy)
}

// codeRows maps each schedule code to the rows giving it.
func (d *Document) codeRows() map[string][]int {
	out := map[string][]int{}
	for i, r := range d.Rows {
		if r.Code != "" {
			out[r.Code] = append(out[r.Code], i)
		}
	}
	return out
}

// Tags returns the tags written on the page numbered page, whose drawing
// is pg: runs of text, at any angle, made of schedule codes alone ("L9",
// "P2P5P5": three tags), outside the page's legend and schedule tables
// and its title block. Each tag names one row: where two schedules give
// the same code (two buildings on one sheet), the one whose scope the
// tag lies in (scopeRow). Tags of a row that repeats a legend row
// (legendTwin) are left out. A run writing a code among other text (merged
// with a room label or a symbol's inside text the drawing does not part)
// is returned with Row -1: it names no row, but the symbol beside it may
// well be tagged. Nil where the document has no schedule.
func (d *Document) Tags(pg *drawing.Page, page int) []Tag {
	var labels []scopeLabel
	labelled := false
	return findTags(pg, d.codeRows(), func(c glyph.Point) bool { return d.OffPlan(page, c) },
		func(rows []int, at glyph.Point, rs []run) (int, bool) {
			if len(rows) > 1 && !labelled {
				labels, labelled = d.scopeLabels(rs, page), true
			}
			row := d.scopeRow(rows, page, at, labels)
			return row, !d.legendTwin(row)
		})
}

// TagsOf returns the tags pg writes of codes (each code with the rows
// giving it: indices of the caller's rows), as Document.Tags finds a
// schedule's: runs of text made of codes alone, at any angle, none where
// offPlan says (a table, a title block); a code given by several rows
// names the first. A run writing a code among other text is returned
// with Row -1. It reads any page's characters: a text layer, or the words
// OCR read on a page image.
func TagsOf(pg *drawing.Page, codes map[string][]int, offPlan func(glyph.Point) bool) []Tag {
	return findTags(pg, codes, offPlan, func(rows []int, _ glyph.Point, _ []run) (int, bool) { return rows[0], true })
}

// findTags is Tags and TagsOf: the tags of codes pg writes outside
// offPlan, each naming the row pick chooses of its code's rows, given the
// tag's place and every run of text on the page (none where pick says
// no).
func findTags(pg *drawing.Page, codes map[string][]int, offPlan func(glyph.Point) bool, pick func(rows []int, at glyph.Point, rs []run) (int, bool)) []Tag {
	if len(codes) == 0 || pg == nil || len(pg.Chars) == 0 {
		return nil
	}
	set := make(map[string]bool, len(codes))
	for c := range codes {
		set[c] = true
	}
	rs := runs(pg)
	rs = splitAtDrawing(pg, rs, set)
	var out []Tag
	for i := range rs {
		r := &rs[i]
		c := r.centre()
		if offPlan(c) {
			continue
		}
		ts := tagsOf(pg, r, set)
		if len(ts) == 0 && writesCode(r.text, set) {
			// A code written among other text: not read as a tag, but
			// a symbol beside it may be one whose tag this is.
			out = append(out, Tag{Row: -1, Box: Rect{r.min, r.max}, Em: r.size})
			continue
		}
		for _, t := range ts {
			row, ok := pick(codes[t.Code], t.Box.centre(), rs)
			if !ok {
				continue
			}
			t.Row = row
			out = append(out, t)
		}
	}
	return out
}

// tagsOf splits run r into the tags it writes, each with the box of its
// own characters; none unless every word of the run is made of codes.
func tagsOf(pg *drawing.Page, r *run, set map[string]bool) []Tag {
	var letters []rune
	var chars []int32
	for _, ci := range r.chars {
		for _, c := range strings.ToUpper(pg.Chars[ci].Text) {
			if unicode.IsSpace(c) || c == ',' {
				continue
			}
			letters = append(letters, codeLetter(c))
			chars = append(chars, ci)
		}
	}
	if len(letters) == 0 || len(letters) != len(string(letters)) {
		return nil // a code is ASCII
	}
	parts := splitCodes(string(letters), set)
	if parts == nil {
		return nil
	}
	out := make([]Tag, 0, len(parts))
	at := 0
	for _, p := range parts {
		box := emptyRect()
		for _, ci := range chars[at : at+len(p)] {
			ch := pg.Chars[ci]
			box = box.union(Rect{ch.Min, ch.Max})
		}
		at += len(p)
		out = append(out, Tag{Code: p, Box: box, Em: r.size})
	}
	return out
}

// codeLetter is the letter a tag's character c stands for: OCR reads an
// S as a dollar sign now and then (building2 with its words outlined and
// turned spelled every S1 and S2 tag "$1", "$2"), and no code is
// written with one.
func codeLetter(c rune) rune {
	if c == '$' {
		return 'S'
	}
	return c
}

// scopeLabel is where a page writes a scope's name outside its tables
// ("BUILDING 2" on the building's plan).
type scopeLabel struct {
	scope string
	at    glyph.Point
}

// scopeLabels are the page's writings of the document's schedule scopes,
// outside its tables.
func (d *Document) scopeLabels(rs []run, page int) []scopeLabel {
	scopes := map[string]bool{}
	for _, s := range d.Schedules {
		if s.Scope != "" {
			scopes[s.Scope] = true
		}
	}
	var out []scopeLabel
	for i := range rs {
		r := &rs[i]
		if d.InTable(page, r.centre()) {
			continue
		}
		for sc := range scopes {
			if hasWord(r.text, []string{sc}) {
				out = append(out, scopeLabel{scope: sc, at: r.centre()})
			}
		}
	}
	return out
}

// scopeRow picks, of rows giving one code, the row a tag at p on page
// names. Rows of the tag's own page come first. Of several schedules
// giving the code, the tag belongs to the one whose scope's name the page
// writes nearest to it (each building's plan carries its name); where no
// scope is named on the page, to the schedule standing nearest to it;
// else to the first.
func (d *Document) scopeRow(rows []int, page int, p glyph.Point, labels []scopeLabel) int {
	var own []int
	for _, r := range rows {
		if d.Rows[r].Page == page {
			own = append(own, r)
		}
	}
	if len(own) > 0 {
		rows = own
	}
	if len(rows) == 1 {
		return rows[0]
	}
	best, bestD := -1, math.Inf(1)
	for _, r := range rows {
		s := d.scheduleOf(r)
		if s == nil || s.Scope == "" {
			continue
		}
		for _, l := range labels {
			if l.scope != s.Scope {
				continue
			}
			if dist := math.Hypot(l.at.X-p.X, l.at.Y-p.Y); dist < bestD {
				best, bestD = r, dist
			}
		}
	}
	if best >= 0 {
		return best
	}
	for _, r := range rows {
		s := d.scheduleOf(r)
		if s == nil || s.Page != page {
			continue
		}
		if dist := rectGap(s.Box, Rect{p, p}); dist < bestD {
			best, bestD = r, dist
		}
	}
	if best >= 0 {
		return best
	}
	return rows[0]
}

// scheduleOf is the schedule holding row r, nil for a legend row.
func (d *Document) scheduleOf(r int) *Schedule {
	for k := range d.Schedules {
		for _, x := range d.Schedules[k].Rows {
			if x == r {
				return &d.Schedules[k]
			}
		}
	}
	return nil
}

// splitAtDrawing splits the runs of rs that write a code of set among
// other text (runs of codes alone are kept whole) where a
// drawn line passes between two of their characters: a symbol's inside
// text and the tag beside it ("PZ" in a heat detector's hexagon, "F2"
// right of it) are one run of text, parted by the symbol's outline.
func splitAtDrawing(pg *drawing.Page, rs []run, set map[string]bool) []run {
	const cell = 64.0
	var grid map[[2]int][]int32
	index := func() {
		grid = map[[2]int][]int32{}
		for i, sg := range pg.Segments {
			x0, x1 := math.Min(sg.A.X, sg.B.X), math.Max(sg.A.X, sg.B.X)
			y0, y1 := math.Min(sg.A.Y, sg.B.Y), math.Max(sg.A.Y, sg.B.Y)
			if x1-x0 > 8*cell || y1-y0 > 8*cell {
				continue // walls and wires: not a symbol's outline
			}
			for gx := int(x0 / cell); gx <= int(x1/cell); gx++ {
				for gy := int(y0 / cell); gy <= int(y1/cell); gy++ {
					grid[[2]int{gx, gy}] = append(grid[[2]int{gx, gy}], int32(i))
				}
			}
		}
	}
	crossed := func(gap Rect) bool {
		for gx := int(gap.Min.X / cell); gx <= int(gap.Max.X/cell); gx++ {
			for gy := int(gap.Min.Y / cell); gy <= int(gap.Max.Y/cell); gy++ {
				for _, i := range grid[[2]int{gx, gy}] {
					sg := pg.Segments[i]
					if segHitsRect(sg.A, sg.B, gap) {
						return true
					}
				}
			}
		}
		return false
	}
	out := make([]run, 0, len(rs))
	for _, r := range rs {
		if !r.upright() || len(r.chars) < 3 || !writesCode(r.text, set) || splitCodes(strings.Join(strings.Fields(r.text), ""), set) != nil {
			out = append(out, r)
			continue
		}
		if grid == nil {
			index()
		}
		start := 0
		for k := 1; k < len(r.chars); k++ {
			a, b := pg.Chars[r.chars[k-1]], pg.Chars[r.chars[k]]
			if b.Min.X <= a.Max.X {
				continue
			}
			mid := (r.min.Y + r.max.Y) / 2
			gap := Rect{glyph.Point{X: a.Max.X, Y: mid - 0.2*r.size}, glyph.Point{X: b.Min.X, Y: mid + 0.2*r.size}}
			if crossed(gap) {
				out = append(out, finishRun(pg, run{size: r.size, angle: r.angle, chars: r.chars[start:k]}))
				start = k
			}
		}
		out = append(out, finishRun(pg, run{size: r.size, angle: r.angle, chars: r.chars[start:]}))
	}
	return out
}

// writesCode reports whether text holds a code of set.
func writesCode(text string, set map[string]bool) bool {
	up := strings.ToUpper(text)
	for c := range set {
		if strings.Contains(up, c) {
			return true
		}
	}
	return false
}

// legendTwin reports whether schedule row r repeats a legend row (the
// same description and class): a bill of quantities listing the legend's
// own rows, whose glyphs already tell its devices apart. Its tags are not
// counted apart from the glyphs: the legend row's matches are its count.
func (d *Document) legendTwin(r int) bool {
	if r >= len(d.same) {
		return false
	}
	s := d.same[r]
	return s != r && d.Rows[s].Source != SourceSchedule
}
