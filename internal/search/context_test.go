package search_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/search"
)

// lamp is drawn in PDF points about the origin: a circle with a cross
// and a small inner circle (a downlight's glyph).
var lamp = documenttest.CircleOps(0, 0, 6) + " -6 0 m 6 0 l S 0 -6 m 0 6 l S " + documenttest.CircleOps(0, 0, 2)

// rays draws n lines from a circle of radius 6 out to radius 24 (past any
// box round it), the first at angle a0 degrees, evenly spread.
func rays(n int, a0 float64) string {
	var b strings.Builder
	for i := range n {
		a := (a0 + 360*float64(i)/float64(n)) * math.Pi / 180
		fmt.Fprintf(&b, " %.3f %.3f m %.3f %.3f l S", 6*math.Cos(a), 6*math.Sin(a), 24*math.Cos(a), 24*math.Sin(a))
	}
	return b.String()
}

// cutAndFind draws content on a page, cuts the drawing inside box and
// finds it on that page.
func cutAndFind(t *testing.T, content string, box detect.Box) search.Result {
	t.Helper()
	_, pg := page(t, content)
	tpl, err := search.Cut(pg, box)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tpl.FindExcluding(context.Background(), pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestOwnContextByDistance: the exemplar's own joined drawing (sixteen rays
// crossing its box) excuses drawing at a copy as far from the centre as
// it lay, wherever it runs: a copy whose rays leave at other angles is a
// match. A second ring round a copy, its cross drawn on to it (a
// spotlight round a downlight's glyph), lies at one distance in far more
// length than the rays there, though in less than the rays in all: it is
// a larger symbol.
func TestOwnContextByDistance(t *testing.T) {
	content := "1 w " + at("1 0 0 1 60 220", lamp+rays(16, 11.25)) +
		at("1 0 0 1 200 220", lamp+rays(16, 5)) +
		at("1 0 0 1 300 80", lamp+" "+documenttest.CircleOps(0, 0, 9)+" -9 0 m -6 0 l S 6 0 m 9 0 l S 0 -9 m 0 -6 l S 0 6 m 0 9 l S")
	r := cutAndFind(t, content, detect.Box{X: pt(60 - 9), Y: pt(300 - 220 - 9), W: pt(18), H: pt(18)})
	cs := centres(r.Matches)
	if !hasNear(cs, 60, 80) || !hasNear(cs, 200, 80) {
		t.Errorf("matches at %v: want the exemplar (60,80) and its copy with rays at other angles (200,80)", cs)
	}
	if hasNear(cs, 300, 220) {
		t.Errorf("matches at %v: the copy inside a second ring (300,220) is part of a larger symbol", cs)
	}
}

// TestOwnPenOverPattern: a fine pattern in another pen drawn across a copy
// (a floor's tiles) lies near as much of the template as the symbol's own
// lines; the template's pen still draws the match, and the pattern joined
// to it is not the copy's.
func TestOwnPenOverPattern(t *testing.T) {
	var tiles strings.Builder
	tiles.WriteString("0.2 w 0.5 g 0.5 G")
	for v := 0.0; v <= 40; v += 1.5 {
		fmt.Fprintf(&tiles, " %g 200 m %g 240 l S %g %g m %g %g l S", 180+v, 180+v, 180.0, 200+v, 220.0, 200+v)
	}
	content := "1 w " + at("1 0 0 1 60 220", symbol) + " q" + tiles.String() + " Q 1 w 0 G " + at("1 0 0 1 200 220", symbol)
	_, pg := page(t, content)
	tpl, err := search.Cut(pg, boxAround(60, 220))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := tpl.Find(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	if cs := centres(ms); !hasNear(cs, 206, 78) {
		t.Errorf("matches at %v: want the copy drawn over the pattern (206,78)", cs)
	}
}

// TestDashedWireIsNotTheSymbol: a wire drawn dashed in the symbol's own pen
// runs across a copy; each dash is a short piece joined to it, but the
// dashes run on in line past the copy's box: a wire, not a larger symbol.
// A solid bar drawn across a copy the same way is an extra stroke.
func TestDashedWireIsNotTheSymbol(t *testing.T) {
	var wire strings.Builder
	for x := 150.25; x < 250; x += 6.5 { // 5 pt dashes, 1.5 pt gaps
		fmt.Fprintf(&wire, " %g 223 m %g 223 l S", x, x+5)
	}
	content := "1 w " + at("1 0 0 1 60 220", lamp) + at("1 0 0 1 200 220", lamp) + wire.String() +
		at("1 0 0 1 340 220", lamp) + " 330 223 m 350 223 l S"
	r := cutAndFind(t, content, detect.Box{X: pt(60 - 8), Y: pt(300 - 220 - 8), W: pt(16), H: pt(16)})
	cs := centres(r.Matches)
	if !hasNear(cs, 200, 80) {
		t.Errorf("matches at %v (near misses %+v): want the copy crossed by a dashed wire (200,80)", cs, r.NearMisses)
	}
	if hasNear(cs, 340, 80) {
		t.Errorf("matches at %v: the copy with a bar drawn across it (340,80) is another symbol", cs)
	}
}
