package vector

import (
	"context"
	"math"
	"sort"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

func line(a, b, c, d float64) glyph.Shape {
	return glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: a, Y: b}, {X: c, Y: d}}}
}

func arc(x, y, r, start, sweep float64) glyph.Shape {
	return glyph.Shape{Kind: glyph.KindArc, Pts: []glyph.Point{{X: x, Y: y}}, R: r, Start: start, Sweep: sweep}
}

// legendSocket is a wall socket as a legend draws it: a half circle on a
// base line that runs on past it both ways (a piece of wall), a stem.
var legendSocket = glyph.Glyph{Shapes: []glyph.Shape{line(-1.82, 1.02, 1.82, 1.02), arc(0.02, 0.99, 1.42, 0, -180), line(0, -1.02, 0, 1.02)}}

// floorBox is a floor box as the same legend draws it: a square holding
// two sockets (base lines only as wide as the half circles) and a data
// outlet.
var floorBox = glyph.Glyph{Shapes: []glyph.Shape{
	line(-1.38, -1.23, -1.38, 1.23), line(-1.38, -1.23, 1.38, -1.23), line(-1.38, 1.23, 1.38, 1.23), line(1.38, -1.23, 1.38, 1.23),
	arc(-0.51, -0.91, 0.53, 180, -180), arc(-0.51, 0.83, 0.53, 0, -180), line(-1.04, 0.85, -0.02, 0.85), line(-1.04, -0.89, -0.02, -0.89),
	line(-0.53, 0.13, -0.53, 0.85), line(-0.53, -0.89, -0.53, -0.17), line(0.11, 0.85, 1.12, 0.85), line(0.11, 0.85, 0.61, 0.34),
	line(0.61, 0.34, 1.12, 0.85), line(0.61, 0.13, 0.61, 0.85),
}}

// TestStubsOptionalInFloorBox: the legend's wall socket is found whole in
// the floor box's sockets, which draw no wall, only with OptionalStubs;
// the strict catalog reading misses them.
func TestStubsOptionalInFloorBox(t *testing.T) {
	pg, _ := glyphPage(floorBox)
	for _, stubs := range []bool{false, true} {
		ix := newPageIndex(pg)
		ix.hashCorners()
		p, err := prepare(Template{Class: "socket", Glyph: legendSocket, OptionalStubs: stubs, MinScale: 0.1, MaxScale: 10})
		if err != nil {
			t.Fatal(err)
		}
		whole := 0
		found, _ := ix.matchTemplate(context.Background(), p)
		for _, s := range found {
			if s.cov >= OperatingCoverage {
				whole++
			}
		}
		if want := map[bool]int{false: 0, true: 2}[stubs]; whole != want {
			t.Errorf("optional stubs %v: %d sockets found whole in the floor box, want %d", stubs, whole, want)
		}
	}
}

// TestNestedKept: sockets drawn inside a floor box are counted although
// the floor box's match explains their drawing; without the floor box's
// legend glyph holding them they would be parts of it.
func TestNestedKept(t *testing.T) {
	pl := glyph.Placement{At: glyph.Point{X: 200, Y: 200}, Scale: 4}
	pg := glyphsPage([]glyph.Glyph{floorBox}, []glyph.Placement{pl})
	m, err := NewMatcher([]Template{
		{Class: "floor_box", Glyph: floorBox, Row: 1, Priority: 1, OptionalStubs: true, MinScale: 0.3, MaxScale: 6},
		{Class: "socket", Glyph: legendSocket, Row: 2, Priority: 1, OptionalStubs: true, MinScale: 0.3, MaxScale: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := m.Match(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, x := range ms {
		if x.Confidence >= OperatingConfidence {
			n[x.Class]++
		}
	}
	if n["floor_box"] != 1 || n["socket"] != 2 {
		t.Errorf("found %v, want 1 floor box and the 2 sockets in it", n)
	}
}

// distributionBoard is a box with its lower left half solid, as a filled
// triangle's edges.
var distributionBoard = glyph.Glyph{Shapes: []glyph.Shape{
	line(-1.12, -0.4, 1.12, -0.4), line(1.12, -0.4, 1.12, 0.4),
	{Kind: glyph.KindPolygon, Pts: []glyph.Point{{X: -1.12, Y: -0.4}, {X: 1.12, Y: 0.4}, {X: -1.12, Y: 0.4}}, Fill: true},
}}

// TestFilledLookAlike: a solid wall pier of the board's size, exported
// as two filled triangles (so its outline and diagonal are the board's
// lines), is not a distribution board; the board beside it is.
func TestFilledLookAlike(t *testing.T) {
	pier := glyph.Glyph{Shapes: []glyph.Shape{
		{Kind: glyph.KindPolygon, Pts: []glyph.Point{{X: -1.12, Y: -0.4}, {X: 1.12, Y: 0.4}, {X: -1.12, Y: 0.4}}, Fill: true},
		{Kind: glyph.KindPolygon, Pts: []glyph.Point{{X: -1.12, Y: -0.4}, {X: 1.12, Y: -0.4}, {X: 1.12, Y: 0.4}}, Fill: true},
	}}
	pls := []glyph.Placement{{At: glyph.Point{X: 100, Y: 100}, Scale: 1.5}, {At: glyph.Point{X: 300, Y: 100}, Scale: 1.5}}
	pg := glyphsPage([]glyph.Glyph{distributionBoard, pier}, pls)
	at := confidentAt(t, Template{Class: "distribution_board", Glyph: distributionBoard}, pg)
	if len(at) != 1 || at[0] > 200 {
		t.Errorf("boards found at x %v, want one at x 100 (the pier at x 300 is none)", at)
	}
}

// matchAlone matches tpl alone on pg.
func matchAlone(t *testing.T, tpl Template, pg *drawing.Page) []Match {
	t.Helper()
	m, err := NewMatcher([]Template{tpl})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := m.Match(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// confidentAt matches tpl alone on pg and returns the x centres of its
// matches at the default threshold.
func confidentAt(t *testing.T, tpl Template, pg *drawing.Page) []float64 {
	t.Helper()
	var at []float64
	for _, x := range matchAlone(t, tpl, pg) {
		if x.Confidence >= OperatingConfidence {
			at = append(at, x.Box.X+x.Box.W/2)
		}
	}
	return at
}

// glyphsPage draws glyphs at unrotated placements as a page (strokes and
// fills).
func glyphsPage(gs []glyph.Glyph, pls []glyph.Placement) *drawing.Page {
	pg := &drawing.Page{Width: 600, Height: 600, Styles: []drawing.Style{{Stroke: "#000000", Width: 1}, {Stroke: "#000000", Fill: "#000000", Width: 1}}}
	for i, g := range gs {
		m := pls[i].Matrix(PixelsPerMM)
		addGlyph(pg, g, m.Apply, pls[i].Scale*PixelsPerMM)
	}
	return pg
}

// TestStubbedOnWall: the legend's wall socket, its half circle read as
// two quarters a hair under 90°, is found on a wall as the legend draws
// it (base line and all) and in a floor box without its wall: the
// stubbed base line neither anchors nor gives the scale.
func TestStubbedOnWall(t *testing.T) {
	quarters := glyph.Glyph{Shapes: []glyph.Shape{
		line(-3, -1.5, 3, -1.5), arc(0.0005, -1.5, 2.0995, 90.013, 89.973), line(0, -1.5, 0, 1.5), arc(-0.0005, -1.5, 2.0995, 0.013, 89.973),
	}}
	bare := glyph.Glyph{Shapes: []glyph.Shape{line(-2.1, -1.5, 2.1, -1.5), arc(0, -1.5, 2.1, 0, 180), line(0, -1.5, 0, 1.5)}}
	pg := glyphsPage([]glyph.Glyph{quarters, bare}, []glyph.Placement{{At: glyph.Point{X: 150, Y: 100}, Scale: 0.6}, {At: glyph.Point{X: 350, Y: 300}, Scale: 0.6}})
	pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: 20, Y: 100 - 1.5*0.6*PixelsPerMM}, B: glyph.Point{X: 580, Y: 100 - 1.5*0.6*PixelsPerMM}})
	m, err := NewMatcher([]Template{{Class: "socket", Glyph: quarters, OptionalStubs: true, Priority: 1, MinScale: 0.3, MaxScale: 3}})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := m.Match(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	var found []float64
	for _, x := range ms {
		if x.Confidence >= OperatingConfidence {
			found = append(found, x.Box.X+x.Box.W/2)
		}
	}
	if len(found) != 2 {
		t.Errorf("sockets found at x %v, want the one on the wall (x 150) and the bare one (x 350)", found)
	}
}

// TestStretched: a bar luminaire drawn 0.6 and 2.5 times its legend
// length (and once as drawn) is found three times with Stretch, once
// without.
func TestStretched(t *testing.T) {
	bar := glyph.Glyph{Shapes: []glyph.Shape{
		{Kind: glyph.KindRect, Pts: []glyph.Point{{X: -3, Y: -1}, {X: 3, Y: 1}}},
		line(-3, -0.33, 3, -0.33), line(-3, 0.33, 3, 0.33),
	}}
	gs := []glyph.Glyph{bar, bar.Transform(glyph.Affine{A: 2.5, D: 1}), bar.Transform(glyph.Affine{A: 0.6, D: 1})}
	pls := []glyph.Placement{{At: glyph.Point{X: 100, Y: 100}, Scale: 1.2}, {At: glyph.Point{X: 300, Y: 250}, Scale: 1.2}, {At: glyph.Point{X: 150, Y: 450}, Scale: 1.2}}
	pg := glyphsPage(gs, pls)
	for _, st := range []bool{false, true} {
		m, err := NewMatcher([]Template{{Class: "luminaire_linear", Glyph: bar, Stretch: st, Priority: 1, MinScale: 0.3, MaxScale: 3}})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := m.Match(context.Background(), pg)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, x := range ms {
			if x.Confidence >= OperatingConfidence {
				n++
			}
		}
		if want := map[bool]int{false: 1, true: 3}[st]; n != want {
			t.Errorf("stretch %v: %d bars found, want %d", st, n, want)
		}
	}
}

// TestPartNotNested: a one-way switch is part of an intermediate
// switch's glyph (a second lever runs on from its circle the other way),
// not a device nested in it, though it covers under half the glyph's
// box: on an intermediate switch only the intermediate switch is found.
func TestPartNotNested(t *testing.T) {
	circle := glyph.Shape{Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: 1}
	oneWay := glyph.Glyph{Shapes: []glyph.Shape{circle, line(0.71, -0.71, 3.5, -3.5), line(3.5, -3.5, 4.2, -2.8)}}
	twoPole := glyph.Glyph{Shapes: []glyph.Shape{circle, line(0.71, -0.71, 3.5, -3.5), line(3.5, -3.5, 4.2, -2.8),
		line(-0.71, 0.71, -3.5, 3.5), line(-3.5, 3.5, -4.2, 2.8)}}
	pg := glyphsPage([]glyph.Glyph{twoPole}, []glyph.Placement{{At: glyph.Point{X: 200, Y: 300}, Scale: 1}})
	m, err := NewMatcher([]Template{
		{Class: "switch_one_way", Glyph: oneWay, Row: 1, Priority: 1, OptionalStubs: true, MinScale: 0.3, MaxScale: 3},
		{Class: "switch_intermediate", Glyph: twoPole, Row: 2, Priority: 1, OptionalStubs: true, MinScale: 0.3, MaxScale: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := m.Match(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, x := range ms {
		if x.Confidence >= OperatingConfidence {
			n[x.Class]++
		}
	}
	if n["switch_intermediate"] != 1 || n["switch_one_way"] != 0 {
		t.Errorf("found %v, want the intermediate switch alone", n)
	}
}

// TestInkFill: a board whose solid half is masked in the paper's colour
// (a white fill under a plan's symbol) covers the template's filled half
// as any fill does, unless the template asks for ink (Template.InkFill,
// as a glyph cut by the search does): then only the board filled black
// is found.
func TestInkFill(t *testing.T) {
	pls := []glyph.Placement{{At: glyph.Point{X: 100, Y: 100}, Scale: 1.5}, {At: glyph.Point{X: 300, Y: 100}, Scale: 1.5}}
	pg := glyphsPage([]glyph.Glyph{distributionBoard, distributionBoard}, pls)
	pg.Styles = append(pg.Styles, drawing.Style{Stroke: "#000000", Fill: drawing.PaperColour, Width: 1})
	white := int32(len(pg.Styles) - 1)
	for i, s := range pg.Segments {
		if s.Style == 1 && s.A.X > 200 {
			pg.Segments[i].Style = white
		}
	}
	for _, ink := range []bool{false, true} {
		at := confidentAt(t, Template{Class: "distribution_board", Glyph: distributionBoard, InkFill: ink}, pg)
		sort.Float64s(at)
		if want := map[bool]int{false: 2, true: 1}[ink]; len(at) != want || at[0] > 200 {
			t.Errorf("InkFill %v: boards found at x %v, want %d (the black one at x 100 among them)", ink, at, want)
		}
	}
}

// TestTextWeighsTheSameAtAnySize: a legend's pull station (a square with
// an F) and a plan's empty square, the whole drawing plotted at three
// sizes: the empty square covers the same share of the glyph at each, so
// whether it passes for a pull station does not depend on the paper the
// drawing was plotted on (fire_alarm_us_cp4 plotted 1.41 times its size
// counted 152 empty squares where 11 pull stations are drawn, when a
// character weighed 2 mm whatever its size).
func TestTextWeighsTheSameAtAnySize(t *testing.T) {
	var covs []float64
	for _, f := range []float64{0.7, 1, 1.41} {
		side, capH := 3.6*f, 1.0*f
		h := side / 2
		square := []glyph.Shape{line(-h, -h, h, -h), line(h, -h, h, h), line(h, h, -h, h), line(-h, h, -h, -h)}
		pull := glyph.Glyph{Shapes: append(append([]glyph.Shape(nil), square...),
			glyph.Shape{Kind: glyph.KindText, Text: "F", Pts: []glyph.Point{{X: 0, Y: capH / 2}}, Size: capH})}
		pg := glyphsPage([]glyph.Glyph{{Shapes: square}}, []glyph.Placement{{At: glyph.Point{X: 300, Y: 300}, Scale: 1}})
		ix := newPageIndex(pg)
		ix.hashCorners()
		p, err := prepare(Template{Class: "manual_call_point", Glyph: pull, MinScale: 0.5, MaxScale: 2})
		if err != nil {
			t.Fatal(err)
		}
		found, _ := ix.matchTemplate(context.Background(), p)
		best := 0.0
		for _, s := range found {
			best = max(best, s.cov)
		}
		covs = append(covs, best)
	}
	for _, c := range covs {
		if c == 0 || math.Abs(c-covs[0]) > 0.01 {
			t.Errorf("the empty square covers %.3f of the pull station at 0.7, 1 and 1.41 times the size; want the same share, found at each", covs)
			break
		}
	}
}

// TestDrawsAs: a catalog symbol drawn as a legend draws it (larger, its
// text as characters) is drawn as the catalog's template of its class;
// another class's symbol, and a glyph that only holds the template as a
// part, are not.
func TestDrawsAs(t *testing.T) {
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	sym := func(class string) glyph.Glyph {
		for _, s := range cat.Symbols() {
			if s.Class == class {
				return s.Glyph
			}
		}
		t.Fatalf("no %s in the catalog", class)
		return glyph.Glyph{}
	}
	tpl := func(class string) Template {
		return Template{Class: class, Glyph: sym(class), MinScale: 0.3, MaxScale: 3}
	}
	big := func(g glyph.Glyph, k float64) glyph.Glyph { return g.Transform(glyph.Scale(k)) }
	ctx := context.Background()
	for _, c := range []struct {
		name string
		g    glyph.Glyph
		t    Template
		want bool
	}{
		{"the main switchboard, 1.5 times its size, its PK as text", big(sym("main_switchboard"), 1.5), tpl("main_switchboard"), true},
		{"the smoke detector, 1.3 times its size", big(sym("smoke_detector"), 1.3), tpl("smoke_detector"), true},
		{"a socket for a smoke detector", sym("socket_outlet"), tpl("smoke_detector"), false},
		{"the main switchboard inside a box four times its size", glyph.Glyph{Shapes: append(append([]glyph.Shape(nil), sym("main_switchboard").Shapes...),
			line(-12, -12, 12, -12), line(12, -12, 12, 12), line(12, 12, -12, 12), line(-12, 12, -12, -12))}, tpl("main_switchboard"), false},
	} {
		got, err := DrawsAs(ctx, c.g, c.t)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: drawn as %s %v, want %v", c.name, c.t.Class, got, c.want)
		}
	}
}
