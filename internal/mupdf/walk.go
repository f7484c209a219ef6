package mupdf

/*
#include "bp.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/cgo"
	"unsafe"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// Walk hands what the page draws to b, in drawing order and in page space
// (points, origin top left, CropBox and /Rotate applied; each call carries
// its transform): filled and stroked paths with their colour and line
// width, clips, each glyph with its character and outline, and optional
// content layers opening and closing. It reads the page as MuPDF's SVG
// device wrote it, so b builds the Page drawing.FromSVG built from that SVG:
// the content of soft masks and tiling patterns is not drawn where it is
// declared and is skipped; clips other than filled paths do not narrow
// what is kept; glyphs of Type 3 fonts and glyphs without an outline are
// not characters. Images carry no geometry: only the area they cover is
// kept (drawing.Page.ImageArea); shadings are skipped.
// The operations drawn inside skipped content still count against b's
// limits (drawing.Builder.SetLimits); once b passes one, the walk stops
// with b's *drawing.LimitError. Cancelling ctx stops the walk with ctx's
// error.
func (l *List) Walk(ctx context.Context, b *drawing.Builder) error {
	w := &walker{b: b, outlines: map[glyphKey][]drawing.PathCmd{}, colors: map[uint32]string{}}
	h := cgo.NewHandle(w)
	defer h.Delete()
	err := l.run(ctx, "walk", func(c *C.fz_context, list *C.fz_display_list, cookie *C.fz_cookie, msg *C.char) C.int {
		return C.bp_walk_list(c, list, C.uintptr_t(h), cookie, msg, errLen)
	})
	if w.err != nil {
		return fmt.Errorf("mupdf: walk: %w", w.err)
	}
	return err
}

// WalkPage hands what page i draws to b as List.Walk does, running the
// page's content straight into the walk with no display list: the cheaper
// read of a page that is not also rendered. It returns the page box in
// points (CropBox, /Rotate applied). MuPDF reads the document one call
// at a time: other calls on d wait for the walk.
func (d *Document) WalkPage(ctx context.Context, i int, b func(bounds Rect) *drawing.Builder) (Rect, error) {
	if err := ctx.Err(); err != nil {
		return Rect{}, fmt.Errorf("mupdf: walk page %d: %w", i, err)
	}
	bounds, err := d.Bounds(i)
	if err != nil {
		return Rect{}, err
	}
	w := &walker{b: b(bounds), outlines: map[glyphKey][]drawing.PathCmd{}, colors: map[uint32]string{}}
	h := cgo.NewHandle(w)
	defer h.Delete()
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(i); err != nil {
		return Rect{}, err
	}
	cookie := C.bp_new_cookie()
	if cookie == nil {
		return Rect{}, fmt.Errorf("mupdf: walk page %d: out of memory", i)
	}
	defer C.bp_free_cookie(cookie)
	stop := abortOnDone(ctx, cookie)
	var r [4]C.float
	var msg [errLen]C.char
	rc := C.bp_walk_page(d.d, C.int(i), C.uintptr_t(h), &r[0], cookie, &msg[0], errLen)
	stop()
	if w.err != nil {
		return Rect{}, fmt.Errorf("mupdf: walk page %d: %w", i, w.err)
	}
	switch rc {
	case C.BP_OK:
		return rectOf(r), nil
	case C.BP_ABORTED:
		if err := ctx.Err(); err != nil {
			return Rect{}, fmt.Errorf("mupdf: walk page %d: %w", i, err)
		}
	}
	return Rect{}, fmt.Errorf("mupdf: walk page %d: %w", i, failure(C.GoString(&msg[0])))
}

// bpWalkFlush receives the walk's words written so far (bp.c); non-zero
// stops the walk.
//
//export bpWalkFlush
func bpWalkFlush(h C.uintptr_t, words *C.uint32_t, n C.size_t) (rc C.int) {
	w := cgo.Handle(h).Value().(*walker)
	defer func() {
		// A panic must not unwind through MuPDF's frames.
		if r := recover(); r != nil {
			w.err = fmt.Errorf("reading the drawing: %v", r)
			rc = 1
		}
	}()
	if err := w.decode(unsafe.Slice((*uint32)(unsafe.Pointer(words)), int(n))); err != nil {
		w.err = err
		return 1
	}
	return 0
}

type glyphKey struct{ font, gid uint32 }

// walker turns the word stream of bp.c into Builder calls.
type walker struct {
	b        *drawing.Builder
	outlines map[glyphKey][]drawing.PathCmd // glyph outlines in font units
	colors   map[uint32]string              // "#rrggbb" of each RGB seen
	cmds     []drawing.PathCmd              // scratch
	err      error
}

// Record kinds and path operators of bp.h.
const (
	recFill       = C.BP_FILL
	recStroke     = C.BP_STROKE
	recClip       = C.BP_CLIP
	recClipOther  = C.BP_CLIP_OTHER
	recPop        = C.BP_POP
	recOutline    = C.BP_OUTLINE
	recGlyph      = C.BP_GLYPH
	recLayerBegin = C.BP_LAYER_BEGIN
	recLayerEnd   = C.BP_LAYER_END
	recSkipped    = C.BP_SKIPPED
	recImage      = C.BP_IMAGE
	colorNone     = C.BP_NONE
)

var errStream = errors.New("malformed drawing stream")

func (w *walker) decode(buf []uint32) error {
	for i := 0; i < len(buf); {
		if i+2 > len(buf) {
			return errStream
		}
		kind, n := buf[i], int(buf[i+1])
		i += 2
		if n < 0 || i+n > len(buf) {
			return errStream
		}
		rec := buf[i : i+n]
		i += n
		if err := w.record(kind, rec); err != nil {
			return err
		}
		if err := w.b.Err(); err != nil {
			return err // a drawing limit: stop reading the page
		}
	}
	return nil
}

// heads is the number of words before the path of each path record.
var heads = map[uint32]int{recFill: 7, recStroke: 8, recClip: 6, recOutline: 3, recGlyph: 12, recLayerBegin: 1, recSkipped: 1, recImage: 4}

func (w *walker) record(kind uint32, rec []uint32) error {
	if h := heads[kind]; len(rec) < h {
		return errStream
	}
	switch kind {
	case recFill:
		cmds, err := w.path(rec[7:])
		if err != nil {
			return err
		}
		w.b.Fill(cmds, matrix(rec), w.color(rec[6]))
	case recStroke:
		cmds, err := w.path(rec[8:])
		if err != nil {
			return err
		}
		w.b.Stroke(cmds, matrix(rec), w.color(rec[6]), f32(rec[7]))
	case recClip:
		cmds, err := w.path(rec[6:])
		if err != nil {
			return err
		}
		w.b.Clip(cmds, matrix(rec))
	case recClipOther:
		w.b.ClipOther()
	case recPop:
		w.b.PopClip()
	case recOutline:
		if rec[2] == 0 {
			return nil
		}
		cmds, err := w.path(rec[3:])
		if err != nil {
			return err
		}
		w.outlines[glyphKey{rec[0], rec[1]}] = append([]drawing.PathCmd(nil), cmds...)
	case recGlyph:
		outline, ok := w.outlines[glyphKey{rec[0], rec[1]}]
		if !ok {
			return errStream
		}
		w.b.Glyph(rune(int32(rec[2])), outline, matrix(rec[3:]), w.color(rec[9]), w.color(rec[10]), f32(rec[11]))
	case recLayerBegin:
		n := int(rec[0])
		if n > 4*(len(rec)-1) {
			return errStream
		}
		name := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(rec[1:]))), 4*(len(rec)-1))[:n]
		w.b.BeginLayer(string(name))
	case recLayerEnd:
		w.b.EndLayer()
	case recSkipped:
		w.b.Skip(int64(rec[0]))
	case recImage:
		w.b.Image(glyph.Point{X: f32(rec[0]), Y: f32(rec[1])}, glyph.Point{X: f32(rec[2]), Y: f32(rec[3])})
	default:
		return fmt.Errorf("%w: record kind %d", errStream, kind)
	}
	return nil
}

func f32(v uint32) float64 { return float64(math.Float32frombits(v)) }

func matrix(r []uint32) glyph.Affine {
	return glyph.Affine{A: f32(r[0]), B: f32(r[1]), C: f32(r[2]), D: f32(r[3]), E: f32(r[4]), F: f32(r[5])}
}

// color is "#rrggbb", "" for none.
func (w *walker) color(rgb uint32) string {
	if rgb == colorNone {
		return ""
	}
	s, ok := w.colors[rgb]
	if !ok {
		s = fmt.Sprintf("#%06x", rgb)
		w.colors[rgb] = s
	}
	return s
}

// path reads path operators into the scratch slice (valid until the next
// call).
func (w *walker) path(r []uint32) ([]drawing.PathCmd, error) {
	cmds := w.cmds[:0]
	pt := func(i int) glyph.Point { return glyph.Point{X: f32(r[i]), Y: f32(r[i+1])} }
	for i := 0; i < len(r); {
		op := byte(r[i])
		i++
		switch op {
		case 'M', 'L':
			if i+2 > len(r) {
				return nil, errStream
			}
			cmds = append(cmds, drawing.PathCmd{Op: op, P: [3]glyph.Point{pt(i)}})
			i += 2
		case 'C':
			if i+6 > len(r) {
				return nil, errStream
			}
			cmds = append(cmds, drawing.PathCmd{Op: op, P: [3]glyph.Point{pt(i), pt(i + 2), pt(i + 4)}})
			i += 6
		case 'Z':
			cmds = append(cmds, drawing.PathCmd{Op: op})
		default:
			return nil, fmt.Errorf("%w: path operator %d", errStream, op)
		}
	}
	w.cmds = cmds
	return cmds, nil
}
