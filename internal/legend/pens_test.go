package legend

import (
	"math"
	"slices"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// TestAssignByPenWidth: a legend draws a one-lever switch with a bold
// red pen and a two-lever switch (the same with one more tick) with a red
// hairline. A plan symbol drawn with the hairline but with a tick left
// out is matched by the one-lever glyph; its pen says it is the
// two-lever row's. Drawn bold, it stays the one-lever row's.
func TestAssignByPenWidth(t *testing.T) {
	circle := glyph.Shape{Kind: glyph.KindCircle, Pts: []glyph.Point{{X: 0, Y: 0}}, R: 0.5}
	line := func(x0, y0, x1, y1 float64) glyph.Shape {
		return glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: x0, Y: y0}, {X: x1, Y: y1}}}
	}
	lever, tick, tick2 := line(0.35, -0.35, 1.2, -1.2), line(1.2, -1.2, 1.5, -0.9), line(0.9, -0.9, 1.2, -0.6)
	one := Row{Page: 0, Description: "1 lever switch", Glyph: glyph.Glyph{Shapes: []glyph.Shape{circle, lever, tick}}, Color: "#ff0000", Width: 2}
	two := Row{Page: 0, Description: "2 lever switch", Glyph: glyph.Glyph{Shapes: []glyph.Shape{circle, lever, tick, tick2}}, Color: "#ff0000", Width: 0}
	if !widerShape(two, one) || widerShape(one, two) {
		t.Fatalf("widerShape: two over one %v, one over two %v; want true, false", widerShape(two, one), widerShape(one, two))
	}
	d := &Document{Rows: []Row{one, two}, Classes: []string{"switch_one_way", "switch_series"}, tables: map[int][]Rect{}, titles: map[int]Rect{}}
	d.group()
	plan := func(width float64) *drawing.Page {
		pg := &drawing.Page{Width: 400, Height: 400, Styles: []drawing.Style{{Stroke: "#ff0000", Width: width}}}
		pg.Arcs = append(pg.Arcs, drawing.Arc{C: glyph.Point{X: 100, Y: 100}, R: 5, Start: 0, Sweep: 360})
		pg.Segments = append(pg.Segments,
			drawing.Segment{A: glyph.Point{X: 103.5, Y: 96.5}, B: glyph.Point{X: 112, Y: 88}},
			drawing.Segment{A: glyph.Point{X: 112, Y: 88}, B: glyph.Point{X: 115, Y: 91}})
		return pg
	}
	box := detect.Box{X: 94, Y: 86, W: 22, H: 20}
	if got := d.Assign(plan(0), 0, 0, box); got != 1 {
		t.Errorf("drawn with the hairline: row %d, want 1 (the two-lever row)", got)
	}
	if got := d.Assign(plan(2), 0, 0, box); got != 0 {
		t.Errorf("drawn bold: row %d, want 0 (the one-lever row)", got)
	}
}

// TestDrawnPenPrefersStrokes: a distribution board drawn as a box half
// filled black and outlined in red (a telecom board beside it outlined in
// green) is drawn with the red pen, though its black fill has as much
// length: the outline's colour is what tells the two boards apart.
func TestDrawnPenPrefersStrokes(t *testing.T) {
	pg := &drawing.Page{Width: 200, Height: 200, Styles: []drawing.Style{{Fill: "#000000"}, {Stroke: "#ff0000", Width: 1.6}}}
	box := func(x0, y0, x1, y1 float64, style int32) {
		pts := []glyph.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		for i := range pts {
			pg.Segments = append(pg.Segments, drawing.Segment{A: pts[i], B: pts[(i+1)%4], Style: style})
		}
	}
	box(100, 100, 110, 120, 0) // the black half, filled
	box(100, 100, 110, 120, 0) // drawn twice by the exporter
	box(100, 100, 120, 120, 1) // the red outline
	colour, width := drawnPen(pg, detect.Box{X: 99, Y: 99, W: 22, H: 22})
	if colour != "#ff0000" || !widthClose(width, 1.6) {
		t.Errorf("pen %s %.2f, want #ff0000 1.6", colour, width)
	}
}

// TestTwinRowsAreNotRepeats: two rows of one legend described alike
// (cp4's duct detectors, told apart by an S and an R beside their glyphs
// that an outlined sheet does not read as tags) are two rows, each
// leading its own glyph; the same row on another sheet's legend repeats
// the first, and a schedule row described alike lists the legend's row.
func TestTwinRowsAreNotRepeats(t *testing.T) {
	hexagon := func(extra ...glyph.Shape) glyph.Glyph {
		var pts []glyph.Point
		for k := range 6 {
			s, c := math.Sincos(float64(k) * math.Pi / 3)
			pts = append(pts, glyph.Point{X: c, Y: s})
		}
		return glyph.Glyph{Shapes: append([]glyph.Shape{{Kind: glyph.KindPolygon, Pts: pts}}, extra...)}
	}
	s := glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: 1.2, Y: -1.2}, {X: 1.5, Y: -1.5}}}
	r := glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: 1.2, Y: -1.5}, {X: 1.5, Y: -1.2}}}
	desc := "INTELLIGENT DUCT DETECTOR HOUSING"
	rows := []Row{
		{Page: 0, Description: desc, Glyph: hexagon(s), Color: "#37dd00"},
		{Page: 0, Description: desc, Glyph: hexagon(r), Color: "#37dd00"},
		{Page: 1, Description: desc, Glyph: hexagon(s), Color: "#37dd00"},
		{Page: 0, Description: desc, Source: SourceSchedule},
	}
	d := &Document{Rows: rows, Classes: []string{"duct_detector", "duct_detector", "duct_detector", "duct_detector"}, tables: map[int][]Rect{}, titles: map[int]Rect{}}
	d.group()
	if want := []int{0, 1, 0, 0}; !slices.Equal(d.same, want) {
		t.Errorf("same %v, want %v (the twin its own row; the other sheet's row and the schedule's repeat the first)", d.same, want)
	}
	if got := d.Leaders(); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("leaders %v, want [0 1]: each twin's glyph searched", got)
	}
}
