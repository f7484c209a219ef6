package docfiles

import (
	"context"

	"blueprint/internal/detect"
	"blueprint/internal/job"
	"blueprint/internal/pipeline"
)

// RunPages runs pipeline.RunPages: one batch of the document's pages with
// an engine its document pass already prepared.
func (f *openFile) RunPages(ctx context.Context, opt job.PagesOptions, each func(job.PageResult) error) error {
	f.doc.SetDrawingCharge(opt.Charge)
	po := pipeline.PagesOptions{
		Options: pipeline.Options{Engine: opt.Engine, KeepPNG: opt.KeepPNG, Progress: opt.Progress},
		First:   opt.First, End: opt.End, Kinds: opt.Kinds,
	}
	err := pipeline.RunPages(ctx, f.doc, po, func(r pipeline.PageResult) error {
		return each(job.PageResult{Index: r.Index, Kind: r.Kind, Width: r.Width, Height: r.Height, Detections: r.Detections, PNG: r.PNG})
	})
	return convert(err)
}

// Drawings is the document itself (document.Document reads each page's
// drawing without rendering it), its drawings charged to charge.
func (f *openFile) Drawings(charge func(heldBytes int64)) detect.Drawings {
	f.doc.SetDrawingCharge(charge)
	return f.doc
}
