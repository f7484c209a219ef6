package drawing

import (
	"fmt"
	"unsafe"
)

// Limits bound what reading one page's drawing may cost: the number of
// operations the renderer reports (each filled or stroked path, clip and
// glyph is one, however many times an XObject repeats it), the bytes of
// primitives the page holds, and how deep clips may nest. A zero field is
// no limit.
type Limits struct {
	MaxOps       int64
	MaxBytes     int64
	MaxClipDepth int
}

// DefaultLimits are the page limits of docs/decisions.md: 8 million
// operations, 768 MiB of primitives and clips nested 4096 deep. The
// heaviest real sheet measured (an A1 ArchiCAD export: 1.44 million
// strokes, 44 000 clips, 1 900 text runs) reports about 1.6 million
// operations and holds about 80 MiB.
func DefaultLimits() Limits {
	return Limits{MaxOps: 8_000_000, MaxBytes: 768 << 20, MaxClipDepth: 4096}
}

// LimitError says which limit a page's drawing passed. Limit is one of the
// Limit constants and Max the limit's value.
type LimitError struct {
	Limit string
	Max   int64
}

// Names of the limits in LimitError.
const (
	LimitOps       = "operations"
	LimitBytes     = "bytes"
	LimitClipDepth = "clip_depth"
)

// Error says which limit was passed in words a partner can act on.
func (e *LimitError) Error() string {
	switch e.Limit {
	case LimitOps:
		return fmt.Sprintf("the page draws more than %d paths, clips and characters (the service's limit per page, counting every repetition of a form XObject)", e.Max)
	case LimitBytes:
		return fmt.Sprintf("the page's drawing takes more than %d MiB to hold (the service's limit per page)", e.Max>>20)
	default:
		return fmt.Sprintf("the page nests more than %d clips (the service's limit per page)", e.Max)
	}
}

// Sizes of what a Builder holds, for Limits.MaxBytes.
const (
	segmentBytes = int64(unsafe.Sizeof(Segment{}))
	arcBytes     = int64(unsafe.Sizeof(Arc{}))
	charBytes    = int64(unsafe.Sizeof(Char{}))
	// clipBytes is one entry of the clip stack and the box it may point to.
	clipBytes = int64(unsafe.Sizeof((*clipBox)(nil)) + unsafe.Sizeof(clipBox{}))
	// chargeStep is how much a page's drawing grows between calls of the
	// Builder's charge function.
	chargeStep = 16 << 20
)

// SetLimits makes the Builder stop keeping what the page draws once lim is
// passed (Err then says which limit), and calls charge, when not nil, with
// the bytes the page holds each time they grow by another 16 MiB, so that
// a memory budget can account for the drawing as it grows.
func (b *Builder) SetLimits(lim Limits, charge func(heldBytes int64)) {
	b.lim, b.charge = lim, charge
}

// Err returns a *LimitError once the drawing passed one of its Limits,
// else nil. What is drawn after that is not kept.
func (b *Builder) Err() error {
	if b.over == nil {
		return nil
	}
	return b.over
}

// HeldBytes returns the bytes of primitives and clips the Builder holds
// (the capacity of its slices: what the garbage collector keeps).
func (b *Builder) HeldBytes() int64 {
	p := b.page
	return int64(cap(p.Segments))*segmentBytes + int64(cap(p.Arcs))*arcBytes +
		int64(cap(p.Chars))*charBytes + int64(cap(b.clips))*clipBytes
}

// count charges one operation and reports whether the Builder still keeps
// what is drawn.
func (b *Builder) count() bool {
	if b.over != nil {
		return false
	}
	b.ops++
	switch {
	case b.lim.MaxOps > 0 && b.ops > b.lim.MaxOps:
		b.over = &LimitError{Limit: LimitOps, Max: b.lim.MaxOps}
	case b.lim.MaxClipDepth > 0 && len(b.clips) > b.lim.MaxClipDepth:
		b.over = &LimitError{Limit: LimitClipDepth, Max: int64(b.lim.MaxClipDepth)}
	}
	if b.lim.MaxBytes > 0 || b.charge != nil {
		held := b.HeldBytes()
		if b.lim.MaxBytes > 0 && held > b.lim.MaxBytes {
			b.over = &LimitError{Limit: LimitBytes, Max: b.lim.MaxBytes}
		}
		if b.charge != nil && held >= b.charged+chargeStep {
			b.charged = held
			b.charge(held)
		}
	}
	return b.over == nil
}

// Skip counts n operations the renderer drew where nothing is kept (the
// content of soft masks and tiling patterns) against MaxOps.
func (b *Builder) Skip(n int64) {
	if b.over != nil || n <= 0 {
		return
	}
	b.ops += n - 1
	b.count()
}
