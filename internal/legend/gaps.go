package legend

import (
	"math"
	"sort"
)

// emptyBetween is the tallest band of empty space between row a's extent
// and row b's below it, across the width of both: the runs of text
// written there (wrapped descriptions, rows whose glyph was not read)
// fill it. Rows of one table follow one another with little empty space
// between them, however many lines their descriptions wrap over.
func (ix *pageIndex) emptyBetween(a, b Row) float64 {
	top, bottom := a.Box.Max.Y, b.Box.Min.Y
	if bottom <= top {
		return 0
	}
	left := math.Min(a.Box.Min.X, b.Box.Min.X)
	right := math.Max(a.Box.Max.X, b.Box.Max.X)
	type span struct{ lo, hi float64 }
	var filled []span
	for i := range ix.runs {
		r := &ix.runs[i]
		if !r.upright() || r.max.X < left || r.min.X > right || r.max.Y < top || r.min.Y > bottom {
			continue
		}
		filled = append(filled, span{math.Max(r.min.Y, top), math.Min(r.max.Y, bottom)})
	}
	sort.Slice(filled, func(i, j int) bool { return filled[i].lo < filled[j].lo })
	empty, at := 0.0, top
	for _, s := range filled {
		empty = math.Max(empty, s.lo-at)
		at = math.Max(at, s.hi)
	}
	return math.Max(empty, bottom-at)
}
