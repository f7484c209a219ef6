package mupdf

/*
#include "bp.h"
*/
import "C"

import (
	"fmt"
	"math"
)

// CostLimits bound what Cost reads before it stops: the decoded content
// bytes of all pages, the form XObject invocations of one page and how
// deep forms nest.
type CostLimits struct {
	MaxBytes int64
	MaxUses  int64
	MaxDepth int
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
}

// Cost measures what the document's pages run without interpreting them:
// it decodes each page's content streams, and those of the form XObjects
// they invoke with Do (each form once per resources it runs with), reading
// no operator but Do. It stops once lim is passed.
func (d *Document) Cost(lim CostLimits) (Cost, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return Cost{}, fmt.Errorf("mupdf: cost: document is closed")
	}
	cl := C.bp_cost_limits{max_bytes: C.int64_t(orMax(lim.MaxBytes)), max_uses: C.int64_t(orMax(lim.MaxUses)), max_depth: C.int(lim.MaxDepth)}
	if lim.MaxDepth <= 0 {
		cl.max_depth = math.MaxInt32
	}
	var out C.bp_cost
	var msg [errLen]C.char
	if rc := C.bp_document_cost(d.d, cl, &out, &msg[0], errLen); rc != C.BP_OK {
		return Cost{}, fmt.Errorf("mupdf: cost: %s", C.GoString(&msg[0]))
	}
	return Cost{Bytes: int64(out.bytes), Uses: int64(out.uses), Depth: int(out.depth), WorstPage: int(out.worst_page), Stopped: out.stopped != 0}, nil
}

func orMax(n int64) int64 {
	if n <= 0 {
		return math.MaxInt64
	}
	return n
}
