package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/imagevector"
)

// traced is a document whose image pages (image uploads, PDF pages drawn
// as one scanned image) read as the vector geometry their ink traces to
// (internal/imagevector): legend tables, schedules, tags and symbols on
// them are then read as on a PDF whose words are drawn as outlines. Each
// image page is traced once and kept for the detection of its page.
type traced struct {
	detect.Drawings
	pages pager
	read  imagevector.TextReader

	mu    sync.Mutex
	cache map[int]*tracedPage
}

// tracedPage is one image page's traced drawing, traced once.
type tracedPage struct {
	once sync.Once
	res  *imagevector.Result
	err  error
}

// traceDoc wraps doc so that its image pages read as traced geometry,
// their words read by read (doc itself where it is so wrapped already:
// Explain wraps before Prepare), or returns nil when doc cannot render
// its pages (no pager).
func traceDoc(doc detect.Drawings, read imagevector.TextReader) *traced {
	if t, ok := doc.(*traced); ok {
		return t
	}
	pg, ok := doc.(pager)
	if !ok {
		return nil
	}
	return &traced{Drawings: doc, pages: pg, read: read, cache: map[int]*tracedPage{}}
}

// Page renders page i (pager), for the readers that need its pixels.
func (t *traced) Page(ctx context.Context, i int) (detect.Page, error) { return t.pages.Page(ctx, i) }

// Drawing returns page i's drawing: the document's own for a page drawn
// as vectors, the traced geometry of its image for an image page.
func (t *traced) Drawing(ctx context.Context, i int) (*drawing.Page, error) {
	d, err := t.Drawings.Drawing(ctx, i)
	if err != nil || (d != nil && !d.Scan()) {
		return d, err
	}
	res, err := t.trace(ctx, i)
	if err != nil || res == nil {
		return d, err
	}
	return res.Page, nil
}

// trace returns image page i traced, nil for a page without pixels.
func (t *traced) trace(ctx context.Context, i int) (*imagevector.Result, error) {
	tp := t.entry(i)
	tp.once.Do(func() {
		p, err := t.pages.Page(ctx, i)
		if err != nil {
			tp.err = err
			return
		}
		if p.Raster == nil {
			return
		}
		tp.res, tp.err = imagevector.Trace(ctx, p.Raster, t.read)
	})
	if tp.err != nil {
		return nil, fmt.Errorf("trace image page %d: %w", i, tp.err)
	}
	return tp.res, nil
}

// tracedText is what OCR read on a traced image page
// (imagevector.Result's counts), kept in the saved document pass for the
// page's warning.
type tracedText struct{ Lines, Read, Unread int }

// text returns the image pages traced so far and what was read on each,
// by page index; nil for t nil.
func (t *traced) text() map[int]tracedText {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[int]tracedText{}
	for i, tp := range t.cache {
		if tp.res != nil {
			out[i] = tracedText{tp.res.Lines, tp.res.Read, tp.res.Unread}
		}
	}
	return out
}

// tracedWarnings are the warnings of the traced image pages: their words
// were read by OCR, or some were not read within its bounds.
func tracedWarnings(tr map[int]tracedText) []detect.Warning {
	var out []detect.Warning
	for _, i := range slices.Sorted(maps.Keys(tr)) {
		t := tr[i]
		if t.Unread > 0 {
			out = append(out, detect.Warning{Code: detect.WarnTextNotRead, Page: i, Message: fmt.Sprintf(
				"page %d is an image, read by tracing its lines and reading its words with OCR: %d of its %d lines of text were read within OCR's time and size bounds, %d were left unread, so a legend, schedule or tag among them was not read", i, t.Read, t.Lines, t.Unread)})
			continue
		}
		out = append(out, detect.Warning{Code: detect.WarnTextByOCR, Page: i, Message: fmt.Sprintf(
			"page %d is an image, read by tracing its lines and reading its %d lines of text with OCR, less surely than a PDF's text layer: check the legend rows and tags read from it", i, t.Read)})
	}
	return out
}

func (t *traced) entry(i int) *tracedPage {
	t.mu.Lock()
	defer t.mu.Unlock()
	tp, ok := t.cache[i]
	if !ok {
		tp = &tracedPage{}
		t.cache[i] = tp
	}
	return tp
}

// tracedPDF is an image page's traced drawing as a detect.PDFPage.
type tracedPDF struct{ pg *drawing.Page }

func (p tracedPDF) Drawing(context.Context) (*drawing.Page, error) { return p.pg, nil }

// asTraced returns p with its traced drawing as its PDF page where p is
// an image page: from doc where the document pass traced it (nil doc:
// traced now, as a resumed document pass must), else p as it is.
func asTraced(ctx context.Context, doc *traced, read imagevector.TextReader, p detect.Page) (detect.Page, error) {
	img, err := isImagePage(ctx, p)
	if err != nil || !img || p.Raster == nil {
		return p, err
	}
	var pg *drawing.Page
	if doc != nil {
		if pg, err = doc.Drawing(ctx, p.Index); err != nil {
			return p, err
		}
	} else {
		res, err := imagevector.Trace(ctx, p.Raster, read)
		if err != nil {
			return p, fmt.Errorf("trace image page %d: %w", p.Index, err)
		}
		pg = res.Page
	}
	p.PDF = tracedPDF{pg}
	return p, nil
}
