package ocrtext

import (
	"context"
	"errors"
	"image"
	"math"
	"strings"
	"sync"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/ocr"
)

// outlined draws text as filled glyph outlines (no characters), as CAD
// exports do, from its baseline origin along angle (degrees, y down), its
// capitals about capPx pixels high.
func outlined(t *testing.T, b *drawing.Builder, f *sfnt.Font, text string, origin glyph.Point, angle, capPx float64) {
	t.Helper()
	var buf sfnt.Buffer
	const ppem = 1000
	scale := capPx / (0.72 * ppem)
	sin, cos := math.Sincos(angle * math.Pi / 180)
	tf := func(x, y float64) glyph.Point { // font units (y down, from the pen) to page
		x, y = x*scale, y*scale
		return glyph.Point{X: origin.X + x*cos - y*sin, Y: origin.Y + x*sin + y*cos}
	}
	pen := 0.0
	fx := func(v fixed.Int26_6) float64 { return float64(v) / 64 }
	for _, r := range text {
		gi, err := f.GlyphIndex(&buf, r)
		if err != nil {
			t.Fatal(err)
		}
		segs, err := f.LoadGlyph(&buf, gi, fixed.I(ppem), nil)
		if err != nil {
			t.Fatal(err)
		}
		var cmds []drawing.PathCmd
		var cur glyph.Point
		for _, s := range segs {
			p := func(i int) glyph.Point { return tf(pen+fx(s.Args[i].X), fx(s.Args[i].Y)) }
			switch s.Op {
			case sfnt.SegmentOpMoveTo:
				if len(cmds) > 0 {
					cmds = append(cmds, drawing.PathCmd{Op: 'Z'})
				}
				cur = p(0)
				cmds = append(cmds, drawing.PathCmd{Op: 'M', P: [3]glyph.Point{cur}})
			case sfnt.SegmentOpLineTo:
				cur = p(0)
				cmds = append(cmds, drawing.PathCmd{Op: 'L', P: [3]glyph.Point{cur}})
			case sfnt.SegmentOpQuadTo:
				q, e := p(0), p(1)
				c1 := glyph.Point{X: cur.X + 2.0/3*(q.X-cur.X), Y: cur.Y + 2.0/3*(q.Y-cur.Y)}
				c2 := glyph.Point{X: e.X + 2.0/3*(q.X-e.X), Y: e.Y + 2.0/3*(q.Y-e.Y)}
				cur = e
				cmds = append(cmds, drawing.PathCmd{Op: 'C', P: [3]glyph.Point{c1, c2, e}})
			case sfnt.SegmentOpCubeTo:
				cur = p(2)
				cmds = append(cmds, drawing.PathCmd{Op: 'C', P: [3]glyph.Point{p(0), p(1), cur}})
			}
		}
		if len(cmds) > 0 {
			cmds = append(cmds, drawing.PathCmd{Op: 'Z'})
			b.Fill(cmds, glyph.Affine{A: 1, D: 1}, "#000000")
		}
		adv, err := f.GlyphAdvance(&buf, gi, fixed.I(ppem), font.HintingNone)
		if err != nil {
			t.Fatal(err)
		}
		pen += fx(adv)
	}
}

// sheet is a page that draws its words as outlines in four orientations
// beside a hatch of short stroked lines and a symbol.
func sheet(t *testing.T) (*drawing.Page, map[float64]string) {
	t.Helper()
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	b := drawing.NewBuilder(3000, 3000, 1)
	words := map[float64]string{
		0:   "SMOKE DETECTOR",
		90:  "HEAT DETECTOR",
		-90: "MANUAL CALL POINT",
		180: "DISTRIBUTION BOARD",
	}
	outlined(t, b, f, words[0], glyph.Point{X: 400, Y: 400}, 0, 24)
	outlined(t, b, f, words[90], glyph.Point{X: 2600, Y: 600}, 90, 24)
	outlined(t, b, f, words[-90], glyph.Point{X: 300, Y: 2600}, -90, 24)
	outlined(t, b, f, words[180], glyph.Point{X: 2400, Y: 2600}, 180, 24)
	for i := range 200 { // hatching: stroked, never read
		x := 800 + 6*float64(i)
		b.Stroke([]drawing.PathCmd{{Op: 'M', P: [3]glyph.Point{{X: x, Y: 1400}}}, {Op: 'L', P: [3]glyph.Point{{X: x + 20, Y: 1420}}}}, glyph.Affine{A: 1, D: 1}, "#808080", 1)
	}
	return b.Page(), words
}

// textAt joins the characters read at angle.
func textAt(cs []drawing.Char, angle float64) string {
	var s strings.Builder
	for _, c := range cs {
		if c.Angle == angle {
			s.WriteString(c.Text)
		}
	}
	return strings.Join(strings.Fields(s.String()), " ")
}

// TestReadOutlinedText: words drawn as filled outlines are read in each
// of the four orientations, as characters on the page where the outlines
// are, at the angle they are written; their outlines are marked as text
// and the hatching is not.
func TestReadOutlinedText(t *testing.T) {
	ctx := context.Background()
	rec := tesseract(t)
	pg, words := sheet(t)
	res, err := New(rec, Options{}).Read(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines < 4 || res.Read < 4 || res.Unread != 0 {
		t.Errorf("lines %d, read %d, unread %d; want 4 read of 4 or more", res.Lines, res.Read, res.Unread)
	}
	for angle, want := range words {
		if got := textAt(res.Chars, angle); got != want {
			t.Errorf("at %g°: read %q, want %q", angle, got, want)
		}
	}
	// Characters lie where their outlines are: "SMOKE" from x 400 on
	// the baseline at y 400.
	for _, c := range res.Chars {
		if c.Angle != 0 || c.Text == " " {
			continue
		}
		if c.Min.X < 390 || c.Max.X > 800 || c.Min.Y < 370 || c.Max.Y > 410 || math.Abs(c.Origin.Y-400) > 3 || c.Size < 25 || c.Size > 45 {
			t.Errorf("%q at %v–%v, origin %v, size %.1f: not on the outlines drawn from (400, 400), 24 px capitals", c.Text, c.Min, c.Max, c.Origin, c.Size)
		}
	}
	text, hatch := 0, 0
	for i, s := range pg.Segments {
		if !res.Segments[i] {
			continue
		}
		if pg.Styles[s.Style].Stroke != "" {
			hatch++
		} else {
			text++
		}
	}
	if text == 0 || hatch != 0 {
		t.Errorf("%d text pieces and %d hatch pieces marked as text; want some and none", text, hatch)
	}
}

// tesseract is the OCR the tests read with: Tesseract with English,
// skipping the test where it is not installed.
func tesseract(t *testing.T) *ocr.Reader {
	t.Helper()
	rec, err := ocr.New(context.Background(), "tesseract", "eng")
	if errors.Is(err, ocr.ErrUnavailable) {
		t.Skipf("tesseract with English data is not installed: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// blind reads nothing, counting the images it is given (safe for
// concurrent use, as Recognizer asks).
type blind struct {
	mu             sync.Mutex
	images, pixels int
}

func (b *blind) Lines(_ context.Context, img image.Image, _ ocr.Mode) ([]ocr.Line, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.images++
	b.pixels += img.Bounds().Dx() * img.Bounds().Dy()
	return nil, nil
}

// TestReadBounds: a page without outlined letters costs no OCR; lines
// past MaxLines are left unread and counted; the images read are the
// text's, not the sheet's.
func TestReadBounds(t *testing.T) {
	ctx := context.Background()
	b := &blind{}
	empty := &drawing.Page{Width: 1000, Height: 1000, Styles: []drawing.Style{{Stroke: "#000000"}}}
	for i := range 300 {
		x := float64(i)
		empty.Segments = append(empty.Segments, drawing.Segment{A: glyph.Point{X: x, Y: 0}, B: glyph.Point{X: x + 5, Y: 5}})
	}
	res, err := New(b, Options{}).Read(ctx, empty)
	if err != nil || res.Lines != 0 || b.images != 0 {
		t.Fatalf("hatch only: %+v, %v, %d images read", res, err, b.images)
	}
	pg, _ := sheet(t)
	res, err = New(b, Options{MaxLines: 2}).Read(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines < 4 || res.Unread != res.Lines-2 || res.Read != 0 || len(res.Chars) != 0 {
		t.Errorf("MaxLines 2, nothing read: %d lines, %d read, %d unread, %d chars; want all but 2 unread and none read", res.Lines, res.Read, res.Unread, len(res.Chars))
	}
	// Each image read costs a process's start: the sheet's lines, read
	// both ways along both axes, share one image.
	b.images = 0
	if _, err := New(b, Options{}).Read(ctx, pg); err != nil {
		t.Fatal(err)
	}
	if b.images != 1 {
		t.Errorf("%d images read for a sheet of four short lines; want 1", b.images)
	}
	if b.pixels > int(pg.Width*pg.Height)/10 {
		t.Errorf("%d pixels read for a %g × %g sheet: the text's images should be far smaller", b.pixels, pg.Width, pg.Height)
	}
}

// TestDropCounters: a filled letter's counters (closed contours inside
// its outline) are not letters of their own; letters side by side are.
func TestDropCounters(t *testing.T) {
	box := func(x0, y0, x1, y1 float64) component {
		return component{min: glyph.Point{X: x0, Y: y0}, max: glyph.Point{X: x1, Y: y1}}
	}
	cs := []component{
		box(0, 0, 20, 30),  // a B's outline
		box(4, 3, 16, 13),  // its upper counter
		box(4, 17, 16, 27), // its lower counter
		box(24, 0, 44, 30), // the next letter
	}
	got := dropCounters(cs)
	if len(got) != 2 || got[0].min.X != 0 || got[1].min.X != 24 {
		t.Errorf("kept %v; want the two outlines", got)
	}
}

// TestReadSmallOutlinedText: words whose capitals are 4 px high on the
// page (a drawing plotted at half its size: 0.5 mm on the sheet), their
// lower-case letters under 4 px, are read as the large ones are: an
// outline is drawn 32 px high to be read whatever its size.
func TestReadSmallOutlinedText(t *testing.T) {
	ctx := context.Background()
	rec := tesseract(t)
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	b := drawing.NewBuilder(600, 600, 1)
	const want = "DIF xyz wave"
	outlined(t, b, f, want, glyph.Point{X: 100, Y: 100}, 0, 4)
	res, err := New(rec, Options{}).Read(ctx, b.Page())
	if err != nil {
		t.Fatal(err)
	}
	if got := textAt(res.Chars, 0); got != want {
		t.Errorf("read %q from capitals 4 px high, want %q", got, want)
	}
}

// TestLoneDigitsReadByShape: a digit standing alone (a schedule's
// quantity) is read where the page's words hold its shape, without OCR;
// a lone letter (a symbol's letter) and a lone outline no word holds (a
// symbol's filled part) are not read.
func TestLoneDigitsReadByShape(t *testing.T) {
	ctx := context.Background()
	rec := tesseract(t)
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	b := drawing.NewBuilder(1200, 1200, 1)
	words := []string{"DOUBLE SOCKET 36", "SINGLE SWITCH 63", "EXTERNAL PLUG 30", "LEVER SWITCH 33", "CEILING LIGHT 66", "DATA SOCKET 36"}
	for i, w := range words {
		outlined(t, b, f, w, glyph.Point{X: 100, Y: 100 + 40*float64(i)}, 0, 14)
	}
	outlined(t, b, f, "3", glyph.Point{X: 700, Y: 600}, 0, 14)
	outlined(t, b, f, "6", glyph.Point{X: 700, Y: 700}, 0, 14)
	outlined(t, b, f, "S", glyph.Point{X: 700, Y: 900}, 0, 14)
	// A filled diamond, letter-sized.
	b.Fill([]drawing.PathCmd{
		{Op: 'M', P: [3]glyph.Point{{X: 700, Y: 790}}}, {Op: 'L', P: [3]glyph.Point{{X: 708, Y: 800}}},
		{Op: 'L', P: [3]glyph.Point{{X: 700, Y: 810}}}, {Op: 'L', P: [3]glyph.Point{{X: 692, Y: 800}}}, {Op: 'Z'},
	}, glyph.Affine{A: 1, D: 1}, "#000000")
	res, err := New(rec, Options{}).Read(ctx, b.Page())
	if err != nil {
		t.Fatal(err)
	}
	lone := map[string]bool{}
	for _, c := range res.Chars {
		if c.Origin.X > 650 && c.Text != " " {
			lone[c.Text] = true
		}
	}
	if !lone["3"] || !lone["6"] || len(lone) != 2 {
		t.Errorf("lone outlines read as %v, want the 3 and the 6, nothing for the S and the diamond", lone)
	}
}

// misreading stands for OCR reading a block of lines in context: every
// word of want it reads as got, unsure (conf 60); read word by word
// (ocr.Sparse) it reads as rec does. It counts the sparse readings.
type misreading struct {
	rec    Recognizer
	want   map[string]bool
	got    string
	mu     sync.Mutex
	sparse int
}

func (m *misreading) Lines(ctx context.Context, img image.Image, mode ocr.Mode) ([]ocr.Line, error) {
	ls, err := m.rec.Lines(ctx, img, mode)
	if mode == ocr.Sparse {
		m.mu.Lock()
		m.sparse++
		m.mu.Unlock()
		return ls, err
	}
	for i := range ls {
		for j := range ls[i].Words {
			if w := &ls[i].Words[j]; m.want[w.Text] {
				w.Text, w.Conf = m.got, 60
			}
		}
	}
	return ls, err
}

// TestUnsureLinesReadAgain: a short line OCR read unsure of a word is
// read again word by word, and the surer reading stays: tags "L9" that
// the block reading takes for "LS" at 60 (upright, and upside down where
// it reads "61") are read "L9".
func TestUnsureLinesReadAgain(t *testing.T) {
	ctx := context.Background()
	rec := &misreading{rec: tesseract(t), want: map[string]bool{"L9": true, "61": true}, got: "LS"}
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	b := drawing.NewBuilder(1500, 1500, 1)
	for i, s := range []string{"FLUORESCENT LIGHT 1530MM", "DOUBLE SOCKET OUTLET 16A", "CEILING LIGHT SURFACE MOUNT", "DATA OUTLET WALL BOX CAT6"} {
		outlined(t, b, f, s, glyph.Point{X: 100, Y: 60 + 40*float64(i)}, 0, 20)
	}
	for i := range 3 {
		outlined(t, b, f, "L9", glyph.Point{X: 200 + 300*float64(i), Y: 700 + 200*float64(i)}, 0, 20)
	}
	res, err := New(rec, Options{}).Read(ctx, b.Page())
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	var tag strings.Builder
	for _, c := range res.Chars {
		if c.Origin.Y < 580 || c.Text == " " {
			continue
		}
		if tag.WriteString(c.Text); tag.Len() == 2 {
			tags = append(tags, tag.String())
			tag.Reset()
		}
	}
	if rec.sparse == 0 || len(tags) != 3 || strings.Count(strings.Join(tags, " "), "L9") != 3 {
		t.Errorf("tags read %v with %d sparse readings; want L9 three times, read again word by word", tags, rec.sparse)
	}
}
