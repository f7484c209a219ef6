package legend

import (
	"math"
	"sort"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// piece is a drawn segment or arc with its box.
type piece struct {
	seg  int // index into Segments, or -1
	arc  int // index into Arcs, or -1
	box  Rect
	size float64 // longest side of the box
}

type pageIndex struct {
	pg     *drawing.Page
	pieces []piece
	cell   float64
	nx, ny int
	grid   map[int][]int32
	runs   []run
	// hrules are the long horizontal lines of the page (table rules,
	// walls), sorted by y.
	hrules []hrule
	// long are the segments longer than minLong, listed on first use.
	long []int32
	// maps says whether a text names a class (headless legends); nil
	// takes only legends with header words.
	maps func(text string) bool
}

// minLong is the shortest segment crossed tests, in pixels: 6 em of the
// smallest text legends are read at (about 0.5 mm).
const minLong = 24.0

// hrule is a long horizontal line at y from x0 to x1.
type hrule struct{ y, x0, x1 float64 }

// minRule is the shortest horizontal line kept as a possible table rule,
// in pixels (about 1 mm at the raster's resolution).
const minRule = 8.0

func newIndex(pg *drawing.Page, rs []run) *pageIndex {
	ix := &pageIndex{pg: pg, cell: 48, grid: map[int][]int32{}}
	ix.nx = int(pg.Width/ix.cell) + 1
	ix.ny = int(pg.Height/ix.cell) + 1
	add := func(p piece) {
		p.size = math.Max(p.box.w(), p.box.h())
		ix.pieces = append(ix.pieces, p)
		c := p.box.centre()
		k := ix.key(c)
		ix.grid[k] = append(ix.grid[k], int32(len(ix.pieces)-1))
	}
	for i, s := range pg.Segments {
		add(piece{seg: i, arc: -1, box: Rect{glyph.MinPoint(s.A, s.B), glyph.MaxPoint(s.A, s.B)}})
	}
	for i, a := range pg.Arcs {
		add(piece{seg: -1, arc: i, box: arcBox(a)})
	}
	ix.runs = rs
	for _, s := range pg.Segments {
		if dx, dy := math.Abs(s.B.X-s.A.X), math.Abs(s.B.Y-s.A.Y); dx >= minRule && dy <= 0.02*dx {
			ix.hrules = append(ix.hrules, hrule{y: (s.A.Y + s.B.Y) / 2, x0: math.Min(s.A.X, s.B.X), x1: math.Max(s.A.X, s.B.X)})
		}
	}
	sort.Slice(ix.hrules, func(a, b int) bool { return ix.hrules[a].y < ix.hrules[b].y })
	return ix
}

func (ix *pageIndex) key(p glyph.Point) int {
	x := min(max(int(p.X/ix.cell), 0), ix.nx-1)
	y := min(max(int(p.Y/ix.cell), 0), ix.ny-1)
	return y*ix.nx + x
}

// piecesIn calls fn for pieces whose box centre lies in r.
func (ix *pageIndex) piecesIn(r Rect, fn func(i int32)) {
	x0, x1 := max(int(r.Min.X/ix.cell), 0), min(int(r.Max.X/ix.cell), ix.nx-1)
	y0, y1 := max(int(r.Min.Y/ix.cell), 0), min(int(r.Max.Y/ix.cell), ix.ny-1)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, i := range ix.grid[y*ix.nx+x] {
				if r.Contains(ix.pieces[i].box.centre()) {
					fn(i)
				}
			}
		}
	}
}

func arcBox(a drawing.Arc) Rect {
	r := emptyRect()
	n := max(4, int(math.Abs(a.Sweep)/10))
	for k := 0; k <= n; k++ {
		t := (a.Start + a.Sweep*float64(k)/float64(n)) * math.Pi / 180
		p := glyph.Point{X: a.C.X + a.R*math.Cos(t), Y: a.C.Y + a.R*math.Sin(t)}
		r.Min, r.Max = glyph.MinPoint(r.Min, p), glyph.MaxPoint(r.Max, p)
	}
	return r
}

func area(r Rect) float64 { return math.Max(r.w(), 0) * math.Max(r.h(), 0) }

// crossed reports whether a long drawn piece (a wall, a wire) passes
// through the inside of box: legend glyphs stand alone in their cells,
// whose rules run around them.
func (ix *pageIndex) crossed(box Rect, em float64) bool {
	in := Rect{glyph.Point{X: box.Min.X + 0.15*box.w(), Y: box.Min.Y + 0.15*box.h()}, glyph.Point{X: box.Max.X - 0.15*box.w(), Y: box.Max.Y - 0.15*box.h()}}
	// Long pieces are indexed at their centres, which may lie far away:
	// test the page's long segments by their ends instead.
	if ix.long == nil {
		ix.long = []int32{}
		for i, s := range ix.pg.Segments {
			if math.Max(math.Abs(s.B.X-s.A.X), math.Abs(s.B.Y-s.A.Y)) > minLong {
				ix.long = append(ix.long, int32(i))
			}
		}
	}
	for _, i := range ix.long {
		s := ix.pg.Segments[i]
		if math.Max(math.Abs(s.B.X-s.A.X), math.Abs(s.B.Y-s.A.Y)) <= maxPieceEm*em {
			continue
		}
		if segHitsRect(s.A, s.B, in) {
			return true
		}
	}
	return false
}

// segHitsRect reports whether segment ab meets rectangle r.
func segHitsRect(a, b glyph.Point, r Rect) bool {
	_, _, ok := glyph.ClipSegment(a, b, r.Min, r.Max)
	return ok
}
