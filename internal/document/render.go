package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"sync"

	fitz "github.com/gen2brain/go-fitz"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
)

// Document is an opened upload, read one page at a time. It is for one
// goroutine at a time: MuPDF renders one page of a document at a time
// (go-fitz serialises its calls), so render several documents, not several
// pages of one, to use more cores.
type Document struct {
	pdf    *fitz.Document // PDFs
	img    image.Image    // images: the decoded upload
	pages  int
	lim    Limits
	closed bool
}

// Open prepares a file for rendering. It expects a file that passed
// Validate with the same mime and limits; it still refuses what it cannot
// open (the same *InvalidError reasons) and Page re-checks each page's
// pixels before rendering it. Images are decoded here, once. MuPDF reads a
// PDF from data in place: do not modify data until Close. Close the
// Document when done.
func Open(ctx context.Context, data []byte, mime string, lim Limits) (*Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open document: %w", err)
	}
	mime = NormalizeMIME(mime)
	if mime == MimePDF {
		doc, err := openPDF(data)
		if err != nil {
			return nil, err
		}
		n := doc.NumPage()
		if err := checkPageCount(n, lim); err != nil {
			doc.Close()
			return nil, err
		}
		return &Document{pdf: doc, pages: n, lim: lim}, nil
	}
	img, err := decodeImage(ctx, data, mime, lim)
	if err != nil {
		return nil, err
	}
	return &Document{img: img, pages: 1, lim: lim}, nil
}

// NumPages returns the number of pages: the PDF's page count, 1 for an
// image.
func (d *Document) NumPages() int { return d.pages }

// Page renders page i (0-based).
//
// PDF pages are rasterised by MuPDF at 200 DPI using the CropBox with
// /Rotate applied; Width and Height are round(pt × 200 / 72) of that
// rotated box, and Raster is an opaque *image.RGBA of exactly that size
// (colour is kept: drawings colour-code symbols; 4 bytes a pixel, about
// 125 MB for an A1 sheet). A page over MaxPagePixels is refused with a
// page_too_large *InvalidError before any pixel is allocated. The PDF field
// serves the page's drawing, read from MuPDF's SVG of the page (produced
// here once; it also gives the exact page size) on the first Drawing call
// and shared by every later one: callers must not modify it.
//
// Images: page 0 only, Raster is the decoded image at its native size and
// PDF is nil.
func (d *Document) Page(ctx context.Context, i int) (detect.Page, error) {
	if d.closed {
		return detect.Page{}, errors.New("render page: document is closed")
	}
	if i < 0 || i >= d.pages {
		return detect.Page{}, fmt.Errorf("render page %d: out of range (%d pages)", i, d.pages)
	}
	if err := ctx.Err(); err != nil {
		return detect.Page{}, fmt.Errorf("render page %d: %w", i, err)
	}
	if d.pdf == nil {
		b := d.img.Bounds()
		return detect.Page{Index: 0, Width: b.Dx(), Height: b.Dy(), Raster: d.img}, nil
	}

	svgBytes, w, h, err := d.pageSVG(i)
	if err != nil {
		return detect.Page{}, fmt.Errorf("render page %d: %w", i, err)
	}
	if err := ctx.Err(); err != nil {
		return detect.Page{}, fmt.Errorf("render page %d: %w", i, err)
	}
	rgba, err := d.pdf.ImageDPI(i, detect.RenderDPI)
	if err != nil {
		return detect.Page{}, fmt.Errorf("render page %d: %w", i, err)
	}
	return detect.Page{
		Index:  i,
		Width:  w,
		Height: h,
		Raster: fitSize(rgba, w, h),
		PDF:    &svgPage{svg: svgBytes},
	}, nil
}

// Drawing reads what page i (0-based) of a PDF draws, without rendering
// its raster: the document pass reads every page this way before the page
// pass renders them. The page limits are checked as Page checks them. An
// image has no drawing: (nil, nil).
func (d *Document) Drawing(ctx context.Context, i int) (*drawing.Page, error) {
	if d.closed {
		return nil, errors.New("read page drawing: document is closed")
	}
	if i < 0 || i >= d.pages {
		return nil, fmt.Errorf("read page %d drawing: out of range (%d pages)", i, d.pages)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read page %d drawing: %w", i, err)
	}
	if d.pdf == nil {
		return nil, nil
	}
	svg, _, _, err := d.pageSVG(i)
	if err != nil {
		return nil, fmt.Errorf("read page %d drawing: %w", i, err)
	}
	return (&svgPage{svg: svg}).Drawing(ctx)
}

// pageSVG writes page i of the PDF as SVG with MuPDF and returns it with
// the page's raster size at 200 DPI, refusing a page over MaxPagePixels
// (page_too_large, before MuPDF writes anything when the whole-point bounds
// already tell) or of no area.
func (d *Document) pageSVG(i int) (svg []byte, w, h int, err error) {
	bnd, err := d.pdf.Bound(i)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("load: %w", err)
	}
	if w, h := pixelsAt200(float64(bnd.Dx())), pixelsAt200(float64(bnd.Dy())); int64(w)*int64(h) > d.lim.MaxPagePixels {
		return nil, 0, 0, pageTooLarge(i, w, h, d.lim)
	}
	s, err := d.pdf.SVG(i)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("svg: %w", err)
	}
	svg = []byte(s)
	wpt, hpt, err := parseSVGSize(svg)
	if err != nil {
		return nil, 0, 0, err
	}
	w, h = pixelsAt200(wpt), pixelsAt200(hpt)
	if int64(w)*int64(h) > d.lim.MaxPagePixels {
		return nil, 0, 0, pageTooLarge(i, w, h, d.lim)
	}
	if w <= 0 || h <= 0 {
		return nil, 0, 0, fmt.Errorf("empty page (%g × %g pt)", wpt, hpt)
	}
	return svg, w, h, nil
}

// fitSize returns img cut to w × h. MuPDF rounds the page's pixel box
// outwards (a partly covered last column or row is kept); the raster of the
// contract is round(pt × 200 / 72), at most one pixel less per side. A
// raster smaller than that is padded with white.
func fitSize(img *image.RGBA, w, h int) *image.RGBA {
	b := img.Bounds()
	if b.Min == (image.Point{}) && b.Dx() >= w && b.Dy() >= h {
		return img.SubImage(image.Rect(0, 0, w, h)).(*image.RGBA)
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(out, out.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out
}

// svgPage is a PDF page's vector side: MuPDF's SVG of the page, produced
// once by Page, read into a drawing.Page on the first Drawing call and
// shared by every later one.
type svgPage struct {
	once sync.Once
	svg  []byte
	page *drawing.Page
	err  error
}

// Drawing returns the page's primitives in raster pixels. The first call
// reads the SVG (under its context: a cancelled first call leaves the error
// for every caller) and drops it.
func (s *svgPage) Drawing(ctx context.Context) (*drawing.Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("page drawing: %w", err)
	}
	s.once.Do(func() {
		s.page, s.err = drawing.FromSVG(ctx, s.svg, float64(detect.RenderDPI)/72)
		s.svg = nil
	})
	return s.page, s.err
}

// Close releases MuPDF's memory. Calling it twice is harmless.
func (d *Document) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	d.img = nil
	if d.pdf != nil {
		if err := d.pdf.Close(); err != nil {
			return fmt.Errorf("close pdf: %w", err)
		}
	}
	return nil
}

// EncodePNG encodes a page raster as PNG, favouring speed over size (the
// page images of image_url are large and written once).
func EncodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), nil
}
