package glyphsearch

import "math"

// keepInnerParts puts back into ink (the template's ink as the consensus
// left it) each connected part the vote took out that lies wholly inside
// the exemplar's box and bridges ink the vote kept: a part of the glyph's
// own drawing (a heater's bars between its two rails), which look-alikes
// missing it (a wall's two lines) must not vote away. What the consensus
// is for stays out: a label apart from the glyph or against it at one
// end, and a wire or a neighbour's corner, which reach the box's edge. It
// returns the stroke pixels put back. Only an exemplar cut from the page
// searched is so kept: it is drawn as its instances are, where an image
// drawn elsewhere (a legend's glyph, at another size, in colour) differs
// from them in details that its instances rightly vote away.
func keepInnerParts(t *Template, ink *plane, held []int, voters int) int {
	// A part is joined across a kept stroke's width and a pixel more: a
	// line that crosses the glyph's outline (a wire, an arrow's shaft) is
	// one part with its run outside, and reaches the box's edge with it.
	full := threshold(t.ink, inkOn)
	sw := strokeWidth(full, thin(full))
	partReach := int(math.Ceil(sw)) + 1
	w, h := ink.w, ink.h
	x0, x1 := t.cx-(t.width-1)/2, t.cx+(t.width-1)/2
	y0, y1 := t.cy-(t.height-1)/2, t.cy+(t.height-1)/2
	inside := func(x, y int) bool {
		fx, fy := float64(x), float64(y)
		return fx > x0+0.5 && fx < x1-0.5 && fy > y0+0.5 && fy < y1-0.5
	}
	removed := func(i int) bool { return ink.pix[i] == 0 && t.ink.pix[i] >= 32 }
	seen := make([]bool, w*h)
	restored := 0
	var part, stack []int
	for start := range ink.pix {
		if seen[start] || !removed(start) {
			continue
		}
		part, stack = part[:0], append(stack[:0], start)
		seen[start] = true
		enclosed := true
		var contacts []int
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			part = append(part, i)
			x, y := i%w, i/w
			if !inside(x, y) {
				enclosed = false
			}
			for dy := -partReach; dy <= partReach; dy++ {
				for dx := -partReach; dx <= partReach; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					j := ny*w + nx
					switch {
					case removed(j):
						if !seen[j] {
							seen[j] = true
							stack = append(stack, j)
						}
					case ink.pix[j] >= 32 && max(abs(dx), abs(dy)) == 1:
						if n := len(contacts); n == 0 || contacts[n-1] != i {
							contacts = append(contacts, i)
						}
					}
				}
			}
		}
		votes := 0
		for _, i := range part {
			votes += held[i]
		}
		if !enclosed || !bridges(part, contacts, w) || float64(votes) > maxPartHeld*float64(voters*len(part)) {
			continue
		}
		for _, i := range part {
			ink.pix[i] = t.ink.pix[i]
			if ink.pix[i] >= inkOn {
				restored++
			}
		}
	}
	return restored
}

// maxPartHeld: a part is put back only where its matches hold almost none
// of it (this share of its pixels' votes at most): a look-alike lacks the
// glyph's drawing outright, where the glyph's own instances, which a
// hairline or a hatch behind the exemplar crosses, hold some of it by
// chance.
const maxPartHeld = 0.15

// bridges reports whether a part (pixel indices in a plane w wide) joins
// the ink it touches at two places across it (contacts: its pixels beside
// that ink), as a bar drawn between two rails does, rather than at one
// end, as a wire's stub or a tag's letter against the glyph does: two
// contacts at least half the part's extent apart, and 3 pixels.
func bridges(part, contacts []int, w int) bool {
	if len(contacts) < 2 {
		return false
	}
	x0, y0, x1, y1 := w, len(part)*w, -1, -1
	for _, i := range part {
		x, y := i%w, i/w
		x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
	}
	extent := math.Hypot(float64(x1-x0), float64(y1-y0))
	far := 0.0
	for a, i := range contacts {
		for _, j := range contacts[a+1:] {
			far = max(far, math.Hypot(float64(i%w-j%w), float64(i/w-j/w)))
		}
	}
	return far >= 3 && far >= extent/2
}

// Consensus: the matches scoring within consensusBand of the best match
// other than the exemplar itself, at least consensusMin, up to
// consensusMax of them, vote on each stroke pixel of the template; a pixel
// that fewer than half of them hold ink at is left out. With fewer than
// consensusVoters, or where the vote would leave out more than
// consensusMaxCut of the strokes (the matches are then more likely a
// look-alike than the glyph), the template stays as it is.
const (
	consensusMin    = 0.8
	consensusBand   = 0.1
	consensusMax    = 15
	consensusVoters = 2
	consensusMaxCut = 0.35
)

// consensus returns the plan with the template's ink cleaned by the vote
// of its best matches (ss, best first), or nil.
func (pl *plan) consensus(ss []scored, p *Page) *plan {
	t := pl.t
	var voters []scored
	for _, s := range ss {
		if s.score < consensusMin || len(voters) == consensusMax {
			break
		}
		if t.onPage && pl.match(s.s, s.score).Box.IoU(t.box) >= 0.5 {
			continue // the exemplar itself
		}
		if len(voters) > 0 && s.score < voters[0].score-consensusBand {
			break
		}
		voters = append(voters, s)
	}
	if len(voters) < consensusVoters {
		return nil
	}
	dil := p.level(t.gain, 1).dilated()
	type placed struct {
		m      mat2
		cx, cy float64
	}
	var ps []placed
	for _, v := range voters {
		m := pose{angle: v.s.angle, mirror: v.s.mirror, scale: v.s.scale, stretch: v.s.stretch}.linear(t.axis)
		ps = append(ps, placed{m, fromLevel(v.s.x, pl.kv) + 0.5, fromLevel(v.s.y, pl.kv) + 0.5})
	}
	ink := &plane{w: t.ink.w, h: t.ink.h, pix: append([]uint8(nil), t.ink.pix...)}
	var strokes, cut int
	held := make([]int, len(ink.pix))
	for y := 0; y < ink.h; y++ {
		for x := 0; x < ink.w; x++ {
			i := y*ink.w + x
			if ink.pix[i] < 32 {
				continue
			}
			votes := 0
			for _, q := range ps {
				dx, dy := q.m.apply(float64(x)-t.cx, float64(y)-t.cy)
				if v := dil.at(int(math.Floor(q.cx+dx)), int(math.Floor(q.cy+dy))); v >= 96 {
					votes++
				}
			}
			on := ink.pix[i] >= inkOn
			if on {
				strokes++
			}
			held[i] = votes
			if 2*votes < len(ps) {
				ink.pix[i] = 0
				if on {
					cut++
				}
			}
		}
	}
	if cut == 0 || float64(cut) > consensusMaxCut*float64(strokes) {
		return nil
	}
	if t.onPage && keepInnerParts(t, ink, held, len(ps)) == cut {
		return nil
	}
	clean := *pl
	clean.prepareVerify(ink)
	return &clean
}
