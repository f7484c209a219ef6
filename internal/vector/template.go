package vector

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"blueprint/internal/detect"
	"blueprint/internal/glyph"
)

// PixelsPerMM converts paper millimetres (the glyph unit at symbol scale 1)
// to pixels of the 200-DPI raster.
const PixelsPerMM = float64(detect.RenderDPI) / 25.4

// Scale range searched: a symbol may be drawn from half to twice its
// catalog size.
const (
	MinScale = 0.5
	MaxScale = 2.0
)

// Template is one symbol drawing to find: a glyph in the canonical frame of
// package glyph (millimetres at scale 1) and the class it reports. Templates
// come from the catalog or from a drawing's own legend row.
type Template struct {
	Class string
	Glyph glyph.Glyph
	// Row is reported with every match of the template (Match.Row): a
	// legend row's number, 0 for catalog glyphs.
	Row int
	// MinScale and MaxScale bound the drawn size relative to the glyph;
	// zero means the package's MinScale and MaxScale.
	MinScale, MaxScale float64
	// Priority ranks overlapping matches before the geometry they
	// explain: a drawing's own legend glyph wins over a catalog glyph
	// found at the same place.
	Priority int
	// OptionalStubs marks a glyph as a drawing's legend shows it: a
	// line running on past the rest of the glyph at both ends (the piece
	// of wall a legend draws under a wall device) may be drawn only as
	// far as the glyph where the plan puts the device elsewhere, in a
	// floor box or inside another symbol. Such ends count when
	// the page draws them and are left out of the coverage when it does
	// not; the rest of the glyph is verified as strictly as ever.
	OptionalStubs bool
	// Stretch searches an elongated glyph (one side at least twice the
	// other, with a square corner) also drawn 0.5–4 times as long along
	// its long axis, at any scale of its short axis (stretch.go): a
	// linear luminaire's legend bar stands for fittings of every length.
	// A tube fitting's glyph (an outline holding two or more tubes,
	// tubes.go) is stretched along its tubes whatever its proportions, up
	// to 16 times as long as wide, and searched with 2–4 tubes too.
	Stretch bool
	// InkFill makes the glyph's filled parts covered only by page fills
	// in a colour that shows on the paper (drawing.Style.InkFill): a
	// glyph whose fills are all ink, as one cut from the drawing by the
	// search is (its cut leaves paper-coloured masks out), is then not
	// found on a copy that masks the same outline in white. Without it
	// any fill covers them: a legend glyph masked in white is the plan's
	// glyph masked in white.
	InkFill bool
}

// sampleStepMM is the spacing of verification samples along a template's
// geometry, in glyph millimetres.
const sampleStepMM = 0.2

// textCharWeightPerCap is how much template geometry one character of
// glyph text stands for when scoring coverage, in cap heights of that text
// (a capital's strokes run about twice its height): a share of the glyph
// that does not change with the size the drawing is plotted at. The
// catalog's glyph texts (caps 1.0–1.8 mm) weigh about 2 mm a character.
const textCharWeightPerCap = 2.0

type sample struct {
	P    glyph.Point // glyph mm
	T    glyph.Point // unit tangent
	Fill bool        // only filled page geometry covers it
	// Opt: a stub sample (Template.OptionalStubs), not missed when the
	// page lacks it.
	Opt bool
}

// arcEnd is an open end of a template arc: the end point, its outward
// tangent, and the arc's circle.
type arcEnd struct {
	sample
	C glyph.Point
	R float64
}

type tplText struct {
	text string
	at   glyph.Point
	size float64 // cap height, mm
	n    int     // characters other than spaces
}

func newTplText(text string, at glyph.Point, size float64) tplText {
	return tplText{text: text, at: at, size: size, n: len([]rune(strings.ReplaceAll(text, " ", "")))}
}

// charMM is how much template geometry, in glyph millimetres, one of the
// text's characters stands for when scoring coverage.
func (tx tplText) charMM() float64 { return textCharWeightPerCap * tx.size }

type anchorKind int

const (
	anchorCircle anchorKind = iota
	anchorCorner
	anchorSegment
)

// prepared is a template ready for matching.
type prepared struct {
	class string
	row   int
	// minScale and maxScale bound the pose scale searched.
	minScale, maxScale float64
	priority           int
	inkFill            bool // fills count only in ink (Template.InkFill)
	g                  glyph.Glyph
	samples            []sample // in verification order (spread out first)
	lenMM              float64  // geometry length, mm
	texts              []tplText
	textMM             float64       // what the texts weigh, glyph mm (tplText.charMM)
	outline            []glyph.Point // for the box
	// arcEnds are open arc ends with outward directions: a page arc
	// running on past one means the template is only part of a larger
	// circle.
	arcEnds []arcEnd
	// lines are the template's straight pieces: CAD draws each as its own
	// segment, so a page segment should start and end where each does.
	// inner holds each line's ends without its optional stubs (the line
	// itself where it has none): the page segment may end at either.
	lines, inner [][2]glyph.Point
	// overrun is, per line, how far past its ends (glyph mm) its page
	// segment may run: a tube fitting's end caps (endCapOverrun); nil
	// where no line may.
	overrun []float64
	// hull is the convex hull of the drawn geometry (text left out), in
	// glyph mm: the region whose inside the template must explain.
	hull []glyph.Point
	// hullEdges are hull's edges with their inward normals (edgesOf).
	hullEdges []hullEdge
	// empty are points of the glyph's inside that it leaves unfilled
	// (fill.go), in glyph mm; none for a glyph without fills.
	empty []glyph.Point
	// nested are the other legend templates drawn inside this one's
	// glyph (nested.go).
	nested map[*prepared]bool
	// stretch is how the template is searched stretched (stretch.go),
	// nil where it is not.
	stretch *stretchable
	// variant marks a tube fitting's other tube count (tubes.go): its
	// matches' confidence is lowered by tubeVariantDiscount.
	variant bool

	kind anchorKind
	// circle anchor: centre, radius, the secondary keypoint (hasQ false
	// when the template looks the same at every rotation).
	c     glyph.Point
	r     float64
	sweep float64
	q     glyph.Point
	hasQ  bool
	// circleSweep is the sweep of all the template's arcs on the anchor
	// circle (a circle read as two halves is whole).
	circleSweep float64
	// corner anchor: vertex v, arm ends a1 (longer) and a2.
	// segment anchor: a1 to a2.
	v, a1, a2 glyph.Point
	// alts are the template's other corners nearly as long in the arm
	// (altCornerShare), tried as anchors on traced pages
	// (drawing.Page.Traced), where the anchor corner may be broken.
	alts []corner
}

// corner is a corner anchor: vertex v, arm ends a1 (longer) and a2.
type corner struct{ v, a1, a2 glyph.Point }

// altCornerShare is how long, as a share of the anchor corner's shorter
// arm, another corner's shorter arm must be to anchor the search on a
// traced page; maxAltCorners bounds them.
const (
	altCornerShare = 0.7
	maxAltCorners  = 3
)

// minOwnLineMM is the shortest template line that must have a page segment
// of its own; lines of longer chains (curves drawn as polylines) are exempt
// because exporters and normalisation may turn them into arcs.
const minOwnLineMM = 0.8

// minCornerArmPx is the shortest arm of a page corner (pixels): shorter
// segments make no corners, so a template corner must have arms longer
// than it, by anchorArmSlack, to anchor a search.
const (
	minCornerArmPx = 2.0
	anchorArmSlack = 1.5
)

// minAnchorRadiusMM: smaller template circles (dots) anchor the search only
// when the template has no corner.
const minAnchorRadiusMM = 1.0

// endProbeMM is how far past an open end the template itself is looked at
// for its own continuation, in glyph millimetres.
const endProbeMM = 0.3

func openEnd(from, end glyph.Point) sample {
	d := glyph.Point{X: end.X - from.X, Y: end.Y - from.Y}
	l := math.Hypot(d.X, d.Y)
	return sample{P: end, T: glyph.Point{X: d.X / l, Y: d.Y / l}}
}

func prepare(t Template) (*prepared, error) {
	if strings.TrimSpace(t.Class) == "" {
		return nil, fmt.Errorf("vector: template without a class")
	}
	p := &prepared{class: t.Class, g: t.Glyph, row: t.Row, minScale: MinScale, maxScale: MaxScale, priority: t.Priority, inkFill: t.InkFill}
	if t.MinScale > 0 {
		p.minScale = t.MinScale
	}
	if t.MaxScale > 0 {
		p.maxScale = t.MaxScale
	}
	if p.minScale > p.maxScale {
		return nil, fmt.Errorf("vector: template %s: scale range %g–%g is empty", t.Class, p.minScale, p.maxScale)
	}
	var samples []sample
	var shapeOf []int // per sample: its shape's index in t.Glyph.Shapes
	// arcEndPts are the ends of the glyph's arcs, with their circles.
	type arcPt struct {
		c glyph.Point
		r float64
		p glyph.Point
	}
	var arcEndPts []arcPt
	cur := 0
	var keypoints []glyph.Point
	type end struct {
		sample
		arc bool
		c   glyph.Point
		r   float64
	}
	var ends []end // open ends with outward directions
	type seg struct{ a, b glyph.Point }
	var segs []seg
	addChain := func(pts []glyph.Point, fill bool) {
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			l := math.Hypot(b.X-a.X, b.Y-a.Y)
			if l < 1e-9 {
				continue
			}
			segs = append(segs, seg{a, b})
			if !fill && len(pts) <= 5 && l >= minOwnLineMM {
				p.lines = append(p.lines, [2]glyph.Point{a, b})
			}
			p.lenMM += l
			n := max(1, int(math.Round(l/sampleStepMM)))
			tn := glyph.Point{X: (b.X - a.X) / l, Y: (b.Y - a.Y) / l}
			for k := 0; k < n; k++ {
				f := (float64(k) + 0.5) / float64(n)
				samples = append(samples, sample{P: glyph.Point{X: a.X + f*(b.X-a.X), Y: a.Y + f*(b.Y-a.Y)}, T: tn, Fill: fill})
				shapeOf = append(shapeOf, cur)
			}
		}
		if len(pts) > 0 {
			keypoints = append(keypoints, pts[0], pts[len(pts)-1])
			keypoints = append(keypoints, pts[1:len(pts)-1]...)
		}
		if n := len(pts); n >= 2 && !fill && pts[0] != pts[n-1] {
			ends = append(ends, end{sample: openEnd(pts[1], pts[0])}, end{sample: openEnd(pts[n-2], pts[n-1])})
		}
	}
	addArc := func(c glyph.Point, r, start, sweep float64, fill bool) {
		l := math.Abs(sweep) * math.Pi / 180 * r
		p.lenMM += l
		n := max(4, int(math.Round(l/sampleStepMM)))
		for k := 0; k < n; k++ {
			a := (start + sweep*(float64(k)+0.5)/float64(n)) * math.Pi / 180
			samples = append(samples, sample{
				P:    glyph.Point{X: c.X + r*math.Cos(a), Y: c.Y + r*math.Sin(a)},
				T:    glyph.Point{X: -math.Sin(a), Y: math.Cos(a)},
				Fill: fill,
			})
			shapeOf = append(shapeOf, cur)
		}
		if math.Abs(sweep) < 359 {
			s, e := start*math.Pi/180, (start+sweep)*math.Pi/180
			ps := glyph.Point{X: c.X + r*math.Cos(s), Y: c.Y + r*math.Sin(s)}
			pe := glyph.Point{X: c.X + r*math.Cos(e), Y: c.Y + r*math.Sin(e)}
			keypoints = append(keypoints, ps, pe)
			if !fill {
				// Outward tangents: backwards at the start, onwards at
				// the end (sweep sign gives the direction of travel).
				sg := math.Copysign(1, sweep)
				ends = append(ends,
					end{sample{P: ps, T: glyph.Point{X: sg * math.Sin(s), Y: -sg * math.Cos(s)}}, true, c, r},
					end{sample{P: pe, T: glyph.Point{X: -sg * math.Sin(e), Y: sg * math.Cos(e)}}, true, c, r})
			}
		}
		if math.Abs(sweep) < 359 {
			s, e := start*math.Pi/180, (start+sweep)*math.Pi/180
			arcEndPts = append(arcEndPts, arcPt{c, r, glyph.Point{X: c.X + r*math.Cos(s), Y: c.Y + r*math.Sin(s)}},
				arcPt{c, r, glyph.Point{X: c.X + r*math.Cos(e), Y: c.Y + r*math.Sin(e)}})
		}
		// A quarter circle or more anchors (89°: a legend glyph's
		// quarters are read from a drawing).
		if r > p.r && math.Abs(sweep) >= 89 {
			p.c, p.r, p.sweep = c, r, math.Abs(sweep)
		}
	}
	// A filled shape is drawn twice: its outline, then once more as
	// samples that only filled page geometry covers, so a filled dot
	// explains more than a ring of the same size.
	for si, s := range t.Glyph.Shapes {
		cur = si
		for _, fill := range []bool{false, true} {
			if fill && !s.Fill {
				break
			}
			switch s.Kind {
			case glyph.KindLine, glyph.KindPolyline:
				addChain(s.Pts, fill)
			case glyph.KindPolygon:
				addChain(append(append([]glyph.Point(nil), s.Pts...), s.Pts[0]), fill)
			case glyph.KindRect:
				c := glyph.RectCorners(s.Pts[0], s.Pts[1])
				addChain(append(c[:], c[0]), fill)
			case glyph.KindCircle:
				addArc(s.Pts[0], s.R, 0, 360, fill)
			case glyph.KindArc:
				addArc(s.Pts[0], s.R, s.Start, s.Sweep, fill)
			case glyph.KindText:
				tx := newTplText(s.Text, s.Pts[0], s.Size)
				p.texts = append(p.texts, tx)
				p.textMM += tx.charMM() * float64(tx.n)
			}
		}
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("vector: template %s has no drawn geometry", t.Class)
	}
	p.inner = p.lines
	if t.OptionalStubs {
		p.markStubs(t.Glyph, samples, shapeOf)
		// A stub's end is no keypoint (a plan may not draw it).
		for i, ln := range p.lines {
			in := p.inner[i]
			keypoints = slices.DeleteFunc(keypoints, func(k glyph.Point) bool {
				return (k == ln[0] && in[0] != ln[0]) || (k == ln[1] && in[1] != ln[1])
			})
			if in == ln {
				continue
			}
			// Nor does a stubbed line anchor: its drawn length varies.
			if kept := slices.DeleteFunc(slices.Clone(segs), func(sg seg) bool { return sg.a == ln[0] && sg.b == ln[1] }); len(kept) > 0 {
				segs = kept
			}
		}
	}
	// A tube fitting (tubes.go): its end caps may run on past its sides,
	// and it stretches along its tubes.
	fitting, isFitting := readTubes(t.Glyph)
	if isFitting {
		p.overrun = endCapOverrun(t.Glyph, fitting, p.lines)
	}
	p.samples = spreadOrder(samples)
	pts := make([]glyph.Point, len(samples))
	for i, s := range samples {
		pts[i] = s.P
	}
	p.hull = convexHull(pts)
	p.hullEdges = edgesOf(p.hull)
	p.empty = emptyProbes(p, samples)
	// Arc ends that a page arc must not run on past: a circle around a
	// template's arc is another drawing (a grid bubble is not a socket).
	// Line ends are left out: wires attach to them and run through
	// symbols, often in line.
	for _, e := range ends {
		probe := glyph.Point{X: e.P.X + endProbeMM*e.T.X, Y: e.P.Y + endProbeMM*e.T.Y}
		// Skip ends near other template geometry: at small scales the
		// probe past them could land on the template's own lines.
		own := false
		for _, s := range samples {
			dp := math.Hypot(s.P.X-probe.X, s.P.Y-probe.Y)
			de := math.Hypot(s.P.X-e.P.X, s.P.Y-e.P.Y)
			parallel := math.Abs(s.T.X*e.T.Y-s.T.Y*e.T.X) < maxTurnSin
			if (e.arc && dp < 0.6 && de > 0.35) || (!e.arc && dp < 0.6*endProbeMM && parallel) {
				own = true
				break
			}
		}
		if e.arc && !own {
			p.arcEnds = append(p.arcEnds, arcEnd{e.sample, e.c, e.r})
		}
	}
	p.outline = t.Glyph.Outline(textWidthMM) // the way the ground truth samples it

	pairs := make([][2]glyph.Point, len(segs))
	for i, sg := range segs {
		pairs[i] = [2]glyph.Point{sg.a, sg.b}
	}
	var tubes *tubeFitting
	if isFitting {
		tubes = &fitting
	}
	p.stretch = newStretchable(t, pairs, tubes)

	// The template's corners, and its longest segment.
	bestS := 0.0
	var segA, segB glyph.Point
	var corners []corner
	for i, s1 := range segs {
		l1 := math.Hypot(s1.b.X-s1.a.X, s1.b.Y-s1.a.Y)
		if l1 > bestS {
			bestS, segA, segB = l1, s1.a, s1.b
		}
		for _, s2 := range segs[i+1:] {
			for _, e1 := range [2][2]glyph.Point{{s1.a, s1.b}, {s1.b, s1.a}} {
				for _, e2 := range [2][2]glyph.Point{{s2.a, s2.b}, {s2.b, s2.a}} {
					if math.Hypot(e1[0].X-e2[0].X, e1[0].Y-e2[0].Y) > 1e-6 {
						continue
					}
					u := glyph.Point{X: e1[1].X - e1[0].X, Y: e1[1].Y - e1[0].Y}
					w := glyph.Point{X: e2[1].X - e2[0].X, Y: e2[1].Y - e2[0].Y}
					if ang := math.Abs(glyph.Turn(u, w)); ang < 25 || ang > 155 {
						continue
					}
					c := corner{v: e1[0], a1: e1[1], a2: e2[1]}
					if math.Hypot(w.X, w.Y) > math.Hypot(u.X, u.Y) {
						c.a1, c.a2 = e2[1], e1[1]
					}
					corners = append(corners, c)
				}
			}
		}
	}
	// The anchor corner: the one with the longest shorter arm (the first
	// found among equals); the others follow, longest first.
	short := func(c corner) float64 {
		return math.Min(math.Hypot(c.a1.X-c.v.X, c.a1.Y-c.v.Y), math.Hypot(c.a2.X-c.v.X, c.a2.Y-c.v.Y))
	}
	slices.SortStableFunc(corners, func(a, b corner) int { return cmp.Compare(short(b), short(a)) })
	// A corner whose shorter arm the page's corners would not hold at
	// the template's size (a thin filled strip's end) anchors nothing.
	for len(corners) > 0 && short(corners[len(corners)-1])*PixelsPerMM < anchorArmSlack*minCornerArmPx {
		corners = corners[:len(corners)-1]
	}
	bestC := 0.0
	if len(corners) > 0 {
		bestC = short(corners[0])
	}
	// A circle is the best anchor unless it is a small dot and the
	// template has a corner: small circles are everywhere on real sheets.
	switch {
	case p.r >= minAnchorRadiusMM || (p.r > 0 && bestC == 0):
		p.kind = anchorCircle
		// The sweep drawn on the anchor circle, all its arcs together.
		for _, sh := range t.Glyph.Shapes {
			if (sh.Kind == glyph.KindArc || sh.Kind == glyph.KindCircle) && !sh.Fill &&
				math.Hypot(sh.Pts[0].X-p.c.X, sh.Pts[0].Y-p.c.Y) <= 0.03*p.r && math.Abs(sh.R-p.r) <= 0.03*p.r {
				if sh.Kind == glyph.KindCircle {
					p.circleSweep += 360
				} else {
					p.circleSweep += math.Abs(sh.Sweep)
				}
			}
		}
		// Secondary keypoint: the one farthest from the anchor centre.
		// A legend glyph's own arc end where its anchor is an arc: the
		// plan's block may draw its stems and lines a little otherwise,
		// never the arc.
		best := 0.3 * p.r
		for _, k := range keypoints {
			if d := math.Hypot(k.X-p.c.X, k.Y-p.c.Y); d > best+1e-6 {
				best, p.q, p.hasQ = d, k, true
			}
		}
		if p.stubbed() && p.sweep < 359 {
			// An end of the anchor circle's drawn sweep: an arc end on
			// it that no other arc of it continues.
			tol := 0.03 * p.r // legend glyphs are read from drawings
			same := func(a, b glyph.Point) bool { return math.Hypot(a.X-b.X, a.Y-b.Y) <= tol }
			for i, e := range arcEndPts {
				if !same(e.c, p.c) || math.Abs(e.r-p.r) > tol {
					continue
				}
				joined := false
				for j, f := range arcEndPts {
					if j != i && same(f.c, p.c) && math.Abs(f.r-p.r) <= tol && same(f.p, e.p) {
						joined = true
						break
					}
				}
				if !joined {
					p.q, p.hasQ = e.p, true
					break
				}
			}
		}
	case bestC > 0:
		a := corners[0]
		p.kind, p.v, p.a1, p.a2 = anchorCorner, a.v, a.a1, a.a2
		for _, c := range corners[1:] {
			if len(p.alts) == maxAltCorners || short(c) < altCornerShare*bestC {
				break
			}
			if c != a {
				p.alts = append(p.alts, c)
			}
		}
	default:
		p.kind, p.a1, p.a2 = anchorSegment, segA, segB
	}
	return p, nil
}

// Optional stubs (Template.OptionalStubs).
const (
	// stubMarginMM: a line's samples farther than this outside the
	// convex hull of the rest of the glyph are its stub.
	stubMarginMM = 0.1
	// stubMaxShare: a line whose stubs make more than this share of it
	// is a part of the glyph of its own (a lever, an arm), not a line
	// running on past the glyph.
	stubMaxShare = 0.6
)

// markStubs marks the stub samples of the glyph's straight lines (the
// parts lying outside the convex hull of the rest of the glyph) optional
// and records each line's ends without them in p.inner.
func (p *prepared) markStubs(g glyph.Glyph, samples []sample, shapeOf []int) {
	p.inner = make([][2]glyph.Point, len(p.lines))
	copy(p.inner, p.lines)
	for si, s := range g.Shapes {
		if s.Kind != glyph.KindLine || len(s.Pts) != 2 || s.Fill {
			continue
		}
		var others []glyph.Point
		for sj, o := range g.Shapes {
			if sj != si && o.Kind != glyph.KindText {
				for _, pl := range (glyph.Glyph{Shapes: []glyph.Shape{o}}).Polylines(0.05) {
					others = append(others, pl...)
				}
			}
		}
		var mine []int
		for i := range samples {
			if shapeOf[i] == si {
				mine = append(mine, i)
			}
		}
		hull := convexHull(others)
		if len(hull) < 3 || len(mine) == 0 {
			continue
		}
		var out []int
		for _, i := range mine {
			if !insideBy(hull, samples[i].P, -stubMarginMM) {
				out = append(out, i)
			}
		}
		a, b := s.Pts[0], s.Pts[1]
		lo, hi, ok := clipToHull(hull, a, b)
		// Only a line running on past the glyph at both ends (a base
		// line, a piece of wall) has stubs; a line sticking out at one
		// end is a stem or a lever, part of the symbol.
		span := math.Hypot(b.X-a.X, b.Y-a.Y)
		both := lo*span > stubMarginMM && (1-hi)*span > stubMarginMM
		if len(out) == 0 || float64(len(out)) > stubMaxShare*float64(len(mine)) || !ok || !both {
			continue
		}
		for _, i := range out {
			samples[i].Opt = true
		}
		ia := glyph.Point{X: a.X + lo*(b.X-a.X), Y: a.Y + lo*(b.Y-a.Y)}
		ib := glyph.Point{X: a.X + hi*(b.X-a.X), Y: a.Y + hi*(b.Y-a.Y)}
		for k, ln := range p.lines {
			if ln[0] == a && ln[1] == b {
				p.inner[k] = [2]glyph.Point{ia, ib}
			}
		}
	}
}

// stubbed reports whether any of the template's lines has optional
// stubs.
func (p *prepared) stubbed() bool {
	for i, l := range p.lines {
		if p.inner[i] != l {
			return true
		}
	}
	return false
}

// clipToHull returns the part of the line a–b within the convex hull
// (counter-clockwise, as convexHull returns it) widened by stubMarginMM,
// as fractions lo ≤ hi along the line; ok is false when none is.
func clipToHull(hull []glyph.Point, a, b glyph.Point) (lo, hi float64, ok bool) {
	lo, hi = 0, 1
	d := glyph.Point{X: b.X - a.X, Y: b.Y - a.Y}
	for i := range hull {
		e0, e1 := hull[i], hull[(i+1)%len(hull)]
		ex, ey := e1.X-e0.X, e1.Y-e0.Y
		l := math.Hypot(ex, ey)
		if l == 0 {
			continue
		}
		// Signed distance inside the edge at a + t·d: c0 + t·c1 ≥ -margin.
		c0 := (ex*(a.Y-e0.Y)-ey*(a.X-e0.X))/l + stubMarginMM
		c1 := (ex*d.Y - ey*d.X) / l
		switch {
		case c1 == 0:
			if c0 < 0 {
				return 0, 0, false
			}
		case c1 > 0:
			lo = math.Max(lo, -c0/c1)
		default:
			hi = math.Min(hi, -c0/c1)
		}
	}
	return lo, hi, lo < hi
}

// spreadOrder reorders samples so that any prefix is spread over the whole
// template (bit-reversal order), which lets verification reject a wrong
// pose after a few samples.
func spreadOrder(s []sample) []sample {
	n := len(s)
	bits := 0
	for 1<<bits < n {
		bits++
	}
	out := make([]sample, 0, n)
	for i := 0; i < 1<<bits; i++ {
		r := 0
		for b := 0; b < bits; b++ {
			if i&(1<<b) != 0 {
				r |= 1 << (bits - 1 - b)
			}
		}
		if r < n {
			out = append(out, s[r])
		}
	}
	return out
}

// textWidthMM estimates the advance width of text set with cap height size.
func textWidthMM(s string, size float64) float64 {
	return 0.8 * size * float64(len([]rune(s)))
}
