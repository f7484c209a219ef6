package drawing

import "testing"

// TestArcCovers: an arc covers the angles of its sweep, either way
// round and across 360°, and no others but within the slack.
func TestArcCovers(t *testing.T) {
	for _, c := range []struct {
		a          Arc
		deg, slack float64
		want       bool
	}{
		{Arc{Start: 0, Sweep: 90}, 45, 0, true},
		{Arc{Start: 0, Sweep: 90}, 135, 0, false},
		{Arc{Start: 0, Sweep: 90}, -3, 5, true},
		{Arc{Start: 90, Sweep: -90}, 45, 0, true},
		{Arc{Start: 90, Sweep: -90}, -45, 0, false},
		{Arc{Start: 300, Sweep: 120}, 10, 0, true},
		{Arc{Start: 300, Sweep: 120}, -90, 0, false},
		{Arc{Start: 0, Sweep: 360}, 200, 0, true},
	} {
		if got := c.a.Covers(c.deg, c.slack); got != c.want {
			t.Errorf("%+v covers %v° (slack %v): %v, want %v", c.a, c.deg, c.slack, got, c.want)
		}
	}
}
