package legend

import (
	"context"
	"slices"
	"testing"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/ocrtext"
)

// TestTurnedLegend: a legend set in a column turned 90° on the sheet (its
// text reads top to bottom, or bottom to top) is found by reading the
// page turned, and its table and rows are given in the sheet's own
// pixels.
func TestTurnedLegend(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	rows := []string{"SMOKE DETECTOR", "HEAT DETECTOR", "MANUAL CALL POINT", "DISTRIBUTION BOARD", "DOUBLE SOCKET OUTLET"}
	upright := stack(rows)
	want := Find(upright, 0, v)
	if len(want) != 1 {
		t.Fatalf("upright: %d tables", len(want))
	}
	for _, angle := range []float64{90, -90} {
		// Turning the upright sheet by -angle writes its text at angle.
		u := turn{angle: -angle, w: upright.Width, h: upright.Height}
		sheet := u.page(upright)
		if got := turnedAngles(sheet); !slices.Equal(got, []float64{angle}) {
			t.Fatalf("%g°: turned angles %v", angle, got)
		}
		if tb := find(sheet, 0, runs(sheet), v.maps(), nil); len(tb) != 0 {
			t.Errorf("%g°: %d tables read upright", angle, len(tb))
		}
		d, err := Read(context.Background(), pages{sheet}, v)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Rows) != len(rows) {
			t.Fatalf("%g°: %d rows, want %d", angle, len(d.Rows), len(rows))
		}
		for i, r := range d.Rows {
			if r.Description != rows[i] || len(r.Glyph.Shapes) == 0 {
				t.Errorf("%g°: row %d %q with %d shapes, want %q", angle, i, r.Description, len(r.Glyph.Shapes), rows[i])
			}
			// The glyph box is where the glyph is on the sheet.
			g := want[0].Rows[i].GlyphBox
			c := u.to(glyph.Point{X: (g.Min.X + g.Max.X) / 2, Y: (g.Min.Y + g.Max.Y) / 2})
			if !r.GlyphBox.Contains(c) || !d.InTable(0, c) {
				t.Errorf("%g°: row %d glyph box %v does not hold the glyph's centre %v on the sheet (in the table: %v)", angle, i, r.GlyphBox, c, d.InTable(0, c))
			}
		}
	}
}

// fakeOutlines reads a fixed text off any page, marking its first pieces
// as the text's outlines.
type fakeOutlines struct {
	chars []drawing.Char
	marks int
	calls int
}

func (f *fakeOutlines) Read(_ context.Context, pg *drawing.Page) (*ocrtext.Result, error) {
	f.calls++
	res := &ocrtext.Result{Chars: f.chars, Segments: make([]bool, len(pg.Segments)), Arcs: make([]bool, len(pg.Arcs)), Lines: 1, Read: 1}
	for i := range min(f.marks, len(pg.Segments)) {
		res.Segments[i] = true
	}
	return res, nil
}

// TestReadWithOutlines: a page that writes no text is read through the
// OutlineReader; its page as read has the characters read and lacks the
// outlines that drew them, its text source is OCR and it is no longer
// Textless. Pages with a text layer are not given to OCR, and where OCR
// reads nothing the page stays Textless.
func TestReadWithOutlines(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	bare := &drawing.Page{Width: 2000, Height: 2000, Styles: []drawing.Style{{Fill: "#000000"}}}
	for i := range 300 {
		x := float64(i) * 5
		bare.Segments = append(bare.Segments, drawing.Segment{A: glyph.Point{X: x, Y: 100}, B: glyph.Point{X: x + 3, Y: 100}})
	}
	var title []drawing.Char
	for i, r := range "FLOOR PLAN" {
		x := 500 + 20*float64(i)
		title = append(title, drawing.Char{Text: string(r), Min: glyph.Point{X: x, Y: 80}, Max: glyph.Point{X: x + 16, Y: 100}, Origin: glyph.Point{X: x, Y: 100}, Size: 28})
	}
	withText := stack([]string{"SMOKE DETECTOR", "HEAT DETECTOR"})
	f := &fakeOutlines{chars: title, marks: 100}
	ctx := context.Background()
	d, err := ReadWith(ctx, pages{bare, withText}, v, Options{Outlines: f})
	if err != nil {
		t.Fatal(err)
	}
	if f.calls != 1 || len(d.Textless) != 0 || d.TextSource(0) != TextOCR || d.TextSource(1) != TextPDF {
		t.Fatalf("OCR calls %d, textless %v, sources %q %q", f.calls, d.Textless, d.TextSource(0), d.TextSource(1))
	}
	read := d.Page(0, bare)
	if len(read.Chars) != len(title) || len(read.Segments) != len(bare.Segments)-100 || len(bare.Chars) != 0 {
		t.Errorf("page as read: %d chars, %d segments (of %d); the drawing itself %d chars", len(read.Chars), len(read.Segments), len(bare.Segments), len(bare.Chars))
	}
	if d.Page(1, withText) != withText {
		t.Error("a page with a text layer is changed")
	}
	// Saved and resumed, the reading keeps the text read.
	b, err := d.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Document
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if got := back.Page(0, bare); len(got.Chars) != len(title) || len(got.Segments) != len(read.Segments) {
		t.Errorf("resumed: %d chars, %d segments", len(got.Chars), len(got.Segments))
	}
	// A drawing of another make-up (not the one read) keeps its pieces.
	other := *bare
	other.Segments = other.Segments[:250]
	if got := d.Page(0, &other); len(got.Segments) != 250 {
		t.Errorf("another drawing lost pieces: %d of 250", len(got.Segments))
	}
	d, err = ReadWith(ctx, pages{bare}, v, Options{Outlines: &fakeOutlines{}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Textless, []int{0}) || d.TextSource(0) != TextNone {
		t.Errorf("nothing read: textless %v, source %q", d.Textless, d.TextSource(0))
	}
}

// TestExplainTurned: Explain says a page was searched turned and
// accounts for the turned legend's column.
func TestExplainTurned(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	upright := stack([]string{"SMOKE DETECTOR", "HEAT DETECTOR", "MANUAL CALL POINT", "DISTRIBUTION BOARD"})
	sheet := turn{angle: -90, w: upright.Width, h: upright.Height}.page(upright)
	ctx := context.Background()
	d, err := Read(ctx, pages{sheet}, v)
	if err != nil {
		t.Fatal(err)
	}
	x, err := Explain(ctx, pages{sheet}, v, d)
	if err != nil {
		t.Fatal(err)
	}
	p := x.Pages[0]
	if !slices.Equal(p.Turned, []float64{90}) || len(p.Columns) != 1 || !p.Columns[0].Table || p.TextSource != TextPDF || len(p.Rows) != 4 {
		t.Fatalf("turned legend explained: %+v", p)
	}
	// The account is in the sheet's pixels: the column holds the rows'
	// glyphs where they are drawn on the sheet.
	for i, r := range d.Rows {
		c := glyph.Point{X: (r.GlyphBox.Min.X + r.GlyphBox.Max.X) / 2, Y: (r.GlyphBox.Min.Y + r.GlyphBox.Max.Y) / 2}
		if !p.Columns[0].Box.Contains(c) {
			t.Errorf("row %d's glyph at %v on the sheet lies outside the column explained at %v", i, c, p.Columns[0].Box)
		}
	}
}
