package synth

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"strconv"

	"blueprint/internal/glyph"
)

// paper is an ISO sheet size in millimetres, portrait.
type paper struct {
	name string
	w, h float64
}

// papers lists the sizes from small to large, with their draw weights.
var papers = [...]struct {
	p      paper
	weight float64
}{
	{paper{"A4", 210, 297}, 0.25},
	{paper{"A3", 297, 420}, 0.3},
	{paper{"A2", 420, 594}, 0.2},
	{paper{"A1", 594, 841}, 0.15},
	{paper{"A0", 841, 1189}, 0.1},
}

// rect is an axis-aligned rectangle in paper millimetres.
type rect struct{ x0, y0, x1, y1 float64 }

func (r rect) w() float64           { return r.x1 - r.x0 }
func (r rect) h() float64           { return r.y1 - r.y0 }
func (r rect) center() glyph.Point  { return glyph.Point{X: (r.x0 + r.x1) / 2, Y: (r.y0 + r.y1) / 2} }
func (r rect) inset(d float64) rect { return rect{r.x0 + d, r.y0 + d, r.x1 - d, r.y1 - d} }
func (r rect) overlaps(o rect) bool { return r.x0 < o.x1 && o.x0 < r.x1 && r.y0 < o.y1 && o.y0 < r.y1 }

// Colours of the drawing layers.
var (
	black     = color.RGBA{0, 0, 0, 255}
	archGrey  = color.RGBA{70, 70, 70, 255}
	lightGrey = color.RGBA{150, 150, 150, 255}
	hatchGrey = color.RGBA{120, 120, 120, 255}
	furnGrey  = color.RGBA{110, 110, 110, 255}
	// layerColours are typical CAD layer colours for an installation layer.
	layerColours = [...]color.RGBA{{200, 0, 200, 255}, {0, 0, 200, 255}, {200, 0, 0, 255}, {0, 140, 0, 255}, {0, 120, 160, 255}}
)

func parseHex(s string) color.RGBA {
	if len(s) != 7 || s[0] != '#' {
		return black
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return black
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
}

// design is one sheet being laid out: the drawing as a list of pen
// operations, and the symbol instances with their geometry.
type design struct {
	g        *Generator
	r        *rand.Rand
	paper    paper
	scaleDen int
	fi       bool // Finnish texts
	legend   bool
	empty    bool
	page     int // index in the sheet's pages
	role     int // rolePlan, or a legend set's title sheet or riser
	// counts are the devices a title sheet's legend counts (the set's);
	// nil counts the page's own instances.
	counts   map[string]int
	ops      []func(*pen) error
	insts    []instance
	occupied []rect

	// installation style
	symWidth  float64
	symScale  float64
	colorMode int // 0 black, 1 class colour, 2 one layer colour
	layer     color.RGBA
	wireWidth float64
	pool      []int // indexes into g.symbols usable on this sheet
	used      []int // classes placed, in order of first use
	legendBox rect  // where the legend table is drawn, when legend
	planArea  rect  // the area the plan was laid out in (heavy.go hatches it)
	circuit   int
	address   int
}

func (d *design) uni(a, b float64) float64 { return a + (b-a)*d.r.Float64() }
func (d *design) chance(p float64) bool    { return d.r.Float64() < p }

// m converts model metres to paper millimetres at the sheet's scale.
func (d *design) m(metres float64) float64 { return metres * 1000 / float64(d.scaleDen) }

func (d *design) op(f func(*pen) error) { d.ops = append(d.ops, f) }

func (d *design) lines(c color.RGBA, w float64, dash []float64, pts ...glyph.Point) {
	pts = append([]glyph.Point(nil), pts...)
	d.op(func(p *pen) error { p.setStroke(c, w, dash); p.polyline(pts); return nil })
}

func (d *design) box(c color.RGBA, w float64, r rect) {
	d.lines(c, w, nil, glyph.Point{X: r.x0, Y: r.y0}, glyph.Point{X: r.x1, Y: r.y0},
		glyph.Point{X: r.x1, Y: r.y1}, glyph.Point{X: r.x0, Y: r.y1}, glyph.Point{X: r.x0, Y: r.y0})
}

func (d *design) fillRect(c color.RGBA, r rect) {
	d.op(func(p *pen) error {
		p.setFill(c)
		p.rect(glyph.Point{X: r.x0, Y: r.y0}, glyph.Point{X: r.x1, Y: r.y1}, true, false)
		return nil
	})
}

func (d *design) circle(c color.RGBA, w float64, at glyph.Point, r float64, fill bool) {
	d.op(func(p *pen) error {
		p.setStroke(c, w, nil)
		p.setFill(c)
		p.circle(at, r, fill)
		return nil
	})
}

func (d *design) arc(c color.RGBA, w float64, dash []float64, at glyph.Point, r, start, sweep float64) {
	d.op(func(p *pen) error { p.setStroke(c, w, dash); p.arc(at, r, start, sweep); return nil })
}

func (d *design) text(s string, at glyph.Point, capH, angle, align float64, c color.RGBA) {
	d.op(func(p *pen) error { return p.textAt(s, at, capH, angle, align, c) })
}

// design lays out sheet i of the run with seed.
func (g *Generator) design(seed uint64, i int, opt Options) (*design, error) {
	d := &design{g: g, r: rngFor(seed, i, 1)}
	maxIdx := len(papers) - 1
	if opt.MaxPaper != "" {
		maxIdx = -1
		for k, p := range papers {
			if p.p.name == opt.MaxPaper {
				maxIdx = k
			}
		}
		if maxIdx < 0 {
			return nil, fmt.Errorf("synth: unknown paper size %q", opt.MaxPaper)
		}
	}
	var total float64
	for _, p := range papers[:maxIdx+1] {
		total += p.weight
	}
	pick := d.r.Float64() * total
	d.paper = papers[0].p
	for _, p := range papers[:maxIdx+1] {
		if pick < p.weight {
			d.paper = p.p
			break
		}
		pick -= p.weight
	}
	if d.chance(0.85) { // landscape
		d.paper.w, d.paper.h = d.paper.h, d.paper.w
	}
	if g.layout.table != "" {
		d.paper = tableCasePaper
	}
	d.scaleDen = 50
	if d.chance(0.45) {
		d.scaleDen = 100
	}
	d.fi = d.chance(0.7)
	d.finish()
	return d, nil
}

// designPage lays out page k > 0 of sheet i: another floor of the same
// building set, on the first page's paper, scale and language.
func (g *Generator) designPage(seed uint64, i, k int, first *design) *design {
	d := &design{g: g, r: rngFor(seed, i, 10+uint64(k))}
	d.paper, d.scaleDen, d.fi = first.paper, first.scaleDen, first.fi
	d.page = k
	d.finish()
	return d
}

// sheet lays out every page of sheet i; most sheets have one page, some
// two or three.
func (g *Generator) sheet(seed uint64, i int, opt Options) ([]*design, error) {
	first, err := g.design(seed, i, opt)
	if err != nil {
		return nil, err
	}
	pages := []*design{first}
	pr := rngFor(seed, i, 3)
	multi := 0.12
	if g.novel {
		multi = 0.35 // legend sets: the legend on the first sheet only
	}
	if pr.Float64() < multi {
		for k := 1; k < 2+pr.IntN(2); k++ {
			pages = append(pages, g.designPage(seed, i, k, first))
		}
	}
	return pages, nil
}

// finish draws the sheet style and lays the page out.
func (d *design) finish() {
	d.empty = d.chance(0.08)
	d.legend = !d.empty && d.chance(0.35)
	if d.g.novel {
		d.empty, d.legend = false, d.page == 0 && !d.g.layout.titleSheet && d.role == rolePlan
	}
	d.symWidth = 0.13 + 0.57*math.Pow(d.r.Float64(), 2)
	d.symScale = d.uni(0.6, 1.8)
	d.colorMode = d.r.IntN(3)
	if d.g.colourKeyed {
		d.colorMode = 1
	}
	d.layer = layerColours[d.r.IntN(len(layerColours))]
	d.wireWidth = d.uni(0.13, 0.35)
	d.circuit = 1 + d.r.IntN(8)
	d.address = 1 + d.r.IntN(30)
	d.choosePool()
	d.layout()
}

// choosePool picks the sheet's theme and the classes it may use.
func (d *design) choosePool() {
	themes := [...][]string{
		{"lighting", "emergency", "switches", "distribution", "controls"},
		{"sockets", "telecom", "heating", "switches", "distribution", "controls"},
		{"detectors", "call_points", "alarm_devices", "panels", "interfaces"},
		{"lighting", "sockets", "switches", "telecom", "emergency", "distribution", "heating", "controls", "detectors", "call_points"},
	}
	theme := themes[d.r.IntN(len(themes))]
	if d.g.novel {
		theme = nil // a legend set uses all its devices
	}
	for k, s := range d.g.symbols {
		for _, c := range theme {
			if s.Category == c {
				d.pool = append(d.pool, k)
				break
			}
		}
	}
	if len(d.pool) == 0 { // a symbol set with other categories: use all
		for k := range d.g.symbols {
			d.pool = append(d.pool, k)
		}
	}
}

// mount says where a class is installed.
type mount int

const (
	mountCeiling mount = iota
	mountWall
)

func (d *design) mountOf(k int) mount {
	s := d.g.symbols[k]
	switch s.Category {
	case "lighting", "detectors":
		if s.Class == "luminaire_wall" {
			return mountWall
		}
		return mountCeiling
	case "emergency":
		if s.Class == "exit_sign" {
			return mountWall
		}
		return mountCeiling
	}
	if s.Class == "motion_detector" {
		return mountCeiling
	}
	return mountWall
}

func (d *design) poolBy(m mount) []int {
	var out []int
	for _, k := range d.pool {
		if d.mountOf(k) == m {
			out = append(out, k)
		}
	}
	return out
}

func (d *design) symColour(k int) color.RGBA {
	switch d.colorMode {
	case 1:
		return parseHex(d.g.symbols[k].Color)
	case 2:
		return d.layer
	}
	return black
}

// texts returns the Finnish or English form.
func (d *design) texts(fi, en string) string {
	if d.fi {
		return fi
	}
	return en
}

// layout draws the whole sheet.
func (d *design) layout() {
	W, H := d.paper.w, d.paper.h
	margin := 10.0
	if W*H < 300*300 {
		margin = 7
	}
	frame := rect{margin, margin, W - margin, H - margin}
	d.box(black, 0.5, frame)
	d.box(black, 0.18, rect{0.5 * margin, 0.5 * margin, W - 0.5*margin, H - 0.5*margin})
	d.zoneMarks(frame, margin)

	// Title block: bottom right box or a right-hand strip.
	area := frame.inset(4)
	if d.chance(0.5) {
		tw := math.Min(180, 0.42*frame.w())
		th := math.Min(62, 0.28*frame.h())
		tb := rect{frame.x1 - tw, frame.y1 - th, frame.x1, frame.y1}
		d.titleBlock(tb)
		notes := rect{tb.x0, tb.y0 - math.Min(40, 0.2*frame.h()), tb.x1, tb.y0 - 3}
		d.notes(notes)
		// The plan goes left of the title block or above its notes,
		// whichever leaves more room.
		left := rect{area.x0, area.y0, tb.x0 - 6, area.y1}
		above := rect{area.x0, area.y0, area.x1, notes.y0 - 6}
		if left.w()*left.h() >= above.w()*above.h() {
			area = left
		} else {
			area = above
		}
	} else {
		sw := math.Max(55, math.Min(120, 0.16*frame.w()))
		strip := rect{frame.x1 - sw, frame.y0, frame.x1, frame.y1}
		d.box(black, 0.35, strip)
		th := math.Min(strip.h()*0.4, 95)
		d.titleBlock(rect{strip.x0, strip.y1 - th, strip.x1, strip.y1})
		d.notes(rect{strip.x0 + 3, strip.y0 + 4, strip.x1 - 3, strip.y0 + 0.35*strip.h()})
		area.x1 = strip.x0 - 6
	}

	if d.role != rolePlan {
		d.drawSetPage(area)
		return
	}
	var legendArea rect
	if d.legend && d.g.layout.table != "" {
		legendArea, area = d.caseLegendArea(area)
	} else if d.legend {
		lw := math.Min(110, 0.45*area.w())
		rows := 8 + d.r.IntN(7)
		lh := math.Min(float64(rows+2)*7.5, 0.8*area.h())
		if d.chance(0.5) {
			legendArea = rect{area.x0, area.y0, area.x0 + lw, area.y0 + lh}
			area.x0 = legendArea.x1 + 8
		} else {
			legendArea = rect{area.x1 - lw, area.y0, area.x1, area.y0 + lh}
			area.x1 = legendArea.x0 - 8
		}
	}
	d.planArea = area
	d.plan(area)
	switch {
	case d.legend && d.g.novel:
		d.drawNovelLegend(legendArea)
	case d.legend:
		d.drawLegend(legendArea)
	}
}

// zoneMarks writes grid reference numbers and letters along the frame.
func (d *design) zoneMarks(frame rect, margin float64) {
	nx := max(2, int(frame.w()/70))
	ny := max(2, int(frame.h()/70))
	capH := math.Min(3, 0.3*margin)
	for i := 0; i <= nx; i++ {
		x := frame.x0 + frame.w()*float64(i)/float64(nx)
		d.lines(black, 0.18, nil, glyph.Point{X: x, Y: frame.y0}, glyph.Point{X: x, Y: frame.y0 - 0.5*margin})
		d.lines(black, 0.18, nil, glyph.Point{X: x, Y: frame.y1}, glyph.Point{X: x, Y: frame.y1 + 0.5*margin})
		if i < nx {
			cx := x + frame.w()/float64(nx)/2
			d.text(strconv.Itoa(i+1), glyph.Point{X: cx, Y: frame.y0 - 0.25*margin + capH/2}, capH, 0, alignCenter, black)
			d.text(strconv.Itoa(i+1), glyph.Point{X: cx, Y: frame.y1 + 0.25*margin + capH/2}, capH, 0, alignCenter, black)
		}
	}
	for i := 0; i <= ny; i++ {
		y := frame.y0 + frame.h()*float64(i)/float64(ny)
		d.lines(black, 0.18, nil, glyph.Point{X: frame.x0, Y: y}, glyph.Point{X: frame.x0 - 0.5*margin, Y: y})
		d.lines(black, 0.18, nil, glyph.Point{X: frame.x1, Y: y}, glyph.Point{X: frame.x1 + 0.5*margin, Y: y})
		if i < ny {
			cy := y + frame.h()/float64(ny)/2 + capH/2
			l := string(rune('A' + i%26))
			d.text(l, glyph.Point{X: frame.x0 - 0.25*margin, Y: cy}, capH, 0, alignCenter, black)
			d.text(l, glyph.Point{X: frame.x1 + 0.25*margin, Y: cy}, capH, 0, alignCenter, black)
		}
	}
}

var (
	projectsFI = [...]string{"AS OY KOIVUKUJA 3", "TOIMISTOTALO PUISTOLA", "KOULUKESKUS ITÄ", "LIIKEKESKUS SATAMA", "PÄIVÄKOTI MÄNTYRINNE"}
	projectsEN = [...]string{"OFFICE BUILDING NORTH PARK", "RIVERSIDE SCHOOL", "HARBOUR RETAIL CENTRE", "MAPLE COURT APARTMENTS", "MEDICAL CENTRE EAST"}
	firmsFI    = [...]string{"Sähkösuunnittelu Virta Oy", "Insinööritoimisto Kaapeli Oy", "SähköPlan Oy"}
	firmsEN    = [...]string{"Volt Engineering Ltd", "Northern Building Services", "Circuit Design Partners"}
)

// titleBlock draws a bordered title block with the project and sheet
// data in ruled cells.
func (d *design) titleBlock(tb rect) {
	d.fillRect(color.RGBA{255, 255, 255, 255}, tb)
	d.box(black, 0.5, tb)
	rows := []float64{0.18, 0.18, 0.26, 0.14, 0.12, 0.12}
	y := tb.y0
	capH := math.Min(3.5, tb.h()*0.07)
	mid := tb.x0 + 0.55*tb.w()
	var firm, proj, title, kind string
	if d.fi {
		firm, proj = firmsFI[d.r.IntN(len(firmsFI))], projectsFI[d.r.IntN(len(projectsFI))]
		kind = [...]string{"SÄHKÖSUUNNITELMA", "PALOILMOITINSUUNNITELMA", "VALAISTUSSUUNNITELMA"}[d.r.IntN(3)]
		title = fmt.Sprintf("%d. KERROS TASOPIIRUSTUS", 1+d.r.IntN(4))
		if t := d.sheetTitle(); t != "" {
			kind, title = t, t
		}
	} else {
		firm, proj = firmsEN[d.r.IntN(len(firmsEN))], projectsEN[d.r.IntN(len(projectsEN))]
		kind = [...]string{"ELECTRICAL LAYOUT", "FIRE ALARM LAYOUT", "LIGHTING LAYOUT"}[d.r.IntN(3)]
		title = fmt.Sprintf("LEVEL %d FLOOR PLAN", 1+d.r.IntN(4))
		if t := d.sheetTitle(); t != "" {
			kind, title = t, t
		}
	}
	cells := [][2]string{
		{firm, d.texts("Suunnittelija", "Designer") + ": " + [...]string{"J. Virtanen", "A. Smith", "M. Korhonen"}[d.r.IntN(3)]},
		{proj, fmt.Sprintf("%s %02d.%02d.20%02d", d.texts("PVM", "DATE"), 1+d.r.IntN(28), 1+d.r.IntN(12), 18+d.r.IntN(8))},
		{kind, title},
		{d.texts("MITTAKAAVA", "SCALE") + fmt.Sprintf(" 1:%d", d.scaleDen), d.paper.name},
		{d.texts("PIIRUSTUSNUMERO", "DRAWING NO."), fmt.Sprintf("%s-%d%02d", [...]string{"S", "E", "PI", "SÄ"}[d.r.IntN(4)], 1+d.r.IntN(4), d.r.IntN(40))},
		{d.texts("MUUTOS", "REV"), string(rune('A' + d.r.IntN(5)))},
	}
	for k, f := range rows {
		h := f * tb.h()
		if k > 0 {
			d.lines(black, 0.25, nil, glyph.Point{X: tb.x0, Y: y}, glyph.Point{X: tb.x1, Y: y})
		}
		size := capH
		if k == 2 {
			size = capH * 1.4
		}
		if size > 0.6*h {
			size = 0.6 * h
		}
		fit := func(s string, capH, width float64) float64 {
			if w := d.g.met.width(s, capH); w > width {
				return capH * width / w
			}
			return capH
		}
		if k == 2 {
			d.text(cells[k][0], glyph.Point{X: tb.x0 + 2, Y: y + 0.45*h}, fit(cells[k][0], size, tb.w()-4), 0, alignLeft, black)
			d.text(cells[k][1], glyph.Point{X: tb.x0 + 2, Y: y + 0.45*h + size*1.5}, fit(cells[k][1], size*0.75, tb.w()-4), 0, alignLeft, black)
		} else {
			d.lines(black, 0.18, nil, glyph.Point{X: mid, Y: y}, glyph.Point{X: mid, Y: y + h})
			d.text(cells[k][0], glyph.Point{X: tb.x0 + 2, Y: y + h/2 + size/2}, fit(cells[k][0], size*0.8, mid-tb.x0-4), 0, alignLeft, black)
			d.text(cells[k][1], glyph.Point{X: mid + 2, Y: y + h/2 + size/2}, fit(cells[k][1], size*0.8, tb.x1-mid-4), 0, alignLeft, black)
		}
		y += h
	}
}

var (
	notesFI = [...]string{"HUOM:", "- Asennuskorkeudet ks. selitys", "- Kaapelointi MMJ 3x1,5S ellei toisin mainita", "- Pistorasiat h=300 mm", "- Kytkimet h=1100 mm", "- Ryhmäjohdot RK1"}
	notesEN = [...]string{"NOTES:", "- Mounting heights see legend", "- All cabling 2.5 mm² unless noted", "- Socket outlets at 300 mm AFF", "- Switches at 1200 mm AFF", "- Circuits fed from DB-1"}
)

func (d *design) notes(r rect) {
	lines := notesFI[:]
	if !d.fi {
		lines = notesEN[:]
	}
	capH := math.Min(2.5, r.h()/float64(len(lines))/2)
	if capH < 1 {
		return
	}
	for _, l := range lines {
		if w := d.g.met.width(l, capH); w > r.w() {
			capH *= r.w() / w
		}
	}
	for k, l := range lines {
		d.text(l, glyph.Point{X: r.x0, Y: r.y0 + float64(k+1)*capH*1.9}, capH, 0, alignLeft, black)
	}
}
