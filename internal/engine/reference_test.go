package engine

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strings"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/legend"
)

// refDocument is a document.Document as a detect.ReferenceDoc.
type refDocument struct{ *document.Document }

func (d refDocument) PageImage(ctx context.Context, i int) (image.Image, error) {
	p, err := d.Page(ctx, i)
	if err != nil {
		return nil, err
	}
	return p.Raster, nil
}

// openPNG opens an image as a document, closed with the test.
func openPNG(t *testing.T, data []byte) *document.Document {
	t.Helper()
	doc, err := document.Open(context.Background(), data, document.MimePNG, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { doc.Close() })
	return doc
}

// withoutLegend is the image legendImage drew with its legend blanked: a
// plan page sent alone.
func withoutLegend(t *testing.T, data []byte) []byte {
	t.Helper()
	src, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(src.Bounds())
	draw.Draw(img, img.Bounds(), src, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, 0, 500, 225), image.White, image.Point{}, draw.Src)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// legendReference is the reference a job of legendImage's drawing lends:
// its two legend rows, their glyphs where legendImage draws them.
func legendReference() detect.Reference {
	return detect.Reference{
		Rows: []detect.LegendRow{
			{PageIndex: 0, Description: "SMOKE DETECTOR", Class: "smoke_detector", ReferenceJob: "job-a"},
			{PageIndex: 0, Description: "MANUAL CALL POINT", Class: "manual_call_point", ReferenceJob: "job-a"},
		},
		Glyphs: []detect.ReferenceGlyph{
			{Page: 0, Box: detect.Box{X: 65, Y: 85, W: 50, H: 50}, Row: 0},
			{Page: 0, Box: detect.Box{X: 63, Y: 148, W: 54, H: 48}, Row: 1},
		},
	}
}

// A plan image sent alone, with no legend and no OCR, is counted by the
// glyphs of another job's legend: each of its smoke detectors is found,
// under the reference's row, and the saved pass resumes to the same
// detections.
func TestReferenceLegendOnImage(t *testing.T) {
	ctx := context.Background()
	e := engineNoRaster(t)
	legendPNG, want := legendImage(t, 1)
	cut, err := e.CutReference(ctx, refDocument{openPNG(t, legendPNG)}, legendReference())
	if err != nil {
		t.Fatal(err)
	}
	re, err := e.WithReferences([][]byte{cut})
	if err != nil {
		t.Fatal(err)
	}
	plan := openPNG(t, withoutLegend(t, legendPNG))
	eng, info, state, err := re.(*Referenced).PrepareSaved(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Legend) != 2 || info.Legend[0].ReferenceJob != "job-a" || info.Legend[0].Class != "smoke_detector" {
		t.Fatalf("legend %+v: want the reference's two rows", info.Legend)
	}
	p, ds := detectPage(t, eng, plan, 0)
	smoke := 0
	for _, d := range ds {
		if d.Class != "smoke_detector" {
			continue
		}
		if d.LegendRow != 1 {
			t.Errorf("smoke detector at %+v counts under legend row %d, want 1", d.Box, d.LegendRow)
		}
		c := image.Pt(int(d.Box.X+d.Box.W/2), int(d.Box.Y+d.Box.H/2))
		near := false
		for _, w := range want["smoke_detector"] {
			near = near || math.Hypot(float64(c.X-w.X), float64(c.Y-w.Y)) < 15
		}
		if !near {
			t.Errorf("smoke detector at %v is none of the drawn ones", c)
		}
		smoke++
	}
	if smoke != len(want["smoke_detector"]) {
		t.Errorf("%d smoke detectors found, %d drawn", smoke, len(want["smoke_detector"]))
	}
	// Without the reference the image is the raster detector's, which
	// is off here: the engine has no legend to count with.
	if _, _, err := e.Prepare(ctx, plan); err != nil {
		t.Fatal(err)
	}
	resumed, rinfo, err := e.Resume(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	if len(rinfo.Legend) != len(info.Legend) {
		t.Fatalf("resumed legend has %d rows, prepared %d", len(rinfo.Legend), len(info.Legend))
	}
	rds, err := resumed.Detect(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(rds) != len(ds) {
		t.Errorf("resumed engine found %d, prepared %d", len(rds), len(ds))
	}
}

// A reference that is not CutReference's is refused, and a glyph of a
// row or page out of range is not cut.
func TestReferenceRefusals(t *testing.T) {
	e := engineNoRaster(t)
	if _, err := e.WithReferences([][]byte{[]byte("not a reference")}); err == nil {
		t.Error("WithReferences took bytes that are no cut reference")
	}
	legendPNG, _ := legendImage(t, 1)
	ref := legendReference()
	ref.Glyphs[1].Row = 5
	if _, err := e.CutReference(context.Background(), refDocument{openPNG(t, legendPNG)}, ref); err == nil {
		t.Error("CutReference cut a glyph of a row the reference does not have")
	}
}

// joinRefs: each reference row follows the document's in the legend; a
// vector glyph joins the matcher numbered after the document's rows; on
// images a row that lends its glyph as a plan draws it is searched by
// that glyph alone, a row without one by its legend crop, and a legend
// crop too plain to search is kept but marked plain.
func TestJoinRefs(t *testing.T) {
	info := detect.DocumentInfo{Legend: []detect.LegendRow{{Description: "own"}}}
	refs := []refCut{{
		Rows: []detect.LegendRow{{Class: "smoke_detector", ReferenceJob: "a"}, {Class: "manual_call_point", ReferenceJob: "a"}},
		Glyphs: []refGlyph{
			{Row: 0, Crop: []byte("legend smoke")},
			{Row: 0, Crop: []byte("plan smoke"), Drawn: true},
			{Row: 1, Crop: []byte("legend call"), Plain: true},
		},
	}}
	de := &docEngine{}
	_, il := joinRefs(refs, &info, nil, 1, de, nil)
	if len(info.Legend) != 3 || info.Legend[1].Class != "smoke_detector" || info.Legend[2].ReferenceJob != "a" {
		t.Fatalf("legend %+v: want the document's row, then the reference's two", info.Legend)
	}
	if il == nil || len(il.Rows) != 2 {
		t.Fatalf("image rows %+v: want the smoke detector's plan glyph and the call point's legend glyph", il)
	}
	if string(il.Rows[0].Crop) != "plan smoke" || il.Rows[0].row != 2 || !il.Rows[0].ref {
		t.Errorf("first image row %+v: want the plan's smoke detector under legend row 2", il.Rows[0])
	}
	if string(il.Rows[1].Crop) != "legend call" || il.Rows[1].row != 3 || !il.Rows[1].Plain {
		t.Errorf("second image row %+v: want the call point's legend glyph, plain, under legend row 3", il.Rows[1])
	}
}

// onlyGlyph keeps the ink of the cut glyph and paints white what merely
// crosses its box: a wall through a circle symbol is gone from the crop,
// the circle stays.
func TestOnlyGlyph(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 100, 100))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	const cx, cy, rpx = 50.0, 50.0, 12.0
	for a := 0.0; a < 2*math.Pi; a += 0.01 {
		img.SetGray(int(cx+rpx*math.Cos(a)), int(cy+rpx*math.Sin(a)), color.Gray{})
	}
	for x := range 100 {
		img.SetGray(x, 20, color.Gray{}) // a wall crossing the box above the circle
	}
	cut := legend.Cut{
		Glyph: glyph.Glyph{Shapes: []glyph.Shape{{Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: rpx / pxPerMM}}},
		Drawn: legend.Rect{Min: glyph.Point{X: cx - rpx, Y: cy - rpx}, Max: glyph.Point{X: cx + rpx, Y: cy + rpx}},
	}
	box := image.Rect(15, 15, 85, 85)
	out := onlyGlyph(img, box, cut)
	if g := color.GrayModel.Convert(out.At(50, 20)).(color.Gray).Y; g != 255 {
		t.Errorf("the wall at (50,20) is %d, want white", g)
	}
	if g := color.GrayModel.Convert(out.At(int(cx+rpx), int(cy))).(color.Gray).Y; g != 0 {
		t.Errorf("the circle at (%d,%d) is %d, want its ink", int(cx+rpx), int(cy), g)
	}
}

// TestLegendGlyphsOfReferences: a plan sent alone, counted with another
// job's legend, is judged by that legend's glyphs: its references' cut
// glyphs join its own, and a reference that draws its own symbols makes
// the job one that does.
func TestLegendGlyphsOfReferences(t *testing.T) {
	cat, _, eng := synthEngine(t)
	smoke := catalogGlyph(t, cat, "smoke_detector")
	square := glyph.Glyph{Shapes: []glyph.Shape{
		{Kind: glyph.KindRect, Pts: []glyph.Point{{X: -2, Y: -2}, {X: 2, Y: 2}}},
		{Kind: glyph.KindText, Text: "F", Pts: []glyph.Point{{X: 0, Y: 0.7}}, Size: 1.4},
	}}
	var ld legend.Document
	refs := []refCut{{
		Rows:   []detect.LegendRow{{Class: "smoke_detector"}, {Class: "manual_call_point"}, {Class: ""}},
		Glyphs: []refGlyph{{Row: 0, Glyph: smoke.Transform(glyph.Scale(1.3))}, {Row: 1, Glyph: square}, {Row: 1, Glyph: square, Drawn: true}, {Row: 2, Glyph: square}},
	}}
	gs := legendGlyphs(&ld, nil, refs)
	if len(gs) != 3 {
		t.Fatalf("%d legend glyphs of the references, want 3 (the row of no class left out)", len(gs))
	}
	own, drawn, err := eng.legendStyle(context.Background(), gs)
	if err != nil {
		t.Fatal(err)
	}
	if own != 2 || !drawn["smoke_detector"] || drawn["manual_call_point"] {
		t.Errorf("%d own glyphs, the catalog's drawn for %v; want the call point's two own, the smoke detector the catalog's", own, drawn)
	}
}

// catalogGlyph is the catalog's glyph of class.
func catalogGlyph(t *testing.T, cat *catalog.Catalog, class string) glyph.Glyph {
	t.Helper()
	for _, s := range cat.Symbols() {
		if s.Class == class {
			return s.Glyph
		}
	}
	t.Fatalf("no %s in the catalog", class)
	return glyph.Glyph{}
}

// A reference's glyph is searched over its own page, which the reference
// counts, before an image page is counted by it: a legend glyph or a
// glyph as the plan draws it whose search finds what that page counts is
// counted on the plan image, as is one that finds its class's devices
// there (rows of one class drawn alike); one whose search does not (the
// page counts far more, or none) is not, and a reference_rows_not_counted
// warning names its row.
func TestReferenceGlyphsCheckedOnTheirPage(t *testing.T) {
	e := engineNoRaster(t)
	legendPNG, want := legendImage(t, 1)
	drawn := len(want["smoke_detector"])
	plan := openPNG(t, withoutLegend(t, legendPNG))
	at := want["smoke_detector"][0]
	cases := []struct {
		name  string
		glyph detect.ReferenceGlyph
		count int // the smoke detectors the page counts, as the reference says
		class int // and of their class, over every row naming it
		found bool
	}{
		{"legend glyph, the page's count", legendReference().Glyphs[0], drawn, drawn, true},
		{"legend glyph, a count the search does not find", legendReference().Glyphs[0], 10 * drawn, 10 * drawn, false},
		{"legend glyph, a page counting none", legendReference().Glyphs[0], 0, 0, false},
		{"legend glyph, one of the class's rows drawn alike", legendReference().Glyphs[0], 1, drawn, true},
		{"the plan's glyph, the page's count", detect.ReferenceGlyph{Page: 0, Box: detect.Box{X: float64(at.X) - 26, Y: float64(at.Y) - 26, W: 52, H: 52}, Exemplar: true, PixelsOnly: true}, drawn, drawn, true},
		{"the plan's glyph, a count the search does not find", detect.ReferenceGlyph{Page: 0, Box: detect.Box{X: float64(at.X) - 26, Y: float64(at.Y) - 26, W: 52, H: 52}, Exemplar: true, PixelsOnly: true}, 10 * drawn, 10 * drawn, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref := legendReference()
			ref.Rows, ref.Glyphs = ref.Rows[:1], []detect.ReferenceGlyph{c.glyph}
			ref.Glyphs[0].Checks = []detect.PageCount{{Page: 0, Count: c.count, ClassCount: c.class}}
			smoke, warned := smokeWithReference(t, e, refDocument{openPNG(t, legendPNG)}, ref, plan)
			switch {
			case c.found && (smoke != drawn || warned):
				t.Errorf("%d smoke detectors counted, warned %v; want the %d drawn, no warning", smoke, warned, drawn)
			case !c.found && (smoke != 0 || !warned):
				t.Errorf("%d smoke detectors counted, warned %v; want none, and a %s warning naming the row", smoke, warned, detect.WarnReferenceUnsure)
			}
		})
	}
}

// engineNoRaster is the production engine with the raster detector off,
// which the reference tests count with.
func engineNoRaster(t *testing.T) *Engine {
	t.Helper()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(cat, Options{RasterOff: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// smokeWithReference counts plan with ref cut from doc: the smoke
// detectors found, and whether a reference_rows_not_counted warning names
// the smoke detector row.
func smokeWithReference(t *testing.T, e *Engine, doc detect.ReferenceDoc, ref detect.Reference, plan *document.Document) (int, bool) {
	t.Helper()
	ctx := context.Background()
	cut, err := e.CutReference(ctx, doc, ref)
	if err != nil {
		t.Fatal(err)
	}
	re, err := e.WithReferences([][]byte{cut})
	if err != nil {
		t.Fatal(err)
	}
	eng, info, err := re.Prepare(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	_, ds := detectPage(t, eng, plan, 0)
	smoke := 0
	for _, d := range ds {
		if d.Class == "smoke_detector" {
			smoke++
		}
	}
	warned := false
	for _, w := range info.Warnings {
		warned = warned || (w.Code == detect.WarnReferenceUnsure && strings.Contains(w.Message, "SMOKE DETECTOR"))
	}
	return smoke, warned
}

// pagesOf is a detect.ReferenceDoc of image pages.
type pagesOf []image.Image

func (p pagesOf) NumPages() int { return len(p) }
func (p pagesOf) Drawing(context.Context, int) (*drawing.Page, error) {
	return nil, nil
}
func (p pagesOf) PageImage(_ context.Context, i int) (image.Image, error) { return p[i], nil }

// A glyph is checked on every page of its Checks: one that finds its own
// page's count but look-alikes on another page is not counted on the
// plan; a page where it finds nothing (drawn there at another size) is
// not held against it.
func TestReferenceGlyphsCheckedOnOtherPages(t *testing.T) {
	e := engineNoRaster(t)
	legendPNG, want := legendImage(t, 1)
	img, err := png.Decode(bytes.NewReader(legendPNG))
	if err != nil {
		t.Fatal(err)
	}
	drawn := len(want["smoke_detector"])
	plan := openPNG(t, withoutLegend(t, legendPNG))
	blank := image.NewGray(img.Bounds())
	draw.Draw(blank, blank.Bounds(), image.White, image.Point{}, draw.Src)
	for _, c := range []struct {
		second image.Image // page 1
		count  int         // the smoke detectors page 1 counts, as the reference says
		found  bool
	}{
		{img, drawn, true},
		{img, 0, false},  // look-alikes on a page counting none
		{blank, 5, true}, // drawn otherwise there: not found, not judged
	} {
		ref := legendReference()
		ref.Rows, ref.Glyphs = ref.Rows[:1], ref.Glyphs[:1]
		ref.Glyphs[0].Checks = []detect.PageCount{{Page: 0, Count: drawn}, {Page: 1, Count: c.count}}
		smoke, warned := smokeWithReference(t, e, pagesOf{img, c.second}, ref, plan)
		if c.found != (smoke == drawn) || c.found == warned {
			t.Errorf("page 1 counting %d: %d smoke detectors counted, warned %v; want counted %v", c.count, smoke, warned, c.found)
		}
	}
}
