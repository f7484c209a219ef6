package legend

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// run is a piece of one text line: characters on one baseline whose gaps
// stay below a column gap, in pixels of the page raster.
type run struct {
	text     string
	min, max glyph.Point // box of the non-space characters
	size     float64     // em size, pixels
	angle    float64     // baseline direction, degrees
	chars    []int32     // indexes into the page's Chars
}

func (r *run) centre() glyph.Point {
	return glyph.Point{X: (r.min.X + r.max.X) / 2, Y: (r.min.Y + r.max.Y) / 2}
}

// letters counts the letters of the run.
func (r *run) letters() int {
	n := 0
	for _, c := range r.text {
		if unicode.IsLetter(c) {
			n++
		}
	}
	return n
}

// count reports whether the run is a number alone (a printed quantity):
// in a legend whose quantity column stands between the glyphs and the
// descriptions, it is the text next to each glyph.
func (r *run) count() bool {
	n := 0
	for _, c := range r.text {
		if !unicode.IsDigit(c) {
			return false
		}
		n++
	}
	return n > 0 && n <= 6
}

// Run building: characters join a run when their baselines agree within
// baselineTol em sizes and the gap to the previous character is below
// columnGap em sizes.
const (
	baselineTol = 0.3
	columnGap   = 1.1
)

// runs groups the page's characters into text runs. Upright text and text
// at any other angle are grouped alike along their own baseline direction.
func runs(pg *drawing.Page) []run {
	type item struct {
		i     int32
		u, v  float64 // along and across the baseline
		angle float64
	}
	items := make([]item, 0, len(pg.Chars))
	for i, c := range pg.Chars {
		a := math.Round(c.Angle)
		s, co := math.Sincos(a * math.Pi / 180)
		items = append(items, item{i: int32(i), u: c.Origin.X*co + c.Origin.Y*s, v: -c.Origin.X*s + c.Origin.Y*co, angle: a})
	}
	sort.Slice(items, func(a, b int) bool {
		x, y := items[a], items[b]
		if x.angle != y.angle {
			return x.angle < y.angle
		}
		if math.Abs(x.v-y.v) > 0.5 {
			return x.v < y.v
		}
		return x.u < y.u
	})
	// Lines: same angle, baselines close (chained).
	var out []run
	start := 0
	for start < len(items) {
		end := start + 1
		for end < len(items) && items[end].angle == items[start].angle &&
			math.Abs(items[end].v-items[end-1].v) <= baselineTol*math.Max(pg.Chars[items[end].i].Size, 1) {
			end++
		}
		line := append([]item(nil), items[start:end]...)
		sort.Slice(line, func(a, b int) bool { return line[a].u < line[b].u })
		// Baselines chain through text written between two lines (a
		// glyph's letters between a wrapped description's two lines):
		// along the line, a character joins the open run whose last
		// character's baseline is nearest, within baselineTol (or twice
		// that, for a raised or lowered character, where no run is that
		// near), and whose end it follows within columnGap.
		type open struct {
			r          run
			v, lastEnd float64
		}
		var opens []*open
		for _, it := range line {
			c := pg.Chars[it.i]
			w := charAdvance(c)
			var best *open
			bestD := math.Inf(1)
			for _, o := range opens {
				d := math.Abs(it.v - o.v)
				if it.u-o.lastEnd <= columnGap*math.Max(c.Size, o.r.size) && d <= 2*baselineTol*math.Max(c.Size, 1) && d < bestD {
					best, bestD = o, d
				}
			}
			if best == nil {
				best = &open{r: run{size: c.Size, angle: it.angle}, lastEnd: math.Inf(-1)}
				opens = append(opens, best)
			}
			best.r.chars = append(best.r.chars, it.i)
			best.r.size = math.Max(best.r.size, c.Size)
			best.lastEnd = math.Max(best.lastEnd, it.u+w)
			if bestD <= baselineTol*math.Max(c.Size, 1) || len(best.r.chars) == 1 {
				best.v = it.v // a raised character does not move the baseline
			}
		}
		for _, o := range opens {
			out = append(out, finishRun(pg, o.r))
		}
		start = end
	}
	return out
}

// charAdvance estimates how far along its baseline a character reaches.
func charAdvance(c drawing.Char) float64 {
	w := math.Hypot(c.Max.X-c.Min.X, c.Max.Y-c.Min.Y)
	if strings.TrimSpace(c.Text) == "" || w == 0 {
		return 0.3 * c.Size
	}
	return math.Min(w, c.Size)
}

func finishRun(pg *drawing.Page, r run) run {
	var b strings.Builder
	r.min = glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	r.max = glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, i := range r.chars {
		c := pg.Chars[i]
		b.WriteString(c.Text)
		if strings.TrimSpace(c.Text) == "" {
			continue
		}
		r.min, r.max = glyph.MinPoint(r.min, c.Min), glyph.MaxPoint(r.max, c.Max)
	}
	r.text = strings.Join(strings.Fields(b.String()), " ")
	if math.IsInf(r.min.X, 1) {
		c := pg.Chars[r.chars[0]]
		r.min, r.max = c.Origin, c.Origin
	}
	return r
}

// upright reports whether the run reads left to right on the page.
func (r *run) upright() bool { return math.Abs(r.angle) < 1 }
