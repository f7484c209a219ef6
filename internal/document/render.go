package document

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sync"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/mupdf"
)

// Document is an opened upload, read one page at a time. Page and Drawing
// may be called from two goroutines at once (a page renders while others
// are read: MuPDF interprets one page at a time, rasters are drawn
// beside); Close after they return. Each PDF page is rendered on one
// core and read for its drawing on the other (see Page).
type Document struct {
	pdf    *mupdf.Document // PDFs
	img    image.Image     // images: the decoded upload
	pages  int
	lim    Limits
	closed bool
	// openBytes is OpenBytes of the file: what opening it holds.
	openBytes int64
	// charge, when set, is told the bytes of each page drawing as it grows.
	charge func(heldBytes int64)
	// mu guards shared.
	mu sync.Mutex
	// shared holds the drawings Page is reading (or will read) from a
	// display list for Drawing to take instead of reading the page again
	// (Share).
	shared map[int]*listPage
}

// Open prepares a file for rendering. It expects a file that passed
// Validate with the same mime and limits; it still refuses what it cannot
// open (the same *InvalidError reasons) and Page re-checks each page's
// pixels before rendering it. Images are decoded here, once. PDFs are
// opened with MuPDF (package mupdf) from a copy of data. Close the Document
// when done.
func Open(ctx context.Context, data []byte, mime string, lim Limits) (*Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open document: %w", err)
	}
	mime = NormalizeMIME(mime)
	if mime == MimePDF {
		doc, err := openMuPDF(data)
		if err != nil {
			return nil, err
		}
		n := doc.NumPages()
		if err := checkPageCount(n, lim); err != nil {
			doc.Close()
			return nil, err
		}
		return &Document{pdf: doc, pages: n, lim: lim, openBytes: OpenBytes(data, mime)}, nil
	}
	img, err := decodeImage(ctx, data, mime, lim)
	if err != nil {
		return nil, err
	}
	return &Document{img: img, pages: 1, lim: lim, openBytes: OpenBytes(data, mime)}, nil
}

// openMuPDF opens a PDF for rendering, starting at its "%PDF-" header, with
// the reasons of openPDF.
func openMuPDF(data []byte) (*mupdf.Document, error) {
	start := pdfStart(data)
	if start < 0 {
		return nil, invalid(ReasonCorrupt, nil, "the file has no PDF header")
	}
	doc, err := mupdf.Open(data[start:])
	if errors.Is(err, mupdf.ErrNeedsPassword) {
		return nil, invalid(ReasonEncrypted, nil,
			"the PDF is protected by a password; upload a copy without a password")
	}
	if err != nil {
		return nil, invalid(ReasonCorrupt, nil,
			"the PDF cannot be opened: it is damaged or not a PDF (%v)", err)
	}
	return doc, nil
}

// NumPages returns the number of pages: the PDF's page count, 1 for an
// image.
func (d *Document) NumPages() int { return d.pages }

// pxPerPt is the scale of the page raster: pixels per PDF point.
const pxPerPt = float64(detect.RenderDPI) / 72

// Page renders page i (0-based).
//
// PDF pages are rasterised by MuPDF at 200 DPI using the CropBox with
// /Rotate applied; Width and Height are round(pt × 200 / 72) of that
// rotated box, and Raster is an opaque *image.RGBA of exactly that size
// (colour is kept: drawings colour-code symbols; 4 bytes a pixel, about
// 125 MB for an A1 sheet). A page over MaxPagePixels is refused with a
// page_too_large *InvalidError before its content is read. MuPDF reads the
// page's content once into a display list; the raster is rendered from it
// while a second goroutine reads the page's drawing from it (both cores).
// The PDF field serves that drawing: its Drawing waits for it, and the
// result is shared by every caller: callers must not modify it.
//
// Images: page 0 only, Raster is the decoded image at its native size and
// PDF is nil.
func (d *Document) Page(ctx context.Context, i int) (detect.Page, error) {
	vec := d.sharedPage(i)
	if vec == nil {
		vec = &listPage{done: make(chan struct{})}
	}
	fail := func(err error) (detect.Page, error) {
		vec.err = err
		close(vec.done) // a Drawing(i) waiting after Share gets the error
		return detect.Page{}, fmt.Errorf("render page %d: %w", i, err)
	}
	if err := d.check(ctx, i); err != nil {
		return fail(err)
	}
	if d.pdf == nil {
		b := d.img.Bounds()
		return detect.Page{Index: 0, Width: b.Dx(), Height: b.Dy(), Raster: d.img}, nil
	}
	list, w, h, err := d.list(ctx, i)
	if err != nil {
		return fail(drawingLimit(i, err))
	}
	go func() {
		defer close(vec.done)
		vec.page, vec.err = d.walk(ctx, i, list)
	}()
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	err = list.Render(ctx, pxPerPt, rgba)
	go func() {
		<-vec.done
		list.Close()
	}()
	if err != nil {
		return detect.Page{}, fmt.Errorf("render page %d: %w", i, drawingLimit(i, err))
	}
	return detect.Page{Index: i, Width: w, Height: h, Raster: rgba, PDF: vec}, nil
}

// PageSize returns the size Page gives page i (0-based) without rendering
// it: for a PDF page round(pt × 200 / 72) of its CropBox with /Rotate
// applied, refused as Page refuses it when over MaxPagePixels
// (page_too_large) or of no area; for an image its native size. It reads
// only the page box, not the content.
func (d *Document) PageSize(ctx context.Context, i int) (w, h int, err error) {
	if err := d.check(ctx, i); err != nil {
		return 0, 0, fmt.Errorf("size page %d: %w", i, err)
	}
	if d.pdf == nil {
		b := d.img.Bounds()
		return b.Dx(), b.Dy(), nil
	}
	sz, err := d.size(i)
	if err != nil {
		return 0, 0, fmt.Errorf("size page %d: %w", i, err)
	}
	return sz.X, sz.Y, nil
}

// Share makes the next Page(i) share the drawing it reads from page i's
// display list with Drawing(i): a Drawing(i) called after Share waits for
// that drawing (the same value the page's PDF field serves, which callers
// must not modify) instead of reading the page's content a second time.
// The pipeline renders page 0 while the document pass reads every page's
// drawing; with Share, page 0's content is interpreted once. Call Share
// before starting both, and call Page(i) after it: Drawing(i) waits for
// it. Share on an image, or twice for one page, does nothing.
func (d *Document) Share(i int) {
	if d.pdf == nil || i < 0 || i >= d.pages {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shared == nil {
		d.shared = map[int]*listPage{}
	}
	if d.shared[i] == nil {
		d.shared[i] = &listPage{done: make(chan struct{})}
	}
}

// sharedPage is the listPage Share made for page i, or nil: once, for the
// one Page(i) that fills it.
func (d *Document) sharedPage(i int) *listPage {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.shared[i]
	if p == nil || p.claimed {
		return nil
	}
	p.claimed = true
	return p
}

// takeShared waits for the drawing of the listPage Share made for page i
// and forgets that listPage: the document holds it no longer than the one
// Drawing(i). ok is false when Share(i) was not called (or was taken).
func (d *Document) takeShared(ctx context.Context, i int) (pg *drawing.Page, ok bool, err error) {
	d.mu.Lock()
	p := d.shared[i]
	d.mu.Unlock()
	if p == nil {
		return nil, false, nil
	}
	pg, err = p.Drawing(ctx) // Page(i) claims and fills p
	d.mu.Lock()
	delete(d.shared, i)
	d.mu.Unlock()
	return pg, true, err
}

// Drawing reads what page i (0-based) of a PDF draws, without rendering
// its raster: the document pass reads every page this way before the page
// pass renders them. After Share(i) it waits for the drawing Page(i)
// reads instead. The page limits are checked as Page checks them. An
// image has no drawing: (nil, nil).
func (d *Document) Drawing(ctx context.Context, i int) (*drawing.Page, error) {
	if err := d.check(ctx, i); err != nil {
		return nil, fmt.Errorf("read page %d drawing: %w", i, err)
	}
	if d.pdf == nil {
		return nil, nil
	}
	if pg, ok, err := d.takeShared(ctx, i); ok {
		if err != nil {
			return nil, fmt.Errorf("read page %d drawing: %w", i, err)
		}
		return pg, nil
	}
	if _, err := d.size(i); err != nil {
		return nil, fmt.Errorf("read page %d drawing: %w", i, err)
	}
	// No display list: the page is walked straight from its content.
	var b *drawing.Builder
	if _, err := d.pdf.WalkPage(ctx, i, func(r mupdf.Rect) *drawing.Builder {
		b = d.newBuilder(r)
		return b
	}); err != nil {
		return nil, fmt.Errorf("read page %d drawing: page drawing: %w", i, drawingLimit(i, err))
	}
	return b.Page(), nil
}

func (d *Document) check(ctx context.Context, i int) error {
	if d.closed {
		return errors.New("document is closed")
	}
	if i < 0 || i >= d.pages {
		return fmt.Errorf("out of range (%d pages)", d.pages)
	}
	return ctx.Err()
}

// list reads page i of the PDF into a display list and returns it with the
// page's raster size at 200 DPI, refusing a page over MaxPagePixels
// (page_too_large, decided from the page box before the content is read)
// or of no area.
// Its renders paint at most Drawing.MaxOps tiling pattern cells, the
// walk's limit of operations (a cell costs at least one there).
func (d *Document) list(ctx context.Context, i int) (*mupdf.List, int, int, error) {
	sz, err := d.size(i)
	if err != nil {
		return nil, 0, 0, err
	}
	l, err := d.pdf.ListContext(ctx, i)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("load: %w", err)
	}
	l.MaxTileCells = d.lim.Drawing.MaxOps
	return l, sz.X, sz.Y, nil
}

// size returns page i's raster size at 200 DPI, refusing a page over
// MaxPagePixels (page_too_large, decided from the page box before the
// content is read) or of no area.
func (d *Document) size(i int) (image.Point, error) {
	r, err := d.pdf.Bounds(i)
	if err != nil {
		return image.Point{}, fmt.Errorf("load: %w", err)
	}
	wpt, hpt := float64(float32(r.X1-r.X0)), float64(float32(r.Y1-r.Y0))
	w, h := pixelsAt200(wpt), pixelsAt200(hpt)
	if int64(w)*int64(h) > d.lim.MaxPagePixels {
		return image.Point{}, pageTooLarge(i, w, h, d.lim)
	}
	if w <= 0 || h <= 0 {
		return image.Point{}, fmt.Errorf("empty page (%g × %g pt)", wpt, hpt)
	}
	return image.Point{X: w, Y: h}, nil
}

// walk reads listed page i's drawing in raster pixels.
func (d *Document) walk(ctx context.Context, i int, l *mupdf.List) (*drawing.Page, error) {
	b := d.newBuilder(l.Bounds)
	if err := l.Walk(ctx, b); err != nil {
		return nil, fmt.Errorf("page drawing: %w", drawingLimit(i, err))
	}
	return b.Page(), nil
}

// newBuilder starts the drawing of a page box r (points) in raster pixels,
// within the document's drawing limits, charging its growth to the
// function SetDrawingCharge gave.
func (d *Document) newBuilder(r mupdf.Rect) *drawing.Builder {
	b := drawing.NewBuilder(float64(float32(r.X1-r.X0)), float64(float32(r.Y1-r.Y0)), pxPerPt)
	b.SetLimits(d.lim.Drawing, d.charge)
	return b
}

// SetDrawingCharge makes every page drawing read after it call charge with
// the bytes it holds as it grows (drawing.Builder.SetLimits): the job
// charges them to its memory budget. Call it before the pages are read.
func (d *Document) SetDrawingCharge(charge func(heldBytes int64)) { d.charge = charge }

// drawingLimit turns a *drawing.LimitError in err's chain into a
// drawing_too_complex *InvalidError naming page i and the limit, and so
// content that nests past what MuPDF can follow (mupdf.ErrNestedTooDeep);
// other errors pass unchanged.
func drawingLimit(i int, err error) error {
	if errors.Is(err, mupdf.ErrNestedTooDeep) {
		return &InvalidError{Reason: ReasonDrawingTooComplex,
			Details: map[string]any{"page_index": i},
			Message: fmt.Sprintf("page %d nests its content (forms, patterns, Type 3 glyphs) without end: content that runs itself; fix or flatten the drawing", i)}
	}
	var le *drawing.LimitError
	if !errors.As(err, &le) {
		return err
	}
	return &InvalidError{Reason: ReasonDrawingTooComplex,
		Details: map[string]any{"page_index": i, "limit": le.Limit, "max": le.Max},
		Message: le.Error() + "; simplify the drawing or split it into several files"}
}

// listPage is a PDF page's vector side: its drawing, read from the page's
// display list beside the render.
type listPage struct {
	done    chan struct{}
	page    *drawing.Page
	err     error
	claimed bool // by the Page call that fills it (Document.mu)
}

// Drawing returns the page's primitives in raster pixels, waiting for them
// to be read (or for ctx).
func (p *listPage) Drawing(ctx context.Context) (*drawing.Page, error) {
	select {
	case <-p.done:
		return p.page, p.err
	case <-ctx.Done():
		return nil, fmt.Errorf("page drawing: %w", ctx.Err())
	}
}

// Close releases MuPDF's memory, after any drawing still being read. Calling
// it twice is harmless.
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
