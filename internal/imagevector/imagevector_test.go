package imagevector

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/ink"
	"blueprint/internal/ocrtext"
)

// canvas is a white gray image that strokes are drawn on, w pixels wide.
type canvas struct{ *image.Gray }

func newCanvas(w, h int) canvas {
	g := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(g, g.Bounds(), image.White, image.Point{}, draw.Src)
	return canvas{g}
}

// dot inks a square of side 2r+1 about (x, y).
func (c canvas) dot(x, y float64, r int) {
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			c.SetGray(int(math.Round(x))+dx, int(math.Round(y))+dy, color.Gray{})
		}
	}
}

func (c canvas) line(ax, ay, bx, by float64, r int) {
	n := int(math.Hypot(bx-ax, by-ay)*2) + 1
	for i := 0; i <= n; i++ {
		f := float64(i) / float64(n)
		c.dot(ax+f*(bx-ax), ay+f*(by-ay), r)
	}
}

// boxWord draws a word of four box-shaped letters, 20 px high, from
// (20, 40).
func (c canvas) boxWord() {
	for k := range 4 {
		x := 20.0 + float64(k)*16
		c.line(x, 40, x+10, 40, 1)
		c.line(x+10, 40, x+10, 60, 1)
		c.line(x+10, 60, x, 60, 1)
		c.line(x, 60, x, 40, 1)
	}
}

func (c canvas) circle(cx, cy, rad float64, r int) {
	for a := 0.0; a < 2*math.Pi; a += 0.005 {
		c.dot(cx+rad*math.Cos(a), cy+rad*math.Sin(a), r)
	}
}

// TestThinLeavesLines: strokes 3 and 5 pixels wide and a filled block
// thin to lines one pixel wide: every pixel has one or two neighbours but
// at ends and junctions, and the line keeps the stroke's length.
func TestThinLeavesLines(t *testing.T) {
	c := newCanvas(120, 80)
	c.line(10, 20, 110, 20, 1) // 3 px
	c.line(10, 40, 100, 70, 2) // 5 px, slanted
	c.line(60, 50, 60, 78, 1)  // a stem meeting it
	w, h := 120, 80
	m := make([]uint8, w*h)
	for i, v := range c.Pix {
		if v < 128 {
			m[i] = 1
		}
	}
	thin(m, w, h)
	row := 0
	for x := range w {
		if m[20*w+x] != 0 || m[19*w+x] != 0 || m[21*w+x] != 0 {
			row++
		}
		if m[19*w+x] != 0 && m[20*w+x] != 0 || m[20*w+x] != 0 && m[21*w+x] != 0 {
			t.Fatalf("the 3-pixel stroke is still thick at x=%d", x)
		}
	}
	if row < 95 {
		t.Errorf("the horizontal stroke thinned to %d pixels of its 100", row)
	}
	// The stem meets the slanted stroke's middle line near (60, 56).
	junctions := 0
	for y := range h {
		for x := range w {
			if m[y*w+x] == 0 {
				continue
			}
			switch n := bits.OnesCount8(neighbours(m, w, h, x, y)); {
			case n == 0:
				t.Errorf("a lone pixel at (%d, %d)", x, y)
			case n >= 3:
				junctions++
				if math.Hypot(float64(x-60), float64(y-56)) > 5 {
					t.Errorf("a junction pixel at (%d, %d), away from where the strokes meet", x, y)
				}
			}
		}
	}
	if junctions == 0 {
		t.Error("no junction where the stem meets the slanted stroke")
	}
}

// TestTraceShapes: a circle becomes one full arc on its centre and
// radius; a line that a stem meets from one side stays one segment (the
// stem ends on it); a box's four sides are four segments.
func TestTraceShapes(t *testing.T) {
	c := newCanvas(400, 300)
	c.circle(80, 80, 30, 1)
	c.line(150, 200, 380, 200, 1) // a wire
	c.line(260, 200, 260, 270, 1) // a stem meeting it
	c.line(200, 40, 340, 40, 1)   // a box
	c.line(340, 40, 340, 120, 1)
	c.line(340, 120, 200, 120, 1)
	c.line(200, 120, 200, 40, 1)
	res, err := Trace(context.Background(), c.Gray, nil)
	if err != nil {
		t.Fatal(err)
	}
	pg := res.Page
	circles := 0
	for _, a := range pg.Arcs {
		if math.Abs(a.Sweep) >= 360 {
			circles++
			if math.Hypot(a.C.X-80.5, a.C.Y-80.5) > 1 || math.Abs(a.R-30) > 1 {
				t.Errorf("circle at %v r %.1f, drawn at (80.5, 80.5) r 30", a.C, a.R)
			}
		}
	}
	if circles != 1 {
		t.Errorf("%d full circles, want 1 (arcs %+v)", circles, pg.Arcs)
	}
	along := func(a, b glyph.Point) int {
		n := 0
		for _, s := range pg.Segments {
			near := func(p, q glyph.Point) bool { return math.Hypot(p.X-q.X, p.Y-q.Y) <= 3 }
			if near(s.A, a) && near(s.B, b) || near(s.A, b) && near(s.B, a) {
				n++
			}
		}
		return n
	}
	if n := along(glyph.Point{X: 150.5, Y: 200.5}, glyph.Point{X: 380.5, Y: 200.5}); n != 1 {
		t.Errorf("the wire that a stem meets: %d segments end to end, want 1 (segments %v)", n, pg.Segments)
	}
	for _, side := range [][2]glyph.Point{
		{{X: 200.5, Y: 40.5}, {X: 340.5, Y: 40.5}}, {{X: 340.5, Y: 40.5}, {X: 340.5, Y: 120.5}},
		{{X: 340.5, Y: 120.5}, {X: 200.5, Y: 120.5}}, {{X: 200.5, Y: 120.5}, {X: 200.5, Y: 40.5}},
	} {
		if along(side[0], side[1]) != 1 {
			t.Errorf("the box's side %v: not one segment (segments %v)", side, pg.Segments)
		}
	}
	if len(pg.Chars) != 0 {
		t.Errorf("no reader, yet characters %v", pg.Chars)
	}
}

// TestContoursOfARing: a ring's outline is two closed loops, one round
// the ink and one round its hole, on the pixels' corners.
func TestContoursOfARing(t *testing.T) {
	w, h := 7, 7
	mask := make([]bool, w*h)
	for y := 1; y < 6; y++ {
		for x := 1; x < 6; x++ {
			mask[y*w+x] = x == 1 || x == 5 || y == 1 || y == 5
		}
	}
	loops := contours(mask, w, h, glyph.Point{X: 10, Y: 20})
	if len(loops) != 2 {
		t.Fatalf("%d loops, want 2: %v", len(loops), loops)
	}
	outer, inner := loops[0], loops[1]
	if len(outer) != 4 || len(inner) != 4 {
		t.Fatalf("loops %v: want four corners each", loops)
	}
	for _, p := range outer {
		if (p.X != 11 && p.X != 16) || (p.Y != 21 && p.Y != 26) {
			t.Errorf("outer corner %v: not on the ring's outside (11..16, 21..26)", p)
		}
	}
	for _, p := range inner {
		if (p.X != 12 && p.X != 15) || (p.Y != 22 && p.Y != 25) {
			t.Errorf("inner corner %v: not on the hole's edge (12..15, 22..25)", p)
		}
	}
}

// TestLettersStandInLines: pieces of about one height side by side are
// letters, the dot beside one is drawn with it; a lone piece, a piece
// inside another's reach (a stroke inside a symbol) and a long dash are
// not.
func TestLettersStandInLines(t *testing.T) {
	r := func(x0, y0, x1, y1 int) ink.Piece { return ink.Piece{Box: image.Rect(x0, y0, x1, y1)} }
	ps := []ink.Piece{
		r(100, 100, 112, 120), r(114, 100, 126, 120), r(128, 102, 138, 120), // a word
		r(131, 96, 134, 99),   // the dot of its i
		r(300, 100, 340, 140), // a lone symbol
		r(400, 100, 440, 140), // a symbol's outline
		r(415, 110, 425, 135), // a stroke inside it
		r(500, 100, 560, 102), // a dash
		r(570, 100, 630, 102), // the next dash
	}
	got := letters(ps)
	want := []bool{true, true, true, true, false, false, false, false, false}
	for i := range ps {
		if got[i] != want[i] {
			t.Errorf("piece %d at %v: letter %v, want %v", i, ps[i].Box, got[i], want[i])
		}
	}
}

// reader is a TextReader that reads every outline it is given as one
// word and marks all of them read.
type reader struct{ outlines int }

func (r *reader) Read(_ context.Context, pg *drawing.Page) (*ocrtext.Result, error) {
	r.outlines = len(pg.Segments)
	res := &ocrtext.Result{Lines: 1, Read: 1, Segments: make([]bool, len(pg.Segments)), Arcs: make([]bool, len(pg.Arcs))}
	for i, s := range pg.Segments {
		if pg.Styles[s.Style].Fill == "" || pg.Styles[s.Style].Stroke != "" {
			return nil, nil
		}
		res.Segments[i] = true
	}
	res.Chars = []drawing.Char{{Text: "W", Min: glyph.Point{X: 1, Y: 1}, Max: glyph.Point{X: 2, Y: 2}, Size: 1}}
	return res, nil
}

// TestTraceReadsLetters: with a reader, the pieces standing in a line are
// given to it as filled outlines; what it reads becomes the page's text
// and leaves the drawing, while a symbol beside the line stays drawing.
func TestTraceReadsLetters(t *testing.T) {
	c := newCanvas(300, 120)
	c.boxWord()
	c.circle(220, 50, 25, 1) // a symbol
	rd := &reader{}
	res, err := Trace(context.Background(), c.Gray, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd.outlines < 4*8 {
		t.Errorf("the reader got %d outline segments, want the four letters' outside and inside loops", rd.outlines)
	}
	if len(res.Page.Chars) != 1 || res.Read != 1 {
		t.Errorf("characters %v, lines read %d: want the reader's", res.Page.Chars, res.Read)
	}
	for _, s := range res.Page.Segments {
		if s.A.X < 100 && s.B.X < 100 {
			t.Errorf("segment %v of a letter read as text is still drawing", s)
		}
	}
	if len(res.Page.Arcs) != 1 {
		t.Errorf("arcs %v: want the symbol's circle", res.Page.Arcs)
	}
	for _, sg := range res.Page.Segments {
		if res.Page.Styles[sg.Style].Stroke == "" {
			t.Errorf("segment %v is filled: the page has no filled area", sg)
		}
	}
}

// TestFilledAreasAreOutlines: a band of ink 12 pixels wide (a wall drawn
// solid) becomes a filled outline, while a stroke 3 pixels wide ending on
// it stays a stroke, traced up to the band's edge; where strokes 5 pixels
// wide meet, and along the image's edge, nothing is filled.
func TestFilledAreasAreOutlines(t *testing.T) {
	c := newCanvas(300, 200)
	for y := 40; y < 52; y++ { // the wall
		c.line(20, float64(y), 280, float64(y), 0)
	}
	c.line(150, 52, 150, 150, 1) // a stroke ending on it
	c.line(40, 120, 120, 120, 2) // thick strokes meeting
	c.line(80, 80, 80, 180, 2)
	c.line(20, 1, 280, 1, 1) // a stroke along the image's edge
	res, err := Trace(context.Background(), c.Gray, nil)
	if err != nil {
		t.Fatal(err)
	}
	pg := res.Page
	var fillMin, fillMax glyph.Point
	fills := 0
	for _, s := range pg.Segments {
		if pg.Styles[s.Style].Fill == "" {
			continue
		}
		if fills == 0 {
			fillMin, fillMax = s.A, s.A
		}
		fills++
		for _, p := range []glyph.Point{s.A, s.B} {
			fillMin, fillMax = glyph.MinPoint(fillMin, p), glyph.MaxPoint(fillMax, p)
		}
	}
	if fills < 4 || fillMin.Y < 38 || fillMax.Y > 54 || fillMin.X > 22 || fillMax.X < 278 {
		t.Errorf("%d filled outline segments from %v to %v: want the wall's outline (20..280, 40..52)", fills, fillMin, fillMax)
	}
	stem := false
	for _, s := range pg.Segments {
		if pg.Styles[s.Style].Stroke == "" {
			continue
		}
		top, bottom := math.Min(s.A.Y, s.B.Y), math.Max(s.A.Y, s.B.Y)
		if math.Abs(s.A.X-150.5) < 2 && math.Abs(s.B.X-150.5) < 2 && top < 58 && bottom > 145 {
			stem = true
		}
	}
	if !stem {
		t.Errorf("the stroke ending on the wall is not one segment from the wall to its end: %v", pg.Segments)
	}
	for _, s := range pg.Segments {
		if pg.Styles[s.Style].Fill != "" && s.A.Y > 60 {
			t.Errorf("filled outline segment %v where thick strokes meet", s)
		}
		if pg.Styles[s.Style].Fill != "" && s.A.Y < 10 {
			t.Errorf("filled outline segment %v of the stroke along the image's edge", s)
		}
	}
}

// TestArcThroughAJunction: a socket's half circle whose stem crosses it
// at its top is one arc of about 180°, not two quarters split where the
// stem meets it.
func TestArcThroughAJunction(t *testing.T) {
	c := newCanvas(120, 100)
	for a := math.Pi; a <= 2*math.Pi+0.001; a += 0.004 {
		c.dot(60+18*math.Cos(a), 70+18*math.Sin(a), 1)
	}
	c.line(42, 70, 78, 70, 1) // its straight side
	c.line(60, 40, 60, 70, 1) // the stem, crossing the arc's top
	res, err := Trace(context.Background(), c.Gray, nil)
	if err != nil {
		t.Fatal(err)
	}
	best := drawing.Arc{}
	for _, a := range res.Page.Arcs {
		if math.Abs(a.Sweep) > math.Abs(best.Sweep) {
			best = a
		}
	}
	if math.Abs(best.Sweep) < 165 || math.Hypot(best.C.X-60.5, best.C.Y-70.5) > 1.5 || math.Abs(best.R-18) > 1.5 {
		t.Errorf("arcs %+v: want one of about 180° on (60.5, 70.5) r 18", res.Page.Arcs)
	}
}

// TestColumnOfGlyphsIsNoText: on a page writing many letters along its
// rows, a column of pieces twice as wide as those letters are high (a
// legend's glyphs stacked close) is not taken for text turned 90°, while
// a column of letter-sized pieces is.
func TestColumnOfGlyphsIsNoText(t *testing.T) {
	var ps []ink.Piece
	r := func(x0, y0, x1, y1 int) { ps = append(ps, ink.Piece{Box: image.Rect(x0, y0, x1, y1)}) }
	for line := range 4 { // rows of text, letters 14 px high
		for k := range 12 {
			x := 300 + k*11
			r(x, 100+line*30, x+9, 114+line*30)
		}
	}
	glyphs := len(ps)
	for k := range 4 { // a column of glyphs 32 px wide, 13 high, 9 apart
		r(100, 100+k*22, 132, 113+k*22)
	}
	turned := len(ps)
	for k := range 5 { // a word turned 90°: letters 14 wide, 9 high
		r(600, 100+k*11, 614, 109+k*11)
	}
	got := letters(ps)
	for i := range ps {
		want := i < glyphs || i >= turned
		if got[i] != want {
			t.Errorf("piece %d at %v: letter %v, want %v", i, ps[i].Box, got[i], want)
		}
	}
}

// TestLettersBesideWordsRead: a digit standing a word space from the
// words read (OCR left it out) is text and leaves the drawing; a symbol
// further off stays drawing.
func TestLettersBesideWordsRead(t *testing.T) {
	c := newCanvas(400, 120)
	for k := range 4 { // a word read
		x := 60.0 + float64(k)*16
		c.line(x, 40, x+10, 40, 1)
		c.line(x+10, 40, x+10, 60, 1)
		c.line(x+10, 60, x, 60, 1)
		c.line(x, 60, x, 40, 1)
	}
	c.line(40, 40, 40, 60, 1) // a "1" a word space before it
	c.circle(300, 50, 20, 1)  // a symbol
	rd := &reader{}
	res, err := Trace(context.Background(), c.Gray, readAllBut{rd, 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Page.Segments {
		if s.A.X < 45 && s.B.X < 45 {
			t.Errorf("segment %v of the digit left out by OCR is still drawing", s)
		}
	}
	if len(res.Page.Arcs) != 1 {
		t.Errorf("arcs %v: want the symbol's circle", res.Page.Arcs)
	}
}

// readAllBut reads as reader does, but leaves out the outline segments
// left of x (a letter OCR did not read), and places its one character on
// the word right of x.
type readAllBut struct {
	r *reader
	x float64
}

func (b readAllBut) Read(ctx context.Context, pg *drawing.Page) (*ocrtext.Result, error) {
	res, err := b.r.Read(ctx, pg)
	if err != nil || res == nil {
		return res, err
	}
	for i, s := range pg.Segments {
		if s.A.X < b.x+5 {
			res.Segments[i] = false
		}
	}
	res.Chars = []drawing.Char{{Text: "W", Min: glyph.Point{X: 58, Y: 38}, Max: glyph.Point{X: 122, Y: 62}, Size: 24}}
	return res, nil
}

// TestCornersStaySharp: a box drawn in strokes 1, 2 and 3 pixels wide
// traces to four sides meeting at its corners, not to sides joined by
// the diagonal cuts thinning leaves across each corner (a matcher that
// anchors its poses on corners by their arms' lengths found none: cp4's
// pull stations traced from a 200-DPI render).
func TestCornersStaySharp(t *testing.T) {
	for _, w := range []int{1, 2, 3} {
		c := newCanvas(100, 100)
		for k := range w {
			o := float64(k)
			c.line(20, 20+o, 70, 20+o, 0)
			c.line(70-o, 20, 70-o, 70, 0)
			c.line(70, 70-o, 20, 70-o, 0)
			c.line(20+o, 70, 20+o, 20, 0)
		}
		res, err := Trace(context.Background(), c.Gray, nil)
		if err != nil {
			t.Fatal(err)
		}
		segs := res.Page.Segments
		if len(segs) != 4 {
			t.Errorf("stroke %d px: %d segments, want the 4 sides: %v", w, len(segs), segs)
			continue
		}
		for _, s := range segs {
			if l := math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y); l < 47 {
				t.Errorf("stroke %d px: a side %.1f px long, drawn 50: %v", w, l, s)
			}
		}
	}
}

// TestWordsOnCleanImagesOnly: Words reads a word on an image rendered
// from a drawing, its characters and no drawing; with cleanOnly it
// leaves a scan (paper that varies from pixel to pixel) unread, and reads
// it without.
func TestWordsOnCleanImagesOnly(t *testing.T) {
	clean := newCanvas(300, 120)
	clean.boxWord()
	rd := &reader{}
	res, err := Words(context.Background(), clean.Gray, rd, true)
	if err != nil || res == nil {
		t.Fatalf("clean image: %v, %v; want its words read", res, err)
	}
	if len(res.Page.Chars) != 1 || len(res.Page.Segments) != 0 || len(res.Page.Arcs) != 0 {
		t.Errorf("clean image: %d characters, %d segments, %d arcs; want the reader's word and no drawing", len(res.Page.Chars), len(res.Page.Segments), len(res.Page.Arcs))
	}
	scan := newCanvas(300, 120)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range scan.Pix {
		scan.Pix[i] = uint8(225 + rng.IntN(31))
	}
	scan.boxWord()
	if res, err := Words(context.Background(), scan.Gray, &reader{}, true); err != nil || res != nil {
		t.Errorf("scan with cleanOnly: %v, %v; want nil, not read", res, err)
	}
	if res, err := Words(context.Background(), scan.Gray, &reader{}, false); err != nil || res == nil {
		t.Errorf("scan without cleanOnly: %v, %v; want it read", res, err)
	}
}

// TestWordsApartFromColouredStrokes: a black word crossed by a red line
// (a CAD render's cable through a tag) is read: its letters are pieces of
// their own, apart from the red ink, where read by darkness alone the
// line joined them into one piece that is no letter.
func TestWordsApartFromColouredStrokes(t *testing.T) {
	c := newCanvas(300, 120)
	c.boxWord()
	red := newCanvas(300, 120)
	red.line(5, 50, 290, 50, 1)
	img := image.NewRGBA(c.Bounds())
	for i, v := range c.Pix {
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = v, v, v, 255
		if red.Pix[i] == 0 {
			img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2] = 220, 0, 0
		}
	}
	rd := &reader{}
	res, err := Words(context.Background(), img, rd, true)
	if err != nil || res == nil {
		t.Fatalf("Words: %v, %v", res, err)
	}
	if rd.outlines == 0 || len(res.Page.Chars) == 0 {
		t.Errorf("the word crossed by a red line: %d outlines read, %d characters; want its letters read", rd.outlines, len(res.Page.Chars))
	}
	// the same drawn in black: one piece, no letters
	black := newCanvas(300, 120)
	copy(black.Pix, c.Pix)
	black.line(5, 50, 290, 50, 1)
	rd = &reader{}
	if _, err := Words(context.Background(), black.Gray, rd, true); err != nil {
		t.Fatal(err)
	}
	if rd.outlines != 0 {
		t.Errorf("the word crossed by a black line: %d outlines read, want none (one piece with the line)", rd.outlines)
	}
}
