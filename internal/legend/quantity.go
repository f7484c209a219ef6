package legend

import (
	"math"
	"regexp"
	"strconv"
)

// qtyWords head a quantity column.
var qtyWords = []string{"QTY", "QTYS", "QTY.", "QUANTITY", "KPL", "KPL.", "MÄÄRÄ", "NO.", "COUNT", "ANTAL", "Qty."}

var intRe = regexp.MustCompile(`^\(?\s*(\d{1,5})\s*\)?$`)

// qtyReachEm: a printed quantity lies under its column's head, reaching
// at most this many em past either end of it (a number right-aligned in
// a cell wider than its head).
const qtyReachEm = 4.0

// readQuantities sets each row's printed quantity: an integer in the row's
// band under the quantity header nearest to the right of the descriptions,
// inside the table. Where the table heads its columns, the quantity is the
// one under its own quantity head (a bill of quantities beside it has
// another). kept[i] is rows[i]'s index in the column and band gives a
// column index's band. It returns the head read under, nil for none.
func (ix *pageIndex) readQuantities(rows []Row, kept []int, band func(int) (float64, float64), heads headLine, qtyHeaders []*run, colBox Rect, limit, em float64) *run {
	var qh *run
	qc, headed := heads.column(colQty)
	switch {
	case headed:
		qh = qc.head
	case heads == nil:
		for _, q := range qtyHeaders {
			if q.min.X > colBox.Max.X && q.min.X < limit && (qh == nil || q.min.X < qh.min.X) {
				qh = q
			}
		}
	}
	if qh != nil {
		// The column's cells: under the head, give or take 2 em, or,
		// where the table heads its columns, qtyReachEm and no further
		// than halfway to the neighbouring heads.
		cx0, cx1 := qh.min.X-2*em, qh.max.X+2*em
		if headed {
			cx0, cx1 = math.Max(qh.min.X-qtyReachEm*em, qc.x0), math.Min(qh.max.X+qtyReachEm*em, qc.x1)
		}
		for i := range rows {
			y0, y1 := band(kept[i])
			// A ruled table ends where its rules around the row end:
			// a number past them (a grid label on the sheet's border,
			// a plan's dimension) is not the row's.
			right := math.Inf(1)
			if end, ok := ix.ruledEnd(rows[i].GlyphBox, y0, y1, em); ok {
				right = math.Max(end, qh.max.X) + 0.5*em
			}
			// Of the integers in the cell, the one nearest under the
			// head.
			best, bestD := -1, math.Inf(1)
			for k := range ix.runs {
				r := &ix.runs[k]
				c := r.centre()
				if !r.upright() || c.Y < y0 || c.Y > y1 || r.max.X < cx0 || r.min.X > cx1 || c.X > right || c.X >= limit {
					continue
				}
				if intRe.MatchString(r.text) {
					if d := math.Abs(c.X - qh.centre().X); d < bestD {
						best, bestD = k, d
					}
				}
			}
			if best < 0 {
				continue
			}
			r := &ix.runs[best]
			if v, err := strconv.Atoi(intRe.FindStringSubmatch(r.text)[1]); err == nil {
				rows[i].Quantity = &v
				rows[i].Box = rows[i].Box.union(Rect{r.min, r.max})
			}
		}
	}
	return qh
}
