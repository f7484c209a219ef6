package docfiles

import (
	"context"
	"image"

	"blueprint/internal/drawing"
)

// Drawing reads page i's drawing without rendering it
// (document.Document.Drawing): nil for an image. It makes an open file a
// job.PageDrawings, which the search for more of a symbol reads.
func (f *openFile) Drawing(ctx context.Context, i int) (*drawing.Page, error) {
	pg, err := f.doc.Drawing(ctx, i)
	return pg, convert(err)
}

// PageImage renders page i as PagePNG does, without encoding it: the
// 200-DPI raster of a PDF page, an image's own pixels. It makes an open
// file a job.PageImages, which the search on image pages reads.
func (f *openFile) PageImage(ctx context.Context, i int) (image.Image, error) {
	pctx, stopDrawing := context.WithCancel(ctx)
	p, err := f.doc.Page(pctx, i)
	stopDrawing()
	if err != nil {
		return nil, convert(err)
	}
	return p.Raster, nil
}
