package synth

import (
	"math"

	"blueprint/internal/glyph"
)

// ellipse returns a closed polygon approximating an ellipse.
func ellipse(c glyph.Point, rx, ry float64) []glyph.Point {
	const n = 32
	pts := make([]glyph.Point, n)
	for i := range pts {
		a := 2 * math.Pi * float64(i) / n
		pts[i] = glyph.Point{X: c.X + rx*math.Cos(a), Y: c.Y + ry*math.Sin(a)}
	}
	return pts
}

// quietSide returns a side of the room without openings, if any.
func (d *design) quietSide(rm *room) side {
	start := side(d.r.IntN(4))
	for k := side(0); k < 4; k++ {
		s := (start + k) % 4
		if len(rm.gaps[s]) == 0 {
			return s
		}
	}
	return start
}

// wallRect returns the rectangle spanning along [u0,u1] and depth [v0,v1]
// from side s of the room's clear rectangle.
func wallRect(r rect, s side, u0, u1, v0, v1 float64) []glyph.Point {
	return []glyph.Point{onSide(r, s, u0, v0), onSide(r, s, u1, v0), onSide(r, s, u1, v1), onSide(r, s, u0, v1)}
}

func (d *design) poly(pts []glyph.Point, w float64) {
	pts = append([]glyph.Point(nil), pts...)
	d.op(func(p *pen) error { p.setStroke(furnGrey, w, nil); p.polygon(pts, false, true); return nil })
}

// furnish draws the furniture and fittings of one room.
func (d *design) furnish(rm *room) {
	c := rm.clear
	if c.w() < d.m(1.5) || c.h() < d.m(1.5) {
		return
	}
	w := 0.18
	s := d.quietSide(rm)
	_, a, b := sideLine(c, s)
	length := b - a
	depth := c.h()
	if s == 1 || s == 3 {
		depth = c.w()
	}
	m := d.m
	switch rm.kind {
	case roomOffice:
		n := int((length - m(0.4)) / m(1.8))
		for i := 0; i < n && i < 6; i++ {
			u := a + m(0.3) + float64(i)*m(1.8)
			d.poly(wallRect(c, s, u, u+m(1.6), 0, m(0.8)), w)
			if d.chance(0.6) {
				d.circle(furnGrey, w, onSide(c, s, u+m(0.8), m(1.15)), m(0.25), false)
			} else {
				d.poly(wallRect(c, s, u+m(0.55), u+m(1.05), m(0.95), m(1.45)), w)
			}
		}
	case roomMeeting:
		cc := c.center()
		tw, th := math.Min(c.w()*0.55, m(4)), math.Min(c.h()*0.35, m(1.2))
		if d.chance(0.3) {
			r := math.Min(tw, th*2) / 2
			d.circle(furnGrey, w, cc, r, false)
			for i := 0; i < 6; i++ {
				ang := float64(i) * math.Pi / 3
				d.circle(furnGrey, w, glyph.Point{X: cc.X + (r+m(0.35))*math.Cos(ang), Y: cc.Y + (r+m(0.35))*math.Sin(ang)}, m(0.22), false)
			}
			return
		}
		d.poly([]glyph.Point{{X: cc.X - tw/2, Y: cc.Y - th/2}, {X: cc.X + tw/2, Y: cc.Y - th/2}, {X: cc.X + tw/2, Y: cc.Y + th/2}, {X: cc.X - tw/2, Y: cc.Y + th/2}}, w)
		n := max(1, int(tw/m(0.7)))
		for i := 0; i < n; i++ {
			x := cc.X - tw/2 + (float64(i)+0.5)*tw/float64(n)
			d.circle(furnGrey, w, glyph.Point{X: x, Y: cc.Y - th/2 - m(0.3)}, m(0.22), false)
			d.circle(furnGrey, w, glyph.Point{X: x, Y: cc.Y + th/2 + m(0.3)}, m(0.22), false)
		}
	case roomWC:
		u := a + m(0.25)
		d.poly(wallRect(c, s, u, u+m(0.4), 0, m(0.18)), w)
		mid := onSide(c, s, u+m(0.2), m(0.48))
		rx, ry := m(0.18), m(0.28)
		if s == 1 || s == 3 {
			rx, ry = ry, rx
		}
		d.poly(ellipse(mid, rx, ry), w)
		if length > m(1.3) {
			u2 := u + m(0.7)
			d.poly(wallRect(c, s, u2, u2+m(0.5), 0, m(0.4)), w)
			bc := onSide(c, s, u2+m(0.25), m(0.2))
			d.poly(ellipse(bc, m(0.17), m(0.13)), w)
		}
	case roomKitchen:
		d.poly(wallRect(c, s, a, b, 0, m(0.6)), w)
		if length > m(2) {
			u := a + length*0.3
			d.poly(wallRect(c, s, u, u+m(0.8), m(0.08), m(0.5)), w)
			d.circle(furnGrey, w, onSide(c, s, u+m(0.4), m(0.3)), m(0.04), false)
			h := a + length*0.65
			for _, du := range []float64{0.15, 0.45} {
				for _, dv := range []float64{0.15, 0.42} {
					d.circle(furnGrey, w, onSide(c, s, h+m(du), m(dv)), m(0.1), false)
				}
			}
		}
	case roomStore, roomTech:
		for _, ss := range []side{s, (s + 1) % 4} {
			_, a2, b2 := sideLine(c, ss)
			q := wallRect(c, ss, a2+m(0.1), b2-m(0.1), 0, m(0.4))
			d.poly(q, w)
			if rm.kind == roomStore && d.chance(0.5) { // shelf crosses: an "X" look-alike
				d.lines(furnGrey, w, nil, q[0], q[2])
				d.lines(furnGrey, w, nil, q[1], q[3])
			}
		}
	case roomLounge:
		u := a + (length-m(2))/2
		d.poly(wallRect(c, s, u, u+m(2), 0, m(0.9)), w)
		d.poly(wallRect(c, s, u, u+m(2), 0, m(0.2)), w)
		d.poly(wallRect(c, s, u, u+m(0.2), m(0.2), m(0.9)), w)
		d.poly(wallRect(c, s, u+m(1.8), u+m(2), m(0.2), m(0.9)), w)
		if depth > m(2.5) {
			d.circle(furnGrey, w, onSide(c, s, u+m(1), m(1.6)), m(0.4), false)
		}
	case roomBed:
		bw := m(0.9)
		if d.chance(0.5) {
			bw = m(1.6)
		}
		u := a + (length-bw)/2
		d.poly(wallRect(c, s, u, u+bw, 0, m(2)), w)
		d.poly(wallRect(c, s, u+m(0.1), u+bw-m(0.1), m(0.1), m(0.45)), w)
		d.poly(wallRect(c, s, u-m(0.5), u-m(0.05), 0, m(0.4)), w)
	case roomStair:
		tread := m(0.28)
		width := math.Min(length*0.45, m(1.2))
		n := int(math.Min(depth*0.8, m(4.5)) / tread)
		for i := 0; i <= n; i++ {
			v := m(0.2) + float64(i)*tread
			d.lines(furnGrey, w, nil, onSide(c, s, a+m(0.1), v), onSide(c, s, a+m(0.1)+width, v))
		}
		mid := a + m(0.1) + width/2
		d.lines(furnGrey, w, nil, onSide(c, s, mid, m(0.3)), onSide(c, s, mid, m(0.2)+float64(n)*tread))
		tip := onSide(c, s, mid, m(0.2)+float64(n)*tread)
		d.lines(furnGrey, w, nil, onSide(c, s, mid-m(0.15), m(0.2)+float64(n)*tread-m(0.3)), tip, onSide(c, s, mid+m(0.15), m(0.2)+float64(n)*tread-m(0.3)))
	}
}

// lookAlikes scatters marks that resemble symbols but are none: text
// "O" and "X", small circles, crossed boxes.
func (d *design) lookAlikes(rooms []room) {
	for _, rm := range rooms {
		if !d.chance(0.2) {
			continue
		}
		c := rm.clear.inset(2)
		if c.w() < 6 || c.h() < 6 {
			continue
		}
		p := glyph.Point{X: d.uni(c.x0, c.x1), Y: d.uni(c.y0, c.y1)}
		switch d.r.IntN(4) {
		case 0:
			d.text("O", p, d.uni(1.8, 3), 0, alignCenter, archGrey)
		case 1:
			d.text("X", p, d.uni(1.8, 3), 0, alignCenter, archGrey)
		case 2:
			d.circle(furnGrey, 0.18, p, d.uni(1, 2.5), false)
		default:
			s := d.uni(1.5, 3)
			d.lines(furnGrey, 0.18, nil, glyph.Point{X: p.X - s, Y: p.Y - s}, glyph.Point{X: p.X + s, Y: p.Y + s})
			d.lines(furnGrey, 0.18, nil, glyph.Point{X: p.X - s, Y: p.Y + s}, glyph.Point{X: p.X + s, Y: p.Y - s})
		}
	}
}
