package detect

import "testing"

// TestMarkOffScale: a legend row's matches far smaller (a logo's
// miniature) or larger than the row's other matches in the document are
// marked, counting a row repeated on another page's legend as the same
// row; sizes within the factor (a sheet plotted at half the scale), rows
// with too few sure matches, tag-only finds and catalog guesses are not.
func TestMarkOffScale(t *testing.T) {
	rows := []string{
		RowKey("switch_series", "2 lever, 1 way switch"),
		RowKey("switch_series", "2 LEVER,  1 Way Switch"), // the same row drawn on page 1's legend
		RowKey("luminaire", "downlight"),
	}
	at := func(row int, size, conf float64) Detection {
		return Detection{Class: "x", Confidence: conf, Box: Box{X: 10, Y: 10, W: size, H: size * 1.1}, LegendRow: row, Source: Source{VectorMatching: true}}
	}
	page0 := []Detection{at(1, 40, 0.99), at(1, 41, 0.99), at(1, 39, 0.99), at(1, 8, 0.99), at(1, 130, 0.99),
		at(3, 20, 0.99), at(3, 4, 0.99)}
	page1 := []Detection{at(2, 24, 0.99), at(2, 25, 0.99), at(2, 7, 0.99), at(2, 14, 0.3),
		{Class: "x", Confidence: 0.99, Box: Box{W: 2, H: 2}, LegendRow: 2, Source: Source{Tag: true}},
		{Class: "y", Confidence: 0.99, Box: Box{W: 2, H: 2}}}
	pages := [][]Detection{page0, page1}
	if n := MarkOffScale(pages, rows); n != 3 {
		t.Errorf("marked %d, want 3", n)
	}
	want := [][]bool{{false, false, false, true, true, false, false}, {false, false, true, false, false, false}}
	for p := range pages {
		for i, d := range pages[p] {
			if d.OffScale != want[p][i] {
				t.Errorf("page %d detection %d (row %d, %.0f px): off scale %v, want %v", p, i, d.LegendRow, d.Box.W, d.OffScale, want[p][i])
			}
		}
	}
}
