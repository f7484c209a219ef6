package search

import (
	"math"

	"blueprint/internal/detect"
	"blueprint/internal/glyph"
)

// Dashed lines. A wire drawn dashed in a symbol's own pen crosses or
// touches symbols on its way; each dash is a short piece joined to the
// symbol, which would make any symbol on the wire "part of a larger
// symbol". A straight piece is a dash where a straight piece of its pen
// lies in line with it past one of its ends, beyond a gap of at least
// the tolerance and at most dashGapRel times its length (and dashGapMaxPx),
// and reaches out of the match's box: the line runs on past the symbol.
const (
	dashGapRel   = 2.0
	dashGapMaxPx = 12.0
	// dashAlignSin: the sine of the most angle between a dash and the
	// next, and the farthest the next lies off the dash's line, in
	// pixels.
	dashAlignSin = 0.05
	dashOffPx    = 0.75
)

// dash reports whether piece i is a dash of a dashed line that runs past
// box b (tol: how far drawing may lie from the template and be its).
func (s *surroundings) dash(i int32, b detect.Box, tol float64) bool {
	for _, n := range s.dashNext(i) {
		if n.gap < tol {
			continue // touching: one stroke, not a dash and the next
		}
		o := s.pg.Segments[n.j]
		if o.A.X < b.X-tol || o.A.X > b.X+b.W+tol || o.A.Y < b.Y-tol || o.A.Y > b.Y+b.H+tol ||
			o.B.X < b.X-tol || o.B.X > b.X+b.W+tol || o.B.Y < b.Y-tol || o.B.Y > b.Y+b.H+tol {
			return true
		}
	}
	return false
}

// dashNext returns the straight pieces of piece i's pen in line with it
// past one of its ends, at most dashGapRel times its length away, with
// their gaps (none where i is an arc); found once per piece.
func (s *surroundings) dashNext(i int32) []dashNext {
	if i >= int32(len(s.pg.Segments)) {
		return nil
	}
	if ns, ok := s.dashes[i]; ok {
		return ns
	}
	sg := s.pg.Segments[i]
	var out []dashNext
	if l := math.Hypot(sg.B.X-sg.A.X, sg.B.Y-sg.A.Y); l > 0 {
		d := glyph.Point{X: (sg.B.X - sg.A.X) / l, Y: (sg.B.Y - sg.A.Y) / l}
		maxGap := math.Min(dashGapMaxPx, dashGapRel*l)
		pen := s.style(i)
		for _, end := range [2]struct {
			p   glyph.Point
			dir float64
		}{{sg.B, 1}, {sg.A, -1}} {
			look := detect.Box{X: end.p.X - maxGap, Y: end.p.Y - maxGap, W: 2 * maxGap, H: 2 * maxGap}
			s.meetingAll(look, func(j int32) {
				if j == i || j >= int32(len(s.pg.Segments)) || !samePen(s.style(j), pen) {
					return
				}
				o := s.pg.Segments[j]
				ol := math.Hypot(o.B.X-o.A.X, o.B.Y-o.A.Y)
				if ol <= 0 || math.Abs((o.B.X-o.A.X)*d.Y-(o.B.Y-o.A.Y)*d.X)/ol > dashAlignSin {
					return
				}
				// o's ends along the dash's line past this end, and off it.
				along := func(p glyph.Point) float64 { return end.dir * ((p.X-end.p.X)*d.X + (p.Y-end.p.Y)*d.Y) }
				off := func(p glyph.Point) float64 { return math.Abs((p.X-end.p.X)*d.Y - (p.Y-end.p.Y)*d.X) }
				if off(o.A) > dashOffPx || off(o.B) > dashOffPx {
					return
				}
				if gap := math.Min(along(o.A), along(o.B)); gap >= 0 && gap <= maxGap {
					out = append(out, dashNext{j, gap})
				}
			})
		}
	}
	if s.dashes == nil {
		s.dashes = map[int32][]dashNext{}
	}
	s.dashes[i] = out
	return out
}

// dashNext is a straight piece j in line with a dash, gap pixels past its
// end.
type dashNext struct {
	j   int32
	gap float64
}

// meetingAll calls fn for each piece whose box meets b, once for each of
// b's cells the piece is filed in (dashNext keeps repeats: they change no
// answer of dash); unlike meeting it keeps no stamps, so a meeting walk
// may call it.
func (s *surroundings) meetingAll(b detect.Box, fn func(i int32)) {
	x0, y0, x1, y1 := s.cellRange(b)
	for cy := y0; cy <= y1; cy++ {
		for cx := x0; cx <= x1; cx++ {
			c := cy*s.nx + cx
			for _, i := range s.items[s.start[c]:s.start[c+1]] {
				p := s.boxes[i]
				if p.X <= b.X+b.W && p.Y <= b.Y+b.H && p.X+p.W >= b.X && p.Y+p.H >= b.Y {
					fn(i)
				}
			}
		}
	}
}
