// Package pipeline runs a detection engine over an opened document, one
// page at a time, so that a job holds at most one rendered page in memory.
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
)

// PageResult is what one page produced.
type PageResult struct {
	Index         int                // 0-based page index
	Width, Height int                // raster size in pixels (200 DPI for PDFs, native for images)
	Detections    []detect.Detection // as the engine returned them
	PNG           []byte             // the page raster as PNG when Options.KeepPNG, else nil
	RenderSeconds float64            // rendering the page, plus PNG encoding when KeepPNG (which runs beside Detect)
	DetectSeconds float64            // the engine's Detect call
}

// Options configure Run.
type Options struct {
	Engine  detect.Engine // required
	KeepPNG bool          // encode each page raster as PNG into PageResult.PNG
}

// Run renders each page of doc in order, runs opt.Engine on it, optionally
// encodes the raster as PNG, and hands the result to each before the next
// page is rendered; the page's raster is released once each returns (keep
// only what PageResult holds). Memory is bounded by one page.
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
	for i := range doc.NumPages() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("pipeline: before page %d: %w", i, err)
		}
		res, err := runPage(ctx, doc, i, opt)
		if err != nil {
			return err
		}
		if err := each(res); err != nil {
			return fmt.Errorf("pipeline: page %d: %w", i, err)
		}
		// The page's raster (up to ~250 MB for A0) is garbage now:
		// collect it before the next page allocates its own, so that a
		// job holds one raster, not two (docs/page-reading.md).
		runtime.GC()
	}
	return nil
}

// runPage renders, detects and encodes one page. The page raster lives
// only in this call. The PNG is encoded on another goroutine while the
// engine runs, so a page uses both cores.
func runPage(ctx context.Context, doc *document.Document, i int, opt Options) (PageResult, error) {
	start := time.Now()
	page, err := doc.Page(ctx, i)
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
			png, pngErr = document.EncodePNG(page.Raster)
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
		RenderSeconds: rendered.Sub(start).Seconds() + pngSeconds,
		DetectSeconds: detected.Sub(rendered).Seconds(),
	}, nil
}
