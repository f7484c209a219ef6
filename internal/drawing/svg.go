package drawing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"blueprint/internal/glyph"
)

// FromSVG reads the primitives of one page from MuPDF's SVG device output,
// whose unit is the PDF point (CropBox and /Rotate applied); pxPerPt scales
// them to raster pixels (200/72 for the service's 200-DPI raster). Clipping
// is applied with the clip path's bounding box; primitives wholly outside it
// are dropped, segments are cut at its edge.
func FromSVG(ctx context.Context, svg []byte, pxPerPt float64) (*Page, error) {
	if !(pxPerPt > 0) {
		return nil, fmt.Errorf("drawing: scale %g pixels per point is not positive", pxPerPt)
	}
	x := &extractor{b: NewBuilder(0, 0, pxPerPt), defs: map[string]defPath{}, scale: pxPerPt}
	if err := x.run(ctx, svg); err != nil {
		return nil, err
	}
	return x.b.Page(), nil
}

// defPath is a path declared in <defs>: a font glyph outline or a clip path.
type defPath struct {
	cmds []PathCmd
}

type clipBox struct{ min, max glyph.Point }

type frame struct {
	tf   glyph.Affine
	clip *clipBox
	// ignore is set inside <defs>, <mask>, <pattern> and <symbol>, whose
	// content is not drawn where it is declared.
	ignore bool
}

type extractor struct {
	b     *Builder
	defs  map[string]defPath
	clips map[string]clipBox
	stack []frame
	// clipID is the clipPath being read, "" outside one.
	clipID  string
	clipAcc *clipBox
	// scale is raster pixels per SVG unit (PDF point).
	scale float64
}

// maxPagePoints bounds a page side read from the <svg> header: far above
// any page the start check admits (MuPDF's own limit on page boxes).
const maxPagePoints = 1e7

func (x *extractor) top() frame {
	if len(x.stack) == 0 {
		return frame{tf: glyph.Identity}
	}
	return x.stack[len(x.stack)-1]
}

func (x *extractor) run(ctx context.Context, svg []byte) error {
	x.clips = map[string]clipBox{}
	sc := svgScanner{b: svg}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("drawing: extract: %w", err)
			}
		}
		ok, err := sc.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if sc.el.end {
			x.end(sc.el.name)
			continue
		}
		if err := x.start(&sc.el); err != nil {
			return err
		}
		if sc.el.selfClosing {
			x.end(sc.el.name)
		}
	}
}

func (x *extractor) start(t *svgElement) error {
	parent := x.top()
	f := parent
	if tr := t.attr("transform"); tr != "" {
		m, err := parseTransform(tr)
		if err != nil {
			return err
		}
		f.tf = m.Then(parent.tf)
	}
	if cp := t.attr("clip-path"); cp != "" {
		if cb, ok := x.clips[urlID(cp)]; ok {
			f.clip = intersectClip(parent.clip, cb)
		}
	}
	switch t.name {
	case "svg":
		w, errW := strconv.ParseFloat(strings.TrimSuffix(t.attr("width"), "pt"), 64)
		h, errH := strconv.ParseFloat(strings.TrimSuffix(t.attr("height"), "pt"), 64)
		if err := errors.Join(errW, errH); err != nil {
			// Without the page size nothing could be indexed or found.
			return fmt.Errorf("drawing: page size on <svg>: %w", err)
		}
		if !(w >= 0 && h >= 0 && w <= maxPagePoints && h <= maxPagePoints) { // NaN fails too
			return fmt.Errorf("drawing: page size on <svg>: %g × %g pt is not a page", w, h)
		}
		x.b.page.Width, x.b.page.Height = w*x.scale, h*x.scale
		f.tf = glyph.Scale(x.scale)
	case "defs", "mask", "pattern", "symbol", "marker":
		f.ignore = true
	case "clipPath":
		x.clipID = t.attr("id")
		x.clipAcc = nil
		f.ignore = true
	case "path":
		cmds, err := parsePathData(t.attr("d"))
		if err != nil {
			return err
		}
		if id := t.attr("id"); id != "" && parent.ignore && x.clipID == "" {
			// A font glyph outline (or other reusable path) in <defs>,
			// in its own coordinates: kept for <use>.
			x.defs[id] = defPath{cmds: cmds}
			break
		}
		if x.clipID != "" {
			// Clip path geometry: f.tf already includes the page transform
			// because <defs> sits inside <svg>.
			mn, mx, ok := boundsOf(cmds, f.tf)
			if ok {
				if x.clipAcc == nil {
					x.clipAcc = &clipBox{mn, mx}
				} else {
					x.clipAcc = &clipBox{glyph.MinPoint(x.clipAcc.min, mn), glyph.MaxPoint(x.clipAcc.max, mx)}
				}
			}
			break
		}
		if f.ignore {
			break
		}
		x.addPath(cmds, f, t)
	case "use":
		if f.ignore {
			break
		}
		id := strings.TrimPrefix(t.attr("href"), "#")
		d, ok := x.defs[id]
		if !ok {
			break
		}
		if ux, uy := t.attr("x"), t.attr("y"); ux != "" || uy != "" {
			dx, _ := strconv.ParseFloat(ux, 64)
			dy, _ := strconv.ParseFloat(uy, 64)
			f.tf = glyph.Translate(dx, dy).Then(f.tf)
		}
		text, isText := t.attrOK("data-text")
		if !isText {
			// A reused drawing path, not text: draw it.
			x.addPath(d.cmds, f, t)
			break
		}
		x.addChar(text, d.cmds, f)
	}
	x.stack = append(x.stack, f)
	return nil
}

func (x *extractor) end(name string) {
	if name == "clipPath" && x.clipID != "" {
		if x.clipAcc != nil {
			x.clips[x.clipID] = *x.clipAcc
		}
		x.clipID, x.clipAcc = "", nil
	}
	if len(x.stack) > 0 {
		x.stack = x.stack[:len(x.stack)-1]
	}
}

func urlID(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "url(")
	s = strings.TrimSuffix(s, ")")
	return strings.TrimPrefix(s, "#")
}

func intersectClip(a *clipBox, b clipBox) *clipBox {
	if a == nil {
		return &b
	}
	c := clipBox{glyph.MaxPoint(a.min, b.min), glyph.MinPoint(a.max, b.max)}
	return &c
}

// style reads a path element's paint: stroke (width 1 unless given) and
// fill (black unless given, "none" for none).
func (x *extractor) style(t *svgElement, tf glyph.Affine) int32 {
	stroke, fill, w := "", "", 0.0
	if v := t.attr("stroke"); v != "" && v != "none" {
		stroke = v
		w = 1.0
		if sw := t.attr("stroke-width"); sw != "" {
			w, _ = strconv.ParseFloat(sw, 64)
		}
	}
	if v, ok := t.attrOK("fill"); !ok {
		fill = "#000000" // SVG default paint
	} else if v != "none" {
		fill = v
	}
	return x.b.style(stroke, fill, w, tf)
}

// addPath maps a path's commands to pixels and appends its pieces.
func (x *extractor) addPath(cmds []PathCmd, f frame, t *svgElement) {
	x.b.addPath(cmds, f.tf, x.style(t, f.tf), f.clip)
}

func (x *extractor) addChar(text string, cmds []PathCmd, f frame) {
	x.b.addChar(text, cmds, f.tf, f.clip)
}

// clipSegments cuts the segments from index from on with the box, dropping
// those wholly outside (Liang–Barsky).
func clipSegments(segs []Segment, from int, cb clipBox) []Segment {
	const slack = 0.5
	out := segs[:from]
	lo := glyph.Point{X: cb.min.X - slack, Y: cb.min.Y - slack}
	hi := glyph.Point{X: cb.max.X + slack, Y: cb.max.Y + slack}
	for _, s := range segs[from:] {
		t0, t1, ok := glyph.ClipSegment(s.A, s.B, lo, hi)
		if !ok {
			continue
		}
		dx, dy := s.B.X-s.A.X, s.B.Y-s.A.Y
		a := glyph.Point{X: s.A.X + t0*dx, Y: s.A.Y + t0*dy}
		b := glyph.Point{X: s.A.X + t1*dx, Y: s.A.Y + t1*dy}
		out = append(out, Segment{A: a, B: b, Style: s.Style})
	}
	return out
}

// clipArcs drops arcs whose box misses the clip box; arcs crossing its edge
// are kept whole.
func clipArcs(arcs []Arc, from int, cb clipBox) []Arc {
	out := arcs[:from]
	for _, a := range arcs[from:] {
		if a.C.X+a.R < cb.min.X || a.C.X-a.R > cb.max.X || a.C.Y+a.R < cb.min.Y || a.C.Y-a.R > cb.max.Y {
			continue
		}
		out = append(out, a)
	}
	return out
}
