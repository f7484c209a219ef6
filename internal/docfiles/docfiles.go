// Package docfiles is the job service's file reader (job.Files): the start
// check and page-by-page processing of uploads, with package document
// (MuPDF through go-fitz) and package pipeline. It is the only way the
// domain reaches MuPDF, so the programs that import it (the local server,
// the api and process Lambdas) are the ones that link it.
package docfiles

import (
	"context"
	"errors"
	"fmt"

	"blueprint/internal/config"
	"blueprint/internal/document"
	"blueprint/internal/imagefile"
	"blueprint/internal/job"
	"blueprint/internal/pipeline"
)

// Reader implements job.Files within a set of document limits.
type Reader struct {
	lim document.Limits
}

var _ job.Files = (*Reader)(nil)

// New returns a Reader. Zero MaxPages or MaxPagePixels take the defaults of
// docs/decisions.md (document.DefaultLimits); the decompression limits are
// always the defaults.
func New(maxPages int, maxPagePixels int64) *Reader {
	lim := document.DefaultLimits()
	if maxPages > 0 {
		lim.MaxPages = maxPages
	}
	if maxPagePixels > 0 {
		lim.MaxPagePixels = maxPagePixels
	}
	return &Reader{lim: lim}
}

// ForConfig returns a Reader with the document limits of the service's
// configuration: New's, and the drawing limits, each 0 keeping its
// default.
func ForConfig(c config.Config) *Reader {
	r := New(c.MaxPages, c.MaxPagePixels)
	if c.MaxDrawingOps > 0 {
		r.lim.Drawing.MaxOps = c.MaxDrawingOps
	}
	if c.MaxDrawingBytes > 0 {
		r.lim.Drawing.MaxBytes = c.MaxDrawingBytes
	}
	return r
}

// Limits returns the limits the Reader applies.
func (r *Reader) Limits() document.Limits { return r.lim }

// Check validates data as mime (document.Validate).
func (r *Reader) Check(ctx context.Context, data []byte, mime string) error {
	_, err := document.Validate(ctx, data, mime, r.lim)
	return convert(err)
}

// Open opens data for processing (document.Open).
func (r *Reader) Open(ctx context.Context, data []byte, mime string) (job.OpenFile, error) {
	doc, err := document.Open(ctx, data, mime, r.lim)
	if err != nil {
		return nil, convert(err)
	}
	return &openFile{doc: doc}, nil
}

// CheckBytes is document.CheckBytes: Check's memory for a file of size
// bytes.
func (r *Reader) CheckBytes(mime string, size int64) int64 {
	return document.CheckBytes(mime, size)
}

// OpenBytes is document.OpenBytes: Open's memory for data before any page
// is rendered.
func (r *Reader) OpenBytes(data []byte, mime string) int64 {
	return document.OpenBytes(data, mime)
}

type openFile struct {
	doc *document.Document
}

func (f *openFile) NumPages() int { return f.doc.NumPages() }

func (f *openFile) PeakBytes() int64 { return f.doc.PeakBytes() }

func (f *openFile) Close() error { return f.doc.Close() }

// Run runs pipeline.Run, encoding page PNGs when opt.KeepPNG.
func (f *openFile) Run(ctx context.Context, opt job.RunOptions, each func(job.PageResult) error) error {
	f.doc.SetDrawingCharge(opt.Charge)
	err := pipeline.Run(ctx, f.doc, pipeline.Options{Engine: opt.Engine, KeepPNG: opt.KeepPNG, Document: opt.Document, Progress: opt.Progress}, func(r pipeline.PageResult) error {
		return each(job.PageResult{Index: r.Index, Kind: r.Kind, Width: r.Width, Height: r.Height, Detections: r.Detections, PNG: r.PNG})
	})
	return convert(err)
}

// PagePNG renders page i (document.Document.Page: the 200-DPI raster of a
// PDF page, an image's own pixels) and encodes it with imagefile.EncodePNG,
// as pipeline.Run does with KeepPNG. The raster is garbage once it returns.
func (f *openFile) PagePNG(ctx context.Context, i int) ([]byte, error) {
	// Page also reads the page's drawing beside the render, for an
	// engine; nothing reads it here, so it is cancelled once the raster
	// is done.
	pctx, stopDrawing := context.WithCancel(ctx)
	p, err := f.doc.Page(pctx, i)
	stopDrawing()
	if err != nil {
		return nil, convert(err)
	}
	png, err := imagefile.EncodePNG(p.Raster)
	if err != nil {
		return nil, fmt.Errorf("page %d: %w", i, err)
	}
	return png, nil
}

// convert turns a *document.InvalidError anywhere in err's chain into the
// domain's *job.InvalidFile (wrapping err, so nothing else in the chain is
// lost); other errors pass unchanged.
func convert(err error) error {
	var inv *document.InvalidError
	if err == nil || !errors.As(err, &inv) {
		return err
	}
	return &job.InvalidFile{Reason: inv.Reason, Message: inv.Message, Details: inv.Details, Err: err}
}
