package vector

import (
	"context"
	"fmt"
	"math"
	"sort"

	"blueprint/internal/detect"
	"blueprint/internal/glyph"
)

// OperatingCoverage is the least coverage the catalog's default
// thresholds keep: a match covering this much of its template reports
// confidence OperatingConfidence. On generated sheets every true match
// covers at least 0.995 of its template and false ones mostly 0.8–0.97.
const OperatingCoverage = 0.975

// OperatingConfidence is the catalog's default threshold (every class's
// in the embedded catalog; engine.TestDefaultThresholds holds them
// equal), measured as the raster calibration set's break-even
// (docs/raster.md): the confidence a match covering OperatingCoverage of
// its template reports, so the default thresholds keep the same vector
// matches whatever number they are.
const OperatingConfidence = 0.32

// confidence maps coverage to the match's reported confidence: piecewise
// linear through coverageKnots, OperatingCoverage at OperatingConfidence
// (see docs/vector.md).
func confidence(cov float64) float64 {
	return knotted(cov, coverageKnots(OperatingConfidence))
}

// rankWeight maps coverage to the weight of a match's explained geometry
// when overlapping matches are ranked (scored.rank): the knots the
// confidence had before the default thresholds were measured, when
// OperatingCoverage read 0.5; the ranking they gave is kept as it was.
func rankWeight(cov float64) float64 {
	return knotted(cov, coverageKnots(0.5))
}

// coverageKnots are the (coverage, value) knots of confidence and
// rankWeight, which differ only in the value at OperatingCoverage.
func coverageKnots(atOperating float64) [5][2]float64 {
	return [5][2]float64{{minCoverage, 0.10}, {0.9, 0.2}, {OperatingCoverage, atOperating}, {0.995, 0.97}, {1, 0.99}}
}

// knotted is the piecewise linear function through the knots at cov, the
// first knot's value below them and the last's above, rounded to 0.001.
func knotted(cov float64, knots [5][2]float64) float64 {
	c := knots[0][1]
	for i := 1; i < len(knots); i++ {
		a, b := knots[i-1], knots[i]
		if cov >= a[0] {
			f := math.Min(1, (cov-a[0])/(b[0]-a[0]))
			c = a[1] + f*(b[1]-a[1])
		}
	}
	return math.Round(c*1000) / 1000
}

// finishCell is the side, in raster pixels, of the grid cells finish files
// kept matches in: a pose is compared only with the kept matches whose
// boxes share a cell with its own (boxes that do not intersect are never
// duplicates), so a page of a hundred thousand poses (a plain glyph on a
// real sheet) is not compared pairwise.
const finishCell = 128

// finishCheckEvery is how many poses finish looks at between looks at its
// context.
const finishCheckEvery = 256

// finish computes boxes, suppresses overlapping matches preferring the one
// that explains the most geometry, and returns the survivors, those of
// the templates in flooded marked Flooded; it stops with ctx's error when
// ctx ends.
func (mt *Matcher) finish(ctx context.Context, ix *pageIndex, found []scored, flooded map[*prepared]bool) ([]Match, error) {
	for i := range found {
		found[i].box = boxOf(found[i].t, found[i].pl, ix.pg.Width, ix.pg.Height)
	}
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i], found[j]
		sa, sb := a.rank(), b.rank()
		if sa != sb {
			return sa > sb
		}
		return a.t.class < b.t.class
	})
	// A weaker match is dropped when a stronger one sits in the same place
	// or explains most of its geometry (a socket inside an earthed
	// socket); symbols that merely overlap one another both stay.
	var kept []scored
	var keptPts [][]glyph.Point
	grid := map[[2]int][]int{} // cell -> indices of kept matches, ascending
	cells := func(b detect.Box, fn func(c [2]int)) {
		x0, y0 := int(math.Floor(b.X/finishCell)), int(math.Floor(b.Y/finishCell))
		x1, y1 := int(math.Floor((b.X+b.W)/finishCell)), int(math.Floor((b.Y+b.H)/finishCell))
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				fn([2]int{x, y})
			}
		}
	}
	seen := map[int]bool{}
	var near []int
	for n, f := range found {
		if n%finishCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("vector: match: %w", err)
			}
		}
		dup := false
		var fPts []glyph.Point
		near = near[:0]
		clear(seen)
		cells(f.box, func(c [2]int) {
			for _, j := range grid[c] {
				if !seen[j] {
					seen[j] = true
					near = append(near, j)
				}
			}
		})
		sort.Ints(near)
		for _, j := range near {
			k := kept[j]
			inter := f.box.Intersection(k.box)
			if inter <= 0 {
				continue
			}
			union := f.box.W*f.box.H + k.box.W*k.box.H - inter
			if inter/union > 0.7 {
				dup = true
				break
			}
			if fPts == nil {
				fPts = posedSamples(f.hypothesis)
			}
			tol := tolBasePx + tolRel*math.Max(f.pl.Scale, k.pl.Scale)*PixelsPerMM
			if explainedBy(fPts, keptPts[j], tol) >= 0.7 && !nestedIn(f, k) {
				dup = true
				break
			}
		}
		// A pose whose inside holds drawing of its own is another
		// symbol; it neither stays nor suppresses others. (Checked only
		// here: a pose a kept match suppresses needs no check.)
		// Filled look-alikes are looked for among the poses the default
		// thresholds would keep; a weaker pose is no count either way.
		if !dup && ix.foreignInterior(f.hypothesis) <= maxForeignInterior &&
			(f.cov < OperatingCoverage || ix.filledEmpty(f.hypothesis) <= maxFilledEmpty) {
			if fPts == nil {
				fPts = posedSamples(f.hypothesis)
			}
			kept = append(kept, f)
			keptPts = append(keptPts, fPts)
			cells(f.box, func(c [2]int) { grid[c] = append(grid[c], len(kept)-1) })
		}
	}
	legend := ix.legendRows(kept)
	out := make([]Match, 0, len(kept))
	for i, k := range kept {
		out = append(out, Match{Class: k.t.class, Box: k.box, Confidence: k.t.confidence(k.cov), Coverage: k.cov, Placement: k.pl, Legend: legend[i], Row: k.t.row, Flooded: flooded[k.t]})
	}
	return out, nil
}

// Legend table heuristics.
const (
	legendMinRows  = 3   // glyphs in one column
	legendAlignPx  = 4.0 // alignment of glyph centres, description starts and row pitch
	legendMinChars = 3   // description characters to the right
)

// legendRows marks matches that form a legend table: at least
// legendMinRows upright glyphs, nearly all of different classes, centred in one
// column at a constant row pitch, each with a description whose text starts
// at one common x to their right.
// Instances in a drawing may line up, but their labels do not start at one
// x and their spacing is not a table's.
func (ix *pageIndex) legendRows(ms []scored) []bool {
	out := make([]bool, len(ms))
	// descStart is the x where the text right of a glyph starts, or -1.
	descStart := func(b detect.Box) float64 {
		n := 0
		start := math.Inf(1)
		lo := glyph.Point{X: b.X + b.W, Y: b.Y - 0.3*b.H}
		hi := glyph.Point{X: b.X + b.W + 8*b.H + 100, Y: b.Y + 1.3*b.H}
		ix.chars.inBox(lo, hi, func(i int32) bool {
			c := ix.pg.Chars[i]
			m := glyph.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}
			if m.X > lo.X && m.X < hi.X && m.Y > lo.Y && m.Y < hi.Y {
				n++
				start = math.Min(start, c.Min.X)
			}
			return true
		})
		if n < legendMinChars {
			return -1
		}
		return start
	}
	type row struct {
		i         int
		cx, cy, d float64
	}
	// Legend glyphs are drawn upright: the pose must look like the glyph
	// at rotation 0, unmirrored (a symmetric glyph may be found at an
	// equivalent pose).
	upright := func(h hypothesis) bool {
		u := h
		u.pl.Rotation, u.pl.Mirrored = 0, false
		tol := tolBasePx + tolRel*h.pl.Scale*PixelsPerMM
		return explainedBy(posedSamples(u), posedSamples(h), tol) >= 0.9
	}
	var rows []row
	for i := range ms {
		if !upright(ms[i].hypothesis) {
			continue
		}
		b := ms[i].box
		if d := descStart(b); d >= 0 {
			rows = append(rows, row{i, b.X + b.W/2, b.Y + b.H/2, d})
		}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].cx < rows[b].cx })
	for a := 0; a < len(rows); {
		b := a + 1
		for b < len(rows) && rows[b].cx-rows[b-1].cx <= legendAlignPx {
			b++
		}
		col := append([]row(nil), rows[a:b]...)
		a = b
		sort.Slice(col, func(p, q int) bool { return col[p].cy < col[q].cy })
		// Runs of constant pitch whose descriptions start at one x.
		for r := 0; r+legendMinRows <= len(col); {
			e := r + 2
			pitch := col[r+1].cy - col[r].cy
			for e < len(col) && math.Abs(col[e].cy-col[e-1].cy-pitch) <= legendAlignPx &&
				math.Abs(col[e].d-col[r].d) <= legendAlignPx {
				e++
			}
			classes := map[string]bool{}
			for _, x := range col[r:e] {
				classes[ms[x.i].t.class] = true
			}
			distinct := len(classes) >= legendMinRows && 5*len(classes) >= 4*(e-r)
			if e-r >= legendMinRows && distinct && math.Abs(col[r+1].d-col[r].d) <= legendAlignPx && pitch > 0 {
				for _, x := range col[r:e] {
					out[x.i] = true
				}
				r = e
				continue
			}
			r++
		}
	}
	return out
}

// posedSamples maps the template's samples to the page.
func posedSamples(h hypothesis) []glyph.Point {
	m := h.pl.Matrix(PixelsPerMM)
	out := make([]glyph.Point, len(h.t.samples))
	for i, s := range h.t.samples {
		out[i] = m.Apply(s.P)
	}
	return out
}

// explainedBy is the fraction of points a that lie within tol (plus half a
// sample step) of a point of b.
func explainedBy(a, b []glyph.Point, tol float64) float64 {
	if len(a) == 0 {
		return 0
	}
	r := tol + sampleStepMM*MaxScale*PixelsPerMM/2
	r2 := r * r
	n := 0
	for _, p := range a {
		for _, q := range b {
			if dx, dy := p.X-q.X, p.Y-q.Y; dx*dx+dy*dy <= r2 {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(a))
}

// boxOf is the axis-aligned box of the posed template, clipped to the page.
func boxOf(t *prepared, pl glyph.Placement, w, h float64) detect.Box {
	m := pl.Matrix(PixelsPerMM)
	lo := glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi := glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range t.outline {
		q := m.Apply(p)
		lo, hi = glyph.MinPoint(lo, q), glyph.MaxPoint(hi, q)
	}
	lo.X, lo.Y = math.Max(lo.X, 0), math.Max(lo.Y, 0)
	hi.X, hi.Y = math.Min(hi.X, w), math.Min(hi.Y, h)
	return detect.Box{X: lo.X, Y: lo.Y, W: math.Max(0, hi.X-lo.X), H: math.Max(0, hi.Y-lo.Y)}
}
