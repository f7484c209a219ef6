package job

import (
	"context"
	"fmt"

	"blueprint/internal/detect"
)

// Upload types the service accepts (the contract's mime_type values).
// "image/jpg" is accepted as another spelling of "image/jpeg". Package
// document reads exactly these; package docfiles checks that they agree.
const (
	MimePDF      = "application/pdf"
	MimePNG      = "image/png"
	MimeJPEG     = "image/jpeg"
	MimeJPGAlias = "image/jpg"
	MimeWebP     = "image/webp"
)

// AcceptedMimes lists the mime_type values init accepts, in the order the
// 422 names them.
func AcceptedMimes() []string {
	return []string{MimePDF, MimePNG, MimeJPEG, MimeJPGAlias, MimeWebP}
}

// Files reads the content of uploaded files: the start check and the
// page-by-page processing. It is the one port through which the domain
// reaches the document reader (MuPDF), so that a program that never opens
// a file (the webhook and sweep Lambdas) builds without it;
// package docfiles implements it. Start and Process need it; a Service
// built without it refuses them with an internal error.
type Files interface {
	// Check decides whether data is a usable file of type mime (already
	// canonical, see CanonicalMime) within the service's limits: nil, an
	// *InvalidFile saying why not, or another error for a failure that is
	// not the file's (the context's, an internal one).
	Check(ctx context.Context, data []byte, mime string) error
	// Open prepares a checked file for processing, with the errors of
	// Check. The caller must Close the result; data must not change until
	// then.
	Open(ctx context.Context, data []byte, mime string) (OpenFile, error)
	// CheckBytes estimates the memory, in bytes, that Check holds for a
	// file of size bytes of type mime (the file included), for the
	// admission gate (Config.Admission) before the file is read.
	CheckBytes(mime string, size int64) int64
	// OpenBytes estimates the memory Open holds for data of type mime
	// before any page is rendered (the file included).
	OpenBytes(data []byte, mime string) int64
}

// OpenFile is an upload opened for processing, one page at a time.
type OpenFile interface {
	// NumPages is the number of pages (1 for an image).
	NumPages() int
	// PeakBytes estimates the most memory Run holds at once: what
	// opening held plus the rendering and encoding of the largest page.
	PeakBytes() int64
	// Run renders each page at the service's resolution, runs opt.Engine
	// on it, encodes the page as PNG when opt.KeepPNG, and hands the
	// results to each in page order. An engine that is a
	// detect.DocumentEngine first reads the whole document (its document
	// pass; what it learned goes to opt.Document); without opt.KeepPNG,
	// the pages it does not count are then only sized, not rendered (their
	// result has no detections either way). Run stops at the first error,
	// wrapped with the page index: a page that cannot be read gives an
	// *InvalidFile, and errors of the engine and each stay reachable with
	// errors.As.
	Run(ctx context.Context, opt RunOptions, each func(PageResult) error) error
	// PagePNG renders page i alone, at the resolution and with the
	// encoder Run uses, and returns it as PNG: a file that decodes to the
	// pixels Run's PageResult.PNG of that page holds. It holds at most
	// what PeakBytes says. Lazy page images (Config.LazyPageImages) use
	// it on a page's first view.
	PagePNG(ctx context.Context, i int) ([]byte, error)
	// RunPages processes the pages opt.First to opt.End-1 as Run does
	// after its document pass, with opt.Engine already prepared for the
	// document and opt.Kinds its page kinds: one batch of a large
	// document (Service.ProcessBatch). It makes no document pass.
	RunPages(ctx context.Context, opt PagesOptions, each func(PageResult) error) error
	// Drawings reads the pages' drawings without rendering them, for a
	// document pass outside Run, charging their memory to charge (nil:
	// not charged) as Run does.
	Drawings(charge func(heldBytes int64)) detect.Drawings
	// Close releases the file.
	Close() error
}

// RunOptions configure OpenFile.Run.
type RunOptions struct {
	Engine detect.Engine // required
	// Document, when set, gets what a detect.DocumentEngine's document
	// pass learned (legend rows, page kinds) before the first page.
	Document func(detect.DocumentInfo) error
	// KeepPNG encodes each page as PNG into PageResult.PNG, beside its
	// detection. Without it pages carry no PNG, and those the document
	// pass does not count are not rendered at all.
	KeepPNG bool
	// Charge, when set, is told the bytes a page's drawing holds each
	// time they grow while it is read (the job charges them to its memory
	// budget). It may be called from several goroutines.
	Charge func(heldBytes int64)
	// Progress, when set, is told each page as it finishes (its index)
	// and how many pages are finished, in any order (results reach each
	// in page order, so a slow page would hold back a count of each's
	// calls). An error stops Run.
	Progress func(page, finished int) error
}

// PageResult is what processing one page produced.
type PageResult struct {
	Index         int    // 0-based page index
	Kind          string // what the document pass took the page for ("" without one)
	Width, Height int    // raster pixels
	Detections    []detect.Detection
	PNG           []byte // the page raster as PNG when RunOptions.KeepPNG, else nil
}

// InvalidFile says why an uploaded file cannot be used: Reason is the
// details.reason code of a refused start (docs/decisions.md), Message a
// sentence a partner can act on, Details the facts that go beside the
// reason.
type InvalidFile struct {
	Reason  string
	Message string
	Details map[string]any
	Err     error // the reader's own error, if any
}

// Error returns the reason and the message.
func (e *InvalidFile) Error() string {
	return fmt.Sprintf("invalid file (%s): %s", e.Reason, e.Message)
}

// Unwrap returns the reader's own error.
func (e *InvalidFile) Unwrap() error { return e.Err }

// ReasonSizeMismatch is the start refusal of a stored file whose length is
// not the size declared on init.
const ReasonSizeMismatch = "size_mismatch"
