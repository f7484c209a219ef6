package drawing

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"blueprint/internal/glyph"
)

// PathCmd is one absolute path command: 'M' and 'L' use P[0], 'C' uses
// P[0..2] (two controls and the end point), 'Z' closes the subpath.
type PathCmd struct {
	Op byte
	P  [3]glyph.Point
}

// parsePathData reads SVG path data (M L H V C S Q T A Z, absolute and
// relative) into absolute M/L/C/Z commands; quadratic curves and elliptical
// arcs become cubic curves.
func parsePathData(d string) ([]PathCmd, error) {
	var out []PathCmd
	var cur, start, lastCtl glyph.Point
	var prevOp byte
	p := pathLexer{s: d}
	var op byte
	for {
		p.skipSep()
		if p.done() {
			break
		}
		if c := p.s[p.i]; isCmd(c) {
			op = c
			p.i++
		} else if op == 0 {
			return nil, fmt.Errorf("drawing: path data %.40q: number before any command", d)
		}
		rel := op >= 'a'
		up := op &^ 0x20
		num := func() (float64, error) { return p.number() }
		pt := func() (glyph.Point, error) {
			x, err := num()
			if err != nil {
				return glyph.Point{}, err
			}
			y, err := num()
			if err != nil {
				return glyph.Point{}, err
			}
			if rel {
				x, y = x+cur.X, y+cur.Y
			}
			return glyph.Point{X: x, Y: y}, nil
		}
		switch up {
		case 'Z':
			out = append(out, PathCmd{Op: 'Z'})
			cur = start
			// A command letter must follow Z.
			op = 0
		case 'M':
			q, err := pt()
			if err != nil {
				return nil, pathErr(d, err)
			}
			out = append(out, PathCmd{Op: 'M', P: [3]glyph.Point{q}})
			cur, start = q, q
			// Further pairs after M are implicit L.
			if rel {
				op = 'l'
			} else {
				op = 'L'
			}
		case 'L':
			q, err := pt()
			if err != nil {
				return nil, pathErr(d, err)
			}
			out = append(out, PathCmd{Op: 'L', P: [3]glyph.Point{q}})
			cur = q
		case 'H', 'V':
			v, err := num()
			if err != nil {
				return nil, pathErr(d, err)
			}
			q := cur
			switch {
			case up == 'H' && rel:
				q.X += v
			case up == 'H':
				q.X = v
			case rel:
				q.Y += v
			default:
				q.Y = v
			}
			out = append(out, PathCmd{Op: 'L', P: [3]glyph.Point{q}})
			cur = q
		case 'C', 'S':
			var c1 glyph.Point
			if up == 'S' {
				c1 = cur
				if pu := prevOp &^ 0x20; pu == 'C' || pu == 'S' {
					c1 = glyph.Point{X: 2*cur.X - lastCtl.X, Y: 2*cur.Y - lastCtl.Y}
				}
			} else {
				var err error
				if c1, err = pt(); err != nil {
					return nil, pathErr(d, err)
				}
			}
			c2, err := pt()
			if err != nil {
				return nil, pathErr(d, err)
			}
			e, err := pt()
			if err != nil {
				return nil, pathErr(d, err)
			}
			out = append(out, PathCmd{Op: 'C', P: [3]glyph.Point{c1, c2, e}})
			lastCtl, cur = c2, e
		case 'Q', 'T':
			var q1 glyph.Point
			if up == 'T' {
				q1 = cur
				if pu := prevOp &^ 0x20; pu == 'Q' || pu == 'T' {
					q1 = glyph.Point{X: 2*cur.X - lastCtl.X, Y: 2*cur.Y - lastCtl.Y}
				}
			} else {
				var err error
				if q1, err = pt(); err != nil {
					return nil, pathErr(d, err)
				}
			}
			e, err := pt()
			if err != nil {
				return nil, pathErr(d, err)
			}
			c1 := glyph.Point{X: cur.X + 2.0/3*(q1.X-cur.X), Y: cur.Y + 2.0/3*(q1.Y-cur.Y)}
			c2 := glyph.Point{X: e.X + 2.0/3*(q1.X-e.X), Y: e.Y + 2.0/3*(q1.Y-e.Y)}
			out = append(out, PathCmd{Op: 'C', P: [3]glyph.Point{c1, c2, e}})
			lastCtl, cur = q1, e
		case 'A':
			var v [5]float64
			for k := range v {
				f, err := p.flagOrNumber(k == 3 || k == 4)
				if err != nil {
					return nil, pathErr(d, err)
				}
				v[k] = f
			}
			e, err := pt()
			if err != nil {
				return nil, pathErr(d, err)
			}
			out = append(out, arcToCubics(cur, e, v[0], v[1], v[2], v[3] != 0, v[4] != 0)...)
			cur = e
		default:
			return nil, fmt.Errorf("drawing: path data %.40q: unknown command %q", d, op)
		}
		prevOp = op
	}
	return out, nil
}

func pathErr(d string, err error) error {
	return fmt.Errorf("drawing: path data %.40q: %w", d, err)
}

func isCmd(c byte) bool { return strings.IndexByte("MmLlHhVvCcSsQqTtAaZz", c) >= 0 }

type pathLexer struct {
	s string
	i int
}

func (p *pathLexer) done() bool { return p.i >= len(p.s) }

func (p *pathLexer) skipSep() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', ',', '\n', '\t', '\r':
			p.i++
		default:
			return
		}
	}
}

// number reads one SVG number; "1.5.5" is two numbers and "1-2" too.
func (p *pathLexer) number() (float64, error) {
	p.skipSep()
	j := p.i
	if j < len(p.s) && (p.s[j] == '-' || p.s[j] == '+') {
		j++
	}
	dot, exp := false, false
	for j < len(p.s) {
		c := p.s[j]
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && !exp:
			dot = true
		case (c == 'e' || c == 'E') && !exp:
			exp = true
			if j+1 < len(p.s) && (p.s[j+1] == '-' || p.s[j+1] == '+') {
				j++
			}
		default:
			goto end
		}
		j++
	}
end:
	if j == p.i {
		return 0, fmt.Errorf("number expected at offset %d", p.i)
	}
	v, err := strconv.ParseFloat(p.s[p.i:j], 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q: %w", p.s[p.i:j], err)
	}
	p.i = j
	return v, nil
}

// flagOrNumber reads an arc flag (a single 0 or 1, possibly unseparated) or
// a number.
func (p *pathLexer) flagOrNumber(flag bool) (float64, error) {
	if !flag {
		return p.number()
	}
	p.skipSep()
	if p.i < len(p.s) && (p.s[p.i] == '0' || p.s[p.i] == '1') {
		v := float64(p.s[p.i] - '0')
		p.i++
		return v, nil
	}
	return 0, fmt.Errorf("arc flag expected at offset %d", p.i)
}

// arcToCubics converts an SVG elliptical arc to cubic curves of at most 90°.
func arcToCubics(p0, p1 glyph.Point, rx, ry, phiDeg float64, large, sweep bool) []PathCmd {
	if rx == 0 || ry == 0 || (p0 == p1) {
		return []PathCmd{{Op: 'L', P: [3]glyph.Point{p1}}}
	}
	rx, ry = math.Abs(rx), math.Abs(ry)
	phi := phiDeg * math.Pi / 180
	cp, sp := math.Cos(phi), math.Sin(phi)
	dx, dy := (p0.X-p1.X)/2, (p0.Y-p1.Y)/2
	x1 := cp*dx + sp*dy
	y1 := -sp*dx + cp*dy
	if l := x1*x1/(rx*rx) + y1*y1/(ry*ry); l > 1 {
		s := math.Sqrt(l)
		rx, ry = rx*s, ry*s
	}
	num := rx*rx*ry*ry - rx*rx*y1*y1 - ry*ry*x1*x1
	den := rx*rx*y1*y1 + ry*ry*x1*x1
	co := 0.0
	if den > 0 && num > 0 {
		co = math.Sqrt(num / den)
	}
	if large == sweep {
		co = -co
	}
	cx1 := co * rx * y1 / ry
	cy1 := -co * ry * x1 / rx
	cx := cp*cx1 - sp*cy1 + (p0.X+p1.X)/2
	cy := sp*cx1 + cp*cy1 + (p0.Y+p1.Y)/2
	ang := func(ux, uy, vx, vy float64) float64 {
		return math.Atan2(ux*vy-uy*vx, ux*vx+uy*vy)
	}
	t1 := ang(1, 0, (x1-cx1)/rx, (y1-cy1)/ry)
	dt := ang((x1-cx1)/rx, (y1-cy1)/ry, (-x1-cx1)/rx, (-y1-cy1)/ry)
	if !sweep && dt > 0 {
		dt -= 2 * math.Pi
	} else if sweep && dt < 0 {
		dt += 2 * math.Pi
	}
	n := int(math.Ceil(math.Abs(dt) / (math.Pi / 2)))
	out := make([]PathCmd, 0, n)
	step := dt / float64(n)
	k := 4.0 / 3 * math.Tan(step/4)
	at := func(t float64) (glyph.Point, glyph.Point) {
		ex, ey := rx*math.Cos(t), ry*math.Sin(t)
		tx, ty := -rx*math.Sin(t), ry*math.Cos(t)
		return glyph.Point{X: cp*ex - sp*ey + cx, Y: sp*ex + cp*ey + cy},
			glyph.Point{X: cp*tx - sp*ty, Y: sp*tx + cp*ty}
	}
	for i := 0; i < n; i++ {
		a, b := t1+step*float64(i), t1+step*float64(i+1)
		pa, ta := at(a)
		pb, tb := at(b)
		out = append(out, PathCmd{Op: 'C', P: [3]glyph.Point{
			{X: pa.X + k*ta.X, Y: pa.Y + k*ta.Y},
			{X: pb.X - k*tb.X, Y: pb.Y - k*tb.Y},
			pb,
		}})
	}
	out[len(out)-1].P[2] = p1
	return out
}

// parseTransform reads an SVG transform list into one affine map (the
// rightmost transform applies first).
func parseTransform(s string) (glyph.Affine, error) {
	m := glyph.Identity
	rest := strings.TrimSpace(s)
	for rest != "" {
		open := strings.IndexByte(rest, '(')
		closeIdx := strings.IndexByte(rest, ')')
		if open < 0 || closeIdx < open {
			return m, fmt.Errorf("drawing: transform %q: malformed", s)
		}
		name := strings.TrimSpace(strings.TrimLeft(rest[:open], ", "))
		var args []float64
		lx := pathLexer{s: rest[open+1 : closeIdx]}
		for {
			lx.skipSep()
			if lx.done() {
				break
			}
			v, err := lx.number()
			if err != nil {
				return m, fmt.Errorf("drawing: transform %q: %w", s, err)
			}
			args = append(args, v)
		}
		rest = strings.TrimSpace(rest[closeIdx+1:])
		var t glyph.Affine
		switch {
		case name == "matrix" && len(args) == 6:
			t = glyph.Affine{A: args[0], B: args[1], C: args[2], D: args[3], E: args[4], F: args[5]}
		case name == "translate" && len(args) >= 1:
			ty := 0.0
			if len(args) > 1 {
				ty = args[1]
			}
			t = glyph.Translate(args[0], ty)
		case name == "scale" && len(args) >= 1:
			sy := args[0]
			if len(args) > 1 {
				sy = args[1]
			}
			t = glyph.Affine{A: args[0], D: sy}
		case name == "rotate" && len(args) >= 1:
			t = glyph.Rotate(args[0])
			if len(args) == 3 {
				t = glyph.Translate(-args[1], -args[2]).Then(t).Then(glyph.Translate(args[1], args[2]))
			}
		case name == "skewX" && len(args) == 1:
			t = glyph.Affine{A: 1, D: 1, C: math.Tan(args[0] * math.Pi / 180)}
		case name == "skewY" && len(args) == 1:
			t = glyph.Affine{A: 1, D: 1, B: math.Tan(args[0] * math.Pi / 180)}
		default:
			return m, fmt.Errorf("drawing: transform %q: unsupported %s with %d arguments", s, name, len(args))
		}
		// In "A B", B applies first: total = B then A, and what has been
		// read so far (A) applies after the new one.
		m = t.Then(m)
	}
	return m, nil
}

// boundsOf returns the box of the path's points (control points included,
// which bounds the curve) mapped by tf.
func boundsOf(cmds []PathCmd, tf glyph.Affine) (mn, mx glyph.Point, ok bool) {
	mn = glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	mx = glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, c := range cmds {
		n := 0
		switch c.Op {
		case 'M', 'L':
			n = 1
		case 'C':
			n = 3
		}
		for _, p := range c.P[:n] {
			q := tf.Apply(p)
			mn, mx = glyph.MinPoint(mn, q), glyph.MaxPoint(mx, q)
			ok = true
		}
	}
	return mn, mx, ok
}
