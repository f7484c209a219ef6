package legend

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// Row is one legend row as read from a page: the glyph drawn in its symbol
// cell (table rules excluded), the text inside the glyph, the tags beside
// it, its description and its printed quantity.
type Row struct {
	Page        int
	Description string
	// GlyphText is the text inside the glyph's drawing ("F", "FACP").
	GlyphText string
	// Tags are the words written beside the glyph, before the description
	// ("15CD", "0.25W", "S").
	Tags []string
	// Quantity is the printed quantity, nil when the legend has no
	// quantity column or the row's cell is empty.
	Quantity *int
	// PartNumber is the text of the row's cell under a part-number head
	// (PART NUMBER, CAT. NO., …), "" when the legend has no such column
	// or the cell is empty.
	PartNumber string
	// Glyph is the row's drawing in the canonical glyph frame (mm at the
	// size drawn in the legend, centred on its box), text inside it
	// included; empty when the cell holds no usable drawing.
	Glyph glyph.Glyph
	// Color is the dominant stroke colour of the glyph, "#rrggbb".
	Color string
	// Box is the row's extent on its page (raster pixels): glyph,
	// description and quantity.
	Box Rect
	// GlyphBox is the extent of the glyph's drawing.
	GlyphBox Rect
}

// Rect is an axis-aligned rectangle in raster pixels.
type Rect struct{ Min, Max glyph.Point }

// Contains reports whether p lies inside r.
func (r Rect) Contains(p glyph.Point) bool {
	return p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
}

func (r Rect) union(o Rect) Rect {
	return Rect{glyph.MinPoint(r.Min, o.Min), glyph.MaxPoint(r.Max, o.Max)}
}

func (r Rect) w() float64 { return r.Max.X - r.Min.X }
func (r Rect) h() float64 { return r.Max.Y - r.Min.Y }
func (r Rect) centre() glyph.Point {
	return glyph.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
}

func emptyRect() Rect {
	return Rect{glyph.Point{X: math.Inf(1), Y: math.Inf(1)}, glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}}
}

// Table is one legend table found on a page: its extent (header included)
// and its rows in reading order.
type Table struct {
	Page int
	Box  Rect
	Rows []Row
}

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
)

// headerWords open a legend table (upper case, compared on whole words or
// phrases of the header's text).
var headerWords = []string{
	"LEGEND", "SYMBOL LEGEND", "SYMBOLS", "SYMBOL", "KEY", "LEGEND OF SYMBOLS",
	"SELITYKSET", "MERKKIEN SELITYKSET", "MERKINNÄT", "MERKKISELITYKSET", "MERKKI", "SELITE",
	"DESCRIPTION", "TECKENFÖRKLARING", "SYMBOLER",
}

// qtyWords head a quantity column.
var qtyWords = []string{"QTY", "QTYS", "QTY.", "QUANTITY", "KPL", "KPL.", "MÄÄRÄ", "NO.", "COUNT", "ANTAL", "Qty."}

var intRe = regexp.MustCompile(`^\(?\s*(\d{1,5})\s*\)?$`)

// qtyReachEm: a printed quantity lies under its column's head, reaching
// at most this many em past either end of it (a number right-aligned in
// a cell wider than its head).
const qtyReachEm = 4.0

// piece is a drawn segment or arc with its box.
type piece struct {
	seg  int // index into Segments, or -1
	arc  int // index into Arcs, or -1
	box  Rect
	size float64 // longest side of the box
}

type pageIndex struct {
	pg     *drawing.Page
	pieces []piece
	cell   float64
	nx, ny int
	grid   map[int][]int32
	runs   []run
	// hrules are the long horizontal lines of the page (table rules,
	// walls), sorted by y.
	hrules []hrule
	// long are the segments longer than minLong, listed on first use.
	long []int32
	// maps says whether a text names a class (headless legends); nil
	// takes only legends with header words.
	maps func(text string) bool
}

// minLong is the shortest segment crossed tests, in pixels: 6 em of the
// smallest text legends are read at (about 0.5 mm).
const minLong = 24.0

// hrule is a long horizontal line at y from x0 to x1.
type hrule struct{ y, x0, x1 float64 }

// minRule is the shortest horizontal line kept as a possible table rule,
// in pixels (about 1 mm at the raster's resolution).
const minRule = 8.0

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

func newIndex(pg *drawing.Page, rs []run) *pageIndex {
	ix := &pageIndex{pg: pg, cell: 48, grid: map[int][]int32{}}
	ix.nx = int(pg.Width/ix.cell) + 1
	ix.ny = int(pg.Height/ix.cell) + 1
	add := func(p piece) {
		p.size = math.Max(p.box.w(), p.box.h())
		ix.pieces = append(ix.pieces, p)
		c := p.box.centre()
		k := ix.key(c)
		ix.grid[k] = append(ix.grid[k], int32(len(ix.pieces)-1))
	}
	for i, s := range pg.Segments {
		add(piece{seg: i, arc: -1, box: Rect{glyph.MinPoint(s.A, s.B), glyph.MaxPoint(s.A, s.B)}})
	}
	for i, a := range pg.Arcs {
		add(piece{seg: -1, arc: i, box: arcBox(a)})
	}
	ix.runs = rs
	for _, s := range pg.Segments {
		if dx, dy := math.Abs(s.B.X-s.A.X), math.Abs(s.B.Y-s.A.Y); dx >= minRule && dy <= 0.02*dx {
			ix.hrules = append(ix.hrules, hrule{y: (s.A.Y + s.B.Y) / 2, x0: math.Min(s.A.X, s.B.X), x1: math.Max(s.A.X, s.B.X)})
		}
	}
	sort.Slice(ix.hrules, func(a, b int) bool { return ix.hrules[a].y < ix.hrules[b].y })
	return ix
}

func (ix *pageIndex) key(p glyph.Point) int {
	x := min(max(int(p.X/ix.cell), 0), ix.nx-1)
	y := min(max(int(p.Y/ix.cell), 0), ix.ny-1)
	return y*ix.nx + x
}

// piecesIn calls fn for pieces whose box centre lies in r.
func (ix *pageIndex) piecesIn(r Rect, fn func(i int32)) {
	x0, x1 := max(int(r.Min.X/ix.cell), 0), min(int(r.Max.X/ix.cell), ix.nx-1)
	y0, y1 := max(int(r.Min.Y/ix.cell), 0), min(int(r.Max.Y/ix.cell), ix.ny-1)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, i := range ix.grid[y*ix.nx+x] {
				if r.Contains(ix.pieces[i].box.centre()) {
					fn(i)
				}
			}
		}
	}
}

func arcBox(a drawing.Arc) Rect {
	r := emptyRect()
	n := max(4, int(math.Abs(a.Sweep)/10))
	for k := 0; k <= n; k++ {
		t := (a.Start + a.Sweep*float64(k)/float64(n)) * math.Pi / 180
		p := glyph.Point{X: a.C.X + a.R*math.Cos(t), Y: a.C.Y + a.R*math.Sin(t)}
		r.Min, r.Max = glyph.MinPoint(r.Min, p), glyph.MaxPoint(r.Max, p)
	}
	return r
}

// cluster is the drawing of one glyph candidate.
type cluster struct {
	pieces []int32
	box    Rect
}

// glyphLeftOf returns the cluster of small drawn pieces nearest to the
// left of x on the row whose text runs through [y0, y1], reaching at most
// reach pixels. Pieces are first taken by their centres in the band; a
// glyph taller than its text (a box, a diamond) also has pieces wholly
// above and below it, so the cluster of every piece that meets the band,
// up to the rules above and below the row (or 3 em where none is drawn),
// is taken whole.
func (ix *pageIndex) glyphLeftOf(x, y0, y1, reach, em float64, c rowCap) (cluster, bool) {
	band, ok := ix.glyphIn(Rect{glyph.Point{X: x - reach, Y: y0}, glyph.Point{X: x, Y: y1}}, y0, y1, em, false)
	top, bottom := ix.rulesAround(x, y0, y1, em, band, ok)
	// A row ends halfway to the next row's text at the latest (an
	// unruled legend's glyphs stand close above one another, and the
	// edge of one is no rule of the next), give or take capSlackEm (a
	// glyph beside a wrapped description reaches past the halfway line
	// below its first line).
	top, bottom = math.Max(top, c.top-capSlackEm*em), math.Min(bottom, c.bottom+capSlackEm*em)
	whole, wok := ix.glyphIn(Rect{glyph.Point{X: x - reach, Y: top - 0.1*em}, glyph.Point{X: x, Y: bottom + 0.1*em}}, y0, y1, em, true)
	if !wok || (ok && whole.box.Max.X < band.box.Max.X) {
		return band, ok
	}
	return whole, true
}

// glyphIn clusters the small pieces in area and returns the nearest to
// the right that is not thin and has a piece meeting [y0, y1] (with
// whole, pieces must lie wholly in area; otherwise their centres do).
func (ix *pageIndex) glyphIn(area Rect, y0, y1, em float64, whole bool) (cluster, bool) {
	var cand []int32
	ix.piecesIn(area, func(i int32) {
		p := ix.pieces[i]
		if p.size <= maxPieceEm*em && (!whole || (p.box.Min.Y >= area.Min.Y && p.box.Max.Y <= area.Max.Y)) && !ix.cellSide(p, em) {
			cand = append(cand, i)
		}
	})
	if whole {
		cand = ix.withoutEscaping(cand, area, em)
	}
	if len(cand) == 0 {
		return cluster{}, false
	}
	cs := clusterPieces(ix, cand, clusterGap*em)
	best := -1
	for k, c := range cs {
		// A thin cluster is a rule between cells or a leader line.
		if math.Min(c.box.w(), c.box.h()) < 0.25*em {
			continue
		}
		meets := false
		for _, i := range c.pieces {
			b := ix.pieces[i].box
			if b.Max.Y >= y0 && b.Min.Y <= y1 {
				meets = true
				break
			}
		}
		if !meets {
			continue
		}
		if best < 0 || c.box.Max.X > cs[best].box.Max.X {
			best = k
		}
	}
	if best < 0 {
		return cluster{}, false
	}
	return cs[best], true
}

// outsideRules reports whether the drawing box lies left of the table that
// holds text run r: the nearest horizontal rules above and below the text
// (within 3 em) both run under the text's start and both end to the right
// of the drawing. A bill of quantities whose code column holds no drawing
// would otherwise lend its descriptions whatever stands left of the table
// (a grid bubble, a plan symbol).
func (ix *pageIndex) outsideRules(box Rect, r *run, em float64) bool {
	cy := (r.min.Y + r.max.Y) / 2
	x := r.min.X
	above, below := -1, -1
	lo := sort.Search(len(ix.hrules), func(i int) bool { return ix.hrules[i].y >= cy-3*em })
	for i := lo; i < len(ix.hrules) && ix.hrules[i].y <= cy+3*em; i++ {
		h := ix.hrules[i]
		if h.x0 > x || h.x1 < x {
			continue
		}
		if h.y < r.min.Y {
			above = i // the last above is the nearest
		} else if h.y > r.max.Y && below < 0 {
			below = i
		}
	}
	if above < 0 || below < 0 {
		return false
	}
	edge := math.Min(ix.hrules[above].x0, ix.hrules[below].x0)
	return box.Max.X < edge-0.25*em
}

// withoutEscaping drops from cand (pieces wholly inside area) the line
// pieces joined end to end to a small piece that runs out of area above or
// below: part of a figure the row's bounds cut, such as the top edge of
// the next row's boxed glyph reaching up past the halfway line, which
// belongs to that glyph, not to this row's.
func (ix *pageIndex) withoutEscaping(cand []int32, area Rect, em float64) []int32 {
	reach := maxPieceEm * em
	var ends []glyph.Point
	ix.piecesIn(Rect{glyph.Point{X: area.Min.X, Y: area.Min.Y - reach}, glyph.Point{X: area.Max.X, Y: area.Max.Y + reach}}, func(i int32) {
		p := ix.pieces[i]
		if p.seg < 0 || p.size > reach || (p.box.Min.Y >= area.Min.Y && p.box.Max.Y <= area.Max.Y) ||
			p.box.Max.Y < area.Min.Y || p.box.Min.Y > area.Max.Y || ix.cellSide(p, em) {
			return
		}
		s := ix.pg.Segments[p.seg]
		ends = append(ends, s.A, s.B)
	})
	if len(ends) == 0 {
		return cand
	}
	// Ends by the joinPx cell they lie in: a point meets an end in its
	// cell or a neighbouring one.
	const joinPx = 1.0
	type cellKey struct{ x, y int }
	key := func(p glyph.Point) cellKey {
		return cellKey{int(math.Floor(p.X / joinPx)), int(math.Floor(p.Y / joinPx))}
	}
	byCell := map[cellKey][]glyph.Point{}
	for _, e := range ends {
		byCell[key(e)] = append(byCell[key(e)], e)
	}
	joined := func(q glyph.Point) bool {
		k := key(q)
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				for _, e := range byCell[cellKey{k.x + dx, k.y + dy}] {
					if math.Abs(e.X-q.X) <= joinPx && math.Abs(e.Y-q.Y) <= joinPx {
						return true
					}
				}
			}
		}
		return false
	}
	out := cand[:0]
	for _, i := range cand {
		if p := ix.pieces[i]; p.seg >= 0 {
			s := ix.pg.Segments[p.seg]
			if joined(s.A) || joined(s.B) {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// cellSide reports whether piece p is the side of a table cell ruled
// cell by cell: a vertical line at least 1.5 em long from one horizontal
// rule to another. Drawn close beside a glyph it would join the glyph's
// drawing.
func (ix *pageIndex) cellSide(p piece, em float64) bool {
	if p.seg < 0 || p.box.w() > 0.5 || p.box.h() < 1.5*em {
		return false
	}
	// Rules run on past a cell's side on both sides of it (one rule
	// across, or one cell's edge and the next one's); a glyph's own box
	// ends at its sides.
	x := p.box.centre().X
	meets := func(y float64) bool {
		lo := sort.Search(len(ix.hrules), func(i int) bool { return ix.hrules[i].y >= y-1.5 })
		left, right := false, false
		for _, r := range ix.hrules[lo:] {
			if r.y > y+1.5 {
				break
			}
			if r.x0 <= x+1.5 && r.x1 >= x-1.5 {
				left = left || r.x0 <= x-em
				right = right || r.x1 >= x+em
			}
		}
		return left && right
	}
	return meets(p.box.Min.Y) && meets(p.box.Max.Y)
}

// rulesAround returns how far up and down from the band [y0, y1] a row's
// glyph may reach: to the nearest rule above and below the band's middle,
// at most 3 em away. A rule runs past both sides of what the band found
// of the glyph (core, when found; tables ruled cell by cell have short
// rules), or, without a core, is a long line reaching the description's
// start x1.
func (ix *pageIndex) rulesAround(x1, y0, y1, em float64, core cluster, found bool) (top, bottom float64) {
	top, bottom = y0-3*em, y1+3*em
	lo := sort.Search(len(ix.hrules), func(i int) bool { return ix.hrules[i].y >= top })
	for _, r := range ix.hrules[lo:] {
		if r.y > bottom {
			break
		}
		rule := r.x1-r.x0 >= maxPieceEm*em && r.x0 <= x1-em && r.x1 >= x1
		if found {
			rule = r.x1-r.x0 >= em && r.x0 <= core.box.Min.X-0.2*em && r.x1 >= core.box.Max.X+0.2*em
		}
		if !rule {
			continue
		}
		// Tight rows: a rule may run through the edge of the band.
		switch mid := (y0 + y1) / 2; {
		case r.y < mid-0.25*em:
			top = math.Max(top, r.y)
		case r.y > mid+0.25*em:
			bottom = math.Min(bottom, r.y)
		}
	}
	return top, bottom
}

// clusterPieces groups pieces whose boxes come within gap of each other.
func clusterPieces(ix *pageIndex, idx []int32, gap float64) []cluster {
	parent := make([]int, len(idx))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	sort.Slice(idx, func(a, b int) bool { return ix.pieces[idx[a]].box.Min.X < ix.pieces[idx[b]].box.Min.X })
	for a := range idx {
		ba := ix.pieces[idx[a]].box
		for b := a + 1; b < len(idx); b++ {
			bb := ix.pieces[idx[b]].box
			if bb.Min.X > ba.Max.X+gap {
				break
			}
			if bb.Min.Y <= ba.Max.Y+gap && ba.Min.Y <= bb.Max.Y+gap {
				parent[find(a)] = find(b)
			}
		}
	}
	groups := map[int]*cluster{}
	var order []int
	for a, i := range idx {
		r := find(a)
		c, ok := groups[r]
		if !ok {
			c = &cluster{box: emptyRect()}
			groups[r] = c
			order = append(order, r)
		}
		c.pieces = append(c.pieces, i)
		c.box = c.box.union(ix.pieces[i].box)
	}
	out := make([]cluster, 0, len(order))
	for _, r := range order {
		out = append(out, *groups[r])
	}
	return out
}

// candidate is a text run with a glyph to its left.
type candidate struct {
	run   int
	glyph cluster
	em    float64
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

// maps returns whether a text names a class; nil for a nil vocabulary.
func (v *Vocabulary) maps() func(string) bool {
	if v == nil {
		return nil
	}
	return func(text string) bool {
		_, ok := v.Class(text)
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
			if j != k && len(cols[j]) >= 2 && b.Min.X > boxes[k].Max.X && b.Min.Y < boxes[k].Max.Y && b.Max.Y > boxes[k].Min.Y {
				limit = math.Min(limit, b.Min.X)
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

// glyphColumns finds the glyph candidates of ix's page, one per glyph
// (the drawing left of an upright run of two or more letters, neither
// too small for a glyph nor crossed by a long line), and groups them in
// columns (columns). Where pe is not nil it also records there the runs
// that looked for a glyph (TextRuns), those that found no drawing
// (NoGlyph), and each run that found some (Candidates), with the reason
// where it is no glyph candidate.
func (ix *pageIndex) glyphColumns(pe *PageExplanation) [][]candidate {
	caps := rowCaps(ix.runs)
	var cands []candidate
	for i := range ix.runs {
		r := &ix.runs[i]
		if !r.upright() || (r.letters() < 2 && !r.count()) {
			continue
		}
		if pe != nil {
			pe.TextRuns++
		}
		em := r.size
		cy := (r.min.Y + r.max.Y) / 2
		c, ok := ix.glyphLeftOf(r.min.X-0.2*em, cy-0.8*em, cy+0.8*em, glyphReach*em, em, caps[i])
		if !ok {
			if pe != nil {
				pe.NoGlyph++
			}
			continue
		}
		small := math.Max(c.box.w(), c.box.h()) < 0.5*em || math.Min(c.box.w(), c.box.h()) < 0.25*em
		// Drawing that runs through it: part of a plan, not a key.
		crossed := !small && ix.crossed(c.box, em)
		outside := !small && !crossed && ix.outsideRules(c.box, r, em)
		if pe != nil {
			k := Candidate{Text: clip(r.text), Glyph: c.box}
			switch {
			case small:
				k.Rejected = fmt.Sprintf("the drawing to its left is too small for a glyph (%.0f × %.0f px; the text is %.0f px high)", c.box.w(), c.box.h(), em)
			case crossed:
				k.Rejected = "a long line (a wall, a wire) runs through the drawing: a symbol on a plan, not a key"
			case outside:
				k.Rejected = "the rules above and below the text end before the drawing: it lies outside the text's table"
			}
			pe.Candidates = append(pe.Candidates, k)
		}
		if !small && !crossed && !outside {
			cands = append(cands, candidate{run: i, glyph: c, em: em})
		}
	}
	// One entry per glyph: several runs (tags, the description) may have
	// found the same drawing.
	type gkey struct{ x, y int }
	byGlyph := map[gkey]int{}
	var glyphs []candidate
	for _, c := range cands {
		k := gkey{int(math.Round(c.glyph.box.Min.X)), int(math.Round(c.glyph.box.Min.Y))}
		if j, ok := byGlyph[k]; ok {
			// The same drawing seen from another run: keep the
			// fuller view of it (text inside a glyph hides part of it).
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
	return columns(glyphs)
}

// columns groups glyph candidates into vertical runs: centres chained in x
// within columnChain em, then split where the vertical gap is unusual.
func columns(gs []candidate) [][]candidate {
	sort.Slice(gs, func(a, b int) bool { return gs[a].glyph.box.centre().X < gs[b].glyph.box.centre().X })
	var out [][]candidate
	for a := 0; a < len(gs); {
		b := a + 1
		for b < len(gs) && gs[b].glyph.box.centre().X-gs[b-1].glyph.box.centre().X <= columnChain*gs[b].em {
			b++
		}
		col := append([]candidate(nil), gs[a:b]...)
		a = b
		sort.Slice(col, func(p, q int) bool { return col[p].glyph.box.centre().Y < col[q].glyph.box.centre().Y })
		// Pieces of one glyph found from different runs of its row
		// (a strobe's rays, a speaker's horn) are one glyph.
		merged := col[:0]
		for _, c := range col {
			if k := len(merged) - 1; k >= 0 {
				p := &merged[k]
				ov := math.Min(p.glyph.box.Max.Y, c.glyph.box.Max.Y) - math.Max(p.glyph.box.Min.Y, c.glyph.box.Min.Y)
				if ov > 0.5*math.Min(p.glyph.box.h(), c.glyph.box.h()) {
					p.glyph.box = p.glyph.box.union(c.glyph.box)
					p.glyph.pieces = append(p.glyph.pieces, c.glyph.pieces...)
					p.em = math.Max(p.em, c.em)
					continue
				}
			}
			merged = append(merged, c)
		}
		col = merged
		// Split at gaps much larger than the typical pitch.
		var pitches []float64
		for i := 1; i < len(col); i++ {
			pitches = append(pitches, col[i].glyph.box.centre().Y-col[i-1].glyph.box.centre().Y)
		}
		// The typical pitch is that of the closest rows (a column may run
		// on into unrelated drawing far below); a gap of a row or two
		// (a row without a glyph) stays inside the table.
		pitch := quantile(pitches, 0.25)
		s := 0
		for i := 1; i <= len(col); i++ {
			if i == len(col) || col[i].glyph.box.centre().Y-col[i-1].glyph.box.centre().Y > math.Max(3.2*pitch, 3*col[i].em) {
				out = append(out, col[s:i])
				s = i
			}
		}
	}
	return out
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

func hasWord(text string, words []string) bool {
	up := " " + strings.Join(strings.Fields(strings.ToUpper(strings.NewReplacer(":", " ", ",", " ", "-", " ").Replace(text))), " ") + " "
	for _, w := range words {
		if strings.Contains(up, " "+strings.ToUpper(w)+" ") {
			return true
		}
	}
	return false
}

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
		if h.head != nil && blocked(Rect{h.head.min, h.head.max}, colBox, others) {
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
		r.Page = page
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
		if blocked(Rect{r.min, r.max}, tableBox, others) {
			continue
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
		// A section row between two rows doubles their gap.
		if gap := ys[kept[i]] - ys[kept[i-1]]; gap > maxPitchEm*em && !(gap > 1.5*pitch && gap <= sectionGap*pitch && ix.sectionBetween(rows[i-1], rows[i], em)) {
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
	// Quantities: an integer in the row's band under the quantity header
	// nearest to the right of the descriptions, inside the table.
	// Where the table heads its columns, the quantity is the one under
	// its own quantity head (a bill of quantities beside it has another).
	var qh *run
	qc, headed := heads.column(colQty)
	switch {
	case headed:
		qh = qc.head
	case heads == nil:
		for _, q := range qtyHeaders {
			if q.min.X > colBox.Max.X && q.min.X < limit && (qh == nil || q.min.X < qh.min.X) {
				qh = q
			}
		}
	}
	if qh != nil {
		// The column's cells: under the head, give or take 2 em, or,
		// where the table heads its columns, qtyReachEm and no further
		// than halfway to the neighbouring heads.
		cx0, cx1 := qh.min.X-2*em, qh.max.X+2*em
		if headed {
			cx0, cx1 = math.Max(qh.min.X-qtyReachEm*em, qc.x0), math.Min(qh.max.X+qtyReachEm*em, qc.x1)
		}
		for i := range rows {
			y0, y1 := band(kept[i])
			// A ruled table ends where its rules around the row end:
			// a number past them (a grid label on the sheet's border,
			// a plan's dimension) is not the row's.
			right := math.Inf(1)
			if end, ok := ix.ruledEnd(rows[i].GlyphBox, y0, y1, em); ok {
				right = math.Max(end, qh.max.X) + 0.5*em
			}
			// Of the integers in the cell, the one nearest under the
			// head.
			best, bestD := -1, math.Inf(1)
			for k := range ix.runs {
				r := &ix.runs[k]
				c := r.centre()
				if !r.upright() || c.Y < y0 || c.Y > y1 || r.max.X < cx0 || r.min.X > cx1 || c.X > right || c.X >= limit {
					continue
				}
				if intRe.MatchString(r.text) {
					if d := math.Abs(c.X - qh.centre().X); d < bestD {
						best, bestD = k, d
					}
				}
			}
			if best < 0 {
				continue
			}
			r := &ix.runs[best]
			if v, err := strconv.Atoi(intRe.FindStringSubmatch(r.text)[1]); err == nil {
				rows[i].Quantity = &v
				rows[i].Box = rows[i].Box.union(Rect{r.min, r.max})
			}
		}
		tableBox = tableBox.union(Rect{qh.min, qh.max})
	}
	for _, r := range rows {
		tableBox = tableBox.union(r.Box)
	}
	tableBox = tableBox.union(Rect{glyph.Point{X: tableBox.Min.X, Y: hdrBox.Min.Y}, tableBox.Min})
	return Table{Page: page, Box: tableBox, Rows: rows}, true
}

// ruledEnd returns where the rules of a ruled table end on the right
// around the row whose glyph is g and whose band is [y0, y1]: the nearest
// horizontal rules above and below the glyph's middle, in the band give
// or take a quarter em, that run under the glyph, each followed along
// its line through the breaks of a table ruled cell by cell. ok is false
// where the row is not ruled above and below.
func (ix *pageIndex) ruledEnd(g Rect, y0, y1, em float64) (end float64, ok bool) {
	cx, cy := g.centre().X, g.centre().Y
	above, below := -1, -1
	lo := sort.Search(len(ix.hrules), func(i int) bool { return ix.hrules[i].y >= y0-0.25*em })
	for i := lo; i < len(ix.hrules) && ix.hrules[i].y <= y1+0.25*em; i++ {
		h := ix.hrules[i]
		if h.x0 > cx || h.x1 < cx {
			continue
		}
		if h.y < cy {
			above = i // the last above is the nearest
		} else if below < 0 {
			below = i
		}
	}
	if above < 0 || below < 0 {
		return 0, false
	}
	return math.Min(ix.ruleEnd(above, em), ix.ruleEnd(below, em)), true
}

// ruleEnd follows rule i rightwards along its line (rules within 1.5 px
// of its y) across gaps of at most half an em, and returns where it ends.
func (ix *pageIndex) ruleEnd(i int, em float64) float64 {
	y := ix.hrules[i].y
	lo := sort.Search(len(ix.hrules), func(k int) bool { return ix.hrules[k].y >= y-1.5 })
	var line []hrule
	for k := lo; k < len(ix.hrules) && ix.hrules[k].y <= y+1.5; k++ {
		line = append(line, ix.hrules[k])
	}
	sort.Slice(line, func(a, b int) bool { return line[a].x0 < line[b].x0 })
	end := ix.hrules[i].x1
	for _, h := range line {
		if h.x0 <= end+0.5*em {
			end = math.Max(end, h.x1)
		}
	}
	return end
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

func area(r Rect) float64 { return math.Max(r.w(), 0) * math.Max(r.h(), 0) }

// crossed reports whether a long drawn piece (a wall, a wire) passes
// through the inside of box: legend glyphs stand alone in their cells,
// whose rules run around them.
func (ix *pageIndex) crossed(box Rect, em float64) bool {
	in := Rect{glyph.Point{X: box.Min.X + 0.15*box.w(), Y: box.Min.Y + 0.15*box.h()}, glyph.Point{X: box.Max.X - 0.15*box.w(), Y: box.Max.Y - 0.15*box.h()}}
	// Long pieces are indexed at their centres, which may lie far away:
	// test the page's long segments by their ends instead.
	if ix.long == nil {
		ix.long = []int32{}
		for i, s := range ix.pg.Segments {
			if math.Max(math.Abs(s.B.X-s.A.X), math.Abs(s.B.Y-s.A.Y)) > minLong {
				ix.long = append(ix.long, int32(i))
			}
		}
	}
	for _, i := range ix.long {
		s := ix.pg.Segments[i]
		if math.Max(math.Abs(s.B.X-s.A.X), math.Abs(s.B.Y-s.A.Y)) <= maxPieceEm*em {
			continue
		}
		if segHitsRect(s.A, s.B, in) {
			return true
		}
	}
	return false
}

// segHitsRect reports whether segment ab meets rectangle r.
func segHitsRect(a, b glyph.Point, r Rect) bool {
	_, _, ok := glyph.ClipSegment(a, b, r.Min, r.Max)
	return ok
}

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
	row.Glyph, row.GlyphText, row.Color = ix.glyphOf(keep, inside, gbox)
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

// Legends without header words are taken by their shape alone, guarded
// against a plan's stacked labels: at least minHeadlessRows rows, glyphs
// in one column (centres or left edges within headlessAlignEm em) of
// similar size (within headlessSizeRatio), rows at an even pitch (each
// within headlessPitchRatio of the median), most rows distinct (by glyph
// or description: tag-only variants share a glyph), and most
// descriptions naming a class of the vocabulary (headlessMapped).
const (
	minHeadlessRows    = 4
	headlessAlignEm    = 0.5
	headlessSizeRatio  = 2.5
	headlessPitchRatio = 1.6
	headlessMapped     = 0.75
)

// headless reports whether the kept rows of a glyph column without header
// words make a legend (see minHeadlessRows). Where they do not and why is
// not nil, it sets *why to the first condition they fail.
func (ix *pageIndex) headless(col []candidate, kept []int, rows []Row, sigs int, why *string) bool {
	n := len(rows)
	switch {
	case ix.maps == nil:
		if why != nil {
			*why = "no vocabulary to read descriptions with"
		}
		return false
	case n < minHeadlessRows:
		if why != nil {
			*why = fmt.Sprintf("%d rows, fewer than %d", n, minHeadlessRows)
		}
		return false
	case float64(sigs) < headlessMapped*float64(n):
		if why != nil {
			*why = fmt.Sprintf("%d of %d glyphs distinct, fewer than %.0f %%", sigs, n, 100*headlessMapped)
		}
		return false
	}
	var em float64
	cx := make([]float64, 0, n)
	lx := make([]float64, 0, n)
	sizes := make([]float64, 0, n)
	ys := make([]float64, 0, n)
	for _, k := range kept {
		b := col[k].glyph.box
		em += col[k].em / float64(n)
		cx = append(cx, b.centre().X)
		lx = append(lx, b.Min.X)
		sizes = append(sizes, math.Max(b.w(), b.h()))
		ys = append(ys, b.centre().Y)
	}
	if spreadOf(cx) > headlessAlignEm*em && spreadOf(lx) > headlessAlignEm*em {
		if why != nil {
			*why = fmt.Sprintf("glyph centres and left edges spread over more than %.1f em", headlessAlignEm)
		}
		return false
	}
	if lo, hi := slices.Min(sizes), slices.Max(sizes); hi > headlessSizeRatio*lo {
		if why != nil {
			*why = fmt.Sprintf("glyph sizes differ %.1f×, more than %.1f×", hi/lo, headlessSizeRatio)
		}
		return false
	}
	pitches := make([]float64, 0, n-1)
	for i := 1; i < n; i++ {
		pitches = append(pitches, ys[i]-ys[i-1])
	}
	med := quantile(pitches, 0.5)
	for _, p := range pitches {
		if p > headlessPitchRatio*med || p*headlessPitchRatio < med {
			if why != nil {
				*why = fmt.Sprintf("uneven rows: a pitch of %.0f px against a median of %.0f px (within %.1f× needed)", p, med, headlessPitchRatio)
			}
			return false
		}
	}
	mapped := 0
	for _, r := range rows {
		if ix.maps(r.Description + " " + r.GlyphText + " " + strings.Join(r.Tags, " ")) {
			mapped++
		}
	}
	if float64(mapped) < headlessMapped*float64(n) {
		if why != nil {
			*why = fmt.Sprintf("%d of %d descriptions name a class (%.0f %% needed)", mapped, n, 100*headlessMapped)
		}
		return false
	}
	return true
}

// spreadOf is the largest distance of a value from the median.
func spreadOf(v []float64) float64 {
	m := quantile(v, 0.5)
	d := 0.0
	for _, x := range v {
		d = math.Max(d, math.Abs(x-m))
	}
	return d
}

// describedStack reports whether the page writes a stack of descriptions
// that could be a legend without header words: at least minHeadlessRows
// upright runs starting at one x (within headlessAlignEm em), each within
// maxPitchEm em of the next, most of them naming a class. Pages without
// one are not indexed for headless legends.
func describedStack(rs []run, maps func(string) bool) bool {
	var idx []int
	for i := range rs {
		if rs[i].upright() && rs[i].letters() >= 3 {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return rs[idx[a]].min.X < rs[idx[b]].min.X })
	for a := 0; a < len(idx); {
		b := a + 1
		for b < len(idx) && rs[idx[b]].min.X-rs[idx[b-1]].min.X <= headlessAlignEm*rs[idx[b]].size {
			b++
		}
		if b-a >= minHeadlessRows && stackMapped(rs, idx[a:b], maps) {
			return true
		}
		a = b
	}
	return false
}

// stackMapped: some vertical run of at least minHeadlessRows of the
// aligned runs idx lies at a row pitch, most of them naming a class.
func stackMapped(rs []run, idx []int, maps func(string) bool) bool {
	col := append([]int(nil), idx...)
	sort.Slice(col, func(a, b int) bool { return rs[col[a]].min.Y < rs[col[b]].min.Y })
	for a := 0; a < len(col); {
		b := a + 1
		for b < len(col) && rs[col[b]].min.Y-rs[col[b-1]].min.Y <= maxPitchEm*rs[col[b]].size {
			b++
		}
		if b-a >= minHeadlessRows {
			mapped := 0
			for _, i := range col[a:b] {
				if maps(rs[i].text) {
					mapped++
				}
			}
			if float64(mapped) >= headlessMapped*float64(minHeadlessRows) {
				return true
			}
		}
		a = b
	}
	return false
}

// rowCap bounds a row of text above and below: halfway to the nearest
// text above or below it, over the row and the reach of its glyph, at
// least rowCapEm em away (a description's own wrapped line is nearer).
type rowCap struct{ top, bottom float64 }

const rowCapEm = 2.0

// capSlackEm is how far past its row's cap a glyph may reach.
const capSlackEm = 0.25

func rowCaps(rs []run) []rowCap {
	caps := make([]rowCap, len(rs))
	order := make([]int, len(rs))
	cy := make([]float64, len(rs))
	for i := range rs {
		order[i] = i
		cy[i] = (rs[i].min.Y + rs[i].max.Y) / 2
		caps[i] = rowCap{math.Inf(-1), math.Inf(1)}
	}
	sort.Slice(order, func(a, b int) bool { return cy[order[a]] < cy[order[b]] })
	// nearest finds, from position p in order going by step, the first
	// upright run over [x0, x1] at least near and at most far away.
	nearest := func(p, step int, x0, x1, near, far float64) (float64, bool) {
		i := order[p]
		for q := p + step; q >= 0 && q < len(order); q += step {
			j := order[q]
			d := math.Abs(cy[j] - cy[i])
			if d > far {
				break
			}
			o := &rs[j]
			if d < near || !o.upright() || o.max.X < x0 || o.min.X > x1 {
				continue
			}
			return (cy[i] + cy[j]) / 2, true
		}
		return 0, false
	}
	for p, i := range order {
		r := &rs[i]
		if !r.upright() {
			continue
		}
		x0, near, far := r.min.X-glyphReach*r.size, rowCapEm*r.size, maxPitchEm*r.size
		if y, ok := nearest(p, 1, x0, r.max.X, near, far); ok {
			caps[i].bottom = y
		}
		if y, ok := nearest(p, -1, x0, r.max.X, near, far); ok {
			caps[i].top = y
		}
	}
	return caps
}
