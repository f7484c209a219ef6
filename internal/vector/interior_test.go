package vector

import (
	"math"
	"testing"

	"blueprint/internal/glyph"
)

// TestForeignInteriorRejects draws the catalog push button (a circle
// inside a circle) alone, with wires crossing it and ending on it, and with
// heavy drawing inside its inner circle (a solid bow tie written as fans of
// filled and stroked triangles, as the surface-mount luminaire of a real
// sheet is; a solid disc written as hatching), which make it another
// symbol, and with a light cross inside, which stays under the threshold.
// The same disc drawn in another colour than the symbol's is another
// layer's drawing, and the push button stands.
func TestForeignInteriorRejects(t *testing.T) {
	cat, m := loadTemplates(t)
	var pb glyph.Glyph
	for _, s := range cat.Symbols() {
		if s.Class == "push_button" {
			pb = s.Glyph
		}
	}
	// Centre and inner radius of the glyph's circles, in glyph mm.
	var c glyph.Point
	rIn := math.Inf(1)
	for _, sh := range pb.Shapes {
		if sh.Kind == glyph.KindCircle && sh.R < rIn {
			c, rIn = sh.Pts[0], sh.R
		}
	}
	if math.IsInf(rIn, 1) {
		t.Fatal("push_button glyph has no circle")
	}
	cases := []struct {
		name  string
		want  bool
		extra func(s *sheet, at func(glyph.Point) glyph.Point, centre glyph.Point, rOutPt float64)
	}{
		{"plain", true, nil},
		{"wires through and touching", true, func(s *sheet, at func(glyph.Point) glyph.Point, centre glyph.Point, rOutPt float64) {
			// A wire running through, one from the centre out, one
			// ending on the outline, a wall line touching it.
			s.line(glyph.Point{X: centre.X - 3*rOutPt, Y: centre.Y + 0.3*rOutPt}, glyph.Point{X: centre.X + 3*rOutPt, Y: centre.Y + 0.3*rOutPt})
			s.line(centre, glyph.Point{X: centre.X + 2*rOutPt, Y: centre.Y - 3*rOutPt})
			s.line(glyph.Point{X: centre.X, Y: centre.Y + rOutPt}, glyph.Point{X: centre.X, Y: centre.Y + 4*rOutPt})
			s.line(glyph.Point{X: centre.X - 3*rOutPt, Y: centre.Y - rOutPt}, glyph.Point{X: centre.X + 3*rOutPt, Y: centre.Y - rOutPt})
		}},
		{"solid bow tie inside, filled and stroked as fans of triangles", false, func(s *sheet, at func(glyph.Point) glyph.Point, _ glyph.Point, _ float64) {
			// The way some exporters write a solid fill: many thin
			// triangles from the centre, each filled and then stroked
			// as a path of its own.
			for _, sgn := range []float64{1, -1} {
				for a := 55.0; a < 125; a += 5 {
					var tri []glyph.Point
					tri = append(tri, at(c))
					for _, b := range []float64{a, a + 5} {
						r := b * math.Pi / 180
						tri = append(tri, at(glyph.Point{X: c.X + 0.75*rIn*math.Cos(r), Y: c.Y + sgn*0.75*rIn*math.Sin(r)}))
					}
					s.poly(tri, true, true)
					s.poly(tri, true, false)
				}
			}
		}},
		{"solid disc inside as hatching", false, func(s *sheet, at func(glyph.Point) glyph.Point, _ glyph.Point, _ float64) {
			r := 0.7 * rIn
			for y := -r + 0.06; y < r; y += 0.12 {
				w := math.Sqrt(r*r - y*y)
				s.line(at(glyph.Point{X: c.X - w, Y: c.Y + y}), at(glyph.Point{X: c.X + w, Y: c.Y + y}))
			}
		}},
		{"solid disc inside as hatching of another layer's colour (kept)", true, func(s *sheet, at func(glyph.Point) glyph.Point, _ glyph.Point, _ float64) {
			// A grey room label's outlined letters or a door swing
			// crossing a black symbol: another layer's drawing.
			s.colour(0.57, 0.57, 0.57)
			r := 0.7 * rIn
			for y := -r + 0.06; y < r; y += 0.12 {
				w := math.Sqrt(r*r - y*y)
				s.line(at(glyph.Point{X: c.X - w, Y: c.Y + y}), at(glyph.Point{X: c.X + w, Y: c.Y + y}))
			}
			s.colour(0, 0, 0)
		}},
		{"light cross inside (below the threshold: kept)", true, func(s *sheet, at func(glyph.Point) glyph.Point, _ glyph.Point, _ float64) {
			d := 0.35 * rIn
			s.line(at(glyph.Point{X: c.X - d, Y: c.Y - d}), at(glyph.Point{X: c.X + d, Y: c.Y + d}))
			s.line(at(glyph.Point{X: c.X - d, Y: c.Y + d}), at(glyph.Point{X: c.X + d, Y: c.Y - d}))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSheet(200, 200)
			s.width(0.25)
			pl := glyph.Placement{At: glyph.Point{X: 100, Y: 100}, Scale: 1.3, Rotation: 17}
			s.glyph(pb, pl)
			mx := pl.Matrix(ptPerMM)
			centre := mx.Apply(c)
			rOut := 0.0
			for _, sh := range pb.Shapes {
				if sh.Kind == glyph.KindCircle {
					rOut = math.Max(rOut, sh.R)
				}
			}
			if tc.extra != nil {
				tc.extra(s, mx.Apply, centre, rOut*pl.Scale*ptPerMM)
			}
			ms, err := m.Match(t.Context(), pageOf(t, s.pdf()))
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, d := range ms {
				if d.Class == "push_button" && d.Confidence >= OperatingConfidence {
					got = true
				}
			}
			if got != tc.want {
				t.Errorf("push_button found = %v, want %v (matches %+v)", got, tc.want, ms)
			}
		})
	}
}

// TestConvexHullInsideBy checks the hull's orientation and the shrunk
// inside test on a square with an interior point.
func TestConvexHullInsideBy(t *testing.T) {
	h := convexHull([]glyph.Point{{X: 0, Y: 0}, {X: 2, Y: 0}, {X: 1, Y: 1}, {X: 2, Y: 2}, {X: 0, Y: 2}, {X: 1, Y: 0}})
	if len(h) != 4 {
		t.Fatalf("hull %v, want the 4 corners", h)
	}
	for _, tc := range []struct {
		p      glyph.Point
		margin float64
		want   bool
	}{
		{glyph.Point{X: 1, Y: 1}, 0.5, true},
		{glyph.Point{X: 1, Y: 1}, 1.1, false},
		{glyph.Point{X: 0.2, Y: 1}, 0.5, false},
		{glyph.Point{X: 3, Y: 1}, 0, false},
	} {
		if got := insideBy(h, tc.p, tc.margin); got != tc.want {
			t.Errorf("insideBy(%v, %g) = %v, want %v", tc.p, tc.margin, got, tc.want)
		}
	}
}
