package synth

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"blueprint/internal/glyph"
)

// A legend set's layout, drawn once per set (KindLegend): where its
// legend stands and which extra sheets it has.
type setLayout struct {
	// titleSheet puts the legend on a sheet of its own, before the
	// plans (US sets: F0), counting the devices of the whole set.
	titleSheet bool
	// riser adds a riser diagram after the plans: the devices drawn
	// again schematically, which a take-off does not count.
	riser bool
	// glyphCase is the glyph case the set draws (legendcases_glyph.go),
	// "" for none, about the device of class glyphClass.
	glyphCase, glyphClass string
	// table is the legend-table case the set draws instead of a plain
	// legend (legendcases_table.go), "" for none.
	table string
}

// page roles of a legend set.
const (
	rolePlan = iota
	roleTitle
	roleRiser
)

func newSetLayout(r *rand.Rand) setLayout {
	l := setLayout{titleSheet: r.Float64() < 0.3, riser: r.Float64() < 0.3}
	l.table = pickTableCase(r)
	return l
}

// legendSheet lays out every page of legend set i: the plans (the first
// one with the legend unless the set has a title sheet), then the title
// sheet put first and the riser last where the set has them.
func (g *Generator) legendSheet(seed uint64, i int, opt Options) ([]*design, error) {
	gk := g.pickGlyphCase(seed, i)
	pages, err := g.sheet(seed, i, opt)
	if err != nil {
		return nil, err
	}
	g.drawGlyphCase(pages, gk, seed, i)
	first := pages[0]
	if g.layout.titleSheet {
		t := &design{g: g, r: rngFor(seed, i, 31), role: roleTitle, counts: map[string]int{}}
		t.paper, t.scaleDen, t.fi = first.paper, first.scaleDen, first.fi
		for _, p := range pages {
			for _, in := range p.insts {
				t.counts[in.class]++
			}
			for _, k := range p.used {
				if !slices.Contains(t.used, k) {
					t.used = append(t.used, k)
				}
			}
		}
		t.finish()
		pages = append([]*design{t}, pages...)
	}
	if g.layout.riser {
		rs := &design{g: g, r: rngFor(seed, i, 32), role: roleRiser, page: len(pages)}
		rs.paper, rs.scaleDen, rs.fi = first.paper, first.scaleDen, first.fi
		rs.finish()
		pages = append(pages, rs)
	}
	for _, p := range pages {
		p.labelBOQCodes()
	}
	return pages, nil
}

// sheetTitle is what the title block calls a page of a legend set other
// than a plan, "" for plans.
func (d *design) sheetTitle() string {
	switch d.role {
	case roleTitle:
		return d.texts("KANSILEHTI", "TITLE SHEET")
	case roleRiser:
		return d.texts("PALOILMOITUS NOUSUKAAVIO", "RISER DIAGRAM")
	}
	return ""
}

// drawSetPage draws a title sheet or riser diagram into the sheet's area.
func (d *design) drawSetPage(area rect) {
	title := d.sheetTitle()
	d.text(title, glyph.Point{X: area.x0 + 4, Y: area.y0 + 10}, 7, 0, alignLeft, black)
	area.y0 += 18
	switch d.role {
	case roleTitle:
		lw := math.Min(area.w(), 120+80*d.r.Float64())
		d.legend = true
		d.drawNovelLegend(rect{area.x0 + 4, area.y0, area.x0 + 4 + lw, area.y1})
	case roleRiser:
		d.riserDiagram(area)
	}
}

// riserDiagram draws each floor as a row of the set's devices hung off a
// vertical trunk: instances of the legend's glyphs that are not recorded
// (a riser repeats the plans' devices).
func (d *design) riserDiagram(area rect) {
	floors := 2 + d.r.IntN(3)
	trunk := area.x0 + 20
	fh := math.Min(40, area.h()/float64(floors+1))
	c := parseHex(d.g.symbols[d.r.IntN(len(d.g.symbols))].Color)
	d.lines(c, 0.35, nil, glyph.Point{X: trunk, Y: area.y0}, glyph.Point{X: trunk, Y: area.y0 + fh*float64(floors)})
	for f := range floors {
		y := area.y0 + fh*float64(f) + fh/2
		d.lines(lightGrey, 0.25, []float64{6, 2}, glyph.Point{X: area.x0, Y: y + fh/2 - 2}, glyph.Point{X: area.x1, Y: y + fh/2 - 2})
		d.text(d.texts(fmt.Sprintf("%d. KERROS", floors-f), fmt.Sprintf("LEVEL %d", floors-f)), glyph.Point{X: area.x0, Y: y + fh/2 - 4}, 2.5, 0, alignLeft, black)
		x := trunk + 15
		d.lines(c, 0.25, nil, glyph.Point{X: trunk, Y: y}, glyph.Point{X: math.Min(area.x1, trunk+15+float64(len(d.pool))*22), Y: y})
		for _, k := range d.pool {
			if x+15 > area.x1 {
				break
			}
			s := d.g.symbols[k]
			lo, hi := s.Glyph.Bounds()
			sc := 6 / math.Max(hi.X-lo.X, hi.Y-lo.Y)
			pl := glyph.Placement{At: glyph.Point{X: x, Y: y - 5}, Scale: sc}
			g, col, w := s.Glyph, d.symColour(k), d.symWidth
			d.op(func(p *pen) error { return p.drawGlyph(g, pl, col, w) })
			d.lines(c, 0.25, nil, glyph.Point{X: x, Y: y - 5 + sc*hi.Y}, glyph.Point{X: x, Y: y})
			d.text(strconv.Itoa(1+d.r.IntN(12)), glyph.Point{X: x + 4, Y: y + 4}, 2, 0, alignLeft, black)
			x += 22
		}
	}
}

// Legend wordings of legend sets: headers and quantity headers as offices
// write them.
var (
	legendTitlesEN = [...]string{"LEGEND", "SYMBOL LEGEND", "FIRE ALARM SYMBOL LEGEND", "ELECTRICAL LEGEND", "KEY", "SYMBOLS"}
	legendTitlesFI = [...]string{"MERKKIEN SELITYKSET", "SELITYKSET", "MERKINNÄT"}
	qtyHeadsEN     = [...]string{"QTY", "QUANTITY", "QTYS"}
)

// drawNovelLegend draws a legend set's legend into r: one group of
// symbol | description | quantity columns, or two side by side, the
// quantity column present or not, long descriptions wrapped. Its glyphs
// are keys, not instances.
func (d *design) drawNovelLegend(r rect) {
	if d.g.layout.table != "" {
		d.drawCaseLegend(r)
		return
	}
	rows := append([]int(nil), d.used...)
	for _, k := range d.pool {
		if !slices.Contains(rows, k) {
			rows = append(rows, k)
		}
	}
	title := legendTitlesEN[d.r.IntN(len(legendTitlesEN))]
	qtyHead := qtyHeadsEN[d.r.IntN(len(qtyHeadsEN))]
	if d.fi {
		title, qtyHead = legendTitlesFI[d.r.IntN(len(legendTitlesFI))], "KPL"
	}
	qty := d.chance(0.5)
	groups := 1
	if len(rows) >= 6 && r.w() >= 150 && d.chance(0.5) {
		groups = 2
	}
	// A legend without header words (no title, no column heads, no
	// quantities), ruled or not: found by its shape alone. It keeps its
	// rows in one column, at least four of them.
	headless := len(rows) >= 4 && d.chance(0.25)
	ruled := true
	if headless {
		qty, groups, ruled = false, 1, d.chance(0.5)
	}
	wrapW := math.Inf(1)
	if d.chance(0.4) {
		wrapW = 28 + 10*d.r.Float64()
	}
	rowH, glyphW, qtyW := 7.5, 16.0, 12.0
	per := (len(rows) + groups - 1) / groups
	n := min(per, int(r.h()/rowH)-2)
	if n <= 0 {
		d.legend = false
		return
	}
	gw := r.w() / float64(groups)
	r.y1 = r.y0 + float64(n+2)*rowH
	d.legendBox = r
	d.fillRect(color.RGBA{255, 255, 255, 255}, r)
	if ruled {
		d.box(black, 0.35, r)
	}
	if !headless {
		d.text(title, glyph.Point{X: r.x0 + 2, Y: r.y0 + rowH*0.7}, 2.5, 0, alignLeft, black)
	}
	top := r.y0 + rowH
	if ruled {
		d.lines(black, 0.25, nil, glyph.Point{X: r.x0, Y: top}, glyph.Point{X: r.x1, Y: top})
	}
	for gi := range groups {
		x0 := r.x0 + float64(gi)*gw
		x1 := x0 + gw
		if gi > 0 {
			d.lines(black, 0.35, nil, glyph.Point{X: x0, Y: top}, glyph.Point{X: x0, Y: r.y1})
		}
		y := top
		if !headless {
			d.text(d.texts("MERKKI", "SYMBOL"), glyph.Point{X: x0 + glyphW/2, Y: y + rowH*0.65}, 1.8, 0, alignCenter, black)
			d.text(d.texts("SELITE", "DESCRIPTION"), glyph.Point{X: x0 + glyphW + 2, Y: y + rowH*0.65}, 1.8, 0, alignLeft, black)
		}
		if ruled {
			d.lines(black, 0.25, nil, glyph.Point{X: x0 + glyphW, Y: y}, glyph.Point{X: x0 + glyphW, Y: r.y1})
		}
		qx := x1 - qtyW
		if qty {
			d.lines(black, 0.25, nil, glyph.Point{X: qx, Y: y}, glyph.Point{X: qx, Y: r.y1})
			d.text(qtyHead, glyph.Point{X: qx + qtyW/2, Y: y + rowH*0.65}, 1.8, 0, alignCenter, black)
		}
		lo := min(gi*per, len(rows))
		for _, k := range rows[lo:min(lo+n, len(rows))] {
			y += rowH
			if ruled {
				d.lines(black, 0.18, nil, glyph.Point{X: x0, Y: y}, glyph.Point{X: x1, Y: y})
			}
			d.legendGlyph(k, rect{x0, y, x0 + glyphW, y + rowH})
			s := d.g.symbols[k]
			desc := s.NameEN
			if d.fi {
				desc = s.NameFI
			}
			avail := math.Min(wrapW, x1-x0-glyphW-4)
			if qty {
				avail = math.Min(avail, qx-x0-glyphW-4)
			}
			size, lead := 2.0, 0.0
			lines := d.legendLines(desc, math.Min(wrapW, avail), avail, &size)
			if len(lines) > 1 {
				lead = 1.5 * size
			}
			for li, l := range lines {
				d.text(l, glyph.Point{X: x0 + glyphW + 2, Y: y + rowH*0.65 - lead/2 + float64(li)*lead}, size, 0, alignLeft, black)
			}
			if qty {
				c := d.counts[s.Class]
				if d.counts == nil {
					for _, in := range d.insts {
						if in.class == s.Class {
							c++
						}
					}
				}
				d.text(strconv.Itoa(c), glyph.Point{X: qx + qtyW/2, Y: y + rowH*0.65}, 2, 0, alignCenter, black)
			}
		}
	}
}

// legendLines breaks a description into at most two lines of about wrap
// millimetres (one line where wrap is unbounded) and sets *size, the cap
// height, so that no line is wider than avail.
func (d *design) legendLines(desc string, wrap, avail float64, size *float64) []string {
	width := func(s string) float64 { return d.g.met.width(s, 2) }
	lines := wrapText(desc, wrap, width)
	for len(lines) > 2 {
		wrap *= 1.25
		lines = wrapText(desc, wrap, width)
	}
	if len(lines) > 1 {
		*size = 1.6
	}
	widest := 0.0
	for _, l := range lines {
		widest = math.Max(widest, d.g.met.width(l, *size))
	}
	if widest > avail {
		*size *= avail / widest
	}
	return lines
}

// legendGlyph draws symbol k's glyph centred in a legend's symbol cell,
// as large as the cell allows (at most 1.5 times its size).
func (d *design) legendGlyph(k int, cell rect) {
	s := d.g.symbols[k]
	lo, hi := s.Glyph.Bounds()
	sc := math.Min((cell.h()-1.5)/math.Max(hi.Y-lo.Y, 0.1), (cell.w()-3)/math.Max(hi.X-lo.X, 0.1))
	sc = math.Min(sc, 1.5)
	at := glyph.Point{X: cell.x0 + cell.w()/2 - sc*(lo.X+hi.X)/2, Y: cell.y0 + cell.h()/2 - sc*(lo.Y+hi.Y)/2}
	g, c, w := s.Glyph, d.symColour(k), d.symWidth
	pl := glyph.Placement{At: at, Scale: sc}
	d.op(func(p *pen) error { return p.drawGlyph(g, pl, c, math.Min(w, 0.35)) })
}

// wrapText breaks s into lines no wider than w (a single long word stays
// whole).
func wrapText(s string, w float64, width func(string) float64) []string {
	var out []string
	cur := ""
	for _, f := range strings.Fields(s) {
		next := strings.TrimSpace(cur + " " + f)
		if cur != "" && width(next) > w {
			out = append(out, cur)
			cur = f
			continue
		}
		cur = next
	}
	return append(out, cur)
}
