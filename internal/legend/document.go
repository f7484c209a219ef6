package legend

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// Document is what the document pass learned about one document: its
// legend rows (every page's, in page order), where its legend tables are,
// and what each page is. It holds no page geometry, only the rows'
// glyphs, so it stays small whatever the document.
type Document struct {
	Rows    []Row
	Classes []string // per row: its class, "" when it names none
	Kinds   []string // per page
	tables  map[int][]Rect
	// titles holds each page's title block (sheetTitleBlock), where one
	// was found.
	titles map[int]Rect
	// leader[i] is the first row drawn with the same glyph as row i:
	// one template serves all of them and tags tell them apart.
	leader []int
	// same[i] is the first row with row i's description and class (a
	// legend repeated on every sheet, its glyph drawn at each sheet's
	// size).
	same []int
	// siblings[l] are the leaders a match of leader l's glyph may belong
	// to by the pen that draws it (byPen): those drawing l's shape, or l's
	// shape with more (widerShape), with another pen.
	siblings map[int][]int
	// Textless are the pages that draw but write no text: their words
	// are drawn as outlines (or absent) and were not read from them (no
	// OutlineReader, or it read nothing), so no legend, schedule, tag or
	// title on them could be read.
	Textless []int
	// Schedules are the schedule tables read (their rows are in Rows,
	// with a Code and Source "schedule"), in page order.
	Schedules []Schedule
	// ocr holds the text read from the outlines of the pages that draw
	// their words so (Options.Outlines).
	ocr map[int]PageText
}

// Read is the document pass: it reads every page's drawing once, finds
// legend tables and page kinds, and maps each row to a class. Page
// drawings are released as soon as they are read. Words drawn as
// outlines are not read (ReadWith reads them).
func Read(ctx context.Context, doc detect.Drawings, vocab *Vocabulary) (*Document, error) {
	return ReadWith(ctx, doc, vocab, Options{})
}

// ReadWith is Read with options: with opt.Outlines, the words of pages
// that draw them as outlines are read through it and then read as a
// PDF's text is (Document.Page gives such a page as read).
func ReadWith(ctx context.Context, doc detect.Drawings, vocab *Vocabulary, opt Options) (*Document, error) {
	d := &Document{tables: map[int][]Rect{}, titles: map[int]Rect{}}
	var bare []int
	doors := false
	for i := range doc.NumPages() {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("legend: before page %d: %w", i, err)
		}
		pg, err := doc.Drawing(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("legend: page %d: %w", i, err)
		}
		if textless(pg) && opt.Outlines != nil {
			if pg, err = d.readOutlines(ctx, opt.Outlines, i, pg); err != nil {
				return nil, err
			}
		}
		if d.addPage(i, pg, vocab) {
			bare = append(bare, i)
		}
		doors = doors || (d.Kinds[i] == detect.KindFloorPlan && hasDoorSwing(pg))
	}
	// A set whose plans draw doors: a sheet with neither doors nor words
	// nor a title is one of its diagrams (single-line or schematic, their
	// text drawn as outlines), not a plan.
	if doors {
		for _, i := range bare {
			d.Kinds[i] = detect.KindRiser
		}
	}
	d.group()
	return d, nil
}

// minTextlessDrawing is the least drawing (segments and arcs) of a page
// without text that is reported as Textless: a blank or near-blank page
// has nothing to read anyway.
const minTextlessDrawing = 200

// textless reports whether pg draws but writes no text (Textless).
func textless(pg *drawing.Page) bool {
	return pg != nil && len(pg.Chars) == 0 && !pg.Scan() && len(pg.Segments)+len(pg.Arcs) >= minTextlessDrawing
}

// addPage reads page i's legends and kind; it reports whether the page
// is a plan only by default (kindOf).
func (d *Document) addPage(i int, pg *drawing.Page, vocab *Vocabulary) bool {
	var rs []run
	var tables []Table
	if textless(pg) {
		d.Textless = append(d.Textless, i)
	}
	if pg != nil && len(pg.Chars) > 0 {
		rs = runs(pg)
		if tb, ok := sheetTitleBlock(pg, rs); ok {
			d.titles[i] = tb
		} else {
			// A sheet stored turned (/Rotate) writes its title block
			// turned, along another edge of the page.
			for _, a := range turnedAngles(pg) {
				t := turn{angle: a, w: pg.Width, h: pg.Height}
				tp := t.page(pg)
				if tb, ok := sheetTitleBlock(tp, runs(tp)); ok {
					d.titles[i] = t.rect(tb, t.from)
					break
				}
			}
		}
		tables = find(pg, i, rs, vocab.maps(), nil)
		tables = append(tables, findTurned(pg, i, vocab.maps(), nil)...)
	}
	kind, bare := kindOf(pg, rs, tables)
	d.Kinds = append(d.Kinds, kind)
	for _, t := range tables {
		d.tables[i] = append(d.tables[i], t.Box)
		base := len(d.Rows)
		foreign, classed := 0, 0
		for _, r := range t.Rows {
			// A description that is a catalog name says it all; else the
			// vocabulary reads it with the glyph's text and tags.
			class, ok := vocab.Name(r.Description)
			if !ok {
				text := r.Description + " " + withoutCodes(r.GlyphText) + " " + strings.Join(r.Tags, " ")
				var matched bool
				class, matched = vocab.Class(text)
				r.LineType = vocab.LineType(text)
				if matched && class == "" && !r.LineType {
					foreign++
				}
			}
			if class != "" {
				classed++
			}
			d.Rows = append(d.Rows, r)
			d.Classes = append(d.Classes, class)
		}
		if otherSystem(foreign, classed) {
			for k := base; k < len(d.Classes); k++ {
				d.Classes[k] = ""
			}
		}
	}
	if len(rs) > 0 && schedulesOn(kind) {
		d.addSchedules(pg, rs, i, vocab, nil)
		// Schedules written turned (a sheet stored turned, /Rotate, or a
		// bill of quantities along a side) are read turned upright.
		for _, a := range turnedAngles(pg) {
			t := turn{angle: a, w: pg.Width, h: pg.Height}
			tp := t.page(pg)
			d.addSchedules(tp, runs(tp), i, vocab, &t)
		}
	}
	return bare
}

// A legend of another system's devices (nurse call, access control,
// building management: most of its rows are devices the vocabulary
// knows to have no catalog class) names the few rows a generic phrase
// gives a class ("power supply", "isolator") as that system's parts, not
// the catalog's: a bus power supply on a nurse-call legend is no
// fire-alarm auxiliary supply. otherSystem says so from the table's
// rows: at least otherSystemRows of them known to be outside the
// catalog, and at least otherSystemShare times the rows naming a class.
const (
	otherSystemRows  = 4
	otherSystemShare = 2
)

func otherSystem(foreign, classed int) bool {
	return foreign >= otherSystemRows && foreign >= otherSystemShare*classed
}

// schedulesOn reports whether schedules are read on a page of kind: not
// on diagrams (a single-line diagram's circuit table lists circuit codes,
// not products).
func schedulesOn(kind string) bool {
	return kind != detect.KindSingleLine && kind != detect.KindRiser && kind != detect.KindImage
}

// addSchedules reads page i's schedules (readSchedules) and adds their
// rows, each mapped to a class by its description (its words that mix
// letters and digits left out: product numbers, ratings).
//
// With t, pg is page i turned by t (its text written at t's angle reads
// upright): what is read is turned back into page i's pixels.
func (d *Document) addSchedules(pg *drawing.Page, rs []run, i int, vocab *Vocabulary, t *turn) {
	back := func(r Rect) Rect { return r }
	skip := d.tables[i]
	if t != nil {
		back = func(r Rect) Rect {
			if r.Max.X < r.Min.X || r.Max.Y < r.Min.Y {
				return r // empty
			}
			return t.rect(r, t.from)
		}
		skip = make([]Rect, len(d.tables[i]))
		for k, r := range d.tables[i] {
			skip[k] = t.rect(r, t.to)
		}
	}
	ss, rows := readSchedules(pg, rs, i, skip)
	base := len(d.Rows)
	for _, r := range rows {
		r.Box, r.GlyphBox = back(r.Box), back(r.GlyphBox)
		class, ok := vocab.Name(r.Description)
		if !ok {
			class, _ = vocab.Class(withoutCodes(r.Description))
		}
		d.Rows = append(d.Rows, r)
		d.Classes = append(d.Classes, class)
	}
	for _, s := range ss {
		for k := range s.Rows {
			s.Rows[k] += base
		}
		s.Box = back(s.Box)
		d.tables[i] = append(d.tables[i], s.Box)
		d.Schedules = append(d.Schedules, s)
	}
}

// withoutCodes is a glyph's text without the words that mix letters and
// digits: codes such as "O3", "TL8" or "A6" name a type or a circuit, not
// the device, and read as words they lend a description a number ("O3"
// made "1 LEVER 1 WAY SWITCH" a 3-way switch). Letters alone ("S", "DB",
// "WP") and numbers alone stay.
func withoutCodes(text string) string {
	var keep []string
	for _, w := range strings.Fields(text) {
		letters, digits := false, false
		for _, c := range w {
			letters = letters || unicode.IsLetter(c)
			digits = digits || unicode.IsDigit(c)
		}
		if !(letters && digits) {
			keep = append(keep, w)
		}
	}
	return strings.Join(keep, " ")
}

// group finds rows that share a glyph (told apart by their tags only) and
// rows repeated on several sheets.
func (d *Document) group() {
	n := len(d.Rows)
	d.leader = make([]int, n)
	d.same = make([]int, n)
	for i := range d.Rows {
		d.leader[i], d.same[i] = i, i
		for j := range i {
			if d.same[j] == j && !twinRows(d.Rows[i], d.Rows[j]) && d.Classes[j] == d.Classes[i] && normDesc(d.Rows[j]) == normDesc(d.Rows[i]) {
				d.same[i] = j
				break
			}
		}
		// A row repeated from an earlier sheet's legend is matched with
		// that row's template (one template per glyph, not per sheet);
		// Assign gives each sheet's matches to its own row.
		if s := d.same[i]; s != i && len(d.Rows[s].Glyph.Shapes) > 0 {
			d.leader[i] = d.leader[s]
			continue
		}
		for j := range i {
			if d.leader[j] != j || !sameGlyph(d.Rows[i], d.Rows[j]) {
				continue
			}
			d.leader[i] = j
			break
		}
	}
	d.siblings = map[int][]int{}
	for i := range d.Rows {
		if d.leader[i] != i {
			continue
		}
		for j := range i {
			// Leaders of one shape and colour are one leader already.
			if d.leader[j] != j || samePen(d.Rows[i], d.Rows[j]) {
				continue
			}
			switch {
			case sameShape(d.Rows[i], d.Rows[j]):
				d.siblings[i] = append(d.siblings[i], j)
				d.siblings[j] = append(d.siblings[j], i)
			case widerShape(d.Rows[j], d.Rows[i]):
				d.siblings[i] = append(d.siblings[i], j)
			case widerShape(d.Rows[i], d.Rows[j]):
				d.siblings[j] = append(d.siblings[j], i)
			}
		}
	}
}

// twinRows reports whether a and b are two rows of one legend table on
// one sheet (not a legend repeated on another sheet, nor a schedule
// listing a legend's rows): rows described alike whose glyphs differ by
// what the description leaves out, such as cp4's two duct detector rows,
// told apart by the S and R beside their glyphs. Taken for one row
// repeated, the second row's devices were lost whenever the letters
// were not read as tags (its words drawn as outlines).
func twinRows(a, b Row) bool {
	return a.Page == b.Page && a.Source != SourceSchedule && b.Source != SourceSchedule
}

func normDesc(r Row) string {
	return strings.Join(normWords(r.Description+" "+strings.Join(r.Tags, " "), false), " ")
}

// InTable reports whether p lies inside a legend table of the page.
func (d *Document) InTable(page int, p glyph.Point) bool {
	for _, r := range d.tables[page] {
		if r.Contains(p) {
			return true
		}
	}
	return false
}

// InTitle reports whether p lies inside the page's title block
// (sheetTitleBlock): the frame of project, drawing number, logos and
// signatures, where nothing drawn is an installed device.
func (d *Document) InTitle(page int, p glyph.Point) bool {
	r, ok := d.titles[page]
	return ok && r.Contains(p)
}

// OffPlan reports whether p lies where a page draws no installed device:
// inside one of its legend or schedule tables, or its title block.
func (d *Document) OffPlan(page int, p glyph.Point) bool {
	return d.InTable(page, p) || d.InTitle(page, p)
}

// OffPlanRegions returns the rectangles OffPlan tests, page by page in
// page order: each page's legend and schedule tables and its title block.
func (d *Document) OffPlanRegions() []detect.Region {
	var out []detect.Region
	add := func(p int, r Rect) {
		if r.Max.X > r.Min.X && r.Max.Y > r.Min.Y {
			out = append(out, detect.Region{Page: p, Box: detect.Box{X: r.Min.X, Y: r.Min.Y, W: r.Max.X - r.Min.X, H: r.Max.Y - r.Min.Y}})
		}
	}
	for p := range d.Kinds {
		for _, r := range d.tables[p] {
			add(p, r)
		}
		if r, ok := d.titles[p]; ok {
			add(p, r)
		}
	}
	return out
}

// TitleBlock returns the page's title block (sheetTitleBlock), if one was
// found.
func (d *Document) TitleBlock(page int) (Rect, bool) {
	r, ok := d.titles[page]
	return r, ok
}

// Leaders returns the rows that define templates: one per distinct glyph
// (the first row drawing it).
func (d *Document) Leaders() []int {
	var out []int
	for i, l := range d.leader {
		if l == i && len(d.Rows[i].Glyph.Shapes) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// Assign returns the row a match of leader row l's glyph belongs to on
// page: among the rows drawing that glyph, the one whose tags are written
// nearest to the match (rows without a distinguishing tag when none is
// near), and of repeated rows the one on the match's own page.
func (d *Document) Assign(pg *drawing.Page, page, l int, box detect.Box) int {
	l = d.byPen(pg, l, box)
	var group []int
	for i, x := range d.leader {
		if x == l && d.same[i] == i {
			group = append(group, i)
		}
	}
	row := d.same[l]
	if len(group) > 1 {
		row = d.byTag(pg, group, box)
	}
	// A legend repeated on several sheets: the sheet's own row.
	for i, s := range d.same {
		if s == row && d.Rows[i].Page == page {
			return i
		}
	}
	return row
}

// tagReach is how far from a symbol, in symbol sizes, its tag may be
// written (labels stack beside and above symbols).
const tagReach = 4.0

// byTag picks the row of group whose distinguishing tag is written
// nearest to the box; the first row when no tag is near.
func (d *Document) byTag(pg *drawing.Page, group []int, box detect.Box) int {
	// A row's distinguishing words: its tags that other rows of the group
	// do not carry.
	count := map[string]int{}
	for _, i := range group {
		for _, t := range uniq(d.Rows[i].Tags) {
			count[strings.ToUpper(t)]++
		}
	}
	c := glyph.Point{X: box.X + box.W/2, Y: box.Y + box.H/2}
	reach := tagReach * math.Max(box.W, box.H)
	best, bestD := group[0], math.Inf(1)
	for _, i := range group {
		for _, t := range uniq(d.Rows[i].Tags) {
			t = strings.ToUpper(t)
			if count[t] != 1 {
				continue
			}
			if dist := nearestWord(pg, t, c, reach); dist < bestD {
				best, bestD = i, dist
			}
		}
	}
	return best
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// nearestWord returns the distance from c to the nearest text run word
// equal to w within reach, +Inf when none.
func nearestWord(pg *drawing.Page, w string, c glyph.Point, reach float64) float64 {
	best := math.Inf(1)
	// Characters near c, grouped into words along their baseline.
	var near []int
	for i, ch := range pg.Chars {
		if math.Abs(ch.Origin.X-c.X) <= reach && math.Abs(ch.Origin.Y-c.Y) <= reach {
			near = append(near, i)
		}
	}
	if len(near) == 0 {
		return best
	}
	sub := &drawing.Page{Chars: make([]drawing.Char, len(near))}
	for k, i := range near {
		sub.Chars[k] = pg.Chars[i]
	}
	for _, r := range runs(sub) {
		for _, f := range strings.Fields(strings.ToUpper(r.text)) {
			if f != w {
				continue
			}
			if dist := math.Hypot(r.centre().X-c.X, r.centre().Y-c.Y); dist < best {
				best = dist
			}
		}
	}
	return best
}
