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
	// siblings[l] are the leaders drawing leader l's shape in another
	// colour.
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
		}
		tables = find(pg, i, rs, vocab.maps(), nil)
		tables = append(tables, findTurned(pg, i, vocab.maps(), nil)...)
	}
	kind, bare := kindOf(pg, rs, tables)
	d.Kinds = append(d.Kinds, kind)
	for _, t := range tables {
		d.tables[i] = append(d.tables[i], t.Box)
		for _, r := range t.Rows {
			// A description that is a catalog name says it all; else the
			// vocabulary reads it with the glyph's text and tags.
			class, ok := vocab.Name(r.Description)
			if !ok {
				class, _ = vocab.Class(r.Description + " " + withoutCodes(r.GlyphText) + " " + strings.Join(r.Tags, " "))
			}
			d.Rows = append(d.Rows, r)
			d.Classes = append(d.Classes, class)
		}
	}
	if len(rs) > 0 && schedulesOn(kind) {
		d.addSchedules(pg, rs, i, vocab)
	}
	return bare
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
func (d *Document) addSchedules(pg *drawing.Page, rs []run, i int, vocab *Vocabulary) {
	ss, rows := readSchedules(pg, rs, i, d.tables[i])
	base := len(d.Rows)
	for _, r := range rows {
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
			if d.same[j] == j && d.Classes[j] == d.Classes[i] && normDesc(d.Rows[j]) == normDesc(d.Rows[i]) {
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
			if d.leader[j] == j && !colourClose(d.Rows[i].Color, d.Rows[j].Color) && sameShape(d.Rows[i], d.Rows[j]) {
				d.siblings[i] = append(d.siblings[i], j)
				d.siblings[j] = append(d.siblings[j], i)
			}
		}
	}
}

func normDesc(r Row) string {
	return strings.Join(normWords(r.Description+" "+strings.Join(r.Tags, " "), false), " ")
}

// sameCover is how much of each glyph's drawing the other must cover for
// two rows to draw the same glyph: a switch with one more lever (a
// tenth more drawing) is another glyph.
const sameCover = 0.97

// sameGlyph reports whether two rows draw the same glyph: the same text
// inside, each one's drawing within a small tolerance of the other's, in
// one colour.
func sameGlyph(a, b Row) bool {
	return colourClose(a.Color, b.Color) && sameShape(a, b)
}

// sameShape is sameGlyph without the colour: rows drawing one shape in
// different colours (ArchiCAD pens) keep a template each, and Assign
// gives a match to the one whose colour it is drawn in.
func sameShape(a, b Row) bool {
	if a.GlyphText != b.GlyphText || len(a.Glyph.Shapes) == 0 || len(b.Glyph.Shapes) == 0 {
		return false
	}
	pa, pb := glyphPoints(a.Glyph), glyphPoints(b.Glyph)
	// Each sheet may draw its legend at its own size: compare at one.
	sa, sb := spread(pa), spread(pb)
	if sa == 0 || sb == 0 || sa > 3*sb || sb > 3*sa {
		return false
	}
	k := sa / sb
	for i := range pb {
		pb[i] = glyph.Point{X: pb[i].X * k, Y: pb[i].Y * k}
	}
	tol := 0.06 * sa
	// One CAD block drawn twice has the same make-up of curves and
	// straight lines: a hexagon is not a circle, however close.
	if math.Abs(curvedShare(a.Glyph)-curvedShare(b.Glyph)) > 0.15 {
		return false
	}
	if coversAtLeast(pa, pb, tol, sameCover) && coversAtLeast(pb, pa, tol, sameCover) {
		return true
	}
	return sameTurned(pa, pb, tol)
}

// turnStep is the angle step, in degrees, at which sameTurned compares two
// glyphs turned against each other.
const turnStep = 15

// sameTurned reports whether b, turned about its centre by a multiple of
// turnStep (mirrored or not), draws a's points within tol: the matcher
// finds a glyph at any angle, so two rows drawing one shape turned (a
// hexagon standing on a corner or on a side) are one glyph to it, which
// only their tags can tell apart (Assign).
func sameTurned(pa, pb []glyph.Point, tol float64) bool {
	ca, cb := centred(pa), centred(pb)
	turned := make([]glyph.Point, len(cb))
	for _, mirror := range []bool{false, true} {
		for deg := 0; deg < 360; deg += turnStep {
			if deg == 0 && !mirror {
				continue // the plain comparison
			}
			sin, cos := math.Sincos(float64(deg) * math.Pi / 180)
			for i, p := range cb {
				if mirror {
					p.X = -p.X
				}
				turned[i] = glyph.Point{X: p.X*cos - p.Y*sin, Y: p.X*sin + p.Y*cos}
			}
			if coversAtLeast(ca, turned, tol, sameCover) && coversAtLeast(turned, ca, tol, sameCover) {
				return true
			}
		}
	}
	return false
}

// centred is ps moved so that their mean is the origin.
func centred(ps []glyph.Point) []glyph.Point {
	var m glyph.Point
	for _, p := range ps {
		m.X += p.X / float64(len(ps))
		m.Y += p.Y / float64(len(ps))
	}
	out := make([]glyph.Point, len(ps))
	for i, p := range ps {
		out[i] = glyph.Point{X: p.X - m.X, Y: p.Y - m.Y}
	}
	return out
}

// coversAtLeast reports whether at least the fraction frac of a's points
// lie within tol of some point of b (none does when a is empty), stopping
// at the first miss too many.
func coversAtLeast(a, b []glyph.Point, tol, frac float64) bool {
	if len(a) == 0 {
		return false
	}
	allowed := int((1 - frac) * float64(len(a)))
	missed := 0
	for _, p := range a {
		hit := false
		for _, q := range b {
			if math.Abs(p.X-q.X) <= tol && math.Abs(p.Y-q.Y) <= tol {
				hit = true
				break
			}
		}
		if !hit {
			if missed++; missed > allowed {
				return false
			}
		}
	}
	return true
}

// curvedShare is the fraction of a glyph's drawn length that is arcs and
// circles.
func curvedShare(g glyph.Glyph) float64 {
	var curved, all float64
	for _, s := range g.Shapes {
		var l float64
		switch s.Kind {
		case glyph.KindCircle:
			l = 2 * math.Pi * s.R
			curved += l
		case glyph.KindArc:
			l = math.Abs(s.Sweep) * math.Pi / 180 * s.R
			curved += l
		case glyph.KindText:
		default:
			for _, pl := range (glyph.Glyph{Shapes: []glyph.Shape{s}}).Polylines(0.05) {
				for i := 1; i < len(pl); i++ {
					l += math.Hypot(pl[i].X-pl[i-1].X, pl[i].Y-pl[i-1].Y)
				}
			}
		}
		all += l
	}
	if all == 0 {
		return 0
	}
	return curved / all
}

func glyphPoints(g glyph.Glyph) []glyph.Point {
	var out []glyph.Point
	for _, pl := range g.Polylines(0.05) {
		for i := 1; i < len(pl); i++ {
			a, b := pl[i-1], pl[i]
			n := max(1, int(math.Hypot(b.X-a.X, b.Y-a.Y)/0.1))
			for k := range n {
				f := float64(k) / float64(n)
				out = append(out, glyph.Point{X: a.X + f*(b.X-a.X), Y: a.Y + f*(b.Y-a.Y)})
			}
		}
	}
	return out
}

// spread is the root mean square distance of the points from their mean.
func spread(ps []glyph.Point) float64 {
	if len(ps) == 0 {
		return 0
	}
	var m glyph.Point
	for _, p := range ps {
		m.X += p.X
		m.Y += p.Y
	}
	m.X /= float64(len(ps))
	m.Y /= float64(len(ps))
	var s float64
	for _, p := range ps {
		s += (p.X-m.X)*(p.X-m.X) + (p.Y-m.Y)*(p.Y-m.Y)
	}
	return math.Sqrt(s / float64(len(ps)))
}

// colourTol is the largest RGB distance (summed over channels) between
// two colours taken for one (exporters round).
const colourTol = 48

// colourClose: colours within colourTol.
func colourClose(a, b string) bool {
	return colourDist(a, b) <= colourTol
}

// colourDist is the RGB distance of two "#rrggbb" colours (summed over
// channels): 0 where both are the same text, +Inf where either is not a
// colour.
func colourDist(a, b string) float64 {
	if a == b {
		return 0
	}
	ra, ga, ba, ok1 := hexRGB(a)
	rb, gb, bb, ok2 := hexRGB(b)
	if !ok1 || !ok2 {
		return math.Inf(1)
	}
	return math.Abs(ra-rb) + math.Abs(ga-gb) + math.Abs(ba-bb)
}

func hexRGB(s string) (float64, float64, float64, bool) {
	var r, g, b int
	if _, err := fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return 0, 0, 0, false
	}
	return float64(r), float64(g), float64(b), true
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
	l = d.byColour(pg, l, box)
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

// byColour returns the leader row a match of leader l's glyph belongs to
// by its colour: l, unless the symbol is drawn in another colour than
// l's and a leader of the same shape has that colour.
func (d *Document) byColour(pg *drawing.Page, l int, box detect.Box) int {
	sib := d.siblings[l]
	if len(sib) == 0 {
		return l
	}
	drawn := drawnColour(pg, box)
	if drawn == "" || colourClose(d.Rows[l].Color, drawn) {
		return l
	}
	best, bestD := l, math.Inf(1)
	for _, j := range sib {
		if dist := colourDist(d.Rows[j].Color, drawn); dist <= colourTol && dist < bestD {
			best, bestD = j, dist
		}
	}
	return best
}

// drawnColour is the colour most of the symbol in box is drawn in: of the
// page's pieces centred in the box and no longer than its size (not the
// wires through it), the colour with the most length.
func drawnColour(pg *drawing.Page, box detect.Box) string {
	size := math.Max(box.W, box.H)
	in := func(p glyph.Point) bool {
		return p.X >= box.X && p.X <= box.X+box.W && p.Y >= box.Y && p.Y <= box.Y+box.H
	}
	length := map[string]float64{}
	add := func(style int32, l float64) {
		st := pg.Styles[style]
		c := st.Stroke
		if c == "" {
			c = st.Fill
		}
		length[c] += l
	}
	for _, s := range pg.Segments {
		l := math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y)
		if l <= size && in(glyph.Point{X: (s.A.X + s.B.X) / 2, Y: (s.A.Y + s.B.Y) / 2}) {
			add(s.Style, l)
		}
	}
	for _, a := range pg.Arcs {
		if 2*a.R <= size && in(a.C) {
			add(a.Style, math.Abs(a.Sweep)*math.Pi/180*a.R)
		}
	}
	best, bestLen := "", 0.0
	for c, l := range length {
		if c != "" && (l > bestLen || (l == bestLen && c < best)) {
			best, bestLen = c, l
		}
	}
	return best
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
