// Package pipeline runs a detection engine over an opened document, one
// page at a time, so that a job holds at most one rendered page in memory.
package pipeline

import (
	"context"
	"errors"
	"fmt"
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
	RenderSeconds float64            // rendering the page, plus PNG encoding when KeepPNG
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
	}
	return nil
}

// runPage renders, detects and encodes one page. The page raster lives
// only in this call.
func runPage(ctx context.Context, doc *document.Document, i int, opt Options) (PageResult, error) {
	start := time.Now()
	page, err := doc.Page(ctx, i)
	if err != nil {
		return PageResult{}, fmt.Errorf("pipeline: render page %d: %w", i, err)
	}
	rendered := time.Now()
	dets, err := opt.Engine.Detect(ctx, page)
	if err != nil {
		return PageResult{}, fmt.Errorf("pipeline: detect on page %d: %w", i, err)
	}
	detected := time.Now()
	res := PageResult{
		Index:         i,
		Width:         page.Width,
		Height:        page.Height,
		Detections:    dets,
		RenderSeconds: rendered.Sub(start).Seconds(),
		DetectSeconds: detected.Sub(rendered).Seconds(),
	}
	if opt.KeepPNG {
		png, err := document.EncodePNG(page.Raster)
		if err != nil {
			return PageResult{}, fmt.Errorf("pipeline: page %d: %w", i, err)
		}
		res.PNG = png
		res.RenderSeconds += time.Since(detected).Seconds()
	}
	return res, nil
}
