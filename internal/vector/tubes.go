package vector

import (
	"cmp"
	"math"
	"slices"

	"blueprint/internal/glyph"
)

// Tube fittings: a fluorescent or LED fitting is drawn as its outline
// with one bar per tube along its length, and a legend's glyph shows one
// model (three tubes) where the plan draws the fittings it installs (two
// tubes, to length). A stretchable template whose glyph is such a
// fitting, with two or more tubes, is also searched with minTubes to
// maxTubes tubes spread between its outermost ones (tubeVariants), each
// variant verified as strictly as the glyph itself and stretched like it.
// A variant's matches report the row's class at a confidence lowered by
// tubeVariantDiscount: the plan draws a fitting the legend does not. The
// stretched search of a fitting starts from the page's rectangles of two
// parallel sides with tubes between them (hashFittingCorners), and the
// page segments of its end caps may run on past its sides
// (endCapOverrun).
const (
	minTubes = 2
	maxTubes = 4
	// tubeMinSpan: a tube runs along at least this share of the glyph's
	// length.
	tubeMinSpan = 0.8
	// tubeMaxThick: a tube is at most this share of the glyph's width
	// thick.
	tubeMaxThick = 0.12
	// tubeGap: pieces whose centres lie within this share of the width
	// of each other draw one tube (a filled bar and its outline).
	tubeGap = 0.1
	// tubeVariantDiscount scales a variant's confidence.
	tubeVariantDiscount = 0.9
)

// tubeFitting is a glyph read as an outline and its tubes.
type tubeFitting struct {
	alongY bool
	// tubes holds each tube's shapes (indices into the glyph's Shapes) and
	// its centre across the fitting, sorted by centre.
	tubes []tube
}

type tube struct {
	shapes []int
	centre float64
}

// readTubes returns g read as a tube fitting: an outline whose long
// sides run along most of the glyph's length at both edges of its box,
// and two or more tubes (shapes strictly inside the box, thin across it
// and running along most of its length) parallel to them, nothing else
// inside and nothing curved. A bar with end caps and no sides (the
// catalog's linear luminaire) is not one: its lines are its body.
func readTubes(g glyph.Glyph) (tubeFitting, bool) {
	lo, hi := g.Bounds()
	for _, alongY := range []bool{false, true} {
		// a: along the tubes; c: across.
		a0, a1, c0, c1 := lo.X, hi.X, lo.Y, hi.Y
		if alongY {
			a0, a1, c0, c1 = lo.Y, hi.Y, lo.X, hi.X
		}
		la, lc := a1-a0, c1-c0
		if la <= 0 || lc <= 0 {
			continue
		}
		var f tubeFitting
		f.alongY = alongY
		sides := 0 // bit 1: the outline's side at c0, bit 2: at c1
		for i, sh := range g.Shapes {
			switch sh.Kind {
			case glyph.KindText, glyph.KindCircle, glyph.KindArc:
				return tubeFitting{}, false
			}
			sl, sh2 := glyph.Glyph{Shapes: []glyph.Shape{sh}}.Bounds()
			sa0, sa1, sc0, sc1 := sl.X, sh2.X, sl.Y, sh2.Y
			if alongY {
				sa0, sa1, sc0, sc1 = sl.Y, sh2.Y, sl.X, sh2.X
			}
			inside := sc0 > c0+0.05*lc && sc1 < c1-0.05*lc
			if inside && sa1-sa0 >= tubeMinSpan*la && sc1-sc0 <= tubeMaxThick*lc {
				f.add(i, (sc0+sc1)/2, tubeGap*lc)
				continue
			}
			if inside {
				return tubeFitting{}, false // something else inside: not a plain fitting
			}
			// The outline's long sides: pieces along the tubes at either
			// edge, of a line or of a rectangle or polygon drawn whole.
			for _, pl := range (glyph.Glyph{Shapes: []glyph.Shape{sh}}).Polylines(0.05) {
				for k := 1; k < len(pl); k++ {
					p, q := pl[k-1], pl[k]
					pa, qa, pc, qc := p.X, q.X, p.Y, q.Y
					if alongY {
						pa, qa, pc, qc = p.Y, q.Y, p.X, q.X
					}
					if math.Abs(qa-pa) < tubeMinSpan*la || math.Abs(qc-pc) > 0.02*la {
						continue
					}
					switch c := (pc + qc) / 2; {
					case c <= c0+0.05*lc:
						sides |= 1
					case c >= c1-0.05*lc:
						sides |= 2
					}
				}
			}
		}
		if sides == 3 && len(f.tubes) >= minTubes {
			slices.SortFunc(f.tubes, func(x, y tube) int { return cmp.Compare(x.centre, y.centre) })
			return f, true
		}
	}
	return tubeFitting{}, false
}

// add puts shape i into the tube whose centre lies within gap of c, or a
// new one.
func (f *tubeFitting) add(i int, c, gap float64) {
	for k := range f.tubes {
		if math.Abs(f.tubes[k].centre-c) <= gap {
			f.tubes[k].shapes = append(f.tubes[k].shapes, i)
			return
		}
	}
	f.tubes = append(f.tubes, tube{shapes: []int{i}, centre: c})
}

// tubeVariants returns t's glyph drawn with each other count of tubes
// from minTubes to maxTubes, spread evenly between its outermost tubes
// (each a copy of its first), or nothing where t is not a stretchable
// tube fitting.
func tubeVariants(t Template) []Template {
	if !t.Stretch {
		return nil
	}
	f, ok := readTubes(t.Glyph)
	if !ok {
		return nil
	}
	isTube := map[int]bool{}
	for _, tb := range f.tubes {
		for _, i := range tb.shapes {
			isTube[i] = true
		}
	}
	var base []glyph.Shape
	for i, sh := range t.Glyph.Shapes {
		if !isTube[i] {
			base = append(base, sh)
		}
	}
	first, last := f.tubes[0], f.tubes[len(f.tubes)-1]
	var out []Template
	for k := minTubes; k <= maxTubes; k++ {
		if k == len(f.tubes) {
			continue
		}
		shapes := slices.Clone(base)
		for j := range k {
			d := (last.centre - first.centre) * float64(j) / float64(k-1) // from the first tube
			m := glyph.Translate(0, d)
			if f.alongY {
				m = glyph.Translate(d, 0)
			}
			for _, i := range first.shapes {
				shapes = append(shapes, glyph.Glyph{Shapes: []glyph.Shape{t.Glyph.Shapes[i]}}.Transform(m).Shapes...)
			}
		}
		v := t
		v.Glyph = glyph.Glyph{Shapes: shapes}
		out = append(out, v)
	}
	return out
}

// confidence is the confidence of a match of t covering cov of it: a tube
// variant's is lowered by tubeVariantDiscount.
func (t *prepared) confidence(cov float64) float64 {
	c := confidence(cov)
	if t.variant {
		c *= tubeVariantDiscount
	}
	return c
}

// fittingBounds bound the rectangles searched for tube fittings, in page
// pixels: the gap between a rectangle's long sides and its length.
type fittingBounds struct {
	minGap, maxGap, minLen float64
}

// fittingBoundsOf returns the bounds that t's stretched poses can reach,
// ok false where t is not a stretched tube fitting.
func fittingBoundsOf(t *prepared) (fittingBounds, bool) {
	s := t.stretch
	if s == nil || !s.fitting {
		return fittingBounds{}, false
	}
	lw := math.Hypot(s.w.X-s.v.X, s.w.Y-s.v.Y) * PixelsPerMM
	lu := math.Hypot(s.l.X-s.v.X, s.l.Y-s.v.Y) * PixelsPerMM
	return fittingBounds{minGap: lw * t.minScale, maxGap: lw * t.maxScale, minLen: lu * t.minScale * minStretch}, true
}

func (b fittingBounds) union(o fittingBounds) fittingBounds {
	if b.maxGap == 0 {
		return o
	}
	return fittingBounds{min(b.minGap, o.minGap), max(b.maxGap, o.maxGap), min(b.minLen, o.minLen)}
}

// pairAlignPx: the ends of a rectangle's two long sides lie this close
// to square across from each other.
const pairAlignPx = 1.5

// fittingAngBuckets is how many buckets of direction (modulo 180°)
// hashFittingCorners looks segments up by.
const fittingAngBuckets = 90

// sameLinePx: parallel lines closer than this are one line drawn twice.
const sameLinePx = 0.75

// hashFittingCorners finds the corners of the rectangles that two
// parallel page segments of one extent outline with at least minTubes
// more between them (the long sides of a fitting and its tubes, where
// the fitting's short sides run on past its long ones or stop short, so
// that no segment ends where another does), for the stretched search of
// tube fittings: each rectangle gives its four corners, long arm first.
// Walls, drawn as two lines with nothing between them, give none.
func (ix *pageIndex) hashFittingCorners(b fittingBounds) {
	segs := ix.pg.Segments
	// Ends are looked up by cell and by direction (fittingAngBuckets
	// buckets of the angle modulo 180°): a side's partners run parallel.
	type key [3]int32
	keyOf := func(p glyph.Point, ab int32) key {
		return key{int32(math.Floor(p.X / b.maxGap)), int32(math.Floor(p.Y / b.maxGap)), (ab + fittingAngBuckets) % fittingAngBuckets}
	}
	angBucket := func(d glyph.Point) int32 {
		a := math.Atan2(d.Y, d.X) * 180 / math.Pi
		if a < 0 {
			a += 180
		}
		return int32(a/(180/fittingAngBuckets)) % fittingAngBuckets
	}
	ends := map[key][]int32{} // 2*segment + end (0: A, 1: B)
	for i := range segs {
		if ix.segs[i].l >= b.minLen {
			ab := angBucket(ix.segs[i].dir)
			ends[keyOf(segs[i].A, ab)] = append(ends[keyOf(segs[i].A, ab)], int32(2*i))
			ends[keyOf(segs[i].B, ab)] = append(ends[keyOf(segs[i].B, ab)], int32(2*i+1))
		}
	}
	type partner struct {
		o      float64 // offset across segment i, towards its normal
		a2, b2 glyph.Point
	}
	var ps []partner
	ix.fittingArms = ix.fittingArms[:0]
	for i := range segs {
		si := &ix.segs[i]
		if si.l < b.minLen {
			continue
		}
		a1, b1 := segs[i].A, segs[i].B
		n := glyph.Point{X: -si.dir.Y, Y: si.dir.X}
		ps = ps[:0]
		c := keyOf(a1, angBucket(si.dir))
		for da := int32(-1); da <= 1; da++ {
			for dy := int32(-1); dy <= 1; dy++ {
				for dx := int32(-1); dx <= 1; dx++ {
					for _, e := range ends[key{c[0] + dx, c[1] + dy, (c[2] + da + fittingAngBuckets) % fittingAngBuckets}] {
						j := int(e / 2)
						if j == i {
							continue
						}
						a2, b2 := segs[j].A, segs[j].B
						if e%2 == 1 {
							a2, b2 = b2, a2
						}
						off := glyph.Point{X: a2.X - a1.X, Y: a2.Y - a1.Y}
						o := off.X*n.X + off.Y*n.Y
						if o < sameLinePx || o > b.maxGap || math.Abs(off.X*si.dir.X+off.Y*si.dir.Y) > pairAlignPx ||
							math.Hypot(b2.X-b1.X-off.X, b2.Y-b1.Y-off.Y) > 2*pairAlignPx {
							continue
						}
						ps = append(ps, partner{o, a2, b2})
					}
				}
			}
		}
		if len(ps) <= minTubes {
			continue
		}
		slices.SortFunc(ps, func(x, y partner) int { return cmp.Compare(x.o, y.o) })
		// Each partner far enough across is the other long side where
		// minTubes distinct lines lie between the two (a line drawn twice,
		// as a fill's edge and a stroke, is one, and gives one rectangle).
		inner, last := 0, math.Inf(-1)
		for _, p := range ps {
			if p.o-last > sameLinePx {
				if p.o >= b.minGap && inner >= minTubes {
					ix.addRectangle(a1, b1, p.a2, p.b2)
				}
				inner++
			}
			last = p.o
		}
	}
}

// addRectangle adds the corners of the rectangle whose long sides run
// from a1 to b1 and from a2 to b2.
func (ix *pageIndex) addRectangle(a1, b1, a2, b2 glyph.Point) {
	for _, c := range [4][3]glyph.Point{{a1, b1, a2}, {b1, a1, b2}, {a2, b2, a1}, {b2, a2, b1}} {
		v := c[0]
		a := glyph.Point{X: c[1].X - v.X, Y: c[1].Y - v.Y}
		bb := glyph.Point{X: c[2].X - v.X, Y: c[2].Y - v.Y}
		ang := glyph.Turn(a, bb)
		ix.fittingArms = append(ix.fittingArms, cornerArms{v: v, a: a, b: bb, la: math.Hypot(a.X, a.Y), ang: ang})
	}
}

// capOverrun is how far, for its length, a page segment may run past
// each end of a tube fitting's end cap: plans often draw a fitting's
// ends as plates wider than its body.
const capOverrun = 0.5

// endCapOverrun returns, per line of the glyph g of tube fitting f, how
// far its page segment may run past its ends: capOverrun of its length
// for the lines across the tubes at either end of the fitting (its end
// caps), nothing for the others.
func endCapOverrun(g glyph.Glyph, f tubeFitting, lines [][2]glyph.Point) []float64 {
	lo, hi := g.Bounds()
	a0, a1 := lo.X, hi.X
	if f.alongY {
		a0, a1 = lo.Y, hi.Y
	}
	eps := 0.02 * (a1 - a0)
	out := make([]float64, len(lines))
	for i, l := range lines {
		pa, pb := l[0].X, l[1].X
		if f.alongY {
			pa, pb = l[0].Y, l[1].Y
		}
		if math.Abs(pa-pb) > eps { // not across the tubes
			continue
		}
		if math.Abs(pa-a0) <= eps || math.Abs(pa-a1) <= eps {
			out[i] = capOverrun * math.Hypot(l[1].X-l[0].X, l[1].Y-l[0].Y)
		}
	}
	return out
}
