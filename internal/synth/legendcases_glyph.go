package synth

import (
	"math"
	"math/rand/v2"
	"slices"

	"blueprint/internal/glyph"
)

// Glyph cases of legend sets (issue 35): devices drawn on the plan
// otherwise than the legend draws them, and drawing that looks like a
// device. A set draws at most one, and none where it draws a legend-table
// case (legendcases_table.go). Truth names the case on every page of the
// set and on the case's own device.
const (
	// caseNested: a wall socket whose legend glyph stands on a piece of
	// wall (a base line running on past it both ways) is also drawn in
	// floor boxes, two to a box, without the wall.
	caseNested = "nested"
	// caseFilledLookalike: the distribution board is a box half filled
	// solid, and the plan has solid piers of its size among more boards,
	// each pier filled as two triangles (so its outline and diagonal are
	// the board's lines).
	caseFilledLookalike = "filledlookalike"
	// caseElongated: a linear luminaire (a bar with tubes along it)
	// is also drawn 0.5 to 4 times its legend length along its long
	// axis.
	caseElongated = "elongated"
	// caseSmallTagged: a heat detector drawn small (a hexagon about
	// 4 mm across with a dot inside) with its rating, "135°", written
	// above it, in the legend and on the plan.
	caseSmallTagged = "smalltagged"
	// caseTagVariant: three legend rows draw one wall device's glyph and
	// differ only by a candela tag (15CD, 30CD, 75CD) in their
	// descriptions; each instance has one of the tags written beside it.
	caseTagVariant = "tagvariant"
)

// candelaTags are the tags of the tag-variant rows.
var candelaTags = [...]string{"15CD", "30CD", "75CD"}

// glyphCaseChance is the share of legend sets drawing a glyph case.
const glyphCaseChance = 0.5

// wallSocketGlyph is a socket as a legend draws it on its wall: a base
// line (the wall side, at the top of the canonical frame) running on
// past a half circle, and a stem through it. Without the wall, the base
// line ends at the half circle.
func wallSocketGlyph(wall bool) glyph.Glyph {
	w := 1.4
	if wall {
		w = 2.0
	}
	return glyph.Glyph{Shapes: []glyph.Shape{
		{Kind: glyph.KindLine, Pts: []glyph.Point{{X: -w, Y: -0.9}, {X: w, Y: -0.9}}},
		{Kind: glyph.KindArc, Pts: []glyph.Point{{X: 0, Y: -0.9}}, R: 1.4, Start: 0, Sweep: 180},
		{Kind: glyph.KindLine, Pts: []glyph.Point{{X: 0, Y: -0.9}, {X: 0, Y: 1.1}}},
	}}
}

// boardGlyph is a distribution board drawn as a box whose lower left
// half is solid.
var boardGlyph = glyph.Glyph{Shapes: []glyph.Shape{
	{Kind: glyph.KindLine, Pts: []glyph.Point{{X: -2, Y: -0.7}, {X: 2, Y: -0.7}}},
	{Kind: glyph.KindLine, Pts: []glyph.Point{{X: 2, Y: -0.7}, {X: 2, Y: 0.7}}},
	{Kind: glyph.KindPolygon, Pts: []glyph.Point{{X: -2, Y: -0.7}, {X: 2, Y: 0.7}, {X: -2, Y: 0.7}}, Fill: true},
}}

// barGlyph is a linear luminaire: a bar three times as long as it is
// wide with n tubes along it.
func barGlyph(n int) glyph.Glyph {
	g := glyph.Glyph{Shapes: []glyph.Shape{{Kind: glyph.KindRect, Pts: []glyph.Point{{X: -3, Y: -1}, {X: 3, Y: 1}}}}}
	for i := range n {
		y := -1 + 2*float64(i+1)/float64(n+1)
		g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: -3, Y: y}, {X: 3, Y: y}}})
	}
	return g
}

// stretched is g drawn f times as long along x.
func stretched(g glyph.Glyph, f float64) glyph.Glyph {
	return g.Transform(glyph.Affine{A: f, D: 1})
}

// smallTaggedGlyph is a hexagon 4 mm across its corners with a dot
// inside and "135°" written above it.
var smallTaggedGlyph = func() glyph.Glyph {
	hex := make([]glyph.Point, 6)
	for i := range hex {
		a := math.Pi / 3 * float64(i)
		hex[i] = glyph.Point{X: 2 * math.Cos(a), Y: 2 * math.Sin(a)}
	}
	return glyph.Glyph{Shapes: []glyph.Shape{
		{Kind: glyph.KindPolygon, Pts: hex},
		{Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: 0.35, Fill: true},
		{Kind: glyph.KindText, Text: "135°", Pts: []glyph.Point{{X: 0, Y: -2.4}}, Size: 1.2},
	}}
}()

// pierGlyph is a solid wall pier of the board's size, filled as two
// triangles.
var pierGlyph = glyph.Glyph{Shapes: []glyph.Shape{
	{Kind: glyph.KindPolygon, Pts: []glyph.Point{{X: -2, Y: -0.7}, {X: 2, Y: 0.7}, {X: -2, Y: 0.7}}, Fill: true},
	{Kind: glyph.KindPolygon, Pts: []glyph.Point{{X: -2, Y: -0.7}, {X: 2, Y: -0.7}, {X: 2, Y: 0.7}}, Fill: true},
}}

// pickGlyphCase chooses the set's glyph case (g.layout.glyphCase) and
// gives the device it is about (g.layout.glyphClass) its glyph; g.symbols
// is the set's own copy. It returns that device's index, -1 where the set
// draws no glyph case.
func (g *Generator) pickGlyphCase(seed uint64, i int) int {
	kase, k := g.chooseGlyphCase(seed, i)
	g.layout.glyphCase = kase
	if k >= 0 {
		g.layout.glyphClass = g.symbols[k].Class
	}
	return k
}

func (g *Generator) chooseGlyphCase(seed uint64, i int) (string, int) {
	if g.layout.table != "" {
		return "", -1
	}
	r := rngFor(seed, i, 40)
	if r.Float64() >= glyphCaseChance || len(g.symbols) == 0 {
		return "", -1
	}
	k := r.IntN(len(g.symbols))
	switch r.IntN(5) {
	case 4:
		base := g.symbols[k]
		base.Category = "alarm_devices" // on walls
		g.symbols[k] = base
		for i, tag := range candelaTags {
			v := base
			v.NameEN, v.NameFI = base.NameEN+" "+tag, base.NameFI+" "+tag
			if i == 0 {
				g.symbols[k] = v
				continue
			}
			g.symbols = append(g.symbols, v)
		}
		return caseTagVariant, k
	case 3:
		g.symbols[k].Glyph = smallTaggedGlyph
		g.symbols[k].Labelled = true
		g.symbols[k].Category = "detectors"
		return caseSmallTagged, k
	case 0:
		g.symbols[k].Glyph = wallSocketGlyph(true)
		g.symbols[k].Category = "sockets"
		return caseNested, k
	case 1:
		g.symbols[k].Glyph = boardGlyph
		g.symbols[k].Category = "distribution"
		return caseFilledLookalike, k
	}
	g.symbols[k].Glyph = barGlyph(1 + r.IntN(3))
	g.symbols[k].Category = "lighting"
	return caseElongated, k
}

// drawGlyphCase adds the set's glyph case's drawing (about device k) to
// its plans.
func (g *Generator) drawGlyphCase(pages []*design, k int, seed uint64, i int) {
	kase := g.layout.glyphCase
	if kase == "" {
		return
	}
	for pi, d := range pages {
		if d.role != rolePlan || d.empty {
			continue
		}
		r := rngFor(seed, i, uint64(41+pi))
		area := d.planArea
		if area.w() < 20 || area.h() < 20 {
			continue
		}
		sc := d.symScale
		if kase == caseTagVariant {
			d.tagInstances(g.symbols[k].Class, r)
			continue
		}
		n := 3 + r.IntN(6)
		for try := 0; try < 40*n && n > 0; try++ {
			at := glyph.Point{X: area.x0 + 10 + r.Float64()*(area.w()-20), Y: area.y0 + 10 + r.Float64()*(area.h()-20)}
			switch kase {
			case caseNested:
				if d.floorBox(k, at, sc) {
					n--
				}
			case caseElongated:
				f := 0.5 * math.Pow(8, r.Float64())
				gl := stretched(g.symbols[k].Glyph, f)
				pl := glyph.Placement{At: at, Scale: sc, Rotation: float64(90 * r.IntN(2))}
				if d.free(gl, pl) {
					d.insts = append(d.insts, instance{class: g.symbols[k].Class, pl: pl, pts: outline(gl, pl.Matrix(1), d.g.met)})
					col, w := d.symColour(k), d.symWidth
					d.op(func(p *pen) error { return p.drawGlyph(gl, pl, col, w) })
					if !slices.Contains(d.used, k) {
						d.used = append(d.used, k)
					}
					n--
				}
			case caseFilledLookalike:
				rot := float64(90 * r.IntN(2))
				// Boards among the piers, one for every two of them.
				if n%3 == 0 {
					if _, ok := d.place(k, glyph.Placement{At: at, Scale: sc, Rotation: rot}); ok {
						n--
					}
					continue
				}
				pl := glyph.Placement{At: at, Scale: sc * (0.9 + 0.6*r.Float64()), Rotation: rot}
				if d.free(pierGlyph, pl) {
					c := black
					d.op(func(p *pen) error { return p.drawGlyph(pierGlyph, pl, c, 0.1) })
					n--
				}
			}
		}
	}
}

// tagInstances writes one of the candela tags beside each instance of
// the class, on the room side of it (the glyph's bottom, away from the
// wall its top stands on).
func (d *design) tagInstances(class string, r *rand.Rand) {
	for _, in := range d.insts {
		if in.class != class {
			continue
		}
		lo, hi := boundsOf(in.pts)
		a := (in.pl.Rotation + 90) * math.Pi / 180 // the glyph's +y, turned
		reach := 0.5*math.Max(hi.X-lo.X, hi.Y-lo.Y) + 2.2
		at := glyph.Point{X: in.pl.At.X + reach*math.Cos(a), Y: in.pl.At.Y + reach*math.Sin(a) + 0.8}
		d.text(candelaTags[r.IntN(len(candelaTags))], at, 1.6, 0, alignCenter, d.symColour(0))
	}
}

// free reports whether glyph gl at pl stays clear of every symbol and
// drawn case, and claims its place when it does.
func (d *design) free(gl glyph.Glyph, pl glyph.Placement) bool {
	lo, hi := boundsOf(outline(gl, pl.Matrix(1), d.g.met))
	box := rect{lo.X, lo.Y, hi.X, hi.Y}
	grown := box.inset(-1)
	if !(rect{0, 0, d.paper.w, d.paper.h}).inset(5).overlaps(box) || box.x0 < d.planArea.x0 || box.x1 > d.planArea.x1 ||
		box.y0 < d.planArea.y0 || box.y1 > d.planArea.y1 {
		return false
	}
	if d.legend && d.legendBox.inset(-2).overlaps(box) {
		return false
	}
	for _, o := range d.occupied {
		if grown.overlaps(o) {
			return false
		}
	}
	d.occupied = append(d.occupied, box)
	return true
}

// floorBox draws a floor box at c holding two of device k's sockets
// without their wall (one turned over), recorded as instances of the
// nested case.
func (d *design) floorBox(k int, c glyph.Point, sc float64) bool {
	s := d.g.symbols[k]
	half := 3.4 * sc
	box := glyph.Glyph{Shapes: []glyph.Shape{{Kind: glyph.KindRect, Pts: []glyph.Point{{X: -half, Y: -half}, {X: half, Y: half}}}}}
	if !d.free(box, glyph.Placement{At: c, Scale: 1}) {
		return false
	}
	d.lines(lightGrey, 0.35, nil, glyph.Point{X: c.X - half, Y: c.Y - half}, glyph.Point{X: c.X + half, Y: c.Y - half},
		glyph.Point{X: c.X + half, Y: c.Y + half}, glyph.Point{X: c.X - half, Y: c.Y + half}, glyph.Point{X: c.X - half, Y: c.Y - half})
	inner := wallSocketGlyph(false)
	col, w := d.symColour(k), d.symWidth
	for _, pl := range []glyph.Placement{
		{At: glyph.Point{X: c.X, Y: c.Y - 1.6*sc}, Scale: sc, Rotation: 180},
		{At: glyph.Point{X: c.X, Y: c.Y + 1.6*sc}, Scale: sc},
	} {
		pts := outline(inner, pl.Matrix(1), d.g.met)
		d.insts = append(d.insts, instance{class: s.Class, pl: pl, pts: pts})
		d.op(func(p *pen) error { return p.drawGlyph(inner, pl, col, w) })
	}
	if !slices.Contains(d.used, k) {
		d.used = append(d.used, k)
	}
	return true
}

// tagGlyphCase names the set's glyph case on every page and on the
// device it is about.
func tagGlyphCase(t *Truth, kase, class string) {
	if kase == "" {
		return
	}
	for i := range t.Pages {
		p := &t.Pages[i]
		if !slices.Contains(p.Cases, kase) {
			p.Cases = append(p.Cases, kase)
		}
		for j := range p.Symbols {
			if p.Symbols[j].Class == class && p.Symbols[j].Case == "" {
				p.Symbols[j].Case = kase
			}
		}
	}
}
