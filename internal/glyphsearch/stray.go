package glyphsearch

import (
	"image"
	"math"
	"slices"
)

// Stray strokes. A box drawn round a symbol on a plan also holds the ends
// of the wires that run to it, of a wall or a leader passing by: they are
// not the glyph, and another instance has its wires elsewhere. A stroke
// that crosses the edge of the exemplar's box, thin and straight outside
// it, is followed into the box along its line for as long as it stays a
// thin line (up to a junction with the glyph's outline, or into a fill);
// the pixels it covers are left out of the template, and out of what a
// pose is judged on: an instance may or may not have a wire there.
const (
	// strayMinLong: the stroke outside the box must reach at least this
	// many pixels and be strayElong times longer than wide.
	strayMinLong = 4
	strayElong   = 2.5
	// strayReach: the stroke outside the box is measured within this
	// share of the box's larger side (and at least strayMinReach pixels).
	strayReach    = 0.3
	strayMinReach = 8
	// strayGap: pixels along the line without ink that end the stroke.
	strayGap = 1.5
	// strayMargin: pixels beyond the stroke's half width that are left
	// out with it (its soft edges).
	strayMargin = 1
	// strayMaxWidth: a wider stroke (a wall's fill) is left alone.
	strayMaxWidth = 8
)

// strayStrokes returns, as a plane of c's size (255: stray), the pixels
// of c covered by strokes that cross the edge of r from outside, r and c
// in ink's pixels, r within c; nil when there are none.
func strayStrokes(ink *plane, r, c image.Rectangle) *plane {
	on := func(x, y int) bool { return ink.at(x, y) >= inkOn }
	var out *plane
	mark := func(x, y int) {
		if !(image.Point{x, y}).In(c) {
			return
		}
		if out == nil {
			out = newPlane(c.Dx(), c.Dy())
		}
		out.pix[(y-c.Min.Y)*out.w+x-c.Min.X] = 255
	}
	reach := max(strayMinReach, int(math.Round(strayReach*float64(max(r.Dx(), r.Dy())))))
	window := r.Inset(-reach).Intersect(image.Rect(0, 0, ink.w, ink.h))
	// Each side: its pixels inside r, along it, and the outward normal.
	type side struct {
		x0, y0, dx, dy, n int
		nx, ny            int
	}
	sides := []side{
		{r.Min.X, r.Min.Y, 0, 1, r.Dy(), -1, 0},
		{r.Max.X - 1, r.Min.Y, 0, 1, r.Dy(), 1, 0},
		{r.Min.X, r.Min.Y, 1, 0, r.Dx(), 0, -1},
		{r.Min.X, r.Max.Y - 1, 1, 0, r.Dx(), 0, 1},
	}
	seen := map[image.Point]bool{}
	for _, sd := range sides {
		for i := 0; i < sd.n; {
			if !on(sd.x0+i*sd.dx, sd.y0+i*sd.dy) {
				i++
				continue
			}
			a := i
			for i < sd.n && on(sd.x0+i*sd.dx, sd.y0+i*sd.dy) {
				i++
			}
			// run [a, i): the seeds are the ink just outside it
			var seeds []image.Point
			for j := a - 1; j <= i; j++ {
				p := image.Pt(sd.x0+j*sd.dx+sd.nx, sd.y0+j*sd.dy+sd.ny)
				if on(p.X, p.Y) && !p.In(r) && !seen[p] {
					seeds = append(seeds, p)
				}
			}
			if len(seeds) == 0 {
				continue
			}
			pts := outsideStroke(ink, seeds, r, window, seen)
			followStray(ink, pts, sd.nx, sd.ny, c, mark)
		}
	}
	return out
}

// outsideStroke returns the ink pixels outside r and inside window
// 8-connected to the seeds, marking them seen.
func outsideStroke(ink *plane, seeds []image.Point, r, window image.Rectangle, seen map[image.Point]bool) []image.Point {
	var pts []image.Point
	queue := append([]image.Point(nil), seeds...)
	for _, s := range seeds {
		seen[s] = true
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		pts = append(pts, p)
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				q := image.Pt(p.X+dx, p.Y+dy)
				if seen[q] || q.In(r) || !q.In(window) || ink.at(q.X, q.Y) < inkOn {
					continue
				}
				seen[q] = true
				queue = append(queue, q)
			}
		}
	}
	return pts
}

// followStray follows the stroke whose pixels outside the box are pts
// into the box (outward normal nx, ny of the side it crosses) and marks
// the pixels of c it covers. A stroke that is not a thin straight line
// outside the box, or that runs along the side, is left alone.
func followStray(ink *plane, pts []image.Point, nx, ny int, c image.Rectangle, mark func(x, y int)) {
	if len(pts) < strayMinLong {
		return
	}
	tp := make([]tpoint, len(pts))
	var mx, my float64
	for i, p := range pts {
		tp[i] = tpoint{float64(p.X), float64(p.Y), 1}
		mx += float64(p.X)
		my += float64(p.Y)
	}
	mx, my = mx/float64(len(pts)), my/float64(len(pts))
	angle, elong := principalAxis(tp)
	dx, dy := math.Cos(angle), math.Sin(angle)
	start, end := 0.0, 0.0
	for _, p := range tp {
		d := (p.x-mx)*dx + (p.y-my)*dy
		start, end = min(start, d), max(end, d)
	}
	if end-start+1 < strayMinLong || elong < strayElong {
		return
	}
	// point the line into the box; a line along the side does not enter
	if dot := dx*float64(nx) + dy*float64(ny); dot > 0 {
		dx, dy = -dx, -dy
		start = -end
	} else if dot > -0.25 {
		return
	}
	on := func(x, y float64) bool { return ink.at(int(math.Floor(x)), int(math.Floor(y))) >= inkOn }
	// run returns the ink across the line at (x, y), up to limit pixels
	// on each side, the pixel itself included.
	run := func(x, y, limit float64) float64 {
		n := 1.0
		for _, sgn := range [2]float64{1, -1} {
			for d := 1.0; d <= limit; d++ {
				if !on(x-sgn*d*dy, y+sgn*d*dx) {
					break
				}
				n++
			}
		}
		return n
	}
	// its width: the median run across it outside the box
	var runs []float64
	for s := start; s <= 0; s++ {
		if x, y := mx+s*dx, my+s*dy; on(x, y) {
			runs = append(runs, run(x, y, strayMaxWidth))
		}
	}
	if len(runs) == 0 {
		return
	}
	slices.Sort(runs)
	width := runs[len(runs)/2]
	if width >= strayMaxWidth {
		return
	}
	hw := width / 2
	thick := 2*width + 2
	// centred returns the middle of the ink across the line within the
	// stroke's reach of (x, y), and whether there is any.
	centred := func(x, y float64) (float64, float64, bool) {
		r := math.Ceil(hw + 0.75)
		sum, n := 0.0, 0
		for o := -r; o <= r; o++ {
			if on(x-o*dy, y+o*dx) {
				sum += o
				n++
			}
		}
		if n == 0 {
			return x, y, false
		}
		o := sum / float64(n)
		return x - o*dy, y + o*dx, true
	}
	// beside reports ink within two pixels of either side of the
	// stroke's run across (x, y): another stroke touching or near it.
	beside := func(x, y float64) bool {
		for _, sgn := range [2]float64{1, -1} {
			d := 1.0
			for d <= thick && on(x-sgn*d*dy, y+sgn*d*dx) {
				d++
			}
			for e := d + 1; e <= d+2; e++ {
				if on(x-sgn*e*dy, y+sgn*e*dx) {
					return true
				}
			}
		}
		return false
	}
	gap := 0.0
	bounds := c.Inset(-2)
	entered := false
	var path []vec
	// from the far end of the outside part, inwards, kept on the
	// stroke's middle (a scan's line is not quite straight)
	x, y := mx+start*dx, my+start*dy
	for s := start; s < -start+float64(c.Dx()+c.Dy()); s += 0.5 {
		x, y = x+0.5*dx, y+0.5*dy
		in := (image.Point{int(math.Floor(x)), int(math.Floor(y))}).In(bounds)
		if entered && !in {
			break
		}
		entered = entered || in
		cx, cy, ok := centred(x, y)
		if !ok {
			if gap += 0.5; gap > strayGap {
				break
			}
			continue
		}
		if gap == 0 {
			x, y = cx, cy
		}
		gap = 0
		if in && s > 0 && (run(x, y, thick) > width+2 || beside(x, y)) {
			break // a junction, a stroke beside it, or a fill
		}
		path = append(path, vec{x, y})
	}
	rr := hw + strayMargin
	for _, p := range path {
		for oy := math.Floor(p.y - rr); oy <= p.y+rr; oy++ {
			for ox := math.Floor(p.x - rr); ox <= p.x+rr; ox++ {
				if math.Hypot(ox+0.5-p.x, oy+0.5-p.y) <= rr {
					mark(int(ox), int(oy))
				}
			}
		}
	}
}
