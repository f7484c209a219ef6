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

// Legend-table cases of issue 35 that a legend set (KindLegend) may draw
// instead of its plain legend; the set's pages and instances carry the
// case's name in the ground truth (Truth pages' Cases, symbols' Case), so
// make eval scores each apart.
const (
	// caseSectioned: a long legend (30 and more rows) at the right edge
	// of an A1 sheet, its rows grouped under section rows spanning the
	// table ("SWITCHES", "POWER SOCKETS", …), descriptions wrapped to two
	// lines, red glyphs (some filled) in a glyph cell about 1 cm wide,
	// ruled cell by cell.
	caseSectioned = "sectioned"
	// caseBOQ: a legend beside bill-of-quantity tables (code,
	// description, quantity, price) whose codes (S1, P2, L3) also label
	// the instances on the plans. A bill of quantities is no legend.
	caseBOQ = "boq"
	// caseMulticolumn: a legend of SYMBOL then DESCRIPTION, PART NUMBER,
	// MODEL, QUANTITY and USER TEXT columns in any order.
	caseMulticolumn = "multicolumn"
)

// tableCaseShare is the share of legend sets drawing each table case.
const tableCaseShare = 0.15

// pickTableCase draws the table case of a legend set, "" for a plain
// legend.
func pickTableCase(r *rand.Rand) string {
	switch x := r.Float64(); {
	case x < tableCaseShare:
		return caseSectioned
	case x < 2*tableCaseShare:
		return caseBOQ
	case x < 3*tableCaseShare:
		return caseMulticolumn
	}
	return ""
}

// tableCasePaper is the paper of a set drawing a table case: A1
// landscape, as the real sheets are.
var tableCasePaper = paper{"A1", 841, 594}

// tableCaseWidth is the width of a table case's legend column (mm).
func tableCaseWidth(c string) float64 {
	switch c {
	case caseBOQ:
		return 250
	case caseMulticolumn:
		return 180
	}
	return 115
}

// caseLegendArea puts a table case's legend at the right edge of area,
// as tall as area, and returns it with the area left for the plan.
func (d *design) caseLegendArea(area rect) (legend, plan rect) {
	w := math.Min(tableCaseWidth(d.g.layout.table), 0.5*area.w())
	legend = rect{area.x1 - w, area.y0, area.x1, area.y1}
	plan = area
	plan.x1 = legend.x0 - 8
	return legend, plan
}

// tagTableCase names the set's table case on every page of its ground
// truth and on every symbol that names no other case.
func (l setLayout) tagTableCase(t *Truth) {
	if l.table == "" {
		return
	}
	for i := range t.Pages {
		p := &t.Pages[i]
		if !slices.Contains(p.Cases, l.table) {
			p.Cases = append(p.Cases, l.table)
		}
		for j := range p.Symbols {
			if p.Symbols[j].Case == "" {
				p.Symbols[j].Case = l.table
			}
		}
	}
}

// drawCaseLegend draws the set's table case into r in place of the plain
// legend.
func (d *design) drawCaseLegend(r rect) {
	if d.role == roleTitle { // a title sheet's legend has the sheet's room
		r.x1 = r.x0 + math.Max(r.w(), tableCaseWidth(d.g.layout.table))
	}
	switch d.g.layout.table {
	case caseSectioned:
		d.sectionedLegend(r)
	case caseBOQ:
		d.boqLegend(r)
	case caseMulticolumn:
		d.multicolumnLegend(r)
	}
}

// legendRowsOf lists the symbols a legend shows: those placed first, then
// the rest of the pool.
func (d *design) legendRowsOf() []int {
	rows := append([]int(nil), d.used...)
	for _, k := range d.pool {
		if !slices.Contains(rows, k) {
			rows = append(rows, k)
		}
	}
	return rows
}

// printedCount is the quantity a legend prints for symbol k: the set's
// count on a title sheet, else the page's own instances.
func (d *design) printedCount(k int) int {
	s := d.g.symbols[k]
	if d.counts != nil {
		return d.counts[s.Class]
	}
	n := 0
	for _, in := range d.insts {
		if in.class == s.Class {
			n++
		}
	}
	return n
}

// caseGlyph draws glyph g centred in a legend cell, as large as the cell
// allows (at most 1.5 times its size), in colour c.
func (d *design) caseGlyph(g glyph.Glyph, cell rect, c color.RGBA) {
	lo, hi := g.Bounds()
	sc := math.Min((cell.h()-1.5)/math.Max(hi.Y-lo.Y, 0.1), (cell.w()-3)/math.Max(hi.X-lo.X, 0.1))
	sc = math.Min(sc, 1.5)
	at := glyph.Point{X: cell.x0 + cell.w()/2 - sc*(lo.X+hi.X)/2, Y: cell.y0 + cell.h()/2 - sc*(lo.Y+hi.Y)/2}
	pl := glyph.Placement{At: at, Scale: sc}
	w := math.Min(d.symWidth, 0.35)
	d.op(func(p *pen) error { return p.drawGlyph(g, pl, c, w) })
}

// cellText writes lines of text in a cell starting at x, vertically
// centred on the cell's middle.
func (d *design) cellText(lines []string, x float64, cell rect, size float64, align float64) {
	lead := 1.5 * size
	y := (cell.y0+cell.y1)/2 + size/2 - lead*float64(len(lines)-1)/2
	for i, l := range lines {
		d.text(l, glyph.Point{X: x, Y: y + float64(i)*lead}, size, 0, align, black)
	}
}

// sectionOf names the section of a legend a device of category cat is
// listed under.
func sectionOf(cat string) int {
	switch cat {
	case "switches":
		return 0
	case "sockets":
		return 1
	case "lighting", "emergency":
		return 2
	case "telecom":
		return 4
	case "detectors", "call_points", "alarm_devices", "panels", "interfaces":
		return 5
	}
	return 3
}

var sectionTitles = [...]string{"SWITCHES", "POWER SOCKETS", "LIGHTS", "MISCELLANEOUS ELECTRICAL", "TELEKOMS AND DATA", "FIRE DETECTION"}

// sectionFillers are rows a sectioned legend lists besides the set's
// devices (devices the plans do not draw, or that no class names), per
// section.
var sectionFillers = [...][]string{
	{"Day/night switch", "Dimmer switch 500W @ 1200mm above FFL.", "Fan speed controller", "Door bell push", "Geyser timer switch @ 1500mm above FFL.", "Key switch for gate motor"},
	{"Dedicated socket for server rack @ 300mm above FFL.", "Stove connection unit", "Floor box with 2 sockets and 1 data point", "Power skirting, 3 compartment", "Hand dryer supply point", "Socket for fridge @ 1100mm above FFL."},
	{"Bulkhead light IP65", "Pole light 3m, galvanised", "Garden spike light", "Pendant light over counter", "Track light, 3 heads", "Wall washer LED 12W", "Heat lamp for bathroom"},
	{"Hydroboil", "Air Conditioning Unit", "Extractor fan", "Geyser 150 l", "Electric gate motor", "Borehole pump", "Solar inverter 5 kVA", "Ceiling fan"},
	{"TV point", "Telephone point", "Wi-Fi access point", "CCTV camera", "Access control card reader", "Intercom handset"},
	{"Beam detector transmitter", "Fire damper", "Door holder, magnetic", "Sprinkler flow switch"},
}

// wallSuffixes are the mounting heights sectioned legends write after a
// wall device's description.
var wallSuffixes = [...]string{" @ 300mm above FFL.", " @ 1100mm above FFL.", " @ 1200mm above FFL.", ""}

// fillerGlyph draws a filler row's glyph: a box or a circle with a
// three-character code inside, which no device of the set draws (theirs
// hold at most two).
func fillerGlyph(r *rand.Rand, desc string) glyph.Glyph {
	code := ""
	for _, f := range strings.Fields(strings.Map(func(c rune) rune {
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == ' ' {
			return c
		}
		return ' '
	}, desc)) {
		if len(code) < 2 {
			code += strings.ToUpper(f[:1])
		}
	}
	for len(code) < 2 {
		code += "X"
	}
	code += strconv.Itoa(1 + r.IntN(9))
	var g glyph.Glyph
	if r.IntN(2) == 0 {
		g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindRect, Pts: []glyph.Point{{X: -3, Y: -2}, {X: 3, Y: 2}}})
	} else {
		g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: 2.8})
	}
	g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindText, Text: code, Pts: []glyph.Point{{X: 0, Y: 0.7}}, Size: 1.6})
	return g
}

// sectionedRow is one row of a sectioned legend: a device of the set
// (k >= 0) or a filler.
type sectionedRow struct {
	k    int
	desc string
	g    glyph.Glyph
}

// sectionedLegend draws a long legend under a LEGEND header: rows grouped
// under section rows spanning the table, 30 and more of them, wrapped
// descriptions, red glyphs in a glyph cell about 1 cm wide, the table
// ruled cell by cell; sometimes a quantity column.
func (d *design) sectionedLegend(r rect) {
	red := color.RGBA{220, 0, 0, 255}
	sections := make([][]sectionedRow, len(sectionTitles))
	for _, k := range d.legendRowsOf() {
		s := d.g.symbols[k]
		desc := s.NameEN
		if d.mountOf(k) == mountWall && d.chance(0.6) {
			desc = strings.TrimSuffix(desc, ".") + wallSuffixes[d.r.IntN(len(wallSuffixes))]
		}
		sec := sectionOf(s.Category)
		sections[sec] = append(sections[sec], sectionedRow{k: k, desc: desc, g: s.Glyph})
	}
	total := 0
	for _, s := range sections {
		total += len(s)
	}
	target := 30 + d.r.IntN(7)
	for total < target {
		sec := d.r.IntN(len(sections))
		pool := sectionFillers[sec]
		desc := pool[d.r.IntN(len(pool))]
		dup := false
		for _, row := range sections[sec] {
			dup = dup || row.desc == desc
		}
		if dup {
			continue
		}
		// Fillers go among the devices, not only after them.
		at := d.r.IntN(len(sections[sec]) + 1)
		sections[sec] = slices.Insert(sections[sec], at, sectionedRow{k: -1, desc: desc, g: fillerGlyph(d.r, desc)})
		total++
	}
	nSec := 0
	for _, s := range sections {
		if len(s) > 0 {
			nSec++
		}
	}
	glyphW, size := 10.0, 1.6
	rowH := math.Min(6.5, r.h()/float64(total+nSec+2))
	qty := d.chance(0.4)
	qtyW := 12.0
	r.y1 = r.y0 + float64(total+nSec+2)*rowH
	d.legendBox = r
	d.fillRect(color.RGBA{255, 255, 255, 255}, r)
	d.box(black, 0.35, r)
	d.text("LEGEND", glyph.Point{X: r.x0 + 2, Y: r.y0 + rowH*0.7}, 2.5, 0, alignLeft, black)
	y := r.y0 + rowH
	d.lines(black, 0.25, nil, glyph.Point{X: r.x0, Y: y}, glyph.Point{X: r.x1, Y: y})
	descX := r.x0 + glyphW + 2
	qx := r.x1 - qtyW
	if d.chance(0.5) || qty {
		d.text("SYMBOL", glyph.Point{X: r.x0 + glyphW/2, Y: y + rowH*0.65}, size, 0, alignCenter, black)
		d.text("DESCRIPTION", glyph.Point{X: descX, Y: y + rowH*0.65}, size, 0, alignLeft, black)
		if qty {
			d.text("QTY", glyph.Point{X: qx + qtyW/2, Y: y + rowH*0.65}, size, 0, alignCenter, black)
		}
	}
	y += rowH
	d.lines(black, 0.25, nil, glyph.Point{X: r.x0, Y: y}, glyph.Point{X: r.x1, Y: y})
	wrap := 30 + 8*d.r.Float64()
	avail := r.x1 - descX - 2
	if qty {
		avail = qx - descX - 2
	}
	centred := d.chance(0.5)
	for si, rows := range sections {
		if len(rows) == 0 {
			continue
		}
		// The section row spans the table: no cell rules inside it.
		cell := rect{r.x0, y, r.x1, y + rowH}
		if centred {
			d.cellText([]string{sectionTitles[si]}, (r.x0+r.x1)/2, cell, 1.8, alignCenter)
		} else {
			d.cellText([]string{sectionTitles[si]}, r.x0+2, cell, 1.8, alignLeft)
		}
		y += rowH
		d.lines(black, 0.18, nil, glyph.Point{X: r.x0, Y: y}, glyph.Point{X: r.x1, Y: y})
		for _, row := range rows {
			cell := rect{r.x0, y, r.x1, y + rowH}
			// Cell by cell: the glyph cell's and the quantity cell's
			// sides are drawn per row.
			d.lines(black, 0.18, nil, glyph.Point{X: r.x0 + glyphW, Y: y}, glyph.Point{X: r.x0 + glyphW, Y: y + rowH})
			if qty {
				d.lines(black, 0.18, nil, glyph.Point{X: qx, Y: y}, glyph.Point{X: qx, Y: y + rowH})
			}
			// Red, as the real sheet, unless two devices differ only
			// by their colours (colourTwins): then each keeps its own.
			c := red
			if d.g.colourKeyed && row.k >= 0 {
				c = d.symColour(row.k)
			}
			d.caseGlyph(row.g, rect{r.x0, y, r.x0 + glyphW, y + rowH}, c)
			sz := size
			lines := d.legendLines(row.desc, wrap, avail, &sz)
			d.cellText(lines, descX, cell, sz, alignLeft)
			if qty && row.k >= 0 {
				d.cellText([]string{strconv.Itoa(d.printedCount(row.k))}, qx+qtyW/2, cell, size, alignCenter)
			}
			y += rowH
			d.lines(black, 0.18, nil, glyph.Point{X: r.x0, Y: y}, glyph.Point{X: r.x1, Y: y})
		}
	}
}

// boqCode is the code a bill of quantities gives a device of category
// cat, n-th of its letter.
func boqCode(cat string, n int) string {
	letter := "M"
	switch sectionOf(cat) {
	case 0:
		letter = "S"
	case 1:
		letter = "P"
	case 2:
		letter = "L"
	case 4:
		letter = "D"
	case 5:
		letter = "F"
	}
	return letter + strconv.Itoa(n)
}

// boqCodes gives each device of the set its bill-of-quantities code.
func (g *Generator) boqCodes() map[string]string {
	codes := map[string]string{}
	per := map[string]int{}
	for _, s := range g.symbols {
		if _, ok := codes[s.Class]; ok {
			continue
		}
		c := boqCode(s.Category, 1)
		per[c[:1]]++
		codes[s.Class] = c[:1] + strconv.Itoa(per[c[:1]])
	}
	return codes
}

// boqLegend draws a plain legend at the right of r and, beside it, one
// or two bill-of-quantity tables (code, description, quantity, price),
// their cells ruled one by one or by long lines.
func (d *design) boqLegend(r rect) {
	legendW := 100.0
	lr := rect{r.x1 - legendW, r.y0, r.x1, r.y1}
	br := rect{r.x0, r.y0, lr.x0 - 6, r.y1}
	if d.chance(0.5) { // the bill of quantities right of the legend
		lr = rect{r.x0, r.y0, r.x0 + legendW, r.y1}
		br = rect{lr.x1 + 6, r.y0, r.x1, r.y1}
	}
	lr.y1 = lr.y0 + math.Min(lr.h(), float64(len(d.pool)+4)*7.5)
	d.drawPlainLegend(lr)
	codes := d.g.boqCodes()
	rows := d.legendRowsOf()
	tables := 1
	if len(rows) >= 4 && d.chance(0.5) {
		tables = 2
	}
	cellRuled := d.chance(0.5)
	per := (len(rows) + tables - 1) / tables
	y := br.y0
	titles := [...]string{"BUILDING 1: LIGHTS, SWITCHES AND PLUGS", "BUILDING 2: POWER AND DATA", "BILL OF QUANTITIES", "SCHEDULE OF QUANTITIES"}
	price := [...]string{"PRICE", "UNIT PRICE", "RATE"}[d.r.IntN(3)]
	for t := range tables {
		part := rows[t*per : min((t+1)*per, len(rows))]
		if len(part) == 0 {
			continue
		}
		rowH := 6.5
		codeW, qtyW, priceW := 12.0, 12.0, 20.0
		descW := br.w() - codeW - qtyW - priceW
		xs := []float64{br.x0, br.x0 + codeW, br.x0 + codeW + descW, br.x0 + codeW + descW + qtyW, br.x1}
		d.text(titles[(t+d.r.IntN(2))%len(titles)], glyph.Point{X: br.x0, Y: y + 4}, 2.2, 0, alignLeft, black)
		y += 6
		top := y
		heads := []string{"CODE", "DESCRIPTION", "QTY", price}
		lines := [][]string{heads}
		for _, k := range part {
			s := d.g.symbols[k]
			lines = append(lines, []string{codes[s.Class], s.NameEN, strconv.Itoa(d.printedCount(k)), fmt.Sprintf("R %d.00", 40+d.r.IntN(900))})
		}
		for _, cells := range lines {
			for c, txt := range cells {
				cell := rect{xs[c], y, xs[c+1], y + rowH}
				if cellRuled {
					d.box(black, 0.18, cell)
				}
				x, align := cell.x0+1.5, alignLeft
				if c != 1 {
					x, align = (cell.x0+cell.x1)/2, alignCenter
				}
				d.cellText([]string{txt}, x, cell, 1.8, align)
			}
			y += rowH
		}
		if !cellRuled {
			for yy := top; yy <= y+0.01; yy += rowH {
				d.lines(black, 0.18, nil, glyph.Point{X: br.x0, Y: yy}, glyph.Point{X: br.x1, Y: yy})
			}
			for _, x := range xs {
				d.lines(black, 0.18, nil, glyph.Point{X: x, Y: top}, glyph.Point{X: x, Y: y})
			}
		}
		y += 8
	}
}

// drawPlainLegend draws a legend of the set's devices in r: LEGEND,
// SYMBOL and DESCRIPTION heads, sometimes a quantity column.
func (d *design) drawPlainLegend(r rect) {
	rows := d.legendRowsOf()
	rowH, glyphW, qtyW := 7.5, 16.0, 12.0
	n := min(len(rows), int(r.h()/rowH)-2)
	if n <= 0 {
		return
	}
	r.y1 = r.y0 + float64(n+2)*rowH
	d.legendBox = r
	d.fillRect(color.RGBA{255, 255, 255, 255}, r)
	d.box(black, 0.35, r)
	d.text("LEGEND", glyph.Point{X: r.x0 + 2, Y: r.y0 + rowH*0.7}, 2.5, 0, alignLeft, black)
	y := r.y0 + rowH
	d.lines(black, 0.25, nil, glyph.Point{X: r.x0, Y: y}, glyph.Point{X: r.x1, Y: y})
	d.text("SYMBOL", glyph.Point{X: r.x0 + glyphW/2, Y: y + rowH*0.65}, 1.8, 0, alignCenter, black)
	d.text("DESCRIPTION", glyph.Point{X: r.x0 + glyphW + 2, Y: y + rowH*0.65}, 1.8, 0, alignLeft, black)
	d.lines(black, 0.25, nil, glyph.Point{X: r.x0 + glyphW, Y: y}, glyph.Point{X: r.x0 + glyphW, Y: r.y1})
	qty := d.chance(0.5)
	qx := r.x1 - qtyW
	if qty {
		d.lines(black, 0.25, nil, glyph.Point{X: qx, Y: y}, glyph.Point{X: qx, Y: r.y1})
		d.text("QTY", glyph.Point{X: qx + qtyW/2, Y: y + rowH*0.65}, 1.8, 0, alignCenter, black)
	}
	for _, k := range rows[:n] {
		y += rowH
		d.lines(black, 0.18, nil, glyph.Point{X: r.x0, Y: y}, glyph.Point{X: r.x1, Y: y})
		d.legendGlyph(k, rect{r.x0, y, r.x0 + glyphW, y + rowH})
		avail := r.x1 - r.x0 - glyphW - 4
		if qty {
			avail = qx - r.x0 - glyphW - 4
		}
		size := 2.0
		lines := d.legendLines(d.g.symbols[k].NameEN, avail, avail, &size)
		d.cellText(lines, r.x0+glyphW+2, rect{r.x0, y, r.x1, y + rowH}, size, alignLeft)
		if qty {
			d.cellText([]string{strconv.Itoa(d.printedCount(k))}, qx+qtyW/2, rect{r.x0, y, r.x1, y + rowH}, 2, alignCenter)
		}
	}
}

// labelBOQCodes writes each instance's bill-of-quantities code beside it
// on a plan page of a set drawing the BOQ case.
func (d *design) labelBOQCodes() {
	if d.g.layout.table != caseBOQ || d.role != rolePlan {
		return
	}
	codes := d.g.boqCodes()
	for _, in := range d.insts {
		lo, hi := boundsOf(in.pts)
		at := glyph.Point{X: hi.X + 0.8, Y: (lo.Y+hi.Y)/2 + 0.9}
		d.text(codes[in.class], at, 1.8, 0, alignLeft, black)
	}
}

// Multi-column legend columns after SYMBOL, in any order.
const (
	mcDescription = iota
	mcPart
	mcModel
	mcQuantity
	mcUserText
)

var (
	mcHeads     = [...]string{"DESCRIPTION", "PART NUMBER", "MODEL", "QUANTITY", "USER TEXT"}
	mcHeadsAlt  = [...]string{"DESCRIPTION", "PART NO.", "MODEL", "QTY", "REMARKS"}
	mcWidths    = [...]float64{52, 28, 32, 18, 30}
	mcModels    = [...]string{"SpectrAlert Advance", "TrueAlarm Photo", "Notifier FST-951", "Simplex 4100ES", "EST Genesis", "System Sensor L-Series", "Edwards SIGA", "Hochiki ALN", "Legrand Arteor", "Schneider Lexcom"}
	mcUserTexts = [...]string{"CEILING", "WALL 80\" AFF", "SEE NOTE 4", "", "", "BY OTHERS", "FLUSH"}
)

// partNumber makes a part number as manufacturers print them:
// "4098-9714", "P2RK-W", "SD355".
func partNumber(r *rand.Rand) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("%04d-%04d", 1000+r.IntN(9000), r.IntN(10000))
	case 1:
		return fmt.Sprintf("%c%d%c%c-%c", 'A'+rune(r.IntN(26)), 1+r.IntN(9), 'A'+rune(r.IntN(26)), 'A'+rune(r.IntN(26)), 'A'+rune(r.IntN(26)))
	}
	return fmt.Sprintf("%c%c%d", 'A'+rune(r.IntN(26)), 'A'+rune(r.IntN(26)), 100+r.IntN(900))
}

// multicolumnLegend draws a legend whose columns after SYMBOL are
// DESCRIPTION, PART NUMBER, MODEL, QUANTITY and USER TEXT in a random
// order, every row filled but some user texts.
func (d *design) multicolumnLegend(r rect) {
	order := []int{mcDescription, mcPart, mcModel, mcQuantity, mcUserText}
	d.r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	heads := mcHeads
	if d.chance(0.4) {
		heads = mcHeadsAlt
	}
	rows := d.legendRowsOf()
	rowH, glyphW := 7.5, 18.0
	width := glyphW
	for _, c := range order {
		width += mcWidths[c]
	}
	if r.w() > width {
		r.x0 = r.x1 - width
	}
	k := width / r.w() // shrink the columns to the room there is
	if k < 1 {
		k = 1
	}
	n := min(len(rows), int(r.h()/rowH)-2)
	if n <= 0 {
		return
	}
	r.y1 = r.y0 + float64(n+2)*rowH
	d.legendBox = r
	d.fillRect(color.RGBA{255, 255, 255, 255}, r)
	d.box(black, 0.35, r)
	title := [...]string{"FIRE ALARM SYMBOL LEGEND", "SYMBOL LEGEND", "LEGEND"}[d.r.IntN(3)]
	d.text(title, glyph.Point{X: r.x0 + 2, Y: r.y0 + rowH*0.7}, 2.5, 0, alignLeft, black)
	y := r.y0 + rowH
	xs := []float64{r.x0, r.x0 + glyphW/k}
	for _, c := range order {
		xs = append(xs, xs[len(xs)-1]+mcWidths[c]/k)
	}
	for _, x := range xs[1 : len(xs)-1] {
		d.lines(black, 0.25, nil, glyph.Point{X: x, Y: y}, glyph.Point{X: x, Y: r.y1})
	}
	head := rect{r.x0, y, r.x1, y + rowH}
	d.cellText([]string{"SYMBOL"}, (xs[0]+xs[1])/2, head, 1.8, alignCenter)
	for i, c := range order {
		d.cellText([]string{heads[c]}, xs[i+1]+1.5, head, 1.8, alignLeft)
	}
	y += rowH
	d.lines(black, 0.25, nil, glyph.Point{X: r.x0, Y: y}, glyph.Point{X: r.x1, Y: y})
	for _, kk := range rows[:n] {
		s := d.g.symbols[kk]
		cell := rect{r.x0, y, r.x1, y + rowH}
		d.legendGlyph(kk, rect{xs[0], y, xs[1], y + rowH})
		for i, c := range order {
			x0, x1 := xs[i+1], xs[i+2]
			var txt string
			switch c {
			case mcDescription:
				txt = s.NameEN
			case mcPart:
				txt = partNumber(d.r)
			case mcModel:
				txt = mcModels[d.r.IntN(len(mcModels))]
			case mcQuantity:
				txt = strconv.Itoa(d.printedCount(kk))
			case mcUserText:
				txt = mcUserTexts[d.r.IntN(len(mcUserTexts))]
			}
			if txt == "" {
				continue
			}
			size := 1.8
			lines := d.legendLines(txt, x1-x0-3, x1-x0-3, &size)
			d.cellText(lines, x0+1.5, cell, size, alignLeft)
		}
		y += rowH
		d.lines(black, 0.18, nil, glyph.Point{X: r.x0, Y: y}, glyph.Point{X: r.x1, Y: y})
	}
}
