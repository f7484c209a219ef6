package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/imagefile"
)

// darkBox returns the bounds of the pixels darker than mid-grey.
func darkBox(img image.Image) image.Rectangle {
	var r image.Rectangle
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if (cr+cg+cb)/3 < 0x8000 {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

func nearRect(got, want image.Rectangle, tol int) bool {
	d := func(a, b int) bool { return a-b <= tol && b-a <= tol }
	return d(got.Min.X, want.Min.X) && d(got.Min.Y, want.Min.Y) && d(got.Max.X, want.Max.X) && d(got.Max.Y, want.Max.Y)
}

// rotatePt maps a point of the unrotated CropBox frame (top-left origin,
// y down, w × h points) onto the page shown rotated clockwise by rot.
func rotatePt(u, v, w, h float64, rot int) (float64, float64) {
	switch rot {
	case 90:
		return h - v, u
	case 180:
		return w - u, h - v
	case 270:
		return v, w - u
	}
	return u, v
}

// rectPx converts a rectangle in points to the pixel rectangle it covers
// more than half of at 200 DPI.
func rectPx(x0, y0, x1, y1 float64) image.Rectangle {
	s := 200.0 / 72
	return image.Rect(int(math.Round(x0*s)), int(math.Round(y0*s)), int(math.Round(x1*s)), int(math.Round(y1*s))).Canon()
}

// TestPageGeometry renders a page whose CropBox is smaller than its
// MediaBox, under each /Rotate, with a black rectangle at known
// coordinates, and checks the raster size, where the dark pixels land, and
// that the SVG uses the same rotated CropBox frame in points.
func TestPageGeometry(t *testing.T) {
	const (
		cx0, cy0, cx1, cy1 = 100.0, 200.0, 460.0, 740.0 // CropBox: 360 × 540 pt
		rx, ry, rw, rh     = 150.0, 300.0, 72.0, 36.0   // the rectangle, PDF user space
	)
	cw, ch := cx1-cx0, cy1-cy0
	// The rectangle in the unrotated crop frame, top-left origin.
	u0, u1 := rx-cx0, rx+rw-cx0
	v0, v1 := cy1-(ry+rh), cy1-ry
	ctx := context.Background()
	// /Rotate -90 and 450 are 270 and 90.
	for _, rotate := range []int{0, 90, 180, 270, -90, 450} {
		rot := ((rotate % 360) + 360) % 360
		t.Run(fmt.Sprintf("rotate %d", rotate), func(t *testing.T) {
			pdf := documenttest.PDF(documenttest.Page{
				MediaBox: "[0 0 1000 800]",
				CropBox:  fmt.Sprintf("[%g %g %g %g]", cx0, cy0, cx1, cy1),
				Rotate:   rotate,
				Content:  fmt.Sprintf("0 0 0 rg %g %g %g %g re f", rx, ry, rw, rh),
			})
			if _, err := Validate(ctx, pdf, MimePDF, DefaultLimits()); err != nil {
				t.Fatal(err)
			}
			p := firstPage(t, pdf, MimePDF)
			wantW, wantH := pixelsAt200(cw), pixelsAt200(ch)
			if rot == 90 || rot == 270 {
				wantW, wantH = wantH, wantW
			}
			if p.Width != wantW || p.Height != wantH || p.Raster.Bounds() != image.Rect(0, 0, wantW, wantH) {
				t.Fatalf("page %d × %d raster %v, want %d × %d", p.Width, p.Height, p.Raster.Bounds(), wantW, wantH)
			}
			ax, ay := rotatePt(u0, v0, cw, ch, rot)
			bx, by := rotatePt(u1, v1, cw, ch, rot)
			want := rectPx(ax, ay, bx, by)
			if got := darkBox(p.Raster); !nearRect(got, want, 1) {
				t.Errorf("dark pixels at %v, want %v", got, want)
			}

			dr, err := p.PDF.Drawing(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if pixelsAt200(dr.Width*72/detect.RenderDPI) != wantW || pixelsAt200(dr.Height*72/detect.RenderDPI) != wantH {
				t.Errorf("drawing size %g × %g px, want the raster's %d × %d px", dr.Width, dr.Height, wantW, wantH)
			}
			if len(dr.Segments) == 0 {
				t.Fatal("drawing has no segments")
			}
			mn, mx := dr.Segments[0].A, dr.Segments[0].A
			for _, sg := range dr.Segments {
				mn, mx = glyph.MinPoint(glyph.MinPoint(mn, sg.A), sg.B), glyph.MaxPoint(glyph.MaxPoint(mx, sg.A), sg.B)
			}
			const ppt = float64(detect.RenderDPI) / 72
			x0, y0, x1, y1 := mn.X/ppt, mn.Y/ppt, mx.X/ppt, mx.Y/ppt
			wx0, wy0, wx1, wy1 := min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)
			const eps = 0.01
			if math.Abs(x0-wx0) > eps || math.Abs(y0-wy0) > eps || math.Abs(x1-wx1) > eps || math.Abs(y1-wy1) > eps {
				t.Errorf("drawn rectangle (%g,%g)-(%g,%g) pt, want (%g,%g)-(%g,%g)", x0, y0, x1, y1, wx0, wy0, wx1, wy1)
			}
		})
	}
}

// TestPageRoundsSize: a page of 600.2 pt is 1667.2 px; MuPDF rounds its
// pixel box outwards to 1668, the contract's raster is round() = 1667.
func TestPageRoundsSize(t *testing.T) {
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 350.2 600.2]", Content: "0 g 0 0 350.2 600.2 re f"})
	p := firstPage(t, pdf, MimePDF)
	if p.Width != 973 || p.Height != 1667 || p.Raster.Bounds().Dx() != 973 || p.Raster.Bounds().Dy() != 1667 {
		t.Errorf("page %d × %d raster %v, want 973 × 1667", p.Width, p.Height, p.Raster.Bounds())
	}
}

func TestImagePages(t *testing.T) {
	ctx := context.Background()
	img := testImage(120, 80)
	cases := []struct {
		name, mime string
		data       []byte
		w, h       int
	}{
		{"png", MimePNG, pngBytes(t, img), 120, 80},
		{"jpeg", MimeJPGAlias, jpegBytes(t, img), 120, 80},
		{"webp", MimeWebP, readTestdata(t, "blue-purple-pink.lossy.webp"), 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Open(ctx, c.data, c.mime, DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			defer doc.Close()
			if doc.NumPages() != 1 {
				t.Fatalf("pages %d", doc.NumPages())
			}
			p, err := doc.Page(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if p.PDF != nil {
				t.Error("image page has a PDF side")
			}
			if c.w != 0 && (p.Width != c.w || p.Height != c.h) {
				t.Errorf("size %d × %d, want %d × %d", p.Width, p.Height, c.w, c.h)
			}
			if p.Raster.Bounds().Dx() != p.Width || p.Raster.Bounds().Dy() != p.Height {
				t.Errorf("raster %v for %d × %d", p.Raster.Bounds(), p.Width, p.Height)
			}
			if c.mime != MimeWebP {
				if got, want := darkBox(p.Raster), image.Rect(30, 20, 60, 40); !nearRect(got, want, 1) {
					t.Errorf("dark square at %v, want %v", got, want)
				}
			}
			if _, err := doc.Page(ctx, 1); err == nil {
				t.Error("page 1 of an image rendered")
			}
			png, err := imagefile.EncodePNG(p.Raster)
			if err != nil {
				t.Fatal(err)
			}
			if Sniff(png) != MimePNG {
				t.Error("EncodePNG did not write a PNG")
			}
		})
	}
}

func TestPageRefusesOverLimit(t *testing.T) {
	ctx := context.Background()
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 14400 14400]"})
	doc, err := Open(ctx, pdf, MimePDF, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	_, err = doc.Page(ctx, 0)
	wantInvalid(t, err, ReasonPageTooLarge)
}

// TestPageSizeIsPageSize: PageSize gives, without rendering, the size Page
// renders at (CropBox, each /Rotate, rounding, images), and refuses what
// Page refuses.
func TestPageSizeIsPageSize(t *testing.T) {
	ctx := context.Background()
	var pages []documenttest.Page
	for _, rot := range []int{0, 90, 180, 270, -90} {
		pages = append(pages, documenttest.Page{MediaBox: "[0 0 1000 800]", CropBox: "[100 200 460 740.3]", Rotate: rot, Content: "0 g 150 300 72 36 re f"})
	}
	pages = append(pages, documenttest.Page{MediaBox: "[0 0 350.2 600.2]"}, documenttest.Page{MediaBox: "[0 0 14400 14400]"})
	docs := []struct {
		name, mime string
		data       []byte
	}{
		{"pdf", MimePDF, documenttest.PDF(pages...)},
		{"png", MimePNG, pngBytes(t, testImage(120, 80))},
		{"webp", MimeWebP, readTestdata(t, "blue-purple-pink.lossy.webp")},
	}
	for _, c := range docs {
		doc, err := Open(ctx, c.data, c.mime, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		defer doc.Close()
		for i := range doc.NumPages() {
			w, h, err := doc.PageSize(ctx, i)
			p, perr := doc.Page(ctx, i)
			if perr != nil {
				wantInvalid(t, perr, ReasonPageTooLarge)
				wantInvalid(t, err, ReasonPageTooLarge)
				continue
			}
			if err != nil || w != p.Width || h != p.Height || p.Raster.Bounds() != image.Rect(0, 0, w, h) {
				t.Errorf("%s page %d: PageSize %d × %d (%v), Page renders %d × %d", c.name, i, w, h, err, p.Width, p.Height)
			}
		}
		if _, _, err := doc.PageSize(ctx, doc.NumPages()); err == nil {
			t.Errorf("%s: PageSize of a page past the end", c.name)
		}
	}
}

// firstPage opens data and renders its first page; the document is closed
// when the test ends.
func firstPage(t testing.TB, data []byte, mime string) detect.Page {
	t.Helper()
	ctx := context.Background()
	doc, err := Open(ctx, data, mime, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { doc.Close() })
	p, err := doc.Page(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// a1PDF is an A1 sheet (594 × 841 mm) drawn like a floor plan: a grid of
// walls, many short strokes and circles.
func a1PDF() []byte {
	const w, h = 1683.78, 2383.94
	var c strings.Builder
	c.WriteString("0 0 0 RG 0.5 w\n")
	for x := 20.0; x < w-20; x += 40 {
		fmt.Fprintf(&c, "%g 20 m %g %g l S\n", x, x, h-20)
	}
	for y := 20.0; y < h-20; y += 40 {
		fmt.Fprintf(&c, "20 %g m %g %g l S\n", y, w-20, y)
	}
	for x := 40.0; x < w-40; x += 80 {
		for y := 40.0; y < h-40; y += 80 {
			c.WriteString(documenttest.CircleOps(x, y, 6) + "\n") // radius 6 pt
		}
	}
	return documenttest.PDF(documenttest.Page{MediaBox: fmt.Sprintf("[0 0 %g %g]", w, h), Content: c.String()})
}

// BenchmarkPageA1 measures Page (SVG pass plus 200-DPI raster) for an A1
// sheet: 4677 × 6622 pixels.
func BenchmarkPageA1(b *testing.B) {
	ctx := context.Background()
	doc, err := Open(ctx, a1PDF(), MimePDF, DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	defer doc.Close()
	b.ResetTimer()
	for b.Loop() {
		p, err := doc.Page(ctx, 0)
		if err != nil {
			b.Fatal(err)
		}
		if p.Width != 4677 || p.Height != 6622 {
			b.Fatalf("A1 page %d × %d", p.Width, p.Height)
		}
	}
}

// BenchmarkEncodePNGA1 measures the page image encoding for image_url.
func BenchmarkEncodePNGA1(b *testing.B) {
	p := firstPage(b, a1PDF(), MimePDF)
	b.ResetTimer()
	for b.Loop() {
		if _, err := imagefile.EncodePNG(p.Raster); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDrawingWithoutRaster: Drawing reads the same primitives as the page
// pass's Drawing, refuses an out-of-range page, and gives nil for an image.
func TestDrawingWithoutRaster(t *testing.T) {
	ctx := context.Background()
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 612 792]", Rotate: 90, Content: "10 20 m 300 400 l S " + documenttest.CircleOps(200, 200, 30) + " S"})
	doc, err := Open(ctx, pdf, MimePDF, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	got, err := doc.Drawing(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := doc.Page(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.PDF.Drawing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got.Arcs) == 0 ||
		got.Width != want.Width || got.Height != want.Height || float64(p.Width) != math.Round(got.Width) {
		t.Errorf("Drawing: %d segments %d arcs %gx%g; page pass: %d segments %d arcs %gx%g (raster %dx%d)",
			len(got.Segments), len(got.Arcs), got.Width, got.Height, len(want.Segments), len(want.Arcs), want.Width, want.Height, p.Width, p.Height)
	}
	if _, err := doc.Drawing(ctx, 1); err == nil {
		t.Error("page 1 of a 1-page PDF: no error")
	}
	img := firstPageImage(t)
	idoc, err := Open(ctx, img, MimePNG, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer idoc.Close()
	if d, err := idoc.Drawing(ctx, 0); d != nil || err != nil {
		t.Errorf("image: %v, %v; want nil, nil", d, err)
	}
}

// firstPageImage is a small PNG upload.
func firstPageImage(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 40, 30))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestShareReadsThePageOnce: after Share, Drawing waits for the drawing
// Page reads from its display list and returns that very value (called
// before or after Page starts); a Page that fails hands its error to the
// waiting Drawing instead of leaving it waiting; a later Drawing reads the
// page again.
func TestShareReadsThePageOnce(t *testing.T) {
	ctx := context.Background()
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 612 792]", Content: "10 20 m 300 400 l S " + documenttest.CircleOps(200, 200, 30) + " S"})
	for _, drawingFirst := range []bool{true, false} {
		doc, err := Open(ctx, pdf, MimePDF, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		doc.Share(0)
		type res struct {
			p   detect.Page
			err error
		}
		got := make(chan res, 1)
		start := func() { go func() { p, err := doc.Page(ctx, 0); got <- res{p, err} }() }
		if !drawingFirst {
			start()
		}
		var shared *drawing.Page
		readDone := make(chan error, 1)
		go func() {
			var err error
			shared, err = doc.Drawing(ctx, 0)
			readDone <- err
		}()
		if drawingFirst {
			start()
		}
		r := <-got
		if r.err != nil {
			t.Fatal(r.err)
		}
		if err := <-readDone; err != nil {
			t.Fatal(err)
		}
		want, err := r.p.PDF.Drawing(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if shared != want || len(shared.Arcs) == 0 {
			t.Errorf("drawing first %v: Drawing after Share gave %p (%d arcs), the page's drawing is %p", drawingFirst, shared, len(shared.Arcs), want)
		}
		again, err := doc.Drawing(ctx, 0)
		if err != nil || again == want || !reflect.DeepEqual(again, want) {
			t.Errorf("Drawing after the shared one: %p, %v; want a fresh equal read", again, err)
		}
		doc.Close()
	}

	doc, err := Open(ctx, pdf, MimePDF, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	doc.Share(0)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := doc.Page(cancelled, 0); err == nil {
		t.Fatal("Page with a cancelled context: no error")
	}
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if _, err := doc.Drawing(wait, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Drawing after a failed shared Page: %v; want the Page's context.Canceled", err)
	}
}
