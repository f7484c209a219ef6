package document

import (
	"context"
	"fmt"

	"blueprint/internal/mupdf"
)

// checkContentCost refuses, at the start check, a PDF whose pages would
// run more than processing can bear, measured without drawing anything
// (mupdf.Document.Cost): the decoded bytes of every page's content
// streams and of the form XObjects they invoke, each counted once per
// use (a stream shared by sixty pages counts sixty times), may not pass
// the decompression limit (decompression_bomb); one page may invoke at
// most MaxFormUses form XObjects, counting every repetition of a nested
// one, forms and patterns may nest at most MaxFormDepth deep, and one page
// may draw at most Drawing.MaxOps operations, the walk's own limit,
// counting every cell of a tiling pattern and every glyph procedure of a
// Type 3 font (mupdf.Cost.Ops) (drawing_too_complex).
func checkContentCost(ctx context.Context, data []byte, lim Limits) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("check content cost: %w", err)
	}
	doc, err := openMuPDF(data)
	if err != nil {
		return err
	}
	defer doc.Close()
	cl := mupdfCostLimits(len(data), lim)
	maxBytes := cl.MaxBytes
	c, err := doc.Cost(ctx, cl)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("check content cost: %w", ctx.Err())
	}
	if err != nil {
		return invalid(ReasonCorrupt, nil, "the PDF's page content cannot be read: %v", err)
	}
	switch {
	case c.Bytes > maxBytes:
		return invalid(ReasonDecompressionBomb,
			map[string]any{"page_index": c.WorstPage, "content_bytes_at_least": c.Bytes, "max_decompressed_bytes": maxBytes},
			"the pages' content streams decode to more than %d bytes when every page and form XObject that uses them is counted (the limit is %g times the file size and at most %d bytes); a stream shared by many pages or repeated by nested forms counts at every use",
			maxBytes, lim.MaxDecompressionRatio, lim.MaxDecompressedBytes)
	case lim.MaxFormUses > 0 && c.Uses > lim.MaxFormUses:
		return invalid(ReasonDrawingTooComplex,
			map[string]any{"page_index": c.WorstPage, "form_uses_at_least": c.Uses, "max_form_uses": lim.MaxFormUses},
			"page %d invokes form XObjects more than %d times, counting every repetition of a nested form (the service's limit per page); simplify the drawing or split it into several files",
			c.WorstPage, lim.MaxFormUses)
	case lim.Drawing.MaxOps > 0 && c.Ops > lim.Drawing.MaxOps:
		return invalid(ReasonDrawingTooComplex,
			map[string]any{"page_index": c.OpsPage, "operations_at_least": c.Ops, "max_operations": lim.Drawing.MaxOps},
			"page %d draws more than %d paths, clips, images, shadings and characters (the service's limit per page), counting every repetition: every cell of a tiling pattern, every glyph of a Type 3 font and every use of a form XObject; simplify the drawing or split it into several files",
			c.OpsPage, lim.Drawing.MaxOps)
	case lim.MaxFormDepth > 0 && c.Depth > lim.MaxFormDepth:
		return invalid(ReasonDrawingTooComplex,
			map[string]any{"page_index": c.WorstPage, "form_depth": c.Depth, "max_form_depth": lim.MaxFormDepth},
			"page %d nests form XObjects and patterns more than %d deep (the service's limit); simplify the drawing",
			c.WorstPage, lim.MaxFormDepth)
	}
	return nil
}

// mupdfCostLimits are the limits Cost stops at for a file of size bytes.
func mupdfCostLimits(size int, lim Limits) mupdf.CostLimits {
	return mupdf.CostLimits{MaxBytes: decompressionLimit(size, lim), MaxUses: lim.MaxFormUses, MaxDepth: lim.MaxFormDepth, MaxOps: lim.Drawing.MaxOps}
}
