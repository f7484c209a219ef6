package ocrtext

import (
	"image"
	"math"
	"slices"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// frame maps page pixels to the pixels of a line's strip in a mosaic:
// the line's reading direction (angle degrees, y down) becomes +x, and its
// letters are scaled to a common height.
type frame struct {
	d, m  glyph.Point // reading direction and the direction down the letters
	scale float64
	off   glyph.Point
}

func newFrame(angle, scale float64) frame {
	s, c := math.Sincos(angle * math.Pi / 180)
	return frame{d: glyph.Point{X: c, Y: s}, m: glyph.Point{X: -s, Y: c}, scale: scale}
}

func (f frame) to(p glyph.Point) glyph.Point {
	return glyph.Point{X: f.scale*(p.X*f.d.X+p.Y*f.d.Y) + f.off.X, Y: f.scale*(p.X*f.m.X+p.Y*f.m.Y) + f.off.Y}
}

func (f frame) from(q glyph.Point) glyph.Point {
	u, v := (q.X-f.off.X)/f.scale, (q.Y-f.off.Y)/f.scale
	return glyph.Point{X: u*f.d.X + v*f.m.X, Y: u*f.d.Y + v*f.m.Y}
}

// place sets the frame's offset so that the page box [mn, mx] maps to
// the strip with its top-left corner at at, and returns the strip's size.
func (f *frame) place(mn, mx glyph.Point, at glyph.Point) (w, h float64) {
	f.off = glyph.Point{}
	lo := glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi := glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range []glyph.Point{mn, mx, {X: mn.X, Y: mx.Y}, {X: mx.X, Y: mn.Y}} {
		q := f.to(p)
		lo, hi = glyph.MinPoint(lo, q), glyph.MaxPoint(hi, q)
	}
	f.off = glyph.Point{X: at.X - lo.X, Y: at.Y - lo.Y}
	return hi.X - lo.X, hi.Y - lo.Y
}

// arcStep is the largest angle, in degrees, of one chord of an arc when
// it is drawn.
const arcStep = 12.0

// polyline is a piece as points in page pixels.
func polyline(pg *drawing.Page, p piece) []glyph.Point {
	if !p.arc {
		s := pg.Segments[p.i]
		return []glyph.Point{s.A, s.B}
	}
	a := pg.Arcs[p.i]
	n := max(2, int(math.Ceil(math.Abs(a.Sweep)/arcStep)))
	out := make([]glyph.Point, n+1)
	for k := range n + 1 {
		s, c := math.Sincos((a.Start + a.Sweep*float64(k)/float64(n)) * math.Pi / 180)
		out[k] = glyph.Point{X: a.C.X + a.R*c, Y: a.C.Y + a.R*s}
	}
	return out
}

// paint draws pieces into img through f, black on white: the pieces of
// filled paths are filled by the even-odd rule (a letter's counter stays
// open), the others stroked at their width (at least minStroke pixels).
func paint(img *image.Gray, pg *drawing.Page, ps []piece, f frame, clip image.Rectangle) {
	const minStroke = 1.5
	var edges [][2]glyph.Point
	var segs []int32 // filled segments, to close their subpaths
	for _, p := range ps {
		st := styleOf(pg, p)
		if st.Fill != "" && !p.arc {
			segs = append(segs, p.i)
			continue
		}
		pts := polyline(pg, p)
		for i := range pts {
			pts[i] = f.to(pts[i])
		}
		if st.Fill != "" {
			for i := 1; i < len(pts); i++ {
				edges = append(edges, [2]glyph.Point{pts[i-1], pts[i]})
			}
			continue
		}
		w := math.Max(minStroke, st.Width*f.scale)
		for i := 1; i < len(pts); i++ {
			strokeLine(img, pts[i-1], pts[i], w, clip)
		}
	}
	slices.Sort(segs)
	var runs [][2]int // first and last edge of each run of joined segments
	for k, i := range segs {
		s := pg.Segments[i]
		edges = append(edges, [2]glyph.Point{f.to(s.A), f.to(s.B)})
		if k > 0 && segs[k-1] == i-1 && endKey(pg.Segments[i-1].B) == endKey(s.A) {
			runs[len(runs)-1][1] = len(edges) - 1
		} else {
			runs = append(runs, [2]int{len(edges) - 1, len(edges) - 1})
		}
	}
	fillEvenOdd(img, closeOpen(edges, runs), clip)
}

// closeOpen adds the edges that close the open outlines among edges: a
// PDF fills a path that does not close itself as though it did, and an
// arc fitted to a curve ends a fraction of a pixel off its neighbours.
// A run of edges drawn one after the other (a subpath, in the order the
// page drew it) whose two ends are both open is closed first, as the PDF
// closes it; the ends still open are then joined nearest first.
func closeOpen(edges [][2]glyph.Point, runs [][2]int) [][2]glyph.Point {
	deg := map[uint64]int{}
	at := map[uint64]glyph.Point{}
	for _, e := range edges {
		for _, p := range e {
			k := endKey(p)
			deg[k]++
			at[k] = p
		}
	}
	for _, r := range runs {
		a, b := edges[r[1]][1], edges[r[0]][0]
		ka, kb := endKey(a), endKey(b)
		if ka != kb && deg[ka]%2 == 1 && deg[kb]%2 == 1 {
			edges = append(edges, [2]glyph.Point{a, b})
			deg[ka]++
			deg[kb]++
		}
	}
	var odd []glyph.Point
	for k, n := range deg {
		if n%2 == 1 {
			odd = append(odd, at[k])
		}
	}
	slices.SortFunc(odd, func(a, b glyph.Point) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		case a.Y < b.Y:
			return -1
		case a.Y > b.Y:
			return 1
		}
		return 0
	})
	used := make([]bool, len(odd))
	for i := range odd {
		if used[i] {
			continue
		}
		best, bestD := -1, math.Inf(1)
		for j := i + 1; j < len(odd); j++ {
			if d := math.Hypot(odd[j].X-odd[i].X, odd[j].Y-odd[i].Y); !used[j] && d < bestD {
				best, bestD = j, d
			}
		}
		if best < 0 {
			break
		}
		used[i], used[best] = true, true
		edges = append(edges, [2]glyph.Point{odd[i], odd[best]})
	}
	return edges
}

// fillEvenOdd fills, row by row inside clip, the pixels whose centres an
// odd number of edges encloses.
func fillEvenOdd(img *image.Gray, edges [][2]glyph.Point, clip image.Rectangle) {
	if len(edges) == 0 {
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range edges {
		lo = math.Min(lo, math.Min(e[0].Y, e[1].Y))
		hi = math.Max(hi, math.Max(e[0].Y, e[1].Y))
	}
	y0, y1 := max(clip.Min.Y, int(math.Floor(lo))), min(clip.Max.Y, int(math.Ceil(hi))+1)
	var xs []float64
	for y := y0; y < y1; y++ {
		cy := float64(y) + 0.5
		xs = xs[:0]
		for _, e := range edges {
			a, b := e[0], e[1]
			if (a.Y <= cy) == (b.Y <= cy) {
				continue
			}
			xs = append(xs, a.X+(cy-a.Y)*(b.X-a.X)/(b.Y-a.Y))
		}
		slices.Sort(xs)
		row := img.Pix[(y-img.Rect.Min.Y)*img.Stride:]
		for k := 0; k+1 < len(xs); k += 2 {
			x0 := max(clip.Min.X, int(math.Ceil(xs[k]-0.5)))
			x1 := min(clip.Max.X, int(math.Floor(xs[k+1]-0.5))+1)
			for x := x0; x < x1; x++ {
				row[x-img.Rect.Min.X] = 0
			}
		}
	}
}

// strokeLine draws the segment ab w pixels wide inside clip.
func strokeLine(img *image.Gray, a, b glyph.Point, w float64, clip image.Rectangle) {
	r := w / 2
	x0 := max(clip.Min.X, int(math.Floor(math.Min(a.X, b.X)-r)))
	x1 := min(clip.Max.X, int(math.Ceil(math.Max(a.X, b.X)+r)))
	y0 := max(clip.Min.Y, int(math.Floor(math.Min(a.Y, b.Y)-r)))
	y1 := min(clip.Max.Y, int(math.Ceil(math.Max(a.Y, b.Y)+r)))
	dx, dy := b.X-a.X, b.Y-a.Y
	l2 := dx*dx + dy*dy
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			t := 0.0
			if l2 > 0 {
				t = math.Max(0, math.Min(1, ((px-a.X)*dx+(py-a.Y)*dy)/l2))
			}
			ex, ey := a.X+t*dx-px, a.Y+t*dy-py
			if ex*ex+ey*ey <= r*r {
				img.Pix[(y-img.Rect.Min.Y)*img.Stride+x-img.Rect.Min.X] = 0
			}
		}
	}
}

func styleOf(pg *drawing.Page, p piece) drawing.Style {
	st := p.styleIndex(pg)
	if st < 0 || int(st) >= len(pg.Styles) {
		return drawing.Style{Fill: "#000000"}
	}
	return pg.Styles[st]
}

func (p piece) styleIndex(pg *drawing.Page) int32 {
	if p.arc {
		return pg.Arcs[p.i].Style
	}
	return pg.Segments[p.i].Style
}
