package legend

import (
	"fmt"
	"math"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// Pens: the colour and stroke width a CAD drawing draws a symbol with.
// Rows drawing one shape with different pens (ArchiCAD's pens, a faint
// hairline variant beside a bold one) are told apart on the plan by the
// pen each match is drawn with (Document.Assign).

// colourTol is the largest RGB distance (summed over channels) between
// two colours taken for one (exporters round).
const colourTol = 48

// colourClose: colours within colourTol.
func colourClose(a, b string) bool {
	return colourDist(a, b) <= colourTol
}

// colourDist is the RGB distance of two "#rrggbb" colours (summed over
// channels): 0 where both are the same text, +Inf where either is not a
// colour.
func colourDist(a, b string) float64 {
	if a == b {
		return 0
	}
	ra, ga, ba, ok1 := hexRGB(a)
	rb, gb, bb, ok2 := hexRGB(b)
	if !ok1 || !ok2 {
		return math.Inf(1)
	}
	return math.Abs(ra-rb) + math.Abs(ga-gb) + math.Abs(ba-bb)
}

func hexRGB(s string) (float64, float64, float64, bool) {
	var r, g, b int
	if _, err := fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return 0, 0, 0, false
	}
	return float64(r), float64(g), float64(b), true
}

// penWidthTol: two stroke widths (raster pixels) are one pen's when they
// differ by at most this, or by a quarter of the wider (exporters round;
// a hairline is 0).
const penWidthTol = 0.5

// widthClose reports whether two stroke widths are one pen's.
func widthClose(a, b float64) bool {
	return math.Abs(a-b) <= math.Max(penWidthTol, 0.25*math.Max(a, b))
}

// samePen reports whether two rows draw with one pen: close colours and
// stroke widths.
func samePen(a, b Row) bool {
	return colourClose(a.Color, b.Color) && widthClose(a.Width, b.Width)
}

// penLengths sums drawn length by pen (colour and stroke width).
type penLengths map[string]map[float64]float64

func (p *penLengths) add(colour string, width, length float64) {
	if *p == nil {
		*p = penLengths{}
	}
	if (*p)[colour] == nil {
		(*p)[colour] = map[float64]float64{}
	}
	(*p)[colour][math.Round(width*4)/4] += length
}

// colour is the stroke colour with the most length, "" for none.
func (p penLengths) colour() string {
	total := make(map[string]float64, len(p))
	for c, ws := range p {
		for _, l := range ws {
			total[c] += l
		}
	}
	return mostLength(total)
}

// mostLength is the key of m with the most length, the first by name of
// equals; "" for an empty m.
func mostLength(m map[string]float64) string {
	best, bestLen := "", 0.0
	for c, l := range m {
		if l > bestLen || (l == bestLen && c < best) {
			best, bestLen = c, l
		}
	}
	return best
}

// width is the stroke width that draws the most length in colour (the
// thinnest of equals), 0 where colour draws nothing stroked.
func (p penLengths) width(colour string) float64 {
	best, bestLen := 0.0, 0.0
	for w, l := range p[colour] {
		if l > bestLen || (l == bestLen && w < best) {
			best, bestLen = w, l
		}
	}
	return best
}

// byPen returns the leader row a match of leader l's glyph belongs to by
// the pen that draws it: among l and its siblings (leaders of the same
// shape, or of l's shape with more), those whose colour is the symbol's,
// and of them one whose stroke width is the symbol's too, l first. A plan
// may draw every symbol thinner or bolder than its legend, so the colour
// decides first and the width only among rows of that colour; where no
// row has the symbol's colour, the match keeps l.
func (d *Document) byPen(pg *drawing.Page, l int, box detect.Box) int {
	sib := d.siblings[l]
	if len(sib) == 0 {
		return l
	}
	colour, width := drawnPen(pg, box)
	if colour == "" {
		return l
	}
	best, bestScore := l, math.Inf(1)
	for _, j := range append([]int{l}, sib...) {
		dist := colourDist(d.Rows[j].Color, colour)
		if dist > colourTol {
			continue
		}
		score := dist
		if !widthClose(d.Rows[j].Width, width) {
			score += 2 * colourTol // any row of the symbol's colour and width first
		}
		if score < bestScore {
			best, bestScore = j, score
		}
	}
	return best
}

// drawnPen is the pen most of the symbol in box is drawn with: of the
// page's pieces centred in the box and no longer than its size (not the
// wires through it), the stroke colour with the most length (the fills'
// where nothing is stroked), as a legend row's pen is read (glyphOf), and
// the stroke width drawing most of that colour's length.
func drawnPen(pg *drawing.Page, box detect.Box) (string, float64) {
	size := math.Max(box.W, box.H)
	in := func(p glyph.Point) bool {
		return p.X >= box.X && p.X <= box.X+box.W && p.Y >= box.Y && p.Y <= box.Y+box.H
	}
	length := map[string]float64{}
	var pens penLengths
	add := func(style int32, l float64) {
		st := pg.Styles[style]
		if st.Stroke != "" {
			pens.add(st.Stroke, st.Width, l)
		}
		length[st.Paint()] += l
	}
	for _, s := range pg.Segments {
		l := math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y)
		if l <= size && in(glyph.Point{X: (s.A.X + s.B.X) / 2, Y: (s.A.Y + s.B.Y) / 2}) {
			add(s.Style, l)
		}
	}
	for _, a := range pg.Arcs {
		if 2*a.R <= size && in(a.C) {
			add(a.Style, math.Abs(a.Sweep)*math.Pi/180*a.R)
		}
	}
	best := pens.colour()
	if best == "" {
		delete(length, "") // paint of no colour
		best = mostLength(length)
	}
	return best, pens.width(best)
}
