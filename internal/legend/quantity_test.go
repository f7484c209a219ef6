package legend

import (
	"context"
	"fmt"
	"os"
	"testing"

	"blueprint/internal/document"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// TestQuantityOfGeneratedSheet: on testdata/synth/sheet-00003.pdf each
// printed quantity of the legend on page 2 is the number in its KPL
// column (the generator prints the count of the row's symbols on that
// page, its truth in sheet-00003.json). "Palokello / sireeni" prints 2;
// the sheet's grid label "1" stands on the same line right of the table
// and is no quantity.
func TestQuantityOfGeneratedSheet(t *testing.T) {
	data, err := os.ReadFile("../../testdata/synth/sheet-00003.pdf")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Read(ctx, doc, v)
	if err != nil {
		t.Fatal(err)
	}
	printed := map[string]int{
		"Palopainike": 1, "Virtausvahti": 3, "Palokello / sireeni": 2, "Linjailmaisin": 8, "Ohjaus- / valvontamoduuli": 2,
		"Vilkkuvalo": 1, "Kaiutin vilkkuvalolla": 1, "Äänimerkinantolaite vilkkuvalolla": 1, "Optinen savuilmaisin": 0, "Lämpöilmaisin": 0,
	}
	if len(d.Rows) != len(printed) {
		t.Fatalf("%d legend rows, want %d", len(d.Rows), len(printed))
	}
	for _, r := range d.Rows {
		want, ok := printed[r.Description]
		if r.Page != 1 || !ok || r.Quantity == nil || *r.Quantity != want {
			t.Errorf("row %q (page %d): quantity %s, the sheet prints %d", r.Description, r.Page, qtyText(r.Quantity), want)
		}
	}
}

func qtyText(q *int) string {
	if q == nil {
		return "none"
	}
	return fmt.Sprint(*q)
}

// quantityTable draws a legend of four rows under the heads SYMBOL,
// DESCRIPTION and QTY, ruled across from x 100 to 680 where ruled is
// true, with a number on row 2's line right of the table at x other (a
// grid label on the sheet's border, a dimension): the quantities are
// 4, 7, 2 and 9.
func quantityTable(ruled bool, other float64) *drawing.Page {
	pg := &drawing.Page{Width: 3000, Height: 2000, Styles: []drawing.Style{{Stroke: "#000000"}}}
	write(pg, "LEGEND", 120, 200, 24)
	write(pg, "SYMBOL", 120, 250, 20)
	write(pg, "DESCRIPTION", 260, 250, 20)
	write(pg, "QTY", 600, 250, 20)
	rule := func(y float64) {
		if ruled {
			pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: 100, Y: y}, B: glyph.Point{X: 680, Y: y}})
		}
	}
	rule(170)
	rule(270)
	descs := []string{"SMOKE DETECTOR", "HEAT DETECTOR", "MANUAL CALL POINT", "SOUNDER"}
	qtys := []string{"4", "7", "2", "9"}
	for i, s := range descs {
		y := 300 + 60*float64(i)
		keyGlyph(pg, glyph.Point{X: 170, Y: y}, i, 0)
		write(pg, s, 260, y+7, 20)
		write(pg, qtys[i], 610, y+7, 20)
		rule(y + 30)
		if i == 1 {
			write(pg, "1", other, y+7, 20)
		}
	}
	return pg
}

// TestQuantityInItsColumn: a quantity is the number in the table's QTY
// column, not any number on the row's line: one right of a ruled table
// (past its rules, though close to the QTY head) or far right of an
// unruled one is not the row's quantity.
func TestQuantityInItsColumn(t *testing.T) {
	for _, c := range []struct {
		name  string
		ruled bool
		other float64
	}{
		{"past the rules", true, 700},
		{"far right of an unruled table", false, 900},
	} {
		t.Run(c.name, func(t *testing.T) {
			tables := Find(quantityTable(c.ruled, c.other), 0, nil)
			if len(tables) != 1 || len(tables[0].Rows) != 4 {
				t.Fatalf("%d tables (%v), want one of 4 rows", len(tables), tables)
			}
			for i, want := range []int{4, 7, 2, 9} {
				r := tables[0].Rows[i]
				if r.Quantity == nil || *r.Quantity != want {
					t.Errorf("row %q: quantity %s, want %d", r.Description, qtyText(r.Quantity), want)
				}
				if r.Box.Max.X > 680 {
					t.Errorf("row %q reaches x %.0f, past the table", r.Description, r.Box.Max.X)
				}
			}
		})
	}
}
