package synth

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"blueprint/internal/glyph"
)

// Room kinds decide furniture, names and installations.
type roomKind int

const (
	roomOffice roomKind = iota
	roomMeeting
	roomWC
	roomKitchen
	roomStore
	roomLounge
	roomBed
	roomStair
	roomCorridor
	roomTech
)

// roomNames holds the Finnish and English name of each room kind.
var roomNames = [...][2]string{
	roomOffice:   {"TOIMISTO", "OFFICE"},
	roomMeeting:  {"NEUVOTTELU", "MEETING"},
	roomWC:       {"WC", "WC"},
	roomKitchen:  {"KEITTIÖ", "KITCHEN"},
	roomStore:    {"VARASTO", "STORE"},
	roomLounge:   {"OLESKELU", "LOUNGE"},
	roomBed:      {"MH", "BEDROOM"},
	roomStair:    {"PORRAS", "STAIR"},
	roomCorridor: {"KÄYTÄVÄ", "CORRIDOR"},
	roomTech:     {"SÄHKÖTILA", "ELEC. ROOM"},
}

// side of a rectangle: 0 top, 1 right, 2 bottom, 3 left.
type side int

// room is one space of the plan: its partition cell and its clear
// (inside-the-walls) rectangle, with openings per side.
type room struct {
	cell, clear rect
	kind        roomKind
	ext         [4]bool         // side on the exterior wall
	gaps        [4][][2]float64 // openings along each clear side
	doors       []door
}

type door struct {
	s    side
	a, b float64 // along the side
}

// sideLine returns the side's fixed coordinate and its along extent.
func sideLine(r rect, s side) (fixed, a, b float64) {
	switch s {
	case 0:
		return r.y0, r.x0, r.x1
	case 1:
		return r.x1, r.y0, r.y1
	case 2:
		return r.y1, r.x0, r.x1
	}
	return r.x0, r.y0, r.y1
}

// onSide maps (along, depth into the room) on side s of r to paper mm.
func onSide(r rect, s side, along, depth float64) glyph.Point {
	switch s {
	case 0:
		return glyph.Point{X: along, Y: r.y0 + depth}
	case 1:
		return glyph.Point{X: r.x1 - depth, Y: along}
	case 2:
		return glyph.Point{X: along, Y: r.y1 - depth}
	}
	return glyph.Point{X: r.x0 + depth, Y: along}
}

// drawSide draws a straight wall face with its openings left out.
func (d *design) drawSide(r rect, s side, gaps [][2]float64, w float64) {
	_, a, b := sideLine(r, s)
	gs := append([][2]float64(nil), gaps...)
	slices.SortFunc(gs, func(p, q [2]float64) int { return cmp.Compare(p[0], q[0]) })
	cur := a
	for _, g := range gs {
		if g[0] > cur {
			d.lines(archGrey, w, nil, onSide(r, s, cur, 0), onSide(r, s, g[0], 0))
		}
		cur = math.Max(cur, g[1])
	}
	if cur < b {
		d.lines(archGrey, w, nil, onSide(r, s, cur, 0), onSide(r, s, b, 0))
	}
}

// plan draws a building into area and places the installation on it.
func (d *design) plan(area rect) {
	if area.w() < 40 || area.h() < 40 {
		return
	}
	// Space for grid bubbles and dimension chains on the top and left.
	inner := rect{area.x0 + 24, area.y0 + 24, area.x1 - 6, area.y1 - 6}
	fw := inner.w() * d.uni(0.8, 0.98)
	fh := inner.h() * d.uni(0.75, 0.97)
	x0 := inner.x0 + (inner.w()-fw)*d.r.Float64()
	y0 := inner.y0 + (inner.h()-fh)*d.r.Float64()
	foot := rect{x0, y0, x0 + fw, y0 + fh}
	cut := !d.legend && d.chance(0.2)
	if cut { // the plan continues past the sheet's left edge
		foot.x0 = -d.uni(10, 40)
	}
	tExt := d.m(d.uni(0.25, 0.4))
	tIn := d.m(d.uni(0.1, 0.15))
	in := foot.inset(tExt)
	rooms := d.rooms(in, tIn)
	d.openings(rooms, in, tIn)

	// Outer face with the same openings as the rooms' exterior sides.
	var outerGaps [4][][2]float64
	for _, rm := range rooms {
		for s := side(0); s < 4; s++ {
			if rm.ext[s] {
				outerGaps[s] = append(outerGaps[s], rm.gaps[s]...)
			}
		}
	}
	wallW := d.uni(0.25, 0.5)
	for s := side(0); s < 4; s++ {
		d.drawSide(foot, s, outerGaps[s], wallW)
	}
	d.wallFill(foot, in, outerGaps)
	for _, rm := range rooms {
		for s := side(0); s < 4; s++ {
			d.drawSide(rm.clear, s, rm.gaps[s], wallW*0.7)
		}
		d.jambs(rm, tExt, tIn)
	}
	d.grid(foot, in)
	d.planTitle(area, foot)
	for k := range rooms {
		d.furnish(&rooms[k])
	}
	for k := range rooms {
		d.roomLabel(rooms[k], k)
	}
	if !d.empty {
		d.install(rooms, foot)
		if cut {
			d.edgeSymbols(rooms)
		}
	}
	d.lookAlikes(rooms)
}

// rooms partitions in: a corridor along the long axis of large plans,
// then rooms cut across it.
func (d *design) rooms(in rect, tIn float64) []room {
	var cells []rect
	var kinds []roomKind
	long := in.w() >= in.h()
	span := in.h()
	if !long {
		span = in.w()
	}
	if span > d.m(11) {
		cw := d.m(d.uni(1.8, 2.4))
		at := d.uni(0.4, 0.6) * (span - cw)
		var a, c, b rect
		if long {
			a = rect{in.x0, in.y0, in.x1, in.y0 + at}
			c = rect{in.x0, a.y1, in.x1, a.y1 + cw}
			b = rect{in.x0, c.y1, in.x1, in.y1}
		} else {
			a = rect{in.x0, in.y0, in.x0 + at, in.y1}
			c = rect{a.x1, in.y0, a.x1 + cw, in.y1}
			b = rect{c.x1, in.y0, in.x1, in.y1}
		}
		cells = append(cells, c)
		kinds = append(kinds, roomCorridor)
		for _, band := range []rect{a, b} {
			cells = append(cells, d.split(band, long)...)
		}
	} else {
		cells = d.split(in, in.w() >= in.h())
	}
	for len(kinds) < len(cells) {
		c := cells[len(kinds)]
		kinds = append(kinds, d.roomKind(c.w()*c.h()*float64(d.scaleDen*d.scaleDen)/1e6))
	}
	rooms := make([]room, len(cells))
	const eps = 1e-6
	for k, c := range cells {
		rm := room{cell: c, kind: kinds[k]}
		rm.ext = [4]bool{c.y0 <= in.y0+eps, c.x1 >= in.x1-eps, c.y1 >= in.y1-eps, c.x0 <= in.x0+eps}
		rm.clear = c
		half := tIn / 2
		if !rm.ext[0] {
			rm.clear.y0 += half
		}
		if !rm.ext[1] {
			rm.clear.x1 -= half
		}
		if !rm.ext[2] {
			rm.clear.y1 -= half
		}
		if !rm.ext[3] {
			rm.clear.x0 += half
		}
		rooms[k] = rm
	}
	return rooms
}

// roomKind picks a use that fits a room of area m² (model).
func (d *design) roomKind(area float64) roomKind {
	var kinds []roomKind
	switch {
	case area < 9:
		kinds = []roomKind{roomWC, roomWC, roomStore, roomTech, roomOffice}
	case area < 20:
		kinds = []roomKind{roomOffice, roomOffice, roomKitchen, roomBed, roomStair, roomStore, roomWC}
	default:
		kinds = []roomKind{roomOffice, roomOffice, roomMeeting, roomLounge, roomKitchen, roomBed, roomStair}
	}
	return kinds[d.r.IntN(len(kinds))]
}

// split cuts a band into rooms across its long axis (along=true cuts
// vertical walls), then halves deep rooms.
func (d *design) split(band rect, along bool) []rect {
	var out []rect
	length, depth := band.w(), band.h()
	if !along {
		length, depth = band.h(), band.w()
	}
	pos := 0.0
	for pos < length-1e-9 {
		w := d.m(d.uni(3, 6.5))
		if length-pos-w < d.m(2.4) {
			w = length - pos
		}
		var c rect
		if along {
			c = rect{band.x0 + pos, band.y0, band.x0 + pos + w, band.y1}
		} else {
			c = rect{band.x0, band.y0 + pos, band.x1, band.y0 + pos + w}
		}
		if depth > d.m(8) && d.chance(0.7) {
			cut := d.uni(0.4, 0.6)
			if along {
				y := c.y0 + cut*c.h()
				out = append(out, rect{c.x0, c.y0, c.x1, y}, rect{c.x0, y, c.x1, c.y1})
			} else {
				x := c.x0 + cut*c.w()
				out = append(out, rect{c.x0, c.y0, x, c.y1}, rect{x, c.y0, c.x1, c.y1})
			}
		} else {
			out = append(out, c)
		}
		pos += w
	}
	return out
}

// openings puts a door from every room to the corridor or a neighbour,
// windows in exterior walls and one entrance.
func (d *design) openings(rooms []room, in rect, tIn float64) {
	dw := d.m(0.9)
	const eps = 1e-6
	for k := range rooms {
		if rooms[k].kind == roomCorridor {
			continue
		}
		type cand struct {
			j    int
			s    side
			a, b float64
		}
		var cands []cand
		for j := range rooms {
			if j == k {
				continue
			}
			a, b := rooms[k].cell, rooms[j].cell
			var s side = -1
			var lo, hi float64
			switch {
			case math.Abs(a.x1-b.x0) < eps:
				s, lo, hi = 1, math.Max(a.y0, b.y0), math.Min(a.y1, b.y1)
			case math.Abs(a.x0-b.x1) < eps:
				s, lo, hi = 3, math.Max(a.y0, b.y0), math.Min(a.y1, b.y1)
			case math.Abs(a.y1-b.y0) < eps:
				s, lo, hi = 2, math.Max(a.x0, b.x0), math.Min(a.x1, b.x1)
			case math.Abs(a.y0-b.y1) < eps:
				s, lo, hi = 0, math.Max(a.x0, b.x0), math.Min(a.x1, b.x1)
			}
			if s < 0 || hi-lo < dw+d.m(0.6)+tIn {
				continue
			}
			cands = append(cands, cand{j, s, lo + tIn/2 + d.m(0.15), hi - tIn/2 - d.m(0.15)})
		}
		if len(cands) == 0 {
			continue
		}
		pick := cands[d.r.IntN(len(cands))]
		for _, c := range cands {
			if rooms[c.j].kind == roomCorridor {
				pick = c
				break
			}
		}
		if pick.j < k && rooms[pick.j].kind != roomCorridor && d.chance(0.5) {
			continue // the neighbour's door may already connect them
		}
		pos := pick.a + (pick.b-pick.a-dw)*d.r.Float64()
		gap := [2]float64{pos, pos + dw}
		rooms[k].gaps[pick.s] = append(rooms[k].gaps[pick.s], gap)
		rooms[pick.j].gaps[(pick.s+2)%4] = append(rooms[pick.j].gaps[(pick.s+2)%4], gap)
		into := k
		s := pick.s
		if d.chance(0.4) {
			into, s = pick.j, (pick.s+2)%4
		}
		rooms[into].doors = append(rooms[into].doors, door{s: s, a: gap[0], b: gap[1]})
	}
	// Windows and one entrance door.
	entrance := false
	for k := range rooms {
		rm := &rooms[k]
		for s := side(0); s < 4; s++ {
			if !rm.ext[s] {
				continue
			}
			_, a, b := sideLine(rm.clear, s)
			if rm.kind == roomCorridor && !entrance && b-a > d.m(2) {
				pos := a + d.m(0.5) + (b-a-d.m(2.2))*d.r.Float64()
				rm.gaps[s] = append(rm.gaps[s], [2]float64{pos, pos + d.m(1.2)})
				rm.doors = append(rm.doors, door{s: s, a: pos, b: pos + d.m(1.2)})
				entrance = true
				continue
			}
			if rm.kind == roomCorridor || rm.kind == roomStore || rm.kind == roomTech {
				continue
			}
			ww := d.m(d.uni(1.0, 2.4))
			if b-a < ww+d.m(0.8) {
				continue
			}
			pos := (a+b)/2 - ww/2 + (d.r.Float64()-0.5)*(b-a-ww-d.m(0.8))
			rm.gaps[s] = append(rm.gaps[s], [2]float64{pos, pos + ww})
		}
	}
}

// inward returns the unit vector from side s into the room.
func inward(s side) glyph.Point {
	return [...]glyph.Point{{X: 0, Y: 1}, {X: -1, Y: 0}, {X: 0, Y: -1}, {X: 1, Y: 0}}[s]
}

// jambs draws the wall ends at openings, the glazing of windows and the
// leaves and swings of doors.
func (d *design) jambs(rm room, tExt, tIn float64) {
	isDoor := func(s side, g [2]float64) (door, bool) {
		for _, dr := range rm.doors {
			if dr.s == s && math.Abs(dr.a-g[0]) < 1e-9 {
				return dr, true
			}
		}
		return door{}, false
	}
	for s := side(0); s < 4; s++ {
		t := tIn / 2
		if rm.ext[s] {
			t = tExt
		}
		n := inward(s)
		for _, g := range rm.gaps[s] {
			p0, p1 := onSide(rm.clear, s, g[0], 0), onSide(rm.clear, s, g[1], 0)
			out := glyph.Point{X: -n.X * t, Y: -n.Y * t}
			d.lines(archGrey, 0.25, nil, p0, glyph.Point{X: p0.X + out.X, Y: p0.Y + out.Y})
			d.lines(archGrey, 0.25, nil, p1, glyph.Point{X: p1.X + out.X, Y: p1.Y + out.Y})
			if _, ok := isDoor(s, g); !ok && rm.ext[s] {
				for _, f := range []float64{0.35, 0.65} {
					q0 := glyph.Point{X: p0.X + out.X*f, Y: p0.Y + out.Y*f}
					q1 := glyph.Point{X: p1.X + out.X*f, Y: p1.Y + out.Y*f}
					d.lines(archGrey, 0.18, nil, q0, q1)
				}
			}
		}
		for _, dr := range rm.doors {
			if dr.s != s {
				continue
			}
			w := dr.b - dr.a
			hingeAt, other := dr.a, dr.b
			if d.chance(0.5) {
				hingeAt, other = dr.b, dr.a
			}
			h := onSide(rm.clear, s, hingeAt, 0)
			leaf := glyph.Point{X: h.X + n.X*w, Y: h.Y + n.Y*w}
			d.lines(archGrey, 0.35, nil, h, leaf)
			o := onSide(rm.clear, s, other, 0)
			a0 := math.Atan2(leaf.Y-h.Y, leaf.X-h.X) * 180 / math.Pi
			a1 := math.Atan2(o.Y-h.Y, o.X-h.X) * 180 / math.Pi
			sweep := math.Mod(a1-a0+540, 360) - 180
			d.arc(lightGrey, 0.18, nil, h, w, a0, sweep)
		}
	}
}

// wallFill hatches or fills the exterior wall band between the outer and
// inner faces, leaving the openings clear.
func (d *design) wallFill(foot, in rect, gaps [4][][2]float64) {
	mode := d.r.IntN(3) // 0 none, 1 hatch, 2 solid
	if mode == 0 {
		return
	}
	bands := [4]rect{
		{foot.x0, foot.y0, foot.x1, in.y0},
		{in.x1, foot.y0, foot.x1, foot.y1},
		{foot.x0, in.y1, foot.x1, foot.y1},
		{foot.x0, foot.y0, in.x0, foot.y1},
	}
	spacing := d.uni(0.8, 1.6)
	cross := d.chance(0.3) // concrete: cross-hatched
	for s, band := range bands {
		horiz := s%2 == 0
		gs := append([][2]float64(nil), gaps[s]...)
		slices.SortFunc(gs, func(p, q [2]float64) int { return cmp.Compare(p[0], q[0]) })
		var pieces []rect
		cur := band.x0
		end := band.x1
		if !horiz {
			cur, end = band.y0, band.y1
		}
		for _, g := range gs {
			if g[0] > cur {
				pieces = append(pieces, sub(band, horiz, cur, g[0]))
			}
			cur = math.Max(cur, g[1])
		}
		if cur < end {
			pieces = append(pieces, sub(band, horiz, cur, end))
		}
		for _, p := range pieces {
			if mode == 2 {
				d.fillRect(hatchGrey, p)
			} else {
				d.hatch(p, spacing, cross)
			}
		}
	}
}

func sub(band rect, horiz bool, a, b float64) rect {
	if horiz {
		return rect{a, band.y0, b, band.y1}
	}
	return rect{band.x0, a, band.x1, b}
}

// hatch fills r with 45° lines spacing mm apart, and with 135° lines as
// well when cross is set.
func (d *design) hatch(r rect, spacing float64, cross bool) {
	step := spacing * math.Sqrt2
	for c := r.x0 + r.y0 + step/2; c < r.x1+r.y1; c += step {
		xa := math.Max(r.x0, c-r.y1)
		xb := math.Min(r.x1, c-r.y0)
		if xb-xa < 1e-6 {
			continue
		}
		d.lines(hatchGrey, 0.13, nil, glyph.Point{X: xa, Y: c - xa}, glyph.Point{X: xb, Y: c - xb})
	}
	if !cross {
		return
	}
	// Lines y - x = c.
	for c := r.y0 - r.x1 + step/2; c < r.y1-r.x0; c += step {
		xa := math.Max(r.x0, r.y0-c)
		xb := math.Min(r.x1, r.y1-c)
		if xb-xa < 1e-6 {
			continue
		}
		d.lines(hatchGrey, 0.13, nil, glyph.Point{X: xa, Y: c + xa}, glyph.Point{X: xb, Y: c + xb})
	}
}

// grid draws column grid lines with labelled bubbles and dimension
// chains along the top and left of the building.
func (d *design) grid(foot, in rect) {
	if d.chance(0.15) {
		return
	}
	step := d.m(d.uni(4.8, 8.4))
	axes := func(a, b float64) []float64 {
		n := max(1, int(math.Round((b-a)/step)))
		v := make([]float64, n+1)
		for i := range v {
			v[i] = a + (b-a)*float64(i)/float64(n)
		}
		return v
	}
	xs := axes((foot.x0+in.x0)/2, (foot.x1+in.x1)/2)
	ys := axes((foot.y0+in.y0)/2, (foot.y1+in.y1)/2)
	br := d.uni(3, 4.5)
	dash := []float64{6, 1.2, 0.6, 1.2}
	col := lightGrey
	for k, x := range xs {
		top := foot.y0 - 18
		d.lines(col, 0.13, dash, glyph.Point{X: x, Y: top + br}, glyph.Point{X: x, Y: foot.y1 + 4})
		d.circle(archGrey, 0.25, glyph.Point{X: x, Y: top}, br, false)
		d.text(fmt.Sprint(k+1), glyph.Point{X: x, Y: top + br*0.45}, br*0.9, 0, alignCenter, archGrey)
	}
	letters := "ABCDEFGHJKLMNPQRSTUVWXYZ"
	for k, y := range ys {
		left := foot.x0 - 18
		d.lines(col, 0.13, dash, glyph.Point{X: left + br, Y: y}, glyph.Point{X: foot.x1 + 4, Y: y})
		d.circle(archGrey, 0.25, glyph.Point{X: left, Y: y}, br, false)
		d.text(string(letters[k%len(letters)]), glyph.Point{X: left, Y: y + br*0.45}, br*0.9, 0, alignCenter, archGrey)
	}
	d.dimChain(xs, foot.y0-8, true)
	d.dimChain(ys, foot.x0-8, false)
}

// dimChain draws a dimension line through the positions with slash ticks
// and the distances in model millimetres.
func (d *design) dimChain(pos []float64, at float64, horiz bool) {
	if len(pos) < 2 {
		return
	}
	pt := func(u, v float64) glyph.Point {
		if horiz {
			return glyph.Point{X: u, Y: at + v}
		}
		return glyph.Point{X: at + v, Y: u}
	}
	capH := 1.8
	d.lines(archGrey, 0.13, nil, pt(pos[0]-2, 0), pt(pos[len(pos)-1]+2, 0))
	for k, u := range pos {
		d.lines(archGrey, 0.13, nil, pt(u, -2.5), pt(u, 2.5))
		t1, t2 := pt(u-1, 1), pt(u+1, -1)
		d.lines(archGrey, 0.35, nil, t1, t2)
		if k > 0 {
			mm := int(math.Round((u-pos[k-1])*float64(d.scaleDen)/10) * 10)
			mid := (u + pos[k-1]) / 2
			if horiz {
				d.text(fmt.Sprint(mm), pt(mid, -1), capH, 0, alignCenter, archGrey)
			} else {
				d.text(fmt.Sprint(mm), pt(mid, -1), capH, -90, alignCenter, archGrey)
			}
		}
	}
}

// roomLabel writes the room name, number and area at its centre.
func (d *design) roomLabel(rm room, k int) {
	if rm.clear.w() < 12 || rm.clear.h() < 10 {
		return
	}
	name := roomNames[rm.kind][1]
	if d.fi {
		name = roomNames[rm.kind][0]
	}
	c := rm.clear.center()
	c.X += (d.r.Float64() - 0.5) * rm.clear.w() * 0.3
	c.Y += (d.r.Float64() - 0.5) * rm.clear.h() * 0.3
	capH := math.Min(2.5, rm.clear.w()/float64(len(name)+2))
	d.text(name, c, capH, 0, alignCenter, archGrey)
	d.text(fmt.Sprintf("%d%02d", 1+k/50, k%50+1), glyph.Point{X: c.X, Y: c.Y + capH*1.7}, capH*0.8, 0, alignCenter, archGrey)
	area := rm.cell.w() * rm.cell.h() * float64(d.scaleDen*d.scaleDen) / 1e6
	a := fmt.Sprintf("%.1f m²", area)
	if d.fi {
		a = fmt.Sprintf("%d,%d m²", int(area), int(area*10)%10)
	}
	d.text(a, glyph.Point{X: c.X, Y: c.Y + capH*3.2}, capH*0.7, 0, alignCenter, archGrey)
}

// planTitle writes the view title under the plan and a north arrow
// beside it: a circle with an arrow and "N", a symbol look-alike.
func (d *design) planTitle(area, foot rect) {
	y := math.Min(foot.y1+14, area.y1-1)
	x := math.Max(foot.x0, area.x0) + 4
	title := d.texts(fmt.Sprintf("%d. KERROS", 1+d.r.IntN(4)), fmt.Sprintf("LEVEL %d PLAN", 1+d.r.IntN(4)))
	d.text(title, glyph.Point{X: x, Y: y}, 4, 0, alignLeft, black)
	w := d.g.met.width(title, 4)
	d.lines(black, 0.5, nil, glyph.Point{X: x, Y: y + 1.5}, glyph.Point{X: x + w + 20, Y: y + 1.5})
	d.text(fmt.Sprintf("1:%d", d.scaleDen), glyph.Point{X: x + w + 4, Y: y}, 2.5, 0, alignLeft, black)
	if d.chance(0.6) {
		c := glyph.Point{X: x + w + 32, Y: y - 3}
		rot := float64(d.r.IntN(4)) * 90
		if d.chance(0.3) {
			rot = d.uni(0, 360)
		}
		m := glyph.Rotate(rot).Then(glyph.Translate(c.X, c.Y))
		tip, l, r := m.Apply(glyph.Point{X: 0, Y: -5}), m.Apply(glyph.Point{X: -2.2, Y: 3}), m.Apply(glyph.Point{X: 2.2, Y: 3})
		d.circle(black, 0.25, c, 4.5, false)
		d.op(func(p *pen) error {
			p.setStroke(black, 0.25, nil)
			p.setFill(black)
			p.polygon([]glyph.Point{tip, r, c, l}, true, true)
			return nil
		})
		d.text("N", m.Apply(glyph.Point{X: 0, Y: -6.5}), 2.5, rot, alignCenter, black)
	}
}

// edgeSymbols puts a few ceiling symbols across the sheet's left edge in
// rooms that the edge cuts, as on a plan that continues off the sheet.
func (d *design) edgeSymbols(rooms []room) {
	ceiling := d.poolBy(mountCeiling)
	if len(ceiling) == 0 {
		ceiling = d.pool
	}
	for _, rm := range rooms {
		if rm.clear.x0 >= 0 || rm.clear.x1 <= 5 || rm.clear.h() < 8 {
			continue
		}
		for n := 1 + d.r.IntN(2); n > 0; n-- {
			at := glyph.Point{X: d.uni(-1.5, 1.5), Y: d.uni(rm.clear.y0+3, rm.clear.y1-3)}
			d.place(ceiling[d.r.IntN(len(ceiling))], glyph.Placement{At: at, Scale: d.scale(), Rotation: d.ceilingRotation()})
		}
	}
}
