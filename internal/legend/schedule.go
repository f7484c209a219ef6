package legend

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"blueprint/internal/drawing"
	"blueprint/internal/unionfind"
)

// Where a row comes from (Row.Source): a legend draws a glyph per row; a
// schedule (a bill of quantities, a fixture or device schedule) gives
// each product a code that the plans write beside its symbols.
const (
	SourceLegend   = "legend"
	SourceSchedule = "schedule"
)

// Schedule is one schedule table read on a page: its extent (title
// included), its title, the scope its title names ("BUILDING 2"; "" for
// none) and its rows, as indexes into Document.Rows.
type Schedule struct {
	Page  int
	Box   Rect
	Title string
	Scope string
	Rows  []int
}

// leadCodeRe splits a schedule cell that starts with its code: "S1-1 Lever
// Switch", "P3- workstation", "P5-CEE 63A 5 Pin", "L12". A code, the shape
// of a product code a schedule gives and a plan writes beside a symbol,
// is one to three capitals, one to three digits and at most one capital
// after them (S1, P5, L12, ES1, DM2A). Letters alone are too common on a
// sheet (grid labels, room letters, revisions) to be taken for tags
// without a schedule column head saying so.
var leadCodeRe = regexp.MustCompile(`^([A-Z]{1,3}[0-9]{1,3}[A-Z]?)(?:\s*[-–:)]\s*|\s+|$)(.*)$`)

// qtyPriceRe reads a quantity written against its price where no cell
// border parts them in the text ("14R50.00/unit", "3 $1,200.00"): the
// integer before a currency amount.
var qtyPriceRe = regexp.MustCompile(`^(\d{1,5})\s*(?:[A-Z]{1,3}|[$€£¥])?\s?\d[\d ,]*[.,]\d\d\b`)

// quantityOf reads a printed quantity cell: an integer alone, or one
// written against its price.
func quantityOf(text string) (int, bool) {
	m := intRe.FindStringSubmatch(text)
	if m == nil {
		m = qtyPriceRe.FindStringSubmatch(text)
	}
	if m == nil {
		return 0, false
	}
	v, err := strconv.Atoi(m[1])
	return v, err == nil
}

// Schedule reading parameters, in em sizes of the row's text.
const (
	// descReachEm: a code written alone in its cell has its description
	// starting at most this far right of it (a picture cell between).
	descReachEm = 15.0
	// descBandEm: the description's line nearest the code lies within
	// this of the code's middle.
	descBandEm = 1.2
	// wrapGapEm: lines of one wrapped description follow each other
	// within this.
	wrapGapEm = 1.8
	// scheduleGapEm: rows of one schedule follow each other within this
	// (rows holding a product picture are tall).
	scheduleGapEm = 10.0
	// titleReachEm: a schedule's title stands at most this far above its
	// first row.
	titleReachEm = 4.0
	// scopeReachEm: the title naming a schedule's scope stands at most
	// this far above its first row.
	scopeReachEm = 12.0
	// minScheduleRows is the fewest rows a schedule has.
	minScheduleRows = 2
)

// scheduleWords head a schedule or its code and quantity columns: a
// table under one of them that lists codes is a schedule even without
// printed quantities.
var scheduleWords = []string{"SCHEDULE", "BILL OF QUANTITIES", "BOQ", "BILL OF MATERIALS", "BILL OF MATERIAL",
	"MARK", "TYPE", "CODE", "TAG", "QTY", "QTYS", "QUANTITY", "FIXTURE", "LUMINAIRE SCHEDULE", "DEVICE SCHEDULE"}

// scopeRe finds the scope a schedule's title names: a building, block,
// level, floor, unit, wing, zone, phase or tower and its name.
var scopeRe = regexp.MustCompile(`\b(BUILDING|BLDG|BLOCK|LEVEL|FLOOR|UNIT|WING|ZONE|PHASE|TOWER|HOUSE)\s*[-:.]?\s*([A-Z0-9]{1,4})\b`)

// scheduleRow is a row being read: its code run, the runs of its
// description, its quantity run (-1 for none) and its extent.
type scheduleRow struct {
	code  string
	codeR int
	lines []int
	qty   int
	box   Rect
	em    float64
}

// readSchedules reads the schedule tables of a page whose text runs are
// rs: rows that start with a code (codeRe), in their own cell or at the
// start of their description, with a description of words and, where
// printed, a quantity right of it; rows close below one another form a
// table. A table is taken as a schedule where it lists at least
// minScheduleRows rows with mostly distinct codes and shows it is one:
// most rows print a quantity, or schedule words head it, or the page
// writes its codes elsewhere (tags beside the plan's symbols). Text inside
// the page's legend tables (skip) is never a schedule's. Rows come with
// Source "schedule", their Code, description and quantity; the rows of
// the returned schedules index into the returned rows.
func readSchedules(pg *drawing.Page, rs []run, page int, skip []Rect) ([]Schedule, []Row) {
	rs = splitAtBorders(pg, rs)
	inSkip := func(r *run) bool {
		for _, b := range skip {
			if b.Contains(r.centre()) {
				return true
			}
		}
		return false
	}
	var starts []int
	for i := range rs {
		r := &rs[i]
		if r.upright() && !inSkip(r) && leadCodeRe.MatchString(r.text) {
			starts = append(starts, i)
		}
	}
	if len(starts) < minScheduleRows {
		return nil, nil
	}
	rules := horizontalRules(pg)
	isStart := map[int]bool{}
	for _, i := range starts {
		isStart[i] = true
	}
	var rows []scheduleRow
	for _, i := range starts {
		if r, ok := readScheduleRow(rs, i, isStart, rules, inSkip); ok {
			rows = append(rows, r)
		}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].box.Min.Y < rows[b].box.Min.Y })
	var out []Schedule
	var outRows []Row
	for _, g := range scheduleGroups(rows) {
		s, ok := acceptSchedule(rs, g, page)
		if !ok {
			continue
		}
		for _, r := range g {
			s.Rows = append(s.Rows, len(outRows))
			outRows = append(outRows, r.toRow(rs, page))
		}
		out = append(out, s)
	}
	return out, outRows
}

// readScheduleRow reads the row whose code starts run i: its description
// (the rest of the run, or the words right of a code written alone) with
// the lines it wraps onto, and its quantity.
func readScheduleRow(rs []run, i int, isStart map[int]bool, rules []hrule, inSkip func(*run) bool) (scheduleRow, bool) {
	r := &rs[i]
	em := r.size
	m := leadCodeRe.FindStringSubmatch(r.text)
	row := scheduleRow{code: m[1], codeR: i, qty: -1, em: em}
	first := i
	if continuesAbove(rs, i, rules) {
		// A code-like word in a wrapped description ("RPR299", "RJ45 2x4
		// Data Socket" under "Data/ telekoms"), not a row's code.
		return scheduleRow{}, false
	}
	if letterCount(m[2]) < 3 {
		if m[2] != "" {
			return scheduleRow{}, false
		}
		// A code alone in its cell: the description is the nearest words
		// right of it on its line.
		first = -1
		cy := r.centre().Y
		for k := range rs {
			o := &rs[k]
			if k == i || !o.upright() || isStart[k] || inSkip(o) || o.letters() < 3 || o.min.X <= r.max.X ||
				o.min.X > r.max.X+descReachEm*em || math.Abs(o.centre().Y-cy) > descBandEm*em {
				continue
			}
			if first < 0 || o.min.X < rs[first].min.X-0.5*em || (math.Abs(o.min.X-rs[first].min.X) <= 0.5*em && math.Abs(o.centre().Y-cy) < math.Abs(rs[first].centre().Y-cy)) {
				first = k
			}
		}
		if first < 0 {
			return scheduleRow{}, false
		}
	}
	row.lines = wrappedLines(rs, first, isStart, rules, first != i)
	row.box = Rect{r.min, r.max}
	for _, k := range row.lines {
		row.box = row.box.union(Rect{rs[k].min, rs[k].max})
	}
	// The quantity: an integer right of the description's start, in the
	// row's lines, before the next code written on them (a schedule set
	// beside), nearest to the code's line.
	limit := math.Inf(1)
	for k := range isStart {
		o := &rs[k]
		if k != i && o.min.X > r.max.X && o.centre().Y >= row.box.Min.Y && o.centre().Y <= row.box.Max.Y {
			limit = math.Min(limit, o.min.X)
		}
	}
	dx := rs[row.lines[0]].min.X
	best := math.Inf(1)
	for k := range rs {
		o := &rs[k]
		c := o.centre()
		if _, ok := quantityOf(o.text); !o.upright() || !ok || o.min.X <= dx || o.min.X >= limit ||
			c.Y < row.box.Min.Y-0.5*em || c.Y > row.box.Max.Y+0.5*em || inSkip(o) {
			continue
		}
		if d := math.Abs(c.Y - r.centre().Y); d < best {
			row.qty, best = k, d
		}
	}
	if row.qty >= 0 {
		row.box = row.box.union(Rect{rs[row.qty].min, rs[row.qty].max})
	}
	return row, true
}

// continuesAbove reports whether run i continues the text block above it:
// a run starting at its x on the line above, no rule between.
func continuesAbove(rs []run, i int, rules []hrule) bool {
	r := &rs[i]
	for k := range rs {
		o := &rs[k]
		gap := r.min.Y - o.max.Y
		if k != i && o.upright() && math.Abs(o.min.X-r.min.X) < r.size && gap > -0.3*r.size && r.centre().Y-o.centre().Y <= wrapGapEm*r.size &&
			o.centre().Y < r.centre().Y && o.letters() > 0 && !ruleBetween(rules, o, r) {
			return true
		}
	}
	return false
}

// wrappedLines returns run first and the runs starting at its x on the
// lines just below it (and, with up, above it), read top to bottom: a
// wrapped description. A line that starts another row's code, or a table
// rule between two lines, ends it.
func wrappedLines(rs []run, first int, isStart map[int]bool, rules []hrule, up bool) []int {
	d := &rs[first]
	var col []int
	for k := range rs {
		o := &rs[k]
		if o.upright() && math.Abs(o.min.X-d.min.X) < d.size && o.text != "" {
			col = append(col, k)
		}
	}
	sort.Slice(col, func(a, b int) bool { return rs[col[a]].centre().Y < rs[col[b]].centre().Y })
	at := 0
	for p, k := range col {
		if k == first {
			at = p
		}
	}
	next := func(a, b int) bool { // b continues a (b below a)
		ra, rb := &rs[a], &rs[b]
		return !isStart[b] && rb.centre().Y-ra.centre().Y <= wrapGapEm*d.size && rb.centre().Y > ra.centre().Y && !ruleBetween(rules, ra, rb)
	}
	lo, hi := at, at
	for up && lo > 0 && !isStart[col[lo-1]] && next(col[lo-1], col[lo]) {
		lo--
	}
	for hi < len(col)-1 && next(col[hi], col[hi+1]) {
		hi++
	}
	return append([]int(nil), col[lo:hi+1]...)
}

// horizontalRules are the page's horizontal lines at least minRule long,
// sorted by y.
func horizontalRules(pg *drawing.Page) []hrule {
	if pg == nil {
		return nil
	}
	var out []hrule
	for _, s := range pg.Segments {
		if dx, dy := math.Abs(s.B.X-s.A.X), math.Abs(s.B.Y-s.A.Y); dx >= minRule && dy <= 0.02*dx {
			out = append(out, hrule{y: (s.A.Y + s.B.Y) / 2, x0: math.Min(s.A.X, s.B.X), x1: math.Max(s.A.X, s.B.X)})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].y < out[b].y })
	return out
}

// ruleBetween reports whether a horizontal rule runs between run a (above)
// and run b, under the start of both.
func ruleBetween(rules []hrule, a, b *run) bool {
	y0, y1 := a.max.Y, b.min.Y
	if y1 < y0 {
		y0, y1 = a.centre().Y, b.centre().Y
	}
	x := math.Max(a.min.X, b.min.X) + 0.5*a.size
	lo := sort.Search(len(rules), func(i int) bool { return rules[i].y > y0 })
	for _, h := range rules[lo:] {
		if h.y >= y1 {
			break
		}
		if h.x0 <= x && h.x1 >= x && h.x1-h.x0 >= ruleMinEm*a.size {
			return true
		}
	}
	return false
}

// ruleMinEm is the shortest rule, in em, that parts two rows of a table
// (dashes and hatching draw shorter lines).
const ruleMinEm = 2.0

// scheduleGroups chains rows (sorted by top) into tables: a row joins the
// table of a row above it whose extent it overlaps in x (give or take
// descReachEm) within scheduleGapEm below it.
func scheduleGroups(rows []scheduleRow) [][]scheduleRow {
	set := unionfind.New[int](len(rows))
	for b := range rows {
		rb := rows[b]
		for a := range b {
			ra := rows[a]
			reach := descReachEm * rb.em
			if rb.box.Min.Y-ra.box.Max.Y <= scheduleGapEm*rb.em && rb.box.Min.X <= ra.box.Max.X+reach && rb.box.Max.X >= ra.box.Min.X-reach {
				set.Join(b, a)
			}
		}
	}
	var order []int
	groups := map[int][]scheduleRow{}
	for i, r := range rows {
		k := set.Find(i)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := make([][]scheduleRow, 0, len(order))
	for _, k := range order {
		out = append(out, groups[k])
	}
	return out
}

// acceptSchedule checks a table of rows g (see readSchedules) and returns
// it with its extent, title and scope.
func acceptSchedule(rs []run, g []scheduleRow, page int) (Schedule, bool) {
	if len(g) < minScheduleRows {
		return Schedule{}, false
	}
	codes := map[string]bool{}
	withQty := 0
	box := emptyRect()
	em := 0.0
	for _, r := range g {
		codes[r.code] = true
		if r.qty >= 0 {
			withQty++
		}
		box = box.union(r.box)
		em += r.em / float64(len(g))
	}
	if 4*len(codes) < 3*len(g) {
		return Schedule{}, false // one code repeated: a column of tags, not a schedule
	}
	// A table's codes stand in a column: at least half of its rows (two
	// at least) start where another row starts. Tags beside a plan's
	// labels ("P3 12000 BTU", a room number beside its name) stand
	// anywhere.
	aligned := 0
	for a := range g {
		for b := range g {
			if a != b && math.Abs(rs[g[a].codeR].min.X-rs[g[b].codeR].min.X) <= g[a].em {
				aligned++
				break
			}
		}
	}
	if aligned < minScheduleRows || 2*aligned < len(g) {
		return Schedule{}, false
	}
	// The title: the nearest words over the table within titleReachEm of
	// its first row; the heads: schedule words there.
	title, headed := -1, false
	for i := range rs {
		r := &rs[i]
		c := r.centre()
		if !r.upright() || c.Y >= box.Min.Y || c.Y < box.Min.Y-titleReachEm*em || r.max.X < box.Min.X-2*em || r.min.X > box.Max.X+descReachEm*em {
			continue
		}
		if hasWord(r.text, scheduleWords) {
			headed = true
		}
		if r.letters() >= 3 && (title < 0 || c.Y > rs[title].centre().Y) {
			title = i
		}
	}
	if 2*withQty < len(g) && !headed {
		return Schedule{}, false
	}
	s := Schedule{Page: page, Box: box}
	// The table reaches right over its price cells and down its rows'
	// bands: what stands on its rows' lines next to them is the table's.
	for i := range rs {
		r := &rs[i]
		c := r.centre()
		if r.upright() && c.Y >= box.Min.Y && c.Y <= box.Max.Y && r.min.X >= box.Max.X && r.min.X <= box.Max.X+descReachEm*em {
			s.Box = s.Box.union(Rect{r.min, r.max})
		}
	}
	if title >= 0 {
		t := &rs[title]
		s.Title = t.text
		s.Box = s.Box.union(Rect{t.min, t.max})
	}
	// The scope: named by the nearest title over the table that names a
	// building, block, level … (a table's own title may stand above a
	// row of pictures, or name only the kind: "LIGHTS").
	best := math.Inf(1)
	for i := range rs {
		r := &rs[i]
		c := r.centre()
		d := box.Min.Y - c.Y
		if !r.upright() || d <= 0 || d > scopeReachEm*em || r.max.X < box.Min.X-2*em || r.min.X > box.Max.X+descReachEm*em || d >= best {
			continue
		}
		if m := scopeRe.FindStringSubmatch(strings.ToUpper(r.text)); m != nil {
			s.Scope, best = m[1]+" "+m[2], d
			if title < 0 || rs[title].centre().Y > c.Y {
				s.Title = r.text
			}
			s.Box = s.Box.union(Rect{r.min, r.max})
		}
	}
	return s, true
}

// toRow is the legend row of a schedule row.
func (r scheduleRow) toRow(rs []run, page int) Row {
	var parts []string
	m := leadCodeRe.FindStringSubmatch(rs[r.codeR].text)
	for _, k := range r.lines {
		t := rs[k].text
		if k == r.codeR {
			t = m[2]
		}
		if t = strings.TrimSpace(t); t != "" {
			parts = append(parts, t)
		}
	}
	row := Row{Page: page, Description: strings.Join(parts, " "), Code: r.code, Source: SourceSchedule, Box: r.box, GlyphBox: emptyRect()}
	if r.qty >= 0 {
		if v, ok := quantityOf(rs[r.qty].text); ok {
			row.Quantity = &v
		}
	}
	return row
}

// letterCount counts the letters of s.
func letterCount(s string) int {
	n := 0
	for _, c := range s {
		if ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') || c > 127 {
			n++
		}
	}
	return n
}

// splitCodes splits s (no spaces) into codes of the set, all of it or
// nothing: "P2P5P5" is three tags written as one run.
func splitCodes(s string, codes map[string]bool) []string {
	s = strings.ToUpper(s)
	if s == "" {
		return nil
	}
	// Longest codes first; a dead end backs off to a shorter code.
	for n := min(len(s), 5); n >= 2; n-- {
		if !codes[s[:n]] {
			continue
		}
		if n == len(s) {
			return []string{s}
		}
		if rest := splitCodes(s[n:], codes); rest != nil {
			return append([]string{s[:n]}, rest...)
		}
	}
	return nil
}

// splitAtBorders splits the upright runs of rs where a vertical line of
// the drawing (a table's cell border) passes between two of their
// characters: cells set close together ("14" and "R50.00/unit", a
// quantity and its price) are read apart.
func splitAtBorders(pg *drawing.Page, rs []run) []run {
	if pg == nil {
		return rs
	}
	type vline struct{ x, y0, y1 float64 }
	var vs []vline
	for _, sg := range pg.Segments {
		if dx, dy := math.Abs(sg.B.X-sg.A.X), math.Abs(sg.B.Y-sg.A.Y); dy >= minRule && dx <= 0.02*dy {
			vs = append(vs, vline{(sg.A.X + sg.B.X) / 2, math.Min(sg.A.Y, sg.B.Y), math.Max(sg.A.Y, sg.B.Y)})
		}
	}
	if len(vs) == 0 {
		return rs
	}
	sort.Slice(vs, func(a, b int) bool { return vs[a].x < vs[b].x })
	border := func(x0, x1, y0, y1 float64) bool {
		for k := sort.Search(len(vs), func(k int) bool { return vs[k].x >= x0 }); k < len(vs) && vs[k].x <= x1; k++ {
			if vs[k].y0 <= y0 && vs[k].y1 >= y1 {
				return true
			}
		}
		return false
	}
	out := make([]run, 0, len(rs))
	for _, r := range rs {
		if !r.upright() || len(r.chars) < 2 {
			out = append(out, r)
			continue
		}
		// A cell border runs past the text above and below (hatching and
		// dashes drawn through a cell are shorter).
		y0, y1 := r.min.Y-0.25*r.size, r.max.Y+0.25*r.size
		start := 0
		var prevEnd float64 = math.Inf(-1)
		for k, ci := range r.chars {
			ch := pg.Chars[ci]
			blank := strings.TrimSpace(ch.Text) == ""
			if k > start && !blank && !math.IsInf(prevEnd, -1) && border(prevEnd-1, ch.Min.X+1, y0, y1) {
				out = append(out, finishRun(pg, run{size: r.size, angle: r.angle, chars: r.chars[start:k]}))
				start = k
			}
			if !blank {
				prevEnd = ch.Max.X
			}
		}
		out = append(out, finishRun(pg, run{size: r.size, angle: r.angle, chars: r.chars[start:]}))
	}
	return out
}
