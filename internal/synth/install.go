package synth

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"blueprint/internal/detect"
	"blueprint/internal/glyph"
)

// placed is a symbol put on the sheet: its box in paper mm.
type placed struct {
	k   int
	box rect
	at  glyph.Point
}

// place draws symbol k with the placement unless its box would overlap
// another symbol; it records the instance for the ground truth.
func (d *design) place(k int, pl glyph.Placement) (placed, bool) {
	s := d.g.symbols[k]
	pts := outline(s.Glyph, pl.Matrix(1), d.g.met)
	lo, hi := boundsOf(pts)
	box := rect{lo.X, lo.Y, hi.X, hi.Y}
	grown := box.inset(-0.4)
	for _, o := range d.occupied {
		if grown.overlaps(o) {
			return placed{}, false
		}
	}
	if hi.X < 0 || hi.Y < 0 || lo.X > d.paper.w || lo.Y > d.paper.h {
		return placed{}, false
	}
	d.occupied = append(d.occupied, box)
	if s.Labelled {
		pts = outline(withoutText(s.Glyph), pl.Matrix(1), d.g.met)
	}
	d.insts = append(d.insts, instance{class: s.Class, pl: pl, pts: pts})
	if !slices.Contains(d.used, k) {
		d.used = append(d.used, k)
	}
	g, c, w := s.Glyph, d.symColour(k), d.symWidth
	d.op(func(p *pen) error { return p.drawGlyph(g, pl, c, w) })
	return placed{k: k, box: box, at: pl.At}, true
}

// scale returns the symbol scale of one instance: the sheet's scale with
// a little per-instance variation.
func (d *design) scale() float64 {
	s := d.symScale * d.uni(0.95, 1.05)
	return math.Max(0.6, math.Min(1.8, s))
}

// ceilingRotation is mostly axis-aligned, sometimes arbitrary.
func (d *design) ceilingRotation() float64 {
	switch x := d.r.Float64(); {
	case x < 0.65:
		return 0
	case x < 0.9:
		return float64(90 * (1 + d.r.IntN(3)))
	default:
		return d.uni(0, 360)
	}
}

// wallPlacement places symbol k against side s of the room at along
// position u, its top (the wall side of the canonical glyph) on the face,
// sometimes pushed a little into the wall.
func (d *design) wallPlacement(k int, c rect, s side, u float64) glyph.Placement {
	pl := glyph.Placement{Scale: d.scale(), Rotation: float64(90 * int(s)), Mirrored: d.chance(0.15)}
	lo, _ := d.g.symbols[k].Glyph.Bounds()
	depth := -lo.Y * pl.Scale
	if d.chance(0.2) {
		depth -= d.uni(0.2, 1.2)
	}
	pl.At = onSide(c, s, u, depth)
	if d.chance(0.04) {
		pl.Rotation += d.uni(-20, 20)
	}
	return pl
}

// install places the installation symbols, their wiring and labels.
func (d *design) install(rooms []room, foot rect) {
	ceiling := d.poolBy(mountCeiling)
	wall := d.poolBy(mountWall)
	dens := [...]float64{0.5, 1.2, 2.2}[d.r.IntN(3)]
	// Very large plans get sparser so that a sheet stays within several
	// hundred symbols.
	if area := foot.w() * foot.h() * float64(d.scaleDen*d.scaleDen) / 1e6; area > 2500 {
		dens *= 2500 / area
	}
	var boards []int
	var others []int
	for _, k := range wall {
		switch d.g.symbols[k].Category {
		case "distribution", "panels":
			boards = append(boards, k)
		default:
			others = append(others, k)
		}
	}
	if len(others) == 0 {
		others = wall
	}
	var home glyph.Point
	haveHome := false
	// One board or panel in a technical room or corridor.
	if len(boards) > 0 {
		for _, rm := range rooms {
			if rm.kind == roomTech || rm.kind == roomCorridor {
				s := d.quietSide(&rm)
				_, a, b := sideLine(rm.clear, s)
				if p, ok := d.place(boards[d.r.IntN(len(boards))], d.wallPlacement(boards[0], rm.clear, s, (a+b)/2)); ok {
					home, haveHome = p.at, true
					d.label(p, d.texts("RK1", "DB-1"), 2.2)
				}
				break
			}
		}
	}
	var loop []glyph.Point
	for ri := range rooms {
		rm := &rooms[ri]
		c := rm.clear
		if c.w() < 6 || c.h() < 6 {
			continue
		}
		circuit := d.circuitLabel()
		// Ceiling grid.
		if len(ceiling) > 0 && rm.kind != roomStair {
			k := ceiling[d.r.IntN(len(ceiling))]
			sp := d.m(d.uni(1.8, 3.4)) / math.Sqrt(dens)
			nx := max(1, int(c.w()/sp))
			ny := max(1, int(c.h()/sp))
			rot := d.ceilingRotation()
			var chain []placed
			for j := 0; j < ny; j++ {
				for i := 0; i < nx; i++ {
					ii := i
					if j%2 == 1 {
						ii = nx - 1 - i
					}
					at := glyph.Point{X: c.x0 + c.w()*(float64(ii)+0.5)/float64(nx), Y: c.y0 + c.h()*(float64(j)+0.5)/float64(ny)}
					pl := glyph.Placement{At: at, Scale: d.scale(), Rotation: rot, Mirrored: d.chance(0.1)}
					if p, ok := d.place(k, pl); ok {
						chain = append(chain, p)
					}
				}
			}
			d.wireChain(chain, k, 0.13)
			fire := d.g.symbols[k].Model == "fire_alarm"
			for _, p := range chain {
				if fire {
					loop = append(loop, p.at)
					d.label(p, d.addressLabel(), 1.6)
				} else if d.chance(0.25) {
					d.label(p, d.deviceLabel(k), 1.6)
				}
			}
			if len(chain) > 0 && !fire {
				d.homeRun(chain[len(chain)-1], home, haveHome, circuit)
			}
		}
		// Wall devices.
		if len(others) > 0 {
			perim := 2 * (c.w() + c.h())
			n := int(math.Round(perim / d.m(3.5) * dens * d.uni(0.6, 1.3)))
			if rm.kind == roomCorridor {
				n /= 2
			}
			var row []placed
			for t := 0; t < n; t++ {
				k := others[d.r.IntN(len(others))]
				s := side(d.r.IntN(4))
				// Near a door for switches and call points.
				cat := d.g.symbols[k].Category
				var u float64
				_, a, b := sideLine(c, s)
				if (cat == "switches" || cat == "call_points") && len(rm.doors) > 0 {
					dr := rm.doors[d.r.IntN(len(rm.doors))]
					s = dr.s
					_, a, b = sideLine(c, s)
					u = dr.b + d.m(0.3)
					if u > b-2 {
						u = dr.a - d.m(0.3)
					}
				} else {
					u = d.uni(a+2, b-2)
				}
				if inGap(rm.gaps[s], u, 3) || u < a || u > b {
					continue
				}
				if p, ok := d.place(k, d.wallPlacement(k, c, s, u)); ok {
					row = append(row, p)
					if d.g.symbols[k].Model == "fire_alarm" {
						loop = append(loop, p.at)
						d.label(p, d.addressLabel(), 1.6)
					} else if d.chance(0.35) {
						d.label(p, d.deviceLabel(k), 1.6)
					}
				}
			}
			if len(row) > 1 && d.chance(0.7) {
				d.wireRow(c, row)
				d.label(row[0], circuit, 1.8)
			}
		}
	}
	if len(loop) > 1 {
		d.loopLine(loop)
	}
}

func inGap(gaps [][2]float64, u, pad float64) bool {
	for _, g := range gaps {
		if u > g[0]-pad && u < g[1]+pad {
			return true
		}
	}
	return false
}

func (d *design) circuitLabel() string {
	d.circuit++
	if d.chance(0.5) {
		return fmt.Sprintf("%d/%d", 1+d.circuit/12, d.circuit%12+1)
	}
	return fmt.Sprintf("RK%d-%d", 1+d.r.IntN(3), d.circuit)
}

func (d *design) addressLabel() string {
	d.address++
	return fmt.Sprintf("L%d.%03d", 1+d.address/120, d.address%120+1)
}

func (d *design) deviceLabel(k int) string {
	switch d.g.symbols[k].Category {
	case "lighting":
		return [...]string{"A1", "B2", "L1", "V3", "2x36W"}[d.r.IntN(5)]
	case "sockets":
		return [...]string{"16A", "h=1100", "IP44", "2/4"}[d.r.IntN(4)]
	case "switches":
		return [...]string{"h=1100", "1/5", "PV"}[d.r.IntN(3)]
	case "telecom":
		return [...]string{"2xRJ45", "ATK", "TV"}[d.r.IntN(3)]
	}
	return [...]string{"PV", "L2.014", "K1", "E"}[d.r.IntN(4)]
}

// label writes text beside a symbol, outside its box.
func (d *design) label(p placed, s string, capH float64) {
	c := d.symColour(p.k)
	if d.chance(0.4) {
		c = archGrey
	}
	w := d.g.met.width(s, capH)
	var at glyph.Point
	var lb rect
	switch d.r.IntN(3) {
	case 0: // right
		at = glyph.Point{X: p.box.x1 + 0.8, Y: p.box.y0 + capH}
		lb = rect{at.X, at.Y - capH, at.X + w, at.Y}
	case 1: // above
		at = glyph.Point{X: p.box.center().X - w/2, Y: p.box.y0 - 0.8}
		lb = rect{at.X, at.Y - capH, at.X + w, at.Y}
	default: // below
		at = glyph.Point{X: p.box.center().X - w/2, Y: p.box.y1 + 0.8 + capH}
		lb = rect{at.X, at.Y - capH, at.X + w, at.Y}
	}
	for _, o := range d.occupied {
		if lb.overlaps(o) && d.chance(0.8) {
			return
		}
	}
	d.text(s, at, capH, 0, alignLeft, c)
}

// radius returns how far from its anchor a wire should stop at a symbol.
func radius(p placed) float64 {
	return 0.5 * math.Min(p.box.w(), p.box.h())
}

// wireChain joins consecutive symbols with wiring: arcs bulging by
// sagRatio of their chord (as on Finnish drawings) or straight runs,
// ending on the symbols' outlines.
func (d *design) wireChain(chain []placed, k int, sagRatio float64) {
	if len(chain) < 2 {
		return
	}
	c := d.symColour(k)
	arcs := d.chance(0.6)
	for i := 1; i < len(chain); i++ {
		a, b := chain[i-1], chain[i]
		ra, rb := radius(a), radius(b)
		dx, dy := b.at.X-a.at.X, b.at.Y-a.at.Y
		L := math.Hypot(dx, dy)
		if L < ra+rb+1 {
			continue
		}
		if !arcs {
			ux, uy := dx/L, dy/L
			d.lines(c, d.wireWidth, nil, glyph.Point{X: a.at.X + ux*ra, Y: a.at.Y + uy*ra}, glyph.Point{X: b.at.X - ux*rb, Y: b.at.Y - uy*rb})
			continue
		}
		sag := sagRatio * L
		R := (L*L/4 + sag*sag) / (2 * sag)
		mx, my := (a.at.X+b.at.X)/2, (a.at.Y+b.at.Y)/2
		nx, ny := -dy/L, dx/L
		cen := glyph.Point{X: mx + nx*(R-sag), Y: my + ny*(R-sag)}
		a0 := math.Atan2(a.at.Y-cen.Y, a.at.X-cen.X)
		a1 := math.Atan2(b.at.Y-cen.Y, b.at.X-cen.X)
		sweep := math.Mod(a1-a0+3*math.Pi, 2*math.Pi) - math.Pi
		sgn := math.Copysign(1, sweep)
		start := a0 + sgn*ra/R
		sw := sweep - sgn*(ra+rb)/R
		d.arc(c, d.wireWidth, nil, cen, R, start*180/math.Pi, sw*180/math.Pi)
	}
}

// wireRow joins wall devices in the order they sit around the room,
// one run per wall, skipping long jumps, the way a circuit runs along
// the walls.
func (d *design) wireRow(c rect, row []placed) {
	// wallOf returns the nearest side and the distance around the room.
	wallOf := func(p glyph.Point) (side, float64) {
		dist := [4]float64{math.Abs(p.Y - c.y0), math.Abs(p.X - c.x1), math.Abs(p.Y - c.y1), math.Abs(p.X - c.x0)}
		s := side(0)
		for k := side(1); k < 4; k++ {
			if dist[k] < dist[s] {
				s = k
			}
		}
		switch s {
		case 0:
			return s, p.X - c.x0
		case 1:
			return s, c.w() + p.Y - c.y0
		case 2:
			return s, c.w() + c.h() + c.x1 - p.X
		}
		return s, 2*c.w() + c.h() + c.y1 - p.Y
	}
	row = append([]placed(nil), row...)
	slices.SortStableFunc(row, func(a, b placed) int {
		_, pa := wallOf(a.at)
		_, pb := wallOf(b.at)
		return cmp.Compare(pa, pb)
	})
	var run []placed
	flush := func() {
		d.wireChain(run, run[0].k, 0.06)
		run = run[:0]
	}
	for _, p := range row {
		if len(run) > 0 {
			last := run[len(run)-1]
			s0, _ := wallOf(last.at)
			s1, _ := wallOf(p.at)
			if s0 != s1 || math.Hypot(p.at.X-last.at.X, p.at.Y-last.at.Y) > d.m(5) {
				flush()
			}
		}
		run = append(run, p)
	}
	if len(run) > 0 {
		flush()
	}
}

// homeRun draws a feed from a symbol towards the board: a short line
// with an arrowhead and the circuit label.
func (d *design) homeRun(p placed, home glyph.Point, haveHome bool, circuit string) {
	c := d.symColour(p.k)
	dir := glyph.Point{X: 1, Y: -1}
	if haveHome {
		dir = glyph.Point{X: home.X - p.at.X, Y: home.Y - p.at.Y}
	}
	L := math.Hypot(dir.X, dir.Y)
	if L < 1e-6 {
		return
	}
	ux, uy := dir.X/L, dir.Y/L
	r := radius(p)
	n := math.Min(d.uni(8, 16), math.Max(L-r, 4))
	s := glyph.Point{X: p.at.X + ux*r, Y: p.at.Y + uy*r}
	e := glyph.Point{X: s.X + ux*n, Y: s.Y + uy*n}
	d.lines(c, d.wireWidth, nil, s, e)
	head := []glyph.Point{e, {X: e.X - ux*1.6 - uy*0.6, Y: e.Y - uy*1.6 + ux*0.6}, {X: e.X - ux*1.6 + uy*0.6, Y: e.Y - uy*1.6 - ux*0.6}}
	d.op(func(pn *pen) error { pn.setFill(c); pn.polygon(head, true, false); return nil })
	if !d.chance(0.3) {
		d.text(circuit, glyph.Point{X: e.X + 1, Y: e.Y - 1}, 1.8, 0, alignLeft, c)
		return
	}
	// A callout as on many real sheets: the circuit in an oval at the end
	// of a leader (a round, labelled look-alike of several symbols).
	w := d.g.met.width(circuit, 1.8)
	at := glyph.Point{X: e.X + ux*(w/2+4), Y: e.Y + uy*(w/2+4)}
	d.op(func(pn *pen) error {
		pn.setStroke(c, 0.18, nil)
		pn.polygon(ellipse(at, w/2+1.8, 2.2), false, true)
		return nil
	})
	d.text(circuit, glyph.Point{X: at.X, Y: at.Y + 0.9}, 1.8, 0, alignCenter, c)
}

// loopLine draws the fire-alarm loop: an orthogonal dashed line through
// the devices.
func (d *design) loopLine(pts []glyph.Point) {
	c := color.RGBA{200, 0, 0, 255}
	if d.colorMode == 0 {
		c = black
	}
	path := []glyph.Point{pts[0]}
	for i := 1; i < len(pts); i++ {
		path = append(path, glyph.Point{X: pts[i].X, Y: pts[i-1].Y}, pts[i])
	}
	d.lines(c, d.wireWidth, []float64{3, 1.2}, path...)
}

// drawLegend draws a legend table: a glyph and its description per row,
// for the classes used on the sheet first. Legend glyphs are not
// instances and are not recorded.
func (d *design) drawLegend(r rect) {
	rows := append([]int(nil), d.used...)
	for _, k := range d.pool {
		if !slices.Contains(rows, k) {
			rows = append(rows, k)
		}
	}
	rowH := 7.5
	n := min(len(rows), int(r.h()/rowH)-2)
	if n <= 0 {
		d.legend = false
		return
	}
	rows = rows[:n]
	r.y1 = r.y0 + float64(n+2)*rowH
	d.legendBox = r
	glyphW := 16.0
	d.fillRect(color.RGBA{255, 255, 255, 255}, r)
	d.box(black, 0.35, r)
	title := d.texts("MERKKIEN SELITYKSET", "LEGEND")
	d.text(title, glyph.Point{X: r.x0 + 2, Y: r.y0 + rowH*0.7}, 2.5, 0, alignLeft, black)
	y := r.y0 + rowH
	d.lines(black, 0.25, nil, glyph.Point{X: r.x0, Y: y}, glyph.Point{X: r.x1, Y: y})
	d.text(d.texts("MERKKI", "SYMBOL"), glyph.Point{X: r.x0 + glyphW/2, Y: y + rowH*0.65}, 1.8, 0, alignCenter, black)
	d.text(d.texts("SELITE", "DESCRIPTION"), glyph.Point{X: r.x0 + glyphW + 2, Y: y + rowH*0.65}, 1.8, 0, alignLeft, black)
	d.lines(black, 0.25, nil, glyph.Point{X: r.x0 + glyphW, Y: y}, glyph.Point{X: r.x0 + glyphW, Y: r.y1})
	// Like the real sets, some legends count the devices of the sheet.
	qty := d.chance(0.5)
	qx := r.x1 - 12
	if qty {
		d.lines(black, 0.25, nil, glyph.Point{X: qx, Y: y}, glyph.Point{X: qx, Y: r.y1})
		d.text(d.texts("KPL", "QTY"), glyph.Point{X: qx + 6, Y: y + rowH*0.65}, 1.8, 0, alignCenter, black)
	}
	for _, k := range rows {
		y += rowH
		d.lines(black, 0.18, nil, glyph.Point{X: r.x0, Y: y}, glyph.Point{X: r.x1, Y: y})
		s := d.g.symbols[k]
		d.legendGlyph(k, rect{r.x0, y, r.x0 + glyphW, y + rowH})
		desc := s.NameEN
		if d.fi {
			desc = s.NameFI
		}
		d.text(desc, glyph.Point{X: r.x0 + glyphW + 2, Y: y + rowH*0.65}, 2, 0, alignLeft, black)
		if qty {
			n := 0
			for _, in := range d.insts {
				if in.class == s.Class {
					n++
				}
			}
			d.text(strconv.Itoa(n), glyph.Point{X: qx + 6, Y: y + rowH*0.65}, 2, 0, alignCenter, black)
		}
	}
}

// pagesPDF draws the pages as one PDF, a page each.
func pagesPDF(pages []*design) ([]byte, error) {
	var p *pen
	for k, d := range pages {
		if k == 0 {
			var err error
			if p, err = newPen(d.paper.w, d.paper.h, d.g.met); err != nil {
				return nil, err
			}
		} else {
			p.newPage(d.paper.w, d.paper.h)
		}
		for _, f := range d.ops {
			if err := f(p); err != nil {
				return nil, err
			}
		}
	}
	return p.bytes()
}

// pagePx returns the page size in pixels of the 200-DPI raster.
func (d *design) pagePx() (int, int) {
	return int(math.Round(d.paper.w * pxPerMM)), int(math.Round(d.paper.h * pxPerMM))
}

// vectorTruth is the ground truth of the PDF made of the pages.
func vectorTruth(pages []*design, file string, seed uint64) Truth {
	d := pages[0]
	t := Truth{
		File: file, Kind: KindVector, Seed: seed, Paper: d.paper.name,
		Scale: fmt.Sprintf("1:%d", d.scaleDen), DPI: detect.RenderDPI,
	}
	for k, pg := range pages {
		w, h := pg.pagePx()
		syms := symbolsTruth(pg.insts, w, h, func(p glyph.Point) glyph.Point {
			return glyph.Point{X: p.X * pxPerMM, Y: p.Y * pxPerMM}
		})
		t.Pages = append(t.Pages, TruthPage{PageIndex: k, WidthPx: w, HeightPx: h, Symbols: syms})
		t.Legend = t.Legend || pg.legend
	}
	return t
}

// withoutText is g without its text shapes: a labelled symbol's box.
func withoutText(g glyph.Glyph) glyph.Glyph {
	var out glyph.Glyph
	for _, sh := range g.Shapes {
		if sh.Kind != glyph.KindText {
			out.Shapes = append(out.Shapes, sh)
		}
	}
	return out
}
