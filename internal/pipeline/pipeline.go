// Package pipeline runs a detection engine over an opened document, one
// page at a time, so that a job holds at most one large rendered page in
// memory (or two small ones, the next rendering while one is detected).
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/imagefile"
)

// PageResult is what one page produced.
type PageResult struct {
	Index         int                // 0-based page index
	Kind          string             // what the document pass took the page for ("" without one)
	Width, Height int                // raster size in pixels (200 DPI for PDFs, native for images)
	Detections    []detect.Detection // as the engine returned them
	PNG           []byte             // the page raster as PNG when Options.KeepPNG, else nil
	RenderSeconds float64            // rendering the page, plus PNG encoding when KeepPNG (which runs beside Detect); 0 for a page not rendered
	DetectSeconds float64            // the engine's Detect call; 0 for a page not detected
}

// Options configure Run.
type Options struct {
	Engine detect.Engine // required
	// KeepPNG encodes each page raster as PNG into PageResult.PNG. When
	// false, a page the document pass does not count (detect.Counted of
	// its kind is false) is neither rendered nor detected: a document
	// engine finds nothing there (detect.DocumentEngine promises it), so
	// its result carries only its size (document.Document.PageSize) and
	// kind. Page 0 is the exception: it renders during the document pass,
	// before its kind is known, and is then detected as before.
	KeepPNG bool
	// Document, when set, gets what the document pass learned (legend
	// rows, page kinds) before the first page is detected. It is called
	// only for an engine that is a detect.DocumentEngine.
	Document func(detect.DocumentInfo) error
	// Progress, when set, is told each page as it finishes (its index)
	// and how many pages are finished, in whatever order they finish:
	// results reach each in page order, so a slow page holds back each
	// (and whatever counts its calls) while later pages are done. An
	// error stops Run like one of each.
	Progress func(page, finished int) error
}

// Run renders each page of doc in order, runs opt.Engine on it, optionally
// encodes the raster as PNG, and hands the result to each; the page's
// raster is released once each returns (keep only what PageResult holds).
// Without KeepPNG, pages the document pass does not count are only sized,
// not rendered (Options.KeepPNG). The next page renders meanwhile only
// when both rasters together are small (document.RenderAhead); memory is
// bounded by one page, or two small ones (document.Document.PeakBytes).
//
// When opt.Engine is a detect.DocumentEngine, Run first reads the whole
// document with it (the document pass: each page's drawing, not rendered,
// released once read) and detects the pages with the engine it returns;
// page 0 is rendered during the document pass, on the other core.
//
// Run stops at the first error: a page that does not render (a
// *document.InvalidError such as page_too_large stays reachable with
// errors.As), an engine error, or an error returned by each, wrapped with
// the page index. The context is checked before every page and passed to
// rendering and to the engine; cancellation returns ctx.Err() wrapped.
func Run(ctx context.Context, doc *document.Document, opt Options, each func(PageResult) error) error {
	if opt.Engine == nil {
		return errors.New("pipeline: no engine configured")
	}
	var kinds []string
	var first *rendered // page 0, rendered during the document pass
	if de, ok := opt.Engine.(detect.DocumentEngine); ok {
		// MuPDF interprets one page at a time, but a page's raster is
		// drawn without the document: page 0 renders on the other core
		// while the document pass reads the pages. It is the one raster
		// a job holds at a time, as in the page pass. The document pass
		// takes page 0's drawing from that render (Document.Share), so
		// its content is interpreted once, not twice.
		var got chan rendered
		if doc.NumPages() > 0 {
			got = make(chan rendered, 1)
			doc.Share(0)
			go func() { got <- render(ctx, doc, 0) }()
		}
		eng, info, err := de.Prepare(ctx, doc)
		if got != nil {
			r := <-got
			first = &r
		}
		if err != nil {
			return fmt.Errorf("pipeline: document pass: %w", err)
		}
		if opt.Document != nil {
			if err := opt.Document(info); err != nil {
				return fmt.Errorf("pipeline: document pass: %w", err)
			}
		}
		opt.Engine, kinds = eng, info.Kinds
	}
	// The next page renders while one is detected when the two rasters
	// are small enough together (document.RenderTogether), so a
	// multi-page drawing keeps both cores busy. Pages the document pass
	// counts go first (order): their detection is the long part, and the
	// pages it does not count (single-line diagrams, schedules, a
	// drawing register) only render, beside it, or without KeepPNG are
	// only sized, at the end. Results still reach each in page order;
	// those done early wait in memory, at most document.HeldResultBytes of
	// page images, beyond which pages are taken in order again. A page
	// rendered ahead is always waited for, so nothing uses the document
	// after Run returns.
	sched := newSchedule(doc.NumPages(), kinds)
	if first != nil {
		sched.take(0)
	}
	return pass(ctx, doc, opt, kinds, sched, first, each)
}

// pass renders and detects the pages sched has not taken yet with
// opt.Engine (the document's, after its document pass), first being page
// 0 already rendered or nil, and hands results to each in page order.
func pass(ctx context.Context, doc *document.Document, opt Options, kinds []string, sched *schedule, first *rendered, each func(PageResult) error) error {
	sched.progress = opt.Progress
	// sizeOnly: a page not counted needs no raster when no page image is
	// kept (Options.KeepPNG).
	sizeOnly := func(i int) bool { return !opt.KeepPNG && !sched.counted[i] }
	var ahead chan rendered
	aheadOf := -1
	defer func() {
		if ahead != nil {
			<-ahead
		}
	}()
	for first != nil || ahead != nil || sched.left() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("pipeline: before page %d: %w", sched.emitted, err)
		}
		var r rendered
		var i int
		switch {
		case first != nil:
			i, r, first = 0, *first, nil
		case ahead != nil:
			i, r, ahead = aheadOf, <-ahead, nil
		default:
			i = sched.next()
			sched.take(i)
			if sizeOnly(i) {
				res, err := sized(ctx, doc, i, kinds)
				if err != nil {
					return err
				}
				if err := sched.done(res, each); err != nil {
					return err
				}
				continue // no raster to render ahead beside or to collect
			}
			r = render(ctx, doc, i)
		}
		if sched.left() {
			if j := sched.next(); !sizeOnly(j) && doc.RenderTogether(i, j) {
				sched.take(j)
				ahead, aheadOf = make(chan rendered, 1), j
				go func() { ahead <- render(ctx, doc, j) }()
			}
		}
		res, err := runPage(ctx, r, i, opt)
		if err != nil {
			return err
		}
		if i < len(kinds) {
			res.Kind = kinds[i]
		}
		if err := sched.done(res, each); err != nil {
			return err
		}
		// The page's raster (up to ~250 MB for A0) is garbage now:
		// collect it before the next page allocates its own, so that a
		// job holds one raster (two small ones when rendering ahead), not
		// more (docs/page-reading.md).
		runtime.GC()
	}
	return nil
}

// schedule picks the order pages are processed in and hands results on
// in page order.
type schedule struct {
	progress func(page, finished int) error // Options.Progress
	finished int                            // pages done, in any order
	counted  []bool                         // by page: detected, so worth doing first
	taken    []bool                         // by page: rendering or rendered
	held     map[int]PageResult
	heldB    int
	emitted  int // pages handed on so far (all below this index)
}

func newSchedule(n int, kinds []string) *schedule {
	s := &schedule{counted: make([]bool, n), taken: make([]bool, n), held: map[int]PageResult{}}
	for i := range s.counted {
		s.counted[i] = i >= len(kinds) || detect.Counted(kinds[i])
	}
	return s
}

// left reports whether a page is still to be taken.
func (s *schedule) left() bool { return s.next() >= 0 }

// next is the page to take next (-1 when none is left): the first counted
// page not yet taken, unless results are held up to the bound, or no
// counted page is left; then the first page not yet taken.
func (s *schedule) next() int {
	first := -1
	for i, t := range s.taken {
		if t {
			continue
		}
		if first < 0 {
			first = i
			if s.heldB >= document.HeldResultBytes {
				return first
			}
		}
		if s.counted[i] {
			return i
		}
	}
	return first
}

func (s *schedule) take(i int) { s.taken[i] = true }

// done records a page's result and hands on every result now in order.
func (s *schedule) done(r PageResult, each func(PageResult) error) error {
	s.held[r.Index] = r
	s.heldB += len(r.PNG)
	s.finished++
	if s.progress != nil {
		if err := s.progress(r.Index, s.finished); err != nil {
			return fmt.Errorf("pipeline: page %d: %w", r.Index, err)
		}
	}
	for {
		h, ok := s.held[s.emitted]
		if !ok {
			return nil
		}
		delete(s.held, s.emitted)
		s.heldB -= len(h.PNG)
		if err := each(h); err != nil {
			return fmt.Errorf("pipeline: page %d: %w", h.Index, err)
		}
		s.emitted++
	}
}

// sized is the result of a page that is not rendered: its size and kind,
// no detections (Options.KeepPNG). A page over the pixel limit fails as
// rendering it would.
func sized(ctx context.Context, doc *document.Document, i int, kinds []string) (PageResult, error) {
	w, h, err := doc.PageSize(ctx, i)
	if err != nil {
		return PageResult{}, fmt.Errorf("pipeline: page %d: %w", i, err)
	}
	res := PageResult{Index: i, Width: w, Height: h}
	if i < len(kinds) {
		res.Kind = kinds[i]
	}
	return res, nil
}

// rendered is one page rendered, with the time it took.
type rendered struct {
	page    detect.Page
	err     error
	seconds float64
}

func render(ctx context.Context, doc *document.Document, i int) rendered {
	start := time.Now()
	p, err := doc.Page(ctx, i)
	return rendered{page: p, err: err, seconds: time.Since(start).Seconds()}
}

// runPage detects and encodes one rendered page. The page raster lives
// only in this call. The PNG is encoded on another goroutine while the
// engine runs, so a page uses both cores.
func runPage(ctx context.Context, r rendered, i int, opt Options) (PageResult, error) {
	page, err := r.page, r.err
	if err != nil {
		return PageResult{}, fmt.Errorf("pipeline: render page %d: %w", i, err)
	}
	rendered := time.Now()
	var png []byte
	var pngErr error
	var pngSeconds float64
	var wg sync.WaitGroup
	if opt.KeepPNG {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			png, pngErr = imagefile.EncodePNG(page.Raster)
			pngSeconds = time.Since(t0).Seconds()
		}()
	}
	dets, err := opt.Engine.Detect(ctx, page)
	detected := time.Now()
	wg.Wait()
	if err != nil {
		return PageResult{}, fmt.Errorf("pipeline: detect on page %d: %w", i, err)
	}
	if pngErr != nil {
		return PageResult{}, fmt.Errorf("pipeline: page %d: %w", i, pngErr)
	}
	return PageResult{
		Index:         i,
		Width:         page.Width,
		Height:        page.Height,
		Detections:    dets,
		PNG:           png,
		RenderSeconds: r.seconds + pngSeconds,
		DetectSeconds: detected.Sub(rendered).Seconds(),
	}, nil
}
