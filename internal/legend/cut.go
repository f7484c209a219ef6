package legend

import (
	"errors"
	"math"
	"slices"
	"strings"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// cutMargin is how far, in raster pixels, a piece may reach past the box
// it is cut from and still count as inside it (stroke ends drawn on the
// box's edge).
const cutMargin = 1.0

// Cut is the drawing cut from a box on a page (CutGlyph).
type Cut struct {
	// Glyph is the drawing in millimetres of the page at the drawn size,
	// centred on Drawn.
	Glyph glyph.Glyph
	// Drawn is the extent of the drawing kept, in raster pixels.
	Drawn Rect
	// Pen is the paint that draws most of it (by length).
	Pen drawing.Style
}

// Limits of what CutGlyph cuts: a symbol, even one with a long text, draws
// far less; cutting and matching more would take minutes. MaxCutPieces
// counts the glyph's shapes (a circle written as a polyline of a hundred
// segments is one, a fill's many polygons are their outline), and the box
// may hold maxCutRaw times as many pieces before they are joined.
const (
	MaxCutPieces = 250
	MaxCutChars  = 40
	maxCutRaw    = 8
)

// Errors of CutGlyph.
var (
	ErrCutEmpty    = errors.New("the box holds no drawing")
	ErrCutTooLarge = errors.New("the box holds more drawing than one symbol draws")
)

// cutTextGap is how far from the drawing, in ems of a character, the
// character may stand and still be the symbol's text.
const cutTextGap = 0.3

// CutGlyph cuts the drawing that lies wholly inside box on pg into a glyph,
// as a legend row's glyph is cut from its cell: the segments and arcs
// inside box (pieces that cross its edge, such as wires and walls running
// through it, are left out; so are dense hatching, which the vector
// matcher does not see, and fills in the paper's colour, which draw
// nothing) in the symbol's paint: the stroke colour of which the box holds
// the most beyond what a ring of its area around it holds (the symbol the
// box is drawn around, not the ground it stands on), with the fills of
// other colours that its drawing encloses; fills drawn as many polygons
// and hatch strips simplified the same way, and the characters drawn
// within the extent of that drawing or within cutTextGap ems of it as the
// glyph's text (a label beside the symbol is not part of it). It returns
// ErrCutEmpty when box holds no drawing, and ErrCutTooLarge when it holds
// more than MaxCutPieces shapes or MaxCutChars characters: far more than
// one symbol draws (a box around a room or the whole sheet).
func CutGlyph(pg *drawing.Page, box Rect) (Cut, error) {
	if pg == nil {
		return Cut{}, ErrCutEmpty
	}
	outer := Rect{
		Min: glyph.Point{X: box.Min.X - cutMargin, Y: box.Min.Y - cutMargin},
		Max: glyph.Point{X: box.Max.X + cutMargin, Y: box.Max.Y + cutMargin},
	}
	// What the vector matcher looks at: the page without its dense
	// hatching (a wall's hatch under a wall socket would otherwise be
	// most of the box, and no match could ever find it).
	hp := pg.WithoutHatching()
	ix := newIndex(within(hp, outer), nil)
	var all []int32
	ix.piecesIn(outer, func(i int32) {
		b := ix.pieces[i].box
		if outer.Contains(b.Min) && outer.Contains(b.Max) && !ix.paperFill(i) {
			all = append(all, i)
		}
	})
	if len(all) == 0 {
		return Cut{}, ErrCutEmpty
	}
	if len(all) > maxCutRaw*MaxCutPieces {
		return Cut{}, ErrCutTooLarge
	}
	// The box is drawn around one symbol, which draws most of what lies
	// wholly inside it: drawing in other colours is something else that
	// the box could not leave out (a wall, a hatch, a grid bubble, the
	// end of a wire running to the symbol's centre, a leader's arrow).
	//
	// A symbol's lines are stroked: its paint is a stroke's, a fill's
	// only where nothing inside the box is stroked (a socket's filled
	// half is drawn in black inside its red outline). And the box holds
	// the symbol, while the ground it stands on runs on past the box: of
	// each paint, what the box holds counts less what a ring around it of
	// the box's area holds (a wall's hatch, a grid of ceiling tiles
	// fill the ring as densely as the box; the symbol does not).
	stroked := false
	for _, i := range all {
		stroked = stroked || ix.stroked(i)
	}
	// Each paint weighs what it draws: a stroke hidden under a fill of its
	// own paint (the sides of the triangles a CAD writer cuts a filled
	// area into, each stroked as well as filled) weighs nothing, and a
	// segment drawn twice over weighs once; else a luminaire's black bow
	// tie, cut into fifty triangles stroked twice, would outweigh the red
	// rings it stands in.
	var segs []int
	for _, i := range all {
		if k := ix.pieces[i].seg; k >= 0 {
			segs = append(segs, k)
		}
	}
	hidden := drawing.HiddenStrokes(ix.pg, segs)
	byPaint := map[string]float64{}
	type drawnSeg struct {
		paint string
		seg   segKey
	}
	counted := map[drawnSeg]bool{}
	for _, i := range all {
		if !(ix.stroked(i) || !stroked) || ix.pieces[i].seg >= 0 && hidden[ix.pieces[i].seg] {
			continue
		}
		if k := ix.pieces[i].seg; k >= 0 {
			d := drawnSeg{ix.paint(i), keyOfSegment(ix.pg.Segments[k], 100)}
			if counted[d] {
				continue
			}
			counted[d] = true
		}
		byPaint[ix.paint(i)] += ix.length(i)
	}
	ring := ringPaint(hp, outer, stroked)
	paint := ""
	score := func(p string) float64 { return byPaint[p] - ring[p] }
	for p, l := range byPaint {
		if paint == "" || score(p) > score(paint) || score(p) == score(paint) && (l > byPaint[paint] || l == byPaint[paint] && p < paint) {
			paint = p
		}
	}
	var pieces []int32
	drawn := emptyRect()
	for _, i := range all {
		if ix.paint(i) == paint {
			pieces = append(pieces, i)
			drawn = drawn.union(ix.pieces[i].box)
		}
	}
	// A fill of another paint that the symbol's drawing encloses is part
	// of it (the filled half of a double socket, a downlight's filled
	// quadrants); the pen stays the symbol's.
	var fills []int32
	enclosing := Rect{
		Min: glyph.Point{X: drawn.Min.X - cutMargin, Y: drawn.Min.Y - cutMargin},
		Max: glyph.Point{X: drawn.Max.X + cutMargin, Y: drawn.Max.Y + cutMargin},
	}
	for _, i := range all {
		if b := ix.pieces[i].box; ix.paint(i) != paint && !ix.stroked(i) && enclosing.Contains(b.Min) && enclosing.Contains(b.Max) {
			fills = append(fills, i)
		}
	}
	var inBox []int
	for i, ch := range pg.Chars {
		c := glyph.Point{X: (ch.Min.X + ch.Max.X) / 2, Y: (ch.Min.Y + ch.Max.Y) / 2}
		if strings.TrimSpace(ch.Text) != "" && box.Contains(c) {
			inBox = append(inBox, i)
		}
	}
	if len(inBox) > MaxCutChars {
		return Cut{}, ErrCutTooLarge
	}
	var inside []int32
	for _, i := range inBox {
		ch := pg.Chars[i]
		// Text of the symbol touches its drawing or sits just beside it
		// (IP44 under a socket); a label stands apart from it, and one
		// the box cuts through is no part of what the box holds.
		gap := cutTextGap * ch.Size
		near := Rect{Min: glyph.Point{X: drawn.Min.X - gap, Y: drawn.Min.Y - gap}, Max: glyph.Point{X: drawn.Max.X + gap, Y: drawn.Max.Y + gap}}
		if ch.Max.X >= near.Min.X && ch.Min.X <= near.Max.X && ch.Max.Y >= near.Min.Y && ch.Min.Y <= near.Max.Y && !runLeaves(pg, i, box) {
			inside = append(inside, int32(i))
		}
	}
	g, _, _, _ := ix.glyphOf(append(slices.Clip(pieces), fills...), inside, drawn)
	if len(g.Shapes) == 0 {
		return Cut{}, ErrCutEmpty
	}
	if len(g.Shapes) > MaxCutPieces {
		return Cut{}, ErrCutTooLarge
	}
	byPen := map[drawing.Style]float64{}
	for _, i := range pieces {
		byPen[ix.style(i)] += ix.length(i)
	}
	var pen drawing.Style
	for p, l := range byPen {
		if l > byPen[pen] || (l == byPen[pen] && penLess(p, pen)) {
			pen = p
		}
	}
	return Cut{Glyph: g, Drawn: drawn, Pen: pen}, nil
}

// ringPaint is the length, per paint, of the segments and arcs (only
// stroked ones when stroked is set; never a paper fill) that lie wholly
// inside r grown to twice its area but not wholly inside r.
func ringPaint(pg *drawing.Page, r Rect, stroked bool) map[string]float64 {
	gx := (math.Sqrt2 - 1) / 2 * (r.Max.X - r.Min.X)
	gy := (math.Sqrt2 - 1) / 2 * (r.Max.Y - r.Min.Y)
	g := Rect{Min: glyph.Point{X: r.Min.X - gx, Y: r.Min.Y - gy}, Max: glyph.Point{X: r.Max.X + gx, Y: r.Max.Y + gy}}
	out := map[string]float64{}
	add := func(st drawing.Style, lo, hi glyph.Point, l float64) {
		if !g.Contains(lo) || !g.Contains(hi) || r.Contains(lo) && r.Contains(hi) {
			return
		}
		switch {
		case st.Stroke != "":
			out[st.Stroke] += l
		case !stroked && st.InkFill():
			out[st.Fill] += l
		}
	}
	for _, s := range pg.Segments {
		add(pg.Styles[s.Style], glyph.MinPoint(s.A, s.B), glyph.MaxPoint(s.A, s.B), math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y))
	}
	for _, a := range pg.Arcs {
		b := arcBox(a)
		add(pg.Styles[a.Style], b.Min, b.Max, math.Abs(a.Sweep)*math.Pi/180*a.R)
	}
	return out
}

// within is pg with only the segments and arcs that lie wholly inside r,
// in their order (what CutGlyph may cut: indexing a whole A1 sheet's
// pieces for one box cost a tenth of a second).
func within(pg *drawing.Page, r Rect) *drawing.Page {
	sub := &drawing.Page{Width: pg.Width, Height: pg.Height, Styles: pg.Styles, Chars: pg.Chars, ImageArea: pg.ImageArea}
	for _, s := range pg.Segments {
		if r.Contains(s.A) && r.Contains(s.B) {
			sub.Segments = append(sub.Segments, s)
		}
	}
	for _, a := range pg.Arcs {
		if b := arcBox(a); r.Contains(b.Min) && r.Contains(b.Max) {
			sub.Arcs = append(sub.Arcs, a)
		}
	}
	return sub
}

// style is the paint of piece i.
func (ix *pageIndex) style(i int32) drawing.Style {
	if p := ix.pieces[i]; p.seg >= 0 {
		return ix.pg.Styles[ix.pg.Segments[p.seg].Style]
	} else {
		return ix.pg.Styles[ix.pg.Arcs[p.arc].Style]
	}
}

// paint is the colour piece i is drawn in: its stroke, else its fill.
func (ix *pageIndex) paint(i int32) string {
	if st := ix.style(i); st.Stroke != "" {
		return st.Stroke
	} else {
		return st.Fill
	}
}

// stroked reports whether piece i is drawn by a stroke.
func (ix *pageIndex) stroked(i int32) bool { return ix.style(i).Stroke != "" }

// paperFill reports whether piece i is the outline of a fill in the
// paper's colour (drawing.PaperColour), with no stroke of its own: it
// draws nothing, so it is no part of what a box holds.
func (ix *pageIndex) paperFill(i int32) bool {
	st := ix.style(i)
	return st.Stroke == "" && !st.InkFill()
}

// length is the drawn length of piece i, in pixels.
func (ix *pageIndex) length(i int32) float64 {
	if p := ix.pieces[i]; p.seg >= 0 {
		s := ix.pg.Segments[p.seg]
		return math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y)
	} else {
		a := ix.pg.Arcs[p.arc]
		return math.Abs(a.Sweep) * math.Pi / 180 * a.R
	}
}

// penLess orders paints, so that ties between them are settled the same
// way every time.
func penLess(a, b drawing.Style) bool {
	if a.Stroke != b.Stroke {
		return a.Stroke < b.Stroke
	}
	if a.Fill != b.Fill {
		return a.Fill < b.Fill
	}
	return a.Width < b.Width
}

// runLeaves reports whether the run of text character i belongs to (the
// characters on its line, each closer than 0.6 em to the next) reaches
// outside box.
func runLeaves(pg *drawing.Page, i int, box Rect) bool {
	ch := pg.Chars[i]
	line := func(o drawing.Char) bool { return math.Abs(o.Origin.Y-ch.Origin.Y) <= 0.3*ch.Size }
	lo, hi := ch.Min.X, ch.Max.X
	for grew := true; grew; {
		grew = false
		for _, o := range pg.Chars {
			if !line(o) || strings.TrimSpace(o.Text) == "" || (o.Min.X >= lo && o.Max.X <= hi) {
				continue
			}
			if o.Max.X >= lo-0.6*ch.Size && o.Min.X <= hi+0.6*ch.Size {
				if !box.Contains(o.Min) || !box.Contains(o.Max) {
					return true
				}
				lo, hi = math.Min(lo, o.Min.X), math.Max(hi, o.Max.X)
				grew = true
			}
		}
	}
	return false
}
