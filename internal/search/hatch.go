package search

import (
	"math"

	"blueprint/internal/glyph"
	"blueprint/internal/vector"
)

// Inner hatching: a glyph's area shaded by a pattern of short parallel
// strokes (a 600 x 600 panel's diffuser drawn as a diagonal hatch). CAD
// lays the pattern on the sheet's grid, not the symbol's, so each
// instance's strokes lie elsewhere inside its outline: a template that
// holds them found only the instances whose hatch fell where the
// exemplar's did (building2's panels: 3 of 9). The template leaves them
// out, and a match must hold strokes of their direction inside its box.
const (
	// hatchMin is the fewest strokes of one direction that are a hatch,
	// and that a match must hold.
	hatchMin = 4
	// hatchDirDeg: strokes this close in direction are one family; a
	// match's strokes this close to the hatch's, posed, are its hatch.
	hatchDirDeg = 2.0
	// hatchMaxShare: a hatch is at most this share of the glyph's
	// drawing; a glyph drawn mostly of parallel strokes is its strokes.
	hatchMaxShare = 0.5
)

// innerHatch splits g's inner hatching from it: every family of at least
// hatchMin parallel lines that lie inside an outline the rest of g draws
// (enclosed) and draw less than hatchMaxShare of g. It returns g without
// them and their directions (degrees modulo 180), g and nil where it has
// none.
func innerHatch(g glyph.Glyph) (glyph.Glyph, []float64) {
	total := content(g)
	type stroke struct {
		i        int
		dir, len float64
	}
	var ss []stroke
	for i, sh := range g.Shapes {
		if sh.Kind != glyph.KindLine || len(sh.Pts) != 2 || sh.Fill {
			continue
		}
		d := glyph.Point{X: sh.Pts[1].X - sh.Pts[0].X, Y: sh.Pts[1].Y - sh.Pts[0].Y}
		if l := math.Hypot(d.X, d.Y); l > 0 {
			ss = append(ss, stroke{i, lineDir(d), l})
		}
	}
	drop := map[int]bool{}
	var dirs []float64
	for _, a := range ss {
		if drop[a.i] {
			continue
		}
		var fam []int
		length := 0.0
		for _, b := range ss {
			if dirGap(a.dir, b.dir) <= hatchDirDeg {
				fam = append(fam, b.i)
				length += b.len
			}
		}
		if len(fam) >= hatchMin && length <= hatchMaxShare*total && enclosed(g, fam) {
			for _, i := range fam {
				drop[i] = true
			}
			dirs = append(dirs, a.dir)
		}
	}
	if len(dirs) == 0 {
		return g, nil
	}
	out := glyph.Glyph{Shapes: make([]glyph.Shape, 0, len(g.Shapes)-len(drop))}
	for i, sh := range g.Shapes {
		if !drop[i] {
			out.Shapes = append(out.Shapes, sh)
		}
	}
	return out, dirs
}

// enclosed reports whether every one of g's shapes fam (lines) lies
// inside an outline the rest of g draws: from its middle, the rest is met
// going left, right, up and down. A panel's hatch lies inside its square;
// the ticks at the ends of an intermediate switch's arms, parallel and
// short as they are, stand outside everything else.
func enclosed(g glyph.Glyph, fam []int) bool {
	in := make(map[int]bool, len(fam))
	for _, i := range fam {
		in[i] = true
	}
	var rest glyph.Glyph
	for i, sh := range g.Shapes {
		if !in[i] {
			rest.Shapes = append(rest.Shapes, sh)
		}
	}
	lines := rest.Polylines(0.05)
	for _, i := range fam {
		a, b := g.Shapes[i].Pts[0], g.Shapes[i].Pts[1]
		p := glyph.Point{X: (a.X + b.X) / 2, Y: (a.Y + b.Y) / 2}
		var left, right, up, down bool
		for _, l := range lines {
			for k := 1; k < len(l); k++ {
				q, r := l[k-1], l[k]
				if (q.Y-p.Y)*(r.Y-p.Y) <= 0 && q.Y != r.Y { // crosses the horizontal through p
					x := q.X + (p.Y-q.Y)*(r.X-q.X)/(r.Y-q.Y)
					left, right = left || x < p.X, right || x > p.X
				}
				if (q.X-p.X)*(r.X-p.X) <= 0 && q.X != r.X { // crosses the vertical through p
					y := q.Y + (p.X-q.X)*(r.Y-q.Y)/(r.X-q.X)
					up, down = up || y < p.Y, down || y > p.Y
				}
			}
		}
		if !left || !right || !up || !down {
			return false
		}
	}
	return true
}

// lineDir is the direction of d in degrees, modulo 180.
func lineDir(d glyph.Point) float64 {
	return math.Mod(math.Atan2(d.Y, d.X)*180/math.Pi+360, 180)
}

// dirGap is the angle between two directions modulo 180, in degrees.
func dirGap(a, b float64) float64 {
	d := math.Abs(a - b)
	return math.Min(d, 180-d)
}

// hatchedAt reports whether match m holds t's inner hatching: for each
// of t.hatch, at least hatchMin strokes inside m's box whose
// direction is the hatch's posed as m is, or that turned a quarter or
// mirrored (the outline a hatch shades is often symmetric, a square, and
// the pose that fits it best may be turned or mirrored). True where t has
// none.
func (t *Template) hatchedAt(around *surroundings, m vector.Match) bool {
	if len(t.hatch) == 0 {
		return true
	}
	in := func(p glyph.Point) bool {
		return p.X >= m.Box.X-1 && p.Y >= m.Box.Y-1 && p.X <= m.Box.X+m.Box.W+1 && p.Y <= m.Box.Y+m.Box.H+1
	}
	var dirs []float64
	around.meeting(m.Box, math.Hypot(m.Box.W, m.Box.H), func(i int32) {
		if int(i) >= len(around.pg.Segments) {
			return
		}
		sg := around.pg.Segments[i]
		if in(sg.A) && in(sg.B) && sg.A != sg.B {
			dirs = append(dirs, lineDir(glyph.Point{X: sg.B.X - sg.A.X, Y: sg.B.Y - sg.A.Y}))
		}
	})
	a := m.Placement.Matrix(vector.PixelsPerMM)
	o := a.Apply(glyph.Point{})
	for _, dir := range t.hatch {
		r := dir * math.Pi / 180
		d := a.Apply(glyph.Point{X: math.Cos(r), Y: math.Sin(r)})
		posed := lineDir(glyph.Point{X: d.X - o.X, Y: d.Y - o.Y})
		n := 0
		for _, x := range dirs {
			for _, w := range []float64{posed, posed + 90, -posed, 90 - posed} {
				if dirGap(x, math.Mod(w+360, 180)) <= hatchDirDeg {
					n++
					break
				}
			}
		}
		if n < hatchMin {
			return false
		}
	}
	return true
}
