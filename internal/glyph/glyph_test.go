package glyph

import (
	"encoding/json"
	"math"
	"testing"
)

func near(a, b Point) bool { return math.Hypot(a.X-b.X, a.Y-b.Y) < 1e-9 }

func TestJSONRoundTrip(t *testing.T) {
	src := `[{"line":[0,-2,0,-4]},{"arc":[0,0,2,180,180]},{"circle":[1,1,0.5],"fill":true},{"rect":[-1,-1,2,2]},{"polygon":[0,0,1,0,1,1]},{"text":"PV","at":[0,1],"size":1.5}]`
	var g Glyph
	if err := json.Unmarshal([]byte(src), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Shapes) != 6 || g.Shapes[1].Kind != KindArc || !g.Shapes[2].Fill {
		t.Fatalf("decoded %+v", g.Shapes)
	}
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var g2 Glyph
	if err := json.Unmarshal(b, &g2); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(g2)
	if string(b) != string(b2) {
		t.Fatalf("round trip changed:\n%s\n%s", b, b2)
	}
}

func TestBadShapes(t *testing.T) {
	for _, src := range []string{`{"line":[0,0,1]}`, `{"circle":[0,0,-1]}`, `{"line":[0,0,1,1],"circle":[0,0,1]}`, `{}`, `{"text":"X"}`} {
		var s Shape
		if err := json.Unmarshal([]byte(src), &s); err == nil {
			t.Errorf("%s: want error", src)
		}
	}
}

func TestPlacementMatrix(t *testing.T) {
	p := Placement{At: Point{100, 50}, Scale: 2, Rotation: 90, Mirrored: true}
	m := p.Matrix(1)
	// (1,0) mirrored -> (-1,0), rotated 90° clockwise on screen -> (0,-1), scaled -> (0,-2), moved.
	if got := m.Apply(Point{1, 0}); !near(got, Point{100, 48}) {
		t.Fatalf("got %v", got)
	}
}

func TestTransformArcMirror(t *testing.T) {
	// Upper half arc (start 180, sweep 180 goes through 270 = up on screen).
	g := Glyph{Shapes: []Shape{{Kind: KindArc, Pts: []Point{{0, 0}}, R: 1, Start: 180, Sweep: 180}}}
	for _, m := range []Affine{MirrorX(), Rotate(30), MirrorX().Then(Rotate(77)).Then(Scale(3))} {
		want := g.Polylines(0.001)[0]
		for i := range want {
			want[i] = m.Apply(want[i])
		}
		got := g.Transform(m).Polylines(0.001)[0]
		if !near(got[0], want[0]) || !near(got[len(got)-1], want[len(want)-1]) {
			t.Fatalf("%v: ends %v %v want %v %v", m, got[0], got[len(got)-1], want[0], want[len(want)-1])
		}
	}
}

// TestClipSegment: the part of a segment inside a box, a miss, a segment
// on the box's edge and a point segment.
func TestClipSegment(t *testing.T) {
	lo, hi := Point{X: 0, Y: 0}, Point{X: 10, Y: 10}
	cases := []struct {
		a, b   Point
		t0, t1 float64
		ok     bool
	}{
		{Point{X: -10, Y: 5}, Point{X: 20, Y: 5}, 1.0 / 3, 2.0 / 3, true},
		{Point{X: 2, Y: 2}, Point{X: 8, Y: 8}, 0, 1, true},
		{Point{X: -5, Y: -5}, Point{X: -1, Y: 20}, 0, 0, false},
		{Point{X: 0, Y: -5}, Point{X: 0, Y: 15}, 0.25, 0.75, true},
		{Point{X: 11, Y: 3}, Point{X: 11, Y: 3}, 0, 0, false},
	}
	for _, c := range cases {
		t0, t1, ok := ClipSegment(c.a, c.b, lo, hi)
		if ok != c.ok || math.Abs(t0-c.t0) > 1e-12 || math.Abs(t1-c.t1) > 1e-12 {
			t.Errorf("ClipSegment(%v, %v) = %g, %g, %v; want %g, %g, %v", c.a, c.b, t0, t1, ok, c.t0, c.t1, c.ok)
		}
	}
}

// TestTurn: the signed turn from one direction to another, in degrees,
// positive from x towards y.
func TestTurn(t *testing.T) {
	for _, c := range []struct {
		u, v Point
		want float64
	}{{Point{X: 1}, Point{Y: 1}, 90}, {Point{Y: 1}, Point{X: 1}, -90}, {Point{X: 1}, Point{X: -1}, 180}, {Point{X: 2, Y: 2}, Point{X: 3}, -45}} {
		if got := Turn(c.u, c.v); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Turn(%v, %v) = %g, want %g", c.u, c.v, got, c.want)
		}
	}
}

func TestInPolygon(t *testing.T) {
	// an L: the square 0..10 less its top-right quarter
	l := []Point{{0, 0}, {10, 0}, {10, 5}, {5, 5}, {5, 10}, {0, 10}}
	for _, c := range []struct {
		p    Point
		want bool
	}{{Point{2, 2}, true}, {Point{8, 2}, true}, {Point{2, 8}, true}, {Point{8, 8}, false}, {Point{-1, 5}, false}, {Point{11, 2}, false}} {
		if got := InPolygon(l, c.p); got != c.want {
			t.Errorf("InPolygon(L, %v) = %v, want %v", c.p, got, c.want)
		}
	}
}
