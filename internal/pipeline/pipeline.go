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
	Kind          string             // what the document pass took the page for ("" without one)
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
	// Document, when set, gets what the document pass learned (legend
	// rows, page kinds) before the first page is detected. It is called
	// only for an engine that is a detect.DocumentEngine.
	Document func(detect.DocumentInfo) error
}

// Run renders each page of doc in order, runs opt.Engine on it, optionally
// encodes the raster as PNG, and hands the result to each before the next
// page is rendered; the page's raster is released once each returns (keep
// only what PageResult holds). Memory is bounded by one page.
//
// When opt.Engine is a detect.DocumentEngine, Run first reads the whole
// document with it (the document pass: each page's drawing, not rendered,
// released once read) and detects the pages with the engine it returns.
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
	if de, ok := opt.Engine.(detect.DocumentEngine); ok {
		eng, info, err := de.Prepare(ctx, doc)
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
	for i := range doc.NumPages() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("pipeline: before page %d: %w", i, err)
		}
		res, err := runPage(ctx, doc, i, opt)
		if err != nil {
			return err
		}
		if i < len(kinds) {
			res.Kind = kinds[i]
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
