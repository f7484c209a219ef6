package legend

import (
	"context"
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// TestTitleBlockAtTheEdge: title words clustered at the sheet's right
// edge are its title block, and nothing there is on the plan; the same
// words in the middle of the sheet (a view title with its scale, a
// drawing note) are no title block, and the plan around them stays.
func TestTitleBlockAtTheEdge(t *testing.T) {
	vocab, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"PROJECT", "DRAWING NO", "SCALE 1:100", "DATE", "REV"}
	cases := []struct {
		name   string
		x, y   float64
		inside glyph.Point
		want   bool
	}{
		{"right column", 5400, 3000, glyph.Point{X: 5500, Y: 3100}, true},
		{"middle of the plan", 2800, 1800, glyph.Point{X: 2900, Y: 1900}, false},
	}
	for _, c := range cases {
		pg := &drawing.Page{Width: 6000, Height: 4000, Styles: []drawing.Style{{Stroke: "#000000"}}}
		write(pg, "GROUND FLOOR ELECTRICAL LAYOUT", 200, 150, 60)
		for i, w := range words {
			write(pg, w, c.x, c.y+float64(i)*60, 20)
		}
		d, err := Read(context.Background(), pages{pg}, vocab)
		if err != nil {
			t.Fatal(err)
		}
		_, found := d.TitleBlock(0)
		if found != c.want {
			t.Errorf("%s: title block found %v, want %v", c.name, found, c.want)
		}
		if got := d.OffPlan(0, c.inside); got != c.want {
			t.Errorf("%s: a point among the words off the plan %v, want %v", c.name, got, c.want)
		}
		if d.OffPlan(0, glyph.Point{X: 1000, Y: 1000}) {
			t.Errorf("%s: the plan's open middle is off the plan", c.name)
		}
		// The title block survives encoding, as the tables do.
		data, err := d.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Document
		if err := back.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		if got := back.OffPlan(0, c.inside); got != c.want {
			t.Errorf("%s: decoded: off the plan %v, want %v", c.name, got, c.want)
		}
	}
}
