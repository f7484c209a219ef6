package search_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/drawing"
	"blueprint/internal/search"
)

// symbol is drawn in PDF points about the origin: a circle with a bar to
// its right ending in a tick.
var symbol = documenttest.CircleOps(0, 0, 6) + " 6 0 m 18 0 l 18 10 l S"

func at(m, ops string) string { return "q " + m + " cm " + ops + " Q " }

// pt converts PDF points to raster pixels.
func pt(v float64) float64 { return v * float64(detect.RenderDPI) / 72 }

// page returns the drawing of a one-page PDF of 400×300 pt with content.
func page(t *testing.T, content string) (*document.Document, *drawing.Page) {
	t.Helper()
	data := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 400 300]", Content: content})
	doc, err := document.Open(context.Background(), data, "application/pdf", document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = doc.Close() })
	pg, err := doc.Drawing(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return doc, pg
}

// boxAround is a reviewer's box around the symbol drawn upright at (x, y)
// pt, 3 pt wider on each side, in pixels.
func boxAround(x, y float64) detect.Box {
	return detect.Box{X: pt(x - 9), Y: pt(300 - y - 13), W: pt(30), H: pt(22)}
}

// centres returns the centres of the matches' boxes in points from the
// top-left corner.
func centres(ms []search.Match) [][2]float64 {
	var out [][2]float64
	for _, m := range ms {
		out = append(out, [2]float64{(m.Box.X + m.Box.W/2) * 72 / 200, (m.Box.Y + m.Box.H/2) * 72 / 200})
	}
	return out
}

// wantNear reports each of wants (points from the top-left corner) that
// no match centre of cs is near.
func wantNear(t *testing.T, cs [][2]float64, wants [][2]float64) {
	t.Helper()
	for _, want := range wants {
		if !hasNear(cs, want[0], want[1]) {
			t.Errorf("no match at %v pt; matches at %v", want, cs)
		}
	}
}

func hasNear(cs [][2]float64, x, y float64) bool {
	for _, c := range cs {
		if math.Abs(c[0]-x) <= 2 && math.Abs(c[1]-y) <= 2 {
			return true
		}
	}
	return false
}

// TestFind finds the symbol upright, turned and mirrored, and not where a
// look-alike lacks its tick, where a larger symbol holds it (a bar
// across its circle), or where it is drawn in another colour (another
// device drawn with the same glyph).
func TestFind(t *testing.T) {
	content := "1 w " + at("1 0 0 1 40 250", symbol) + at("0 1 -1 0 150 250", symbol) + at("-1 0 0 1 250 160", symbol) +
		at("1 0 0 1 60 160", documenttest.CircleOps(0, 0, 6)+" 6 0 m 18 0 l S") +
		at("1 0 0 1 100 60", symbol+" -6 -9 m 6 -9 l S 0 -6 m 0 -9 l S") +
		"1 0 0 RG " + at("1 0 0 1 300 60", symbol)
	ms := cutAndFind(t, content, boxAround(40, 250)).Matches
	cs := centres(ms)
	// Upright at (40, 250): x 34–58, y 244–260 from the bottom.
	wantNear(t, cs, [][2]float64{{46, 48}, {148, 44}, {244, 138}})
	if len(ms) != 3 {
		t.Errorf("%d matches at %v, want the 3 instances", len(ms), cs)
	}
	for _, m := range ms {
		if m.Score < 0.9 || m.Score > 1 {
			t.Errorf("score %v", m.Score)
		}
	}
}

// TestCutLeavesOutWhatIsNotTheSymbol: a wall through the box, a grey
// hatch stroke beside the symbol and a label the box cuts through are not
// part of what is searched for, so instances without them are found.
func TestCutLeavesOutWhatIsNotTheSymbol(t *testing.T) {
	content := "1 w " + at("1 0 0 1 40 250", symbol) + at("1 0 0 1 200 100", symbol) +
		"0 270 m 400 270 l S " + // a wall through the box, above the symbol
		"0.5 g BT /F1 6 Tf 52 238 Td (L1-23 kitchen) Tj ET " +
		"0.6 G 0.3 w 50 245 m 56 245 l S" // grey hatching under the bar
	_, pg := page(t, content)
	tpl, err := search.Cut(pg, boxAround(40, 250))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := tpl.Find(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	if cs := centres(ms); len(ms) != 2 || !hasNear(cs, 206, 198) {
		t.Errorf("matches at %v, want the boxed symbol and the one at (206, 198) pt", cs)
	}
	if _, err := search.Cut(pg, detect.Box{X: pt(300), Y: pt(20), W: pt(40), H: pt(40)}); !errors.Is(err, search.ErrEmptyRegion) {
		t.Errorf("a box with no drawing: %v, want ErrEmptyRegion", err)
	}
}

// TestCutRefusesARoom: a box holding far more drawing than a symbol (here
// 300 strokes of hatching) is refused rather than searched for minutes.
func TestCutRefusesARoom(t *testing.T) {
	var b strings.Builder
	b.WriteString("1 w ")
	for i := range 300 {
		fmt.Fprintf(&b, "%d 20 m %d 200 l S ", 20+i, 21+i)
	}
	_, pg := page(t, b.String())
	if _, err := search.Cut(pg, detect.Box{X: 0, Y: 0, W: pg.Width, H: pg.Height}); !errors.Is(err, search.ErrRegionTooLarge) {
		t.Errorf("a box around 300 strokes: %v, want ErrRegionTooLarge", err)
	}
	if _, err := search.Cut(pg, detect.Box{X: pt(19), Y: pt(99), W: pt(10), H: pt(182)}); err != nil {
		t.Errorf("a box around 8 strokes: %v", err)
	}
}

// TestInDocument searches the pages asked for, in their order, and refuses
// a box on an image page.
func TestInDocument(t *testing.T) {
	data := documenttest.PDF(
		documenttest.Page{MediaBox: "[0 0 400 300]", Content: "1 w " + at("1 0 0 1 40 250", symbol)},
		documenttest.Page{MediaBox: "[0 0 400 300]", Content: "1 w " + at("0 -1 1 0 200 100", symbol) + at("1 0 0 1 300 200", symbol)})
	ctx := context.Background()
	doc, err := document.Open(ctx, data, "application/pdf", document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	got, err := search.InDocument(ctx, doc, 0, boxAround(40, 250), []int{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Page != 1 || len(got[0].Matches) != 2 || got[1].Page != 0 || len(got[1].Matches) != 1 {
		t.Errorf("got %+v, want 2 matches on page 1, then 1 on page 0", got)
	}

	img, err := document.Open(ctx, documenttest.PNG16(64, 48), "image/png", document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	if _, err := search.InDocument(ctx, img, 0, detect.Box{X: 1, Y: 1, W: 10, H: 10}, []int{0}); !errors.Is(err, search.ErrImagePage) {
		t.Errorf("a box on an image: %v, want ErrImagePage", err)
	}
}

// TestNearMisses: look-alikes of the symbol are near misses, each with
// what keeps it from being a match: the one with most of its tick left
// out misses a stroke, the one with a short bar across its circle has an extra stroke,
// the one with a short foot under it is part of a larger symbol, the red
// one is another colour.
func TestNearMisses(t *testing.T) {
	content := "1 w " + at("1 0 0 1 40 250", symbol) + at("0 1 -1 0 150 250", symbol) +
		at("1 0 0 1 60 160", documenttest.CircleOps(0, 0, 6)+" 6 0 m 18 0 l 18 3 l S") +
		at("1 0 0 1 200 160", symbol+" 0 -6 m 0 6 l S") +
		at("1 0 0 1 100 60", symbol+" 0 -6 m 0 -10 l S -5 -10 m 5 -10 l S") +
		"1 0 0 RG " + at("1 0 0 1 300 60", symbol)
	_, pg := page(t, content)
	tpl, err := search.Cut(pg, boxAround(40, 250))
	if err != nil {
		t.Fatal(err)
	}
	r, err := tpl.FindExcluding(context.Background(), pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Matches) != 2 {
		t.Errorf("%d matches at %v, want 2", len(r.Matches), centres(r.Matches))
	}
	want := map[[2]float64]string{
		{60, 140}:  search.ReasonMissingStroke,
		{200, 140}: search.ReasonExtraStroke,
		{100, 240}: search.ReasonLargerSymbol,
		{300, 240}: search.ReasonOtherColour,
	}
	for _, n := range r.NearMisses {
		c := centres([]search.Match{{Box: n.Box}})[0]
		t.Logf("near miss at %.0f, %.0f pt: %s %.3f", c[0], c[1], n.Reason, n.Score)
		if n.Score < search.NearMissFloor {
			t.Errorf("near miss at %v scores %v, under the floor", c, n.Score)
		}
	}
	for at, reason := range want {
		found := false
		for _, n := range r.NearMisses {
			c := centres([]search.Match{{Box: n.Box}})[0]
			// the symbol's box centre lies 6 pt right of and 5 pt above its circle's
			if math.Abs(c[0]-at[0]-6) <= 4 && math.Abs(c[1]-at[1]+5) <= 4 {
				found = true
				if n.Reason != reason {
					t.Errorf("near miss at %v: reason %q, want %q", at, n.Reason, reason)
				}
			}
		}
		if !found {
			t.Errorf("no near miss at %v (%s)", at, reason)
		}
	}
}

// TestExclude: a triangle outlet, and the same triangle inside a square
// drawn a little apart from it (so that the triangle alone is a match
// there). Excluding the triangle-in-a-square leaves it out and keeps the
// bare triangles.
func TestExclude(t *testing.T) {
	tri := "-6 -5 m 6 -5 l 0 6 l h S"
	sq := " -9 -8 m 9 -8 l 9 10 l -9 10 l h S"
	content := "1 w " + at("1 0 0 1 40 250", tri) + at("1 0 0 1 140 250", tri) + at("1 0 0 1 240 250", tri+sq) +
		at("1 0 0 1 340 100", tri+sq)
	_, pg := page(t, content)
	box := func(x, y, r float64) detect.Box {
		return detect.Box{X: pt(x - r), Y: pt(300 - y - r), W: pt(2 * r), H: pt(2 * r)}
	}
	tpl, err := search.Cut(pg, box(40, 250, 8))
	if err != nil {
		t.Fatal(err)
	}
	all, err := tpl.FindExcluding(context.Background(), pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Matches) != 4 {
		t.Fatalf("without exclude: %d matches at %v, want the 4 triangles", len(all.Matches), centres(all.Matches))
	}
	look, err := search.Cut(pg, box(240, 251, 12))
	if err != nil {
		t.Fatal(err)
	}
	r, err := tpl.FindExcluding(context.Background(), pg, []*search.Template{look})
	if err != nil {
		t.Fatal(err)
	}
	cs := centres(r.Matches)
	if len(r.Matches) != 2 || !hasNear(cs, 40, 50) || !hasNear(cs, 140, 50) {
		t.Errorf("with the triangle in a square excluded: matches at %v, want the bare triangles at (40, 50) and (140, 50) pt", cs)
	}
	for _, n := range r.NearMisses {
		t.Errorf("near miss %+v", n)
	}
}

// TestAnyColour: the symbol drawn in red where the box's is black is
// left to the near misses by default ("another_colour"), and is a match
// with AnyColour (a sheet whose colours are zones, not devices); a
// look-alike missing the tick stays out either way.
func TestAnyColour(t *testing.T) {
	content := "1 w " + at("1 0 0 1 40 250", symbol) + at("1 0 0 1 60 160", documenttest.CircleOps(0, 0, 6)+" 6 0 m 18 0 l S") +
		"1 0 0 RG " + at("1 0 0 1 300 60", symbol) + at("0 1 -1 0 200 200", symbol)
	doc, _ := page(t, content)
	for _, any := range []bool{false, true} {
		found, err := search.InDocumentWith(context.Background(), doc, 0, boxAround(40, 250), []int{0}, search.Options{AnyColour: any})
		if err != nil {
			t.Fatal(err)
		}
		want := 1
		if any {
			want = 3
		}
		cs := centres(found[0].Matches)
		if len(cs) != want {
			t.Errorf("any colour %v: %d matches at %v, want %d", any, len(cs), cs, want)
		}
		if any && !hasNear(cs, 306, 238) {
			t.Errorf("any colour: the red symbol at (306, 238) pt is not among %v", cs)
		}
		for _, n := range found[0].NearMisses {
			if any && n.Reason == search.ReasonOtherColour {
				t.Errorf("any colour: a near miss for its colour at %v", n.Box)
			}
		}
	}
}

// panel draws a 600 × 600 panel as CAD does, in page points: a double
// square about (cx, cy) and, inside the inner one, a diagonal hatch laid
// on the sheet's grid (lines x − y = k × 3), so that each instance's
// strokes fall elsewhere in its square. With hatch false, the squares
// alone.
func panel(cx, cy float64, hatch bool) string {
	var b strings.Builder
	for _, h := range []float64{6, 5} {
		fmt.Fprintf(&b, "%g %g %g %g re S ", cx-h, cy-h, 2*h, 2*h)
	}
	if !hatch {
		return b.String()
	}
	x0, x1, y0, y1 := cx-5, cx+5, cy-5, cy+5
	for k := math.Ceil((x0 - y1) / 3); k*3 <= x1-y0; k++ {
		c := k * 3 // x - y = c, clipped to the inner square
		ax, bx := math.Max(x0, y0+c), math.Min(x1, y1+c)
		if bx-ax > 0.5 {
			fmt.Fprintf(&b, "%g %g m %g %g l S ", ax, ax-c, bx, bx-c)
		}
	}
	return b.String()
}

// TestHatchedPanel: searched from one panel, every panel is found though
// its hatch strokes lie elsewhere inside its square (the hatch is laid on
// the sheet's grid), and the same squares without a hatch are not.
func TestHatchedPanel(t *testing.T) {
	// The second and third panels' strokes lie half a spacing off the
	// first's.
	content := "0.3 w " + panel(50, 200, true) + panel(151.5, 200, true) + panel(251.5, 202, true) + panel(100, 80, false)
	r := cutAndFind(t, content, detect.Box{X: pt(50 - 8), Y: pt(300 - 200 - 8), W: pt(16), H: pt(16)})
	ms := r.Matches
	cs := centres(ms)
	wantNear(t, cs, [][2]float64{{50, 100}, {151.5, 100}, {251.5, 98}})
	if hasNear(cs, 100, 220) || len(ms) != 3 {
		t.Errorf("matches at %v; want the 3 hatched panels, not the bare squares at (100, 220)", cs)
	}
	bare := false
	for _, n := range r.NearMisses {
		if hasNear(centres([]search.Match{{Box: n.Box}}), 100, 220) {
			bare = n.Reason == search.ReasonMissingStroke
		}
	}
	if !bare {
		t.Errorf("near misses %+v: want the bare squares, a missing stroke", r.NearMisses)
	}
}

// bowTieLight is a ceiling light as newmark's CAD writer drew it: two red
// rings round a black bow tie, each of its two lobes a triangle cut into
// strips of n triangles, every triangle filled and then stroked twice in
// black (drawn that way, its black strokes outweigh its rings).
func bowTieLight(n int) string {
	var b strings.Builder
	b.WriteString("1 0 0 RG 0.3 w " + documenttest.CircleOps(0, 0, 4) + " " + documenttest.CircleOps(0, 0, 8) + " ")
	b.WriteString("0 g 0 G 0 w ")
	const h, w = 3.0, 3.0 // a lobe's height and base, pt
	for _, dir := range []float64{1, -1} {
		for k := range n {
			// the strip between heights y0 and y1 from the apex, as two
			// triangles
			y0, y1 := h*float64(k)/float64(n), h*float64(k+1)/float64(n)
			x0, x1 := w/2*y0/h, w/2*y1/h
			for _, tri := range [][6]float64{{-x0, y0, x0, y0, x1, y1}, {-x0, y0, x1, y1, -x1, y1}} {
				path := fmt.Sprintf("%.3f %.3f m %.3f %.3f l %.3f %.3f l h ", tri[0], dir*tri[1], tri[2], dir*tri[3], tri[4], dir*tri[5])
				b.WriteString(path + "f " + path + "S " + path + "S ")
			}
		}
	}
	return b.String()
}

// TestFilledPartCutIntoTriangles: a symbol whose filled part the PDF
// draws as triangles, filled and stroked in black, cut otherwise at each
// copy, is searched by its rings and the fill's outline, not by the
// exemplar's triangles: the strokes hidden under the fill, and a stroke
// drawn twice over, do not make black the symbol's paint (newmark's
// ceiling lights: 1 of 74 found from a clean exemplar before, 74 after).
func TestFilledPartCutIntoTriangles(t *testing.T) {
	content := at("1 0 0 1 60 240", bowTieLight(8)) + at("1 0 0 1 200 240", bowTieLight(5)) +
		at("0 1 -1 0 300 120", bowTieLight(7)) + at("1 0 0 1 120 80", bowTieLight(6))
	_, pg := page(t, content)
	box := detect.Box{X: pt(60 - 10), Y: pt(300 - 240 - 10), W: pt(20), H: pt(20)}
	tpl, err := search.Cut(pg, box)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := tpl.Find(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	cs := centres(ms)
	wantNear(t, cs, [][2]float64{{60, 60}, {200, 60}, {300, 180}, {120, 220}})
	if len(ms) != 4 {
		t.Errorf("%d matches at %v, want the 4 lights", len(ms), cs)
	}
}

// halfDiscSocket is a double socket as newmark's CAD writer drew its
// filled variant: a red half circle on its diameter with two red stems,
// the half disc painted black as a strip of 2n triangles between the
// diameter and the arc, each filled and stroked in black. The pieces of
// the diameter next to its ends are shorter than a pixel or two.
func halfDiscSocket(n int) string {
	const r, k = 4.25, 0.5523
	var b strings.Builder
	b.WriteString("0 g 0 G 0 w ")
	for i := range n {
		a0 := math.Pi * (-0.5 + float64(i)/float64(n))
		a1 := math.Pi * (-0.5 + float64(i+1)/float64(n))
		x0, y0, x1, y1 := r*math.Cos(a0), r*math.Sin(a0), r*math.Cos(a1), r*math.Sin(a1)
		for _, tri := range [][6]float64{{0, y0, x0, y0, x1, y1}, {0, y0, x1, y1, 0, y1}} {
			path := fmt.Sprintf("%.3f %.3f m %.3f %.3f l %.3f %.3f l h ", tri[0], tri[1], tri[2], tri[3], tri[4], tri[5])
			b.WriteString(path + "f " + path + "S ")
		}
	}
	fmt.Fprintf(&b, "1 0 0 RG 0 w 0 %g m %g %g %g %g %g 0 c %g %g %g %g 0 %g c S ", -r, k*r, -r, r, -k*r, r, r, k*r, k*r, r, r)
	fmt.Fprintf(&b, "0 %g m 0 %g l S 0 -0.35 m 6 -0.35 l S 0 0.35 m 6 0.35 l S ", -5.4, 5.4)
	return b.String()
}

// TestFilledHalfDiscUnderItsOutline: a symbol whose black fill, cut into
// triangles stroked in black, lies along its red outline is found at every
// copy, however the fill is cut: the match's pen is the paint that draws
// most of the template's lines, not the one the page strokes most often
// there (the triangles' sides along the outline, each stroked again).
func TestFilledHalfDiscUnderItsOutline(t *testing.T) {
	content := at("1 0 0 1 60 240", halfDiscSocket(8)) + at("1 0 0 1 200 240", halfDiscSocket(6)) +
		at("0 1 -1 0 300 120", halfDiscSocket(7)) + at("1 0 0 1 120 80", halfDiscSocket(9))
	ms := cutAndFind(t, content, detect.Box{X: pt(60 - 2), Y: pt(300 - 240 - 7), W: pt(10), H: pt(14)}).Matches
	cs := centres(ms)
	wantNear(t, cs, [][2]float64{{63, 60}, {203, 60}, {300, 177}, {123, 220}})
	if len(ms) != 4 {
		t.Errorf("%d matches at %v, want the 4 sockets", len(ms), cs)
	}
}

// crossedRings is a ring with a cross through it, all in red: the cross
// drawn w points wide.
func crossedRings(w float64) string {
	return "1 0 0 RG 0 w " + documenttest.CircleOps(0, 0, 6) + " " +
		fmt.Sprintf("%g w -4 -4 m 4 4 l S -4 4 m 4 -4 l S ", w)
}

// TestOnePenAtEveryCopy: the exemplar draws its ring and its cross in one
// pen; a look-alike drawn in the same colour whose cross is heavier is
// another symbol (newmark's floodlights, whose heavy red cross the
// ceiling light's fine diagonals fit), not a match.
func TestOnePenAtEveryCopy(t *testing.T) {
	content := at("1 0 0 1 60 240", crossedRings(0)) + at("1 0 0 1 200 240", crossedRings(0)) +
		at("1 0 0 1 120 80", crossedRings(2)) + at("1 0 0 1 300 80", crossedRings(2))
	ms := cutAndFind(t, content, detect.Box{X: pt(60 - 9), Y: pt(300 - 240 - 9), W: pt(18), H: pt(18)}).Matches
	cs := centres(ms)
	wantNear(t, cs, [][2]float64{{60, 60}, {200, 60}})
	if len(ms) != 2 {
		t.Errorf("%d matches at %v, want the 2 with a fine cross", len(ms), cs)
	}
}

// linearFitting is a linear luminaire as newmark draws it: a red outline
// (two long sides and two end bars across them) round two black bars, each
// a thin filled strip of two triangles, stroked in black, whose ends are
// shorter than a page corner's least arm.
func linearFitting() string {
	var b strings.Builder
	b.WriteString("1 0 0 RG 0 w -20 -3 m 20 -3 l S -20 3 m 20 3 l S -20 -5 m -20 5 l S 20 -5 m 20 5 l S ")
	b.WriteString("0 g 0 G 0 w ")
	for _, y := range []float64{-1.8, 1.1} {
		const h = 0.7
		path := fmt.Sprintf("-20 %g m 20 %g l 20 %g l h -20 %g m 20 %g l -20 %g l h ", y, y, y+h, y, y+h, y+h)
		b.WriteString(path + "f " + path + "S ")
	}
	return b.String()
}

// TestThinBarsAnchorNothing: a template whose only corners are the ends
// of thin filled bars (under 2 px) is searched from its longest line: the
// page's corners leave such short arms out, so no copy was ever found.
func TestThinBarsAnchorNothing(t *testing.T) {
	content := at("1 0 0 1 60 240", linearFitting()) + at("1 0 0 1 200 240", linearFitting()) +
		at("0 1 -1 0 320 120", linearFitting())
	ms := cutAndFind(t, content, detect.Box{X: pt(60 - 23), Y: pt(300 - 240 - 7), W: pt(46), H: pt(14)}).Matches
	cs := centres(ms)
	wantNear(t, cs, [][2]float64{{60, 60}, {200, 60}, {320, 180}})
	if len(ms) != 3 {
		t.Errorf("%d matches at %v, want the 3 fittings", len(ms), cs)
	}
}

// TestPenWeight: a sheet may tell two devices of one outline and one
// colour apart by the pen's weight alone (newmark's bold switched sockets
// and hairline double sockets share the half disc): copies drawn at
// another weight are near misses in another colour, not matches.
func TestPenWeight(t *testing.T) {
	content := "1 0 0 RG 0.72 w " + at("1 0 0 1 40 250", symbol) + at("0 1 -1 0 150 250", symbol) +
		"0 w " + at("1 0 0 1 60 100", symbol) + at("1 0 0 1 250 100", symbol)
	r := cutAndFind(t, content, boxAround(40, 250))
	cs := centres(r.Matches)
	if len(r.Matches) != 2 {
		t.Errorf("%d matches at %v, want the 2 drawn bold", len(r.Matches), cs)
	}
	n := 0
	for _, m := range r.NearMisses {
		if m.Reason == search.ReasonOtherColour {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d near misses in another colour, want the 2 hairline copies: %+v", n, r.NearMisses)
	}
}
