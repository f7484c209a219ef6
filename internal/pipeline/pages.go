package pipeline

import (
	"context"
	"errors"
	"fmt"

	"blueprint/internal/document"
)

// PagesOptions configure RunPages.
type PagesOptions struct {
	// Options as for Run, but Engine is the engine for this document's
	// pages that a document pass already returned (detect.DocumentEngine's
	// Prepare, here or in another process): RunPages makes no document
	// pass of its own, and Options.Document is not called.
	Options
	// First and End bound the pages to process: First ≤ i < End.
	First, End int
	// Kinds are the page kinds the document pass found (DocumentInfo.Kinds,
	// by page of the whole document), nil without a document pass; a page
	// past its end is counted, as in Run. Without KeepPNG the pages they
	// do not count are only sized, as in Run.
	Kinds []string
}

// RunPages processes the pages First to End-1 of doc as Run processes
// them after its document pass, and hands their results to each in page
// order: a batch of a large document, whose document pass ran once
// before. Each page's result is the one Run gives for it with the same
// engine and kinds, except that a page 0 that the document pass does not
// count is only sized without KeepPNG (Run renders page 0 during the
// document pass; the engine finds nothing there either way). Progress
// counts the batch's pages. Errors are Run's.
func RunPages(ctx context.Context, doc *document.Document, opt PagesOptions, each func(PageResult) error) error {
	if opt.Engine == nil {
		return errors.New("pipeline: no engine configured")
	}
	n := doc.NumPages()
	if opt.First < 0 || opt.End > n || opt.First >= opt.End {
		return fmt.Errorf("pipeline: pages %d to %d of a document of %d pages", opt.First, opt.End-1, n)
	}
	sched := newSchedule(n, opt.Kinds)
	for i := range n {
		if i < opt.First || i >= opt.End {
			sched.take(i)
		}
	}
	sched.emitted = opt.First
	return pass(ctx, doc, opt.Options, opt.Kinds, sched, nil, each)
}
