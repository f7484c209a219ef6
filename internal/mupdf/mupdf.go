// Package mupdf reads PDF pages with MuPDF, the library go-fitz links into
// the binary, through a context of its own: each page is interpreted once
// into a display list, which is then rendered into a raster and walked by
// a device of ours that hands what the page draws (paths with their
// transform and paint, clips, glyphs with their characters, optional
// content layers) to a drawing.Builder, without SVG in between. A list may
// be rendered and walked at the same time from two goroutines.
//
// The C code is in bp.c; it is compiled against the MuPDF headers of the
// library go-fitz ships (`make mupdf-headers` copies them into include/).
// This package and internal/document are the only ones that link MuPDF
// code of their own; nothing C leaves this package.
package mupdf

/*
#cgo CFLAGS: -I${SRCDIR}/include -O2
#include <stdlib.h>
#include "bp.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"sync"
	"unsafe"

	"blueprint/internal/drawing"

	// go-fitz links MuPDF's static libraries (libmupdf, libmupdfthird)
	// that bp.c calls.
	_ "github.com/gen2brain/go-fitz"
)

// ErrNeedsPassword is returned by Open for an encrypted PDF that needs a
// password.
var ErrNeedsPassword = errors.New("mupdf: the document needs a password")

// ErrNestedTooDeep is the failure of a page whose content nests deeper
// than MuPDF can follow (its exception stack overflows): content that runs
// itself in a way MuPDF does not stop. The start check refuses the cycles
// known (Cost); this names any other.
var ErrNestedTooDeep = errors.New("the page's content nests deeper than it can be read (content that runs itself)")

// failure is the error of a MuPDF call that failed with message msg.
func failure(msg string) error {
	if strings.Contains(msg, "exception stack overflow") {
		return ErrNestedTooDeep
	}
	return errors.New(msg)
}

// storeBytes is MuPDF's cache of decoded resources (fonts, images) per
// document.
const storeBytes = 128 << 20

// errLen is the size of the buffer MuPDF's error messages are copied into.
const errLen = 512

// Rect is a rectangle in PDF points.
type Rect struct{ X0, Y0, X1, Y1 float64 }

// Document is a PDF opened with MuPDF. Its methods are safe for concurrent
// use; MuPDF reads the document (pages, display lists) one call at a time.
type Document struct {
	mu     sync.Mutex
	d      *C.bp_doc
	pages  int
	lists  sync.WaitGroup // open lists hold the context
	closed bool
}

// Open opens a PDF from data (copied: data may change after Open). A PDF
// that needs a password gives ErrNeedsPassword; one MuPDF cannot open gives
// an error with MuPDF's message.
func Open(data []byte) (*Document, error) {
	if len(data) == 0 {
		return nil, errors.New("mupdf: open: no data")
	}
	var d *C.bp_doc
	var msg [errLen]C.char
	rc := C.bp_open((*C.uchar)(unsafe.Pointer(&data[0])), C.size_t(len(data)), C.size_t(storeBytes), &d, &msg[0], errLen)
	switch rc {
	case C.BP_OK:
	case C.BP_NEEDS_PASSWORD:
		return nil, ErrNeedsPassword
	default:
		return nil, fmt.Errorf("mupdf: open: %s", C.GoString(&msg[0]))
	}
	doc := &Document{d: d}
	var n C.int
	if rc := C.bp_count_pages(d, &n, &msg[0], errLen); rc != C.BP_OK {
		C.bp_close(d)
		return nil, fmt.Errorf("mupdf: count pages: %s", C.GoString(&msg[0]))
	}
	doc.pages = int(n)
	return doc, nil
}

// NumPages returns the number of pages.
func (d *Document) NumPages() int { return d.pages }

func (d *Document) check(i int) error {
	if d.closed {
		return errors.New("mupdf: document is closed")
	}
	if i < 0 || i >= d.pages {
		return fmt.Errorf("mupdf: page %d out of range (%d pages)", i, d.pages)
	}
	return nil
}

// Bounds returns page i's box in points: the CropBox with /Rotate applied,
// as MuPDF places the page (origin top left).
func (d *Document) Bounds(i int) (Rect, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(i); err != nil {
		return Rect{}, err
	}
	var r [4]C.float
	var msg [errLen]C.char
	if rc := C.bp_page_bounds(d.d, C.int(i), &r[0], &msg[0], errLen); rc != C.BP_OK {
		return Rect{}, fmt.Errorf("mupdf: page %d: %s", i, C.GoString(&msg[0]))
	}
	return rectOf(r), nil
}

func rectOf(r [4]C.float) Rect {
	return Rect{float64(r[0]), float64(r[1]), float64(r[2]), float64(r[3])}
}

// List interprets page i's content (not its annotations) into a display
// list. Close the list before the document.
func (d *Document) List(i int) (*List, error) { return d.ListContext(context.Background(), i) }

// ListContext is List stopped by ctx: cancelling it aborts MuPDF's
// interpretation of the page (its cookie) with ctx's error.
func (d *Document) ListContext(ctx context.Context, i int) (*List, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mupdf: page %d: %w", i, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(i); err != nil {
		return nil, err
	}
	cookie := C.bp_new_cookie()
	if cookie == nil {
		return nil, fmt.Errorf("mupdf: page %d: out of memory", i)
	}
	defer C.bp_free_cookie(cookie)
	stop := abortOnDone(ctx, cookie)
	var l *C.fz_display_list
	var r [4]C.float
	var msg [errLen]C.char
	rc := C.bp_load_list(d.d, C.int(i), &l, &r[0], cookie, &msg[0], errLen)
	stop()
	switch rc {
	case C.BP_OK:
	case C.BP_ABORTED:
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("mupdf: page %d: %w", i, err)
		}
		fallthrough
	default:
		return nil, fmt.Errorf("mupdf: page %d: %w", i, failure(C.GoString(&msg[0])))
	}
	d.lists.Add(1)
	return &List{doc: d, l: l, Bounds: rectOf(r)}, nil
}

// Close releases MuPDF's memory, after waiting for open lists to close.
// Calling it twice is harmless.
func (d *Document) Close() error {
	d.lists.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	C.bp_close(d.d)
	d.d = nil
	return nil
}

// RenderDirect renders page i into dst the way go-fitz's ImageDPI does,
// running the page's content straight into MuPDF's draw device with no
// display list (scale: pixels per point). It is the comparison of the
// clip-heavy stress test; the service renders through List.
func (d *Document) RenderDirect(i int, scale float64, dst *image.RGBA) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(i); err != nil {
		return err
	}
	w, h, p, err := pixels(dst)
	if err != nil {
		return err
	}
	var msg [errLen]C.char
	if rc := C.bp_render_page_direct(d.d, C.int(i), C.float(scale), w, h, p, &msg[0], errLen); rc != C.BP_OK {
		return fmt.Errorf("mupdf: render page %d: %w", i, failure(C.GoString(&msg[0])))
	}
	return nil
}

// pixels checks that dst is a whole RGBA image at the origin and returns
// its size and first pixel.
func pixels(dst *image.RGBA) (w, h C.int, p *C.uchar, err error) {
	b := dst.Bounds()
	if b.Min != (image.Point{}) || b.Dx() <= 0 || b.Dy() <= 0 || dst.Stride != 4*b.Dx() || len(dst.Pix) < 4*b.Dx()*b.Dy() {
		return 0, 0, nil, fmt.Errorf("mupdf: render: need a whole RGBA image at the origin, got %v stride %d", b, dst.Stride)
	}
	return C.int(b.Dx()), C.int(b.Dy()), (*C.uchar)(unsafe.Pointer(&dst.Pix[0])), nil
}

// List is one page interpreted by MuPDF. Render and Walk may run at the
// same time from different goroutines; Close after both return.
type List struct {
	doc    *Document
	l      *C.fz_display_list // nil once Close began; guarded by doc.mu
	busy   sync.WaitGroup     // renders and walks in flight
	once   sync.Once
	Bounds Rect // the page box in points (CropBox, /Rotate applied)
	// MaxTileCells bounds the tiling pattern cells a Render paints (0: no
	// bound). MuPDF's draw device paints a pattern by copying its cell
	// once per cell of the area it fills, in a loop that no cookie stops;
	// the cells of each pattern are counted before they are painted, and
	// past the bound the render stops with a *drawing.LimitError
	// (drawing.LimitOps, Max MaxTileCells).
	MaxTileCells int64
}

// Render draws the page into dst at scale pixels per point (200/72 for
// 200 DPI), over opaque white: the pixels of `mutool draw -r 200`. dst's
// size is the raster's (the page box's top-left part when smaller).
// Cancelling ctx stops the render with ctx's error: the cookie is looked
// at before every drawing call, those of Type 3 glyph procedures
// included. The tiling pattern cells it paints are bounded by
// MaxTileCells.
func (l *List) Render(ctx context.Context, scale float64, dst *image.RGBA) error {
	w, h, p, err := pixels(dst)
	if err != nil {
		return err
	}
	err = l.run(ctx, "render", func(c *C.fz_context, list *C.fz_display_list, cookie *C.fz_cookie, msg *C.char) C.int {
		return C.bp_render_list(c, list, C.float(scale), w, h, p, C.int64_t(l.MaxTileCells), cookie, msg, errLen)
	})
	if errors.Is(err, errTileLimit) {
		return fmt.Errorf("mupdf: render: %w", &drawing.LimitError{Limit: drawing.LimitOps, Max: l.MaxTileCells})
	}
	return err
}

// errTileLimit is run's error for BP_LIMIT.
var errTileLimit = errors.New("tiling patterns paint more cells than the render allows")

// Close releases the list once the renders and walks in flight return;
// later ones fail. Calling it twice is harmless.
func (l *List) Close() {
	l.once.Do(func() {
		l.doc.mu.Lock()
		list := l.l
		l.l = nil
		l.doc.mu.Unlock()
		l.busy.Wait()
		l.doc.mu.Lock()
		C.bp_drop_list(l.doc.d, list)
		l.doc.mu.Unlock()
		l.doc.lists.Done()
	})
}

// run makes a MuPDF call on the list with a context cloned for it and a
// cookie that aborts the call when ctx is done.
func (l *List) run(ctx context.Context, what string, call func(*C.fz_context, *C.fz_display_list, *C.fz_cookie, *C.char) C.int) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mupdf: %s: %w", what, err)
	}
	l.doc.mu.Lock()
	list := l.l
	if list == nil {
		l.doc.mu.Unlock()
		return fmt.Errorf("mupdf: %s: list is closed", what)
	}
	l.busy.Add(1)
	defer l.busy.Done()
	c := C.bp_clone(l.doc.d)
	l.doc.mu.Unlock()
	if c == nil {
		return fmt.Errorf("mupdf: %s: cannot clone the MuPDF context", what)
	}
	defer C.bp_drop_clone(c)
	cookie := C.bp_new_cookie()
	if cookie == nil {
		return fmt.Errorf("mupdf: %s: out of memory", what)
	}
	defer C.bp_free_cookie(cookie)
	stop := abortOnDone(ctx, cookie)
	var msg [errLen]C.char
	rc := call(c, list, cookie, &msg[0])
	stop()
	switch rc {
	case C.BP_OK:
		return nil
	case C.BP_LIMIT:
		return errTileLimit
	case C.BP_ABORTED:
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("mupdf: %s: %w", what, err)
		}
	}
	return fmt.Errorf("mupdf: %s: %w", what, failure(C.GoString(&msg[0])))
}

// abortOnDone aborts the MuPDF call that watches cookie when ctx is done;
// call the returned stop once the call returned.
func abortOnDone(ctx context.Context, cookie *C.fz_cookie) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			C.bp_abort(cookie)
		case <-done:
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
