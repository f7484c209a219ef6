package legend

import (
	"testing"

	"blueprint/internal/glyph"
)

func rect(x0, y0, x1, y1 float64) Rect {
	return Rect{glyph.Point{X: x0, Y: y0}, glyph.Point{X: x1, Y: y1}}
}

// A header heads the nearest column of rows below it: one with another
// column's rows between them is not its header.
func TestBlocked(t *testing.T) {
	header := rect(1700, 165, 1765, 180) // QTYS over a legend's quantities
	other := rect(1370, 190, 1720, 305)  // that legend's rows
	table := rect(1430, 420, 1960, 930)  // plan labels further down
	beside := rect(2200, 190, 2500, 305) // rows off to the side
	for _, tc := range []struct {
		name   string
		others []Rect
		want   bool
	}{
		{"rows between", []Rect{other}, true},
		{"nothing between", nil, false},
		{"rows beside, not between", []Rect{beside}, false},
		{"rows below the table", []Rect{rect(1430, 1000, 1960, 1100)}, false},
		{"rows above the header", []Rect{rect(1370, 40, 1720, 150)}, false},
	} {
		if got := blocked(header, table, tc.others); got != tc.want {
			t.Errorf("%s: blocked = %v, want %v", tc.name, got, tc.want)
		}
	}
}
