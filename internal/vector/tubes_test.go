package vector

import (
	"slices"
	"testing"

	"blueprint/internal/glyph"
)

// troffer is a legend's fitting: a squat box (1.5 : 1) with three tubes.
var troffer = glyph.Glyph{Shapes: []glyph.Shape{
	{Kind: glyph.KindRect, Pts: []glyph.Point{{X: -1.5, Y: -1}, {X: 1.5, Y: 1}}},
	line(-1.5, -0.5, 1.5, -0.5), line(-1.5, 0, 1.5, 0), line(-1.5, 0.5, 1.5, 0.5),
}}

// TestTubeFittings: under a legend's three-tube troffer a plan draws its
// fittings as it installs them: a two-tube batten six times as long,
// whose end caps run on past its sides, is found with the row's class,
// as is the troffer itself; a box as long without tubes, and one holding
// a circle, are not. Without Stretch only the troffer is found.
func TestTubeFittings(t *testing.T) {
	batten := glyph.Glyph{Shapes: []glyph.Shape{
		line(-9, -1, 9, -1), line(-9, 1, 9, 1),
		line(-9, -1.6, -9, 1.6), line(9, -1.6, 9, 1.6), // end caps wider than the body
		line(-9, -0.5, 9, -0.5), line(-9, 0.5, 9, 0.5),
	}}
	box := glyph.Glyph{Shapes: []glyph.Shape{{Kind: glyph.KindRect, Pts: []glyph.Point{{X: -9, Y: -1}, {X: 9, Y: 1}}}}}
	ringed := glyph.Glyph{Shapes: []glyph.Shape{box.Shapes[0], {Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: 0.6}}}
	pg := glyphsPage([]glyph.Glyph{batten, troffer, box, ringed}, []glyph.Placement{
		{At: glyph.Point{X: 250, Y: 100}, Scale: 1.1},
		{At: glyph.Point{X: 100, Y: 300}, Scale: 1.1},
		{At: glyph.Point{X: 250, Y: 450}, Scale: 1.1},
		{At: glyph.Point{X: 250, Y: 550}, Scale: 1.1},
	})
	for _, st := range []bool{false, true} {
		tpl := Template{Class: "luminaire_linear", Glyph: troffer, Row: 1, Priority: 1, MinScale: 0.3, MaxScale: 3, OptionalStubs: true, Stretch: st}
		var at []float64
		for _, m := range matchAlone(t, tpl, pg) {
			if m.Confidence >= OperatingConfidence && m.Class == "luminaire_linear" {
				at = append(at, m.Box.Y+m.Box.H/2)
			}
		}
		slices.Sort(at)
		want := map[bool]int{false: 1, true: 2}[st]
		if len(at) != want || at[len(at)-1] > 350 || (st && at[0] > 150) {
			t.Errorf("Stretch %v: fittings found at y %v, want %d (the batten at y 100 with Stretch, the troffer at y 300)", st, at, want)
		}
	}
}

// TestReadTubes: a box with tubes is a tube fitting along its tubes,
// whichever its long side; the catalog's bar (two lines between end caps,
// no sides) and a box with one tube are not.
func TestReadTubes(t *testing.T) {
	upright := troffer.Transform(glyph.Rotate(90))
	bar := glyph.Glyph{Shapes: []glyph.Shape{line(-4, -0.5, 4, -0.5), line(-4, 0.5, 4, 0.5), line(-4, -1.2, -4, 1.2), line(4, -1.2, 4, 1.2)}}
	one := glyph.Glyph{Shapes: []glyph.Shape{troffer.Shapes[0], line(-1.5, 0, 1.5, 0)}}
	for _, c := range []struct {
		name   string
		g      glyph.Glyph
		ok     bool
		alongY bool
		tubes  int
	}{{"troffer", troffer, true, false, 3}, {"turned", upright, true, true, 3}, {"catalog bar", bar, false, false, 0}, {"one tube", one, false, false, 0}} {
		f, ok := readTubes(c.g)
		if ok != c.ok || (ok && (f.alongY != c.alongY || len(f.tubes) != c.tubes)) {
			t.Errorf("%s: read %v (along y %v, %d tubes), want %v (along y %v, %d tubes)", c.name, ok, f.alongY, len(f.tubes), c.ok, c.alongY, c.tubes)
		}
	}
	if vs := tubeVariants(Template{Class: "x", Glyph: troffer, Stretch: true}); len(vs) != maxTubes-minTubes {
		t.Errorf("%d variants of a three-tube fitting, want %d (two and four tubes)", len(vs), maxTubes-minTubes)
	}
}
