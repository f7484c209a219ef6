package docfiles

import (
	"context"

	"blueprint/internal/drawing"
)

// Drawing reads page i's drawing without rendering it
// (document.Document.Drawing): nil for an image. It makes an open file a
// job.PageDrawings, which the search for more of a symbol reads.
func (f *openFile) Drawing(ctx context.Context, i int) (*drawing.Page, error) {
	pg, err := f.doc.Drawing(ctx, i)
	return pg, convert(err)
}
