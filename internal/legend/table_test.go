package legend

import (
	"testing"

	"blueprint/internal/glyph"
)

// TestHeadsOther: a quantity head standing right of a legend's rows heads
// that legend, not a column of plan symbols further left; a head over
// the column itself, or with no column between, heads it.
func TestHeadsOther(t *testing.T) {
	r := func(x0, y0, x1, y1 float64) Rect {
		return Rect{Min: glyph.Point{X: x0, Y: y0}, Max: glyph.Point{X: x1, Y: y1}}
	}
	plan := r(2326, 455, 2362, 618)   // a column of plan symbols
	legend := r(2993, 234, 3354, 813) // the legend's rows
	kpl := r(3400, 200, 3440, 220)    // the legend's quantity head
	const em = 20
	if !headsOther(kpl, plan, []Rect{legend}, em) {
		t.Error("the legend's quantity head heads the plan column left of the legend")
	}
	if headsOther(kpl, legend, []Rect{plan}, em) {
		t.Error("the quantity head does not head its own legend")
	}
	over := r(2330, 420, 2360, 440)
	if headsOther(over, plan, []Rect{legend}, em) {
		t.Error("a head right over the column does not head it")
	}
	far := r(3400, 1500, 3440, 1520) // below the legend: no column between at its height
	if headsOther(far, plan, []Rect{legend}, em) {
		t.Error("a head with the legend above it, not beside it, is taken for the legend's")
	}
	// The quantity head right of a legend's last table, whose rows start
	// right under it, over a column of plan labels starting a dozen rows
	// further down (newmark's page 7 with its words outlined: "QTYS" and
	// the circuit labels "P1 DB-CA" below it).
	const em2 = 8.5
	qtys := r(1207, 177, 1233, 186)
	others := r(981, 193, 1197, 268)
	labels := r(1211, 407, 1276, 697)
	if !headsOther(qtys, labels, []Rect{others}, em2) {
		t.Error("the quantity head over the legend's last table heads the labels a dozen rows below")
	}
	if headsOther(qtys, others, []Rect{labels}, em2) {
		t.Error("the quantity head does not head the table right under it")
	}
}
