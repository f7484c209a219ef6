// Package glyph describes symbol drawings as small vector programs in a
// canonical frame, and transforms them onto a page.
//
// A glyph is drawn in millimetres of paper at symbol scale 1.0, with its
// anchor (the symbol's centre) at the origin, x to the right and y down (the
// same orientation as the 200-DPI raster and SVG). Angles are in degrees,
// 0 along +x and 90 along +y, so positive sweeps turn clockwise on screen.
//
// The same Glyph value feeds every consumer: the catalog's SVG and PNG icons,
// the synthetic drawing generator (vector PDF), and the vector matcher's
// templates. A template can also come from a drawing's own legend row; it is
// then a Glyph built from the extracted primitives.
package glyph

import (
	"encoding/json"
	"fmt"
	"math"
)

// Point is a position in glyph or page units.
type Point struct{ X, Y float64 }

// Kind names a shape primitive.
type Kind string

// Shape kinds.
const (
	KindLine     Kind = "line"     // Pts[0] to Pts[1]
	KindPolyline Kind = "polyline" // open chain through Pts
	KindPolygon  Kind = "polygon"  // closed chain through Pts
	KindCircle   Kind = "circle"   // centre Pts[0], radius R
	KindArc      Kind = "arc"      // centre Pts[0], radius R, Start and Sweep in degrees
	KindRect     Kind = "rect"     // corners Pts[0] (top-left) and Pts[1] (bottom-right)
	KindText     Kind = "text"     // Text anchored with its baseline centre at Pts[0], cap height Size
)

// Shape is one primitive of a glyph. Fill draws the interior (polygon,
// circle, rect) instead of, or in addition to, the outline.
type Shape struct {
	Kind  Kind
	Pts   []Point
	R     float64
	Start float64
	Sweep float64
	Text  string
	Size  float64
	Fill  bool
}

// Glyph is a symbol drawing in the canonical frame.
type Glyph struct {
	Shapes []Shape
}

// Bounds returns the axis-aligned box of the glyph's geometry: min and max
// corners. Text is approximated by 0.6×Size per character and Size tall.
func (g Glyph) Bounds() (min, max Point) {
	min = Point{math.Inf(1), math.Inf(1)}
	max = Point{math.Inf(-1), math.Inf(-1)}
	add := func(p Point) {
		min.X, min.Y = math.Min(min.X, p.X), math.Min(min.Y, p.Y)
		max.X, max.Y = math.Max(max.X, p.X), math.Max(max.Y, p.Y)
	}
	for _, s := range g.Shapes {
		switch s.Kind {
		case KindCircle:
			c := s.Pts[0]
			add(Point{c.X - s.R, c.Y - s.R})
			add(Point{c.X + s.R, c.Y + s.R})
		case KindArc:
			for _, p := range arcPoints(s.Pts[0], s.R, s.Start, s.Sweep, 64) {
				add(p)
			}
		case KindText:
			w := 0.6 * s.Size * float64(len([]rune(s.Text)))
			c := s.Pts[0]
			add(Point{c.X - w/2, c.Y - s.Size})
			add(Point{c.X + w/2, c.Y})
		default:
			for _, p := range s.Pts {
				add(p)
			}
		}
	}
	if math.IsInf(min.X, 1) {
		return Point{}, Point{}
	}
	return min, max
}

// Outline samples the glyph's geometry for its axis-aligned box: circles
// and arcs every 2 degrees or closer (exact to a small fraction of a pixel
// at any symbol size), a rect as its four corners, text as the corners of
// its box (textWidth(text, size) wide, size tall, baseline centred at
// Pts[0]), and any other shape as its points, in shape order.
func (g Glyph) Outline(textWidth func(text string, size float64) float64) []Point {
	var out []Point
	arc := func(c Point, r, start, sweep float64) {
		out = append(out, arcPoints(c, r, start, sweep, int(math.Ceil(math.Abs(sweep)/2))+1)...)
	}
	for _, s := range g.Shapes {
		switch s.Kind {
		case KindCircle:
			arc(s.Pts[0], s.R, 0, 360)
		case KindArc:
			arc(s.Pts[0], s.R, s.Start, s.Sweep)
		case KindRect:
			c := RectCorners(s.Pts[0], s.Pts[1])
			out = append(out, c[:]...)
		case KindText:
			w := textWidth(s.Text, s.Size)
			c := s.Pts[0]
			out = append(out,
				Point{c.X - w/2, c.Y - s.Size}, Point{c.X + w/2, c.Y - s.Size},
				Point{c.X + w/2, c.Y}, Point{c.X - w/2, c.Y})
		default:
			out = append(out, s.Pts...)
		}
	}
	return out
}

// RectCorners returns the corners of the axis-aligned rectangle with
// opposite corners a (top-left) and b (bottom-right), in drawing order:
// a, top-right, b, bottom-left.
func RectCorners(a, b Point) [4]Point {
	return [4]Point{a, {b.X, a.Y}, b, {a.X, b.Y}}
}

// Polylines flattens every non-text shape into point chains whose chords
// deviate from the true curve by at most tol (glyph units). Closed shapes
// repeat their first point at the end.
func (g Glyph) Polylines(tol float64) [][]Point {
	var out [][]Point
	for _, s := range g.Shapes {
		switch s.Kind {
		case KindLine, KindPolyline:
			out = append(out, append([]Point(nil), s.Pts...))
		case KindPolygon:
			pts := append([]Point(nil), s.Pts...)
			out = append(out, append(pts, s.Pts[0]))
		case KindRect:
			c := RectCorners(s.Pts[0], s.Pts[1])
			out = append(out, append(c[:], c[0]))
		case KindCircle:
			out = append(out, arcPoints(s.Pts[0], s.R, 0, 360, segments(s.R, 360, tol)))
		case KindArc:
			out = append(out, arcPoints(s.Pts[0], s.R, s.Start, s.Sweep, segments(s.R, s.Sweep, tol)))
		}
	}
	return out
}

func segments(r, sweep, tol float64) int {
	if tol <= 0 || r <= tol {
		return 8
	}
	step := 2 * math.Acos(1-tol/r) // radians per chord
	n := int(math.Ceil(math.Abs(sweep) * math.Pi / 180 / step))
	return max(n, 4)
}

func arcPoints(c Point, r, start, sweep float64, n int) []Point {
	pts := make([]Point, n+1)
	for i := 0; i <= n; i++ {
		a := (start + sweep*float64(i)/float64(n)) * math.Pi / 180
		pts[i] = Point{c.X + r*math.Cos(a), c.Y + r*math.Sin(a)}
	}
	return pts
}

// Affine is the map p -> (A*x + C*y + E, B*x + D*y + F), the same layout as
// a PDF or SVG matrix [a b c d e f].
type Affine struct{ A, B, C, D, E, F float64 }

// Identity is the affine map that leaves points in place.
var Identity = Affine{A: 1, D: 1}

// Apply maps p.
func (m Affine) Apply(p Point) Point {
	return Point{m.A*p.X + m.C*p.Y + m.E, m.B*p.X + m.D*p.Y + m.F}
}

// Then returns the map that applies m first, then n.
func (m Affine) Then(n Affine) Affine {
	return Affine{
		A: m.A*n.A + m.B*n.C,
		B: m.A*n.B + m.B*n.D,
		C: m.C*n.A + m.D*n.C,
		D: m.C*n.B + m.D*n.D,
		E: m.E*n.A + m.F*n.C + n.E,
		F: m.E*n.B + m.F*n.D + n.F,
	}
}

// InPolygon reports whether p lies inside the closed polygon poly (the
// even-odd rule; a point on an edge may fall either way).
func InPolygon(poly []Point, p Point) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}

// MinPoint is the componentwise minimum of a and b.
func MinPoint(a, b Point) Point { return Point{X: math.Min(a.X, b.X), Y: math.Min(a.Y, b.Y)} }

// MaxPoint is the componentwise maximum of a and b.
func MaxPoint(a, b Point) Point { return Point{X: math.Max(a.X, b.X), Y: math.Max(a.Y, b.Y)} }

// ClipSegment clips segment ab to the axis-aligned box min..max
// (Liang–Barsky): the part inside runs from a + t0·(b − a) to
// a + t1·(b − a), 0 ≤ t0 ≤ t1 ≤ 1; ok is false when the segment misses
// the box (touching its edge counts as meeting it).
func ClipSegment(a, b, min, max Point) (t0, t1 float64, ok bool) {
	t0, t1 = 0, 1
	dx, dy := b.X-a.X, b.Y-a.Y
	for _, e := range [4][2]float64{{-dx, a.X - min.X}, {dx, max.X - a.X}, {-dy, a.Y - min.Y}, {dy, max.Y - a.Y}} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return 0, 0, false
			}
			continue
		}
		r := q / p
		if p < 0 {
			t0 = math.Max(t0, r)
		} else {
			t1 = math.Min(t1, r)
		}
		if t0 > t1 {
			return 0, 0, false
		}
	}
	return t0, t1, true
}

// Turn is the signed angle in degrees, in (-180, 180], that turns
// direction u to direction v (positive turns x towards y).
func Turn(u, v Point) float64 {
	return math.Atan2(u.X*v.Y-u.Y*v.X, u.X*v.X+u.Y*v.Y) * 180 / math.Pi
}

// AngleDiff is the absolute difference of two angles in degrees, in [0, 180].
func AngleDiff(a, b float64) float64 {
	d := math.Mod(math.Abs(a-b), 360)
	if d > 180 {
		d = 360 - d
	}
	return d
}

// Scale returns the map of a uniform scale s about the origin.
func Scale(s float64) Affine { return Affine{A: s, D: s} }

// Rotate returns the map of a rotation by deg degrees (clockwise on a
// y-down screen) about the origin.
func Rotate(deg float64) Affine {
	r := deg * math.Pi / 180
	c, s := math.Cos(r), math.Sin(r)
	return Affine{A: c, B: s, C: -s, D: c}
}

// MirrorX returns the map that flips x (a mirror about the vertical axis).
func MirrorX() Affine { return Affine{A: -1, D: 1} }

// Translate returns the map that moves points by (dx, dy).
func Translate(dx, dy float64) Affine { return Affine{A: 1, D: 1, E: dx, F: dy} }

// Placement is where one glyph instance sits: mirrored first (about the
// glyph's vertical axis), then rotated, scaled, and moved to At.
type Placement struct {
	At       Point
	Scale    float64
	Rotation float64 // degrees, clockwise on screen
	Mirrored bool
}

// Matrix returns the affine map from glyph frame to the target frame.
// unit converts glyph millimetres to target units (for example 72/25.4 for
// PDF points, 200/25.4 for 200-DPI pixels) and multiplies Scale.
func (p Placement) Matrix(unit float64) Affine {
	m := Identity
	if p.Mirrored {
		m = m.Then(MirrorX())
	}
	return m.Then(Rotate(p.Rotation)).Then(Scale(p.Scale * unit)).Then(Translate(p.At.X, p.At.Y))
}

// Transform returns the glyph mapped by m. Circles stay circles and arcs
// stay arcs when m is a similarity (uniform scale, rotation, mirror);
// otherwise they are flattened to polylines.
func (g Glyph) Transform(m Affine) Glyph {
	det := m.A*m.D - m.B*m.C
	sx := math.Hypot(m.A, m.B)
	similar := math.Abs(math.Abs(det)-sx*sx) < 1e-9*math.Max(1, sx*sx) &&
		math.Abs(m.A*m.C+m.B*m.D) < 1e-9*math.Max(1, sx*sx)
	rot := math.Atan2(m.B, m.A) * 180 / math.Pi
	out := Glyph{Shapes: make([]Shape, 0, len(g.Shapes))}
	for _, s := range g.Shapes {
		t := s
		t.Pts = make([]Point, len(s.Pts))
		for i, p := range s.Pts {
			t.Pts[i] = m.Apply(p)
		}
		switch s.Kind {
		case KindCircle, KindArc:
			if !similar {
				sweep := 360.0
				start := 0.0
				if s.Kind == KindArc {
					start, sweep = s.Start, s.Sweep
				}
				pts := arcPoints(s.Pts[0], s.R, start, sweep, 32)
				for i := range pts {
					pts[i] = m.Apply(pts[i])
				}
				k := KindPolyline
				if s.Kind == KindCircle {
					k = KindPolygon
					pts = pts[:len(pts)-1]
				}
				t = Shape{Kind: k, Pts: pts, Fill: s.Fill}
				break
			}
			t.R = s.R * sx
			if det < 0 { // mirrored: angles reflect
				t.Start = rot - s.Start
				t.Sweep = -s.Sweep
			} else {
				t.Start = s.Start + rot
			}
		case KindRect:
			if math.Abs(m.B) > 1e-9 || math.Abs(m.C) > 1e-9 || m.A < 0 || m.D < 0 {
				c := RectCorners(s.Pts[0], s.Pts[1])
				pts := c[:]
				for i := range pts {
					pts[i] = m.Apply(pts[i])
				}
				t = Shape{Kind: KindPolygon, Pts: pts, Fill: s.Fill}
			}
		case KindText:
			t.Size = s.Size * sx
		}
		out.Shapes = append(out.Shapes, t)
	}
	return out
}

// shapeJSON is the data-file form of a Shape:
//
//	{"line": [x1, y1, x2, y2]}
//	{"polyline": [x1, y1, x2, y2, ...]}
//	{"polygon": [x1, y1, x2, y2, ...], "fill": true}
//	{"circle": [cx, cy, r]}
//	{"arc": [cx, cy, r, startDeg, sweepDeg]}
//	{"rect": [x, y, w, h]}
//	{"text": "PV", "at": [x, y], "size": 1.6}
type shapeJSON struct {
	Line     []float64 `json:"line,omitempty"`
	Polyline []float64 `json:"polyline,omitempty"`
	Polygon  []float64 `json:"polygon,omitempty"`
	Circle   []float64 `json:"circle,omitempty"`
	Arc      []float64 `json:"arc,omitempty"`
	Rect     []float64 `json:"rect,omitempty"`
	Text     string    `json:"text,omitempty"`
	At       []float64 `json:"at,omitempty"`
	Size     float64   `json:"size,omitempty"`
	Fill     bool      `json:"fill,omitempty"`
}

// UnmarshalJSON reads the data-file form documented on shapeJSON.
func (s *Shape) UnmarshalJSON(b []byte) error {
	var j shapeJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	pts := func(v []float64) []Point {
		p := make([]Point, len(v)/2)
		for i := range p {
			p[i] = Point{v[2*i], v[2*i+1]}
		}
		return p
	}
	set := 0
	for _, v := range [][]float64{j.Line, j.Polyline, j.Polygon, j.Circle, j.Arc, j.Rect} {
		if v != nil {
			set++
		}
	}
	if j.Text != "" {
		set++
	}
	if set != 1 {
		return fmt.Errorf("glyph shape %s: want exactly one of line, polyline, polygon, circle, arc, rect, text", b)
	}
	*s = Shape{Fill: j.Fill}
	switch {
	case j.Line != nil:
		if len(j.Line) != 4 {
			return fmt.Errorf("glyph line needs 4 numbers, got %d", len(j.Line))
		}
		s.Kind, s.Pts = KindLine, pts(j.Line)
	case j.Polyline != nil, j.Polygon != nil:
		v, k := j.Polyline, KindPolyline
		if j.Polygon != nil {
			v, k = j.Polygon, KindPolygon
		}
		if len(v) < 4 || len(v)%2 != 0 {
			return fmt.Errorf("glyph %s needs an even count of at least 4 numbers, got %d", k, len(v))
		}
		s.Kind, s.Pts = k, pts(v)
	case j.Circle != nil:
		if len(j.Circle) != 3 || j.Circle[2] <= 0 {
			return fmt.Errorf("glyph circle needs [cx, cy, r>0], got %v", j.Circle)
		}
		s.Kind, s.Pts, s.R = KindCircle, pts(j.Circle[:2]), j.Circle[2]
	case j.Arc != nil:
		if len(j.Arc) != 5 || j.Arc[2] <= 0 || j.Arc[4] == 0 {
			return fmt.Errorf("glyph arc needs [cx, cy, r>0, start, sweep≠0], got %v", j.Arc)
		}
		s.Kind, s.Pts, s.R, s.Start, s.Sweep = KindArc, pts(j.Arc[:2]), j.Arc[2], j.Arc[3], j.Arc[4]
	case j.Rect != nil:
		if len(j.Rect) != 4 || j.Rect[2] <= 0 || j.Rect[3] <= 0 {
			return fmt.Errorf("glyph rect needs [x, y, w>0, h>0], got %v", j.Rect)
		}
		x, y, w, h := j.Rect[0], j.Rect[1], j.Rect[2], j.Rect[3]
		s.Kind, s.Pts = KindRect, []Point{{x, y}, {x + w, y + h}}
	default:
		if len(j.At) != 2 || j.Size <= 0 {
			return fmt.Errorf("glyph text %q needs at [x, y] and size > 0", j.Text)
		}
		s.Kind, s.Pts, s.Text, s.Size = KindText, pts(j.At), j.Text, j.Size
	}
	return nil
}

// MarshalJSON writes the data-file form documented on shapeJSON.
func (s Shape) MarshalJSON() ([]byte, error) {
	flat := func(ps []Point) []float64 {
		v := make([]float64, 0, 2*len(ps))
		for _, p := range ps {
			v = append(v, p.X, p.Y)
		}
		return v
	}
	j := shapeJSON{Fill: s.Fill}
	switch s.Kind {
	case KindLine:
		j.Line = flat(s.Pts)
	case KindPolyline:
		j.Polyline = flat(s.Pts)
	case KindPolygon:
		j.Polygon = flat(s.Pts)
	case KindCircle:
		j.Circle = append(flat(s.Pts), s.R)
	case KindArc:
		j.Arc = append(flat(s.Pts), s.R, s.Start, s.Sweep)
	case KindRect:
		a, b := s.Pts[0], s.Pts[1]
		j.Rect = []float64{a.X, a.Y, b.X - a.X, b.Y - a.Y}
	case KindText:
		j.Text, j.At, j.Size = s.Text, flat(s.Pts), s.Size
	default:
		return nil, fmt.Errorf("glyph: unknown shape kind %q", s.Kind)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a glyph written as a JSON array of shapes.
func (g *Glyph) UnmarshalJSON(b []byte) error {
	return json.Unmarshal(b, &g.Shapes)
}

// MarshalJSON writes the glyph as a JSON array of shapes.
func (g Glyph) MarshalJSON() ([]byte, error) {
	return json.Marshal(g.Shapes)
}
