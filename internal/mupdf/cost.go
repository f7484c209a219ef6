package mupdf

/*
#include "bp.h"
*/
import "C"

import (
	"context"
	"fmt"
	"math"
)

// CostLimits bound what Cost reads before it stops: the decoded content
// bytes of all pages, the form XObject invocations of one page, how deep
// forms and patterns nest, and the drawing operations of one page.
type CostLimits struct {
	MaxBytes int64
	MaxUses  int64
	MaxDepth int
	MaxOps   int64
}

// Cost is what the pages of a document run, counting every use: a content
// stream shared by sixty pages counts sixty times, a form drawn ten times
// by a form drawn ten times counts a hundred.
type Cost struct {
	Bytes     int64 // decoded content bytes of all pages
	Uses      int64 // the most form XObject invocations of one page
	Depth     int   // the deepest nesting of forms
	WorstPage int   // the page with the most invocations, or where a limit was passed
	Stopped   bool  // a limit was passed; the counts are lower bounds
	// Ops is the most drawing operations of one page, counted as the walk
	// counts them (List.Walk): each painting operator, clip, image,
	// shading and glyph is one, every repetition counted; a glyph of a
	// Type 3 font costs the operations of its glyph procedure (the most of
	// the font's); a tiling pattern costs its cell's operations (at least
	// one) times the cells that cover the box it fills (the painted path's
	// box within the clip and the page's MediaBox, in the pattern's cell
	// steps, one more cell each way), text in a pattern the whole clip;
	// under a soft mask, every object painted costs the mask's
	// operations again, as MuPDF runs the mask for each.
	Ops     int64
	OpsPage int // the page with the most operations
}

// Cost measures what the document's pages run without drawing them: it
// decodes each page's content streams, and those of the form XObjects
// they invoke with Do, of the tiling patterns they paint with and of the
// Type 3 fonts they show (each once per resources it runs with), following
// only the operators that count: Do, painting and clipping, the transform
// (q, Q, cm) and path points that give a painted box, colours and
// patterns, soft masks (gs), fonts and text. It stops once lim is passed, and with ctx's
// error once ctx is done.
func (d *Document) Cost(ctx context.Context, lim CostLimits) (Cost, error) {
	if err := ctx.Err(); err != nil {
		return Cost{}, fmt.Errorf("mupdf: cost: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return Cost{}, fmt.Errorf("mupdf: cost: document is closed")
	}
	cl := C.bp_cost_limits{max_bytes: C.int64_t(orMax(lim.MaxBytes)), max_uses: C.int64_t(orMax(lim.MaxUses)), max_depth: C.int(lim.MaxDepth), max_ops: C.int64_t(orMax(lim.MaxOps))}
	if lim.MaxDepth <= 0 {
		cl.max_depth = math.MaxInt32
	}
	cookie := C.bp_new_cookie()
	if cookie == nil {
		return Cost{}, fmt.Errorf("mupdf: cost: out of memory")
	}
	defer C.bp_free_cookie(cookie)
	stop := abortOnDone(ctx, cookie)
	var out C.bp_cost
	var msg [errLen]C.char
	rc := C.bp_document_cost(d.d, cl, cookie, &out, &msg[0], errLen)
	stop()
	if rc == C.BP_ABORTED && ctx.Err() != nil {
		return Cost{}, fmt.Errorf("mupdf: cost: %w", ctx.Err())
	}
	if rc != C.BP_OK {
		return Cost{}, fmt.Errorf("mupdf: cost: %s", C.GoString(&msg[0]))
	}
	return Cost{Bytes: int64(out.bytes), Uses: int64(out.uses), Depth: int(out.depth), WorstPage: int(out.worst_page), Stopped: out.stopped != 0,
		Ops: int64(out.ops), OpsPage: int(out.ops_page)}, nil
}

func orMax(n int64) int64 {
	if n <= 0 {
		return math.MaxInt64
	}
	return n
}

// Encrypted reports whether the document is encrypted: one that opened
// without ErrNeedsPassword is encrypted with an owner password only, and
// MuPDF decrypts it with the empty user password.
func (d *Document) Encrypted() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return !d.closed && C.bp_is_encrypted(d.d) != 0
}

// StreamBytes decodes every stream of the document but image XObjects,
// decrypting them, and returns the bytes they give, stopping once past
// limit: the decompression check of an encrypted file, whose raw streams
// do not inflate. A damaged stream counts what it gave.
func (d *Document) StreamBytes(limit int64) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0, fmt.Errorf("mupdf: stream bytes: document is closed")
	}
	var n C.int64_t
	var msg [errLen]C.char
	if rc := C.bp_stream_bytes(d.d, C.int64_t(limit), &n, &msg[0], errLen); rc != C.BP_OK {
		return 0, fmt.Errorf("mupdf: stream bytes: %s", C.GoString(&msg[0]))
	}
	return int64(n), nil
}
