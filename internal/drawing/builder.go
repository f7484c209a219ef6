package drawing

import (
	"math"
	"slices"

	"blueprint/internal/glyph"
)

// Builder assembles a Page from what a renderer's device reports, in the
// order drawn, in page space (PDF points, y down, CropBox and /Rotate
// applied; each call carries the transform to page space). It reads the
// device calls exactly as FromSVG reads MuPDF's SVG of them: paths become
// segments and arcs (pieces.go), text characters become Chars, clips act
// by their bounding box, and a clip that is not a filled path (a mask, a
// stroke, text or an image) does not narrow what is kept.
//
// Fill and stroke colours are "#rrggbb", "" for none. What a page may
// cost to read is bounded by SetLimits. A Builder is for one goroutine.
type Builder struct {
	page     *Page
	styleIdx map[Style]int32
	// last is the style asked for last and its index: paths come in runs
	// of one paint.
	last    Style
	lastIdx int32
	page2px glyph.Affine
	clips   []*clipBox // the clip in force after each push; nil entries do not clip
	layers  []string   // optional-content layers open now, outermost first

	lim     Limits
	charge  func(int64)
	ops     int64
	charged int64       // bytes last reported to charge
	over    *LimitError // the limit passed, once one is
	masks   []mask      // paper-coloured rectangles not yet applied (occlude.go)
}

// NewBuilder starts a page of widthPt × heightPt points whose primitives
// are kept in pixels of pxPerPt (200/72 for the service's raster).
func NewBuilder(widthPt, heightPt, pxPerPt float64) *Builder {
	b := &Builder{page: &Page{}, styleIdx: map[Style]int32{}, page2px: glyph.Scale(pxPerPt), lastIdx: -1}
	b.page.Width, b.page.Height = widthPt*pxPerPt, heightPt*pxPerPt
	return b
}

// Page returns the page built so far. Pieces whose coordinates overflowed
// to infinity or NaN (a transform of 1e308, say) are dropped: they lie
// nowhere on any page, and every consumer indexes finite geometry; so
// are the pieces and characters a paper-coloured rectangle drawn after
// them hides whole (occlude.go).
func (b *Builder) Page() *Page {
	b.occlude()
	pg := b.page
	pg.Segments = slices.DeleteFunc(pg.Segments, func(s Segment) bool {
		return !finite(s.A.X, s.A.Y, s.B.X, s.B.Y)
	})
	pg.Arcs = slices.DeleteFunc(pg.Arcs, func(a Arc) bool {
		return !finite(a.C.X, a.C.Y, a.R, a.Start, a.Sweep)
	})
	pg.Chars = slices.DeleteFunc(pg.Chars, func(c Char) bool {
		return !finite(c.Min.X, c.Min.Y, c.Max.X, c.Max.Y, c.Origin.X, c.Origin.Y, c.Size, c.Angle)
	})
	return pg
}

// finite reports whether every value is neither infinite nor NaN.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	return true
}

func (b *Builder) clip() *clipBox {
	if len(b.clips) == 0 {
		return nil
	}
	return b.clips[len(b.clips)-1]
}

// Fill adds a filled path.
func (b *Builder) Fill(cmds []PathCmd, ctm glyph.Affine, fill string) {
	if !b.count() {
		return
	}
	tf := ctm.Then(b.page2px)
	b.addPath(cmds, tf, b.style("", fill, 0, tf), b.clip())
}

// Stroke adds a stroked path of line width lineWidth (in the path's own
// units).
func (b *Builder) Stroke(cmds []PathCmd, ctm glyph.Affine, stroke string, lineWidth float64) {
	if !b.count() {
		return
	}
	tf := ctm.Then(b.page2px)
	b.addPath(cmds, tf, b.style(stroke, "", lineWidth, tf), b.clip())
}

// Clip narrows what is kept, until the matching PopClip, to the bounding
// box of the path (within the clip already in force).
func (b *Builder) Clip(cmds []PathCmd, ctm glyph.Affine) {
	b.count()
	c := b.clip()
	if mn, mx, ok := boundsOf(cmds, ctm.Then(b.page2px)); ok {
		c = intersectClip(c, clipBox{mn, mx})
	}
	b.clips = append(b.clips, c)
}

// ClipOther opens a clip that is not a filled path; it keeps the clip in
// force, and is closed by PopClip.
func (b *Builder) ClipOther() {
	b.count()
	b.clips = append(b.clips, b.clip())
}

// PopClip closes the innermost clip.
func (b *Builder) PopClip() {
	if len(b.clips) > 0 {
		b.clips = b.clips[:len(b.clips)-1]
	}
}

// Glyph adds one drawn glyph: ucs is its Unicode character (≤ 0 when the
// text has none: then the outline is drawn as a path of the given paint),
// outline is the glyph's outline in font units, and mtx maps font units to
// page space. A glyph with an empty outline (a space) is a character at its
// origin.
func (b *Builder) Glyph(ucs rune, outline []PathCmd, mtx glyph.Affine, fill, stroke string, strokeWidth float64) {
	if !b.count() {
		return
	}
	tf := mtx.Then(b.page2px)
	if ucs <= 0 {
		b.addPath(outline, tf, b.style(stroke, fill, strokeWidth, tf), b.clip())
		return
	}
	if ucs >= 0xD800 && ucs <= 0xDFFF {
		ucs = 0xFFFD // as MuPDF writes a surrogate
	}
	b.addChar(string(ucs), outline, tf, b.clip())
}

// Image adds the area an image covers, its box corners a and b in page
// space (points), inside the clip in force and the page.
func (b *Builder) Image(a, c glyph.Point) {
	if !b.count() {
		return
	}
	pa, pc := b.page2px.Apply(a), b.page2px.Apply(c)
	mn, mx := glyph.MinPoint(pa, pc), glyph.MaxPoint(pa, pc)
	mn, mx = glyph.MaxPoint(mn, glyph.Point{}), glyph.MinPoint(mx, glyph.Point{X: b.page.Width, Y: b.page.Height})
	if cl := b.clip(); cl != nil {
		mn, mx = glyph.MaxPoint(mn, cl.min), glyph.MinPoint(mx, cl.max)
	}
	if w, h := mx.X-mn.X, mx.Y-mn.Y; w > 0 && h > 0 && finite(w, h) {
		b.page.ImageArea += w * h
	}
}

// BeginLayer opens an optional-content layer (PDF /OC marked content)
// named name; EndLayer closes the innermost one.
func (b *Builder) BeginLayer(name string) { b.layers = append(b.layers, name) }

// EndLayer closes the innermost optional-content layer.
func (b *Builder) EndLayer() {
	if len(b.layers) > 0 {
		b.layers = b.layers[:len(b.layers)-1]
	}
}

// Layers returns the optional-content layers open now, outermost first.
func (b *Builder) Layers() []string { return b.layers }

// style returns the index of a path's paint; a stroke width counts only
// for a stroked path, scaled by the path's transform to pixels.
func (b *Builder) style(stroke, fill string, width float64, tf glyph.Affine) int32 {
	s := Style{Stroke: stroke, Fill: fill}
	if stroke != "" {
		s.Width = width * math.Sqrt(math.Abs(tf.A*tf.D-tf.B*tf.C))
	}
	if b.lastIdx >= 0 && s == b.last {
		return b.lastIdx
	}
	i, ok := b.styleIdx[s]
	if !ok {
		i = int32(len(b.page.Styles))
		b.page.Styles = append(b.page.Styles, s)
		b.styleIdx[s] = i
	}
	b.last, b.lastIdx = s, i
	return i
}

// addPath maps a path's commands to pixels by tf and appends its pieces,
// cut by the clip; a paper-coloured rectangle masks what it covers
// (occlude.go).
func (b *Builder) addPath(cmds []PathCmd, tf glyph.Affine, st int32, clip *clipBox) {
	if mn, mx, ok := paperRect(cmds, tf, b.page.Styles[st].Fill, clip); ok {
		b.addMask(mn, mx)
	}
	before := len(b.page.Segments)
	beforeArcs := len(b.page.Arcs)
	appendPieces(b.page, cmds, tf, st)
	if clip == nil {
		return
	}
	b.page.Segments = clipSegments(b.page.Segments, before, *clip)
	b.page.Arcs = clipArcs(b.page.Arcs, beforeArcs, *clip)
}

// addChar appends a character whose outline (font units) tf maps to
// pixels, unless it lies wholly outside the clip.
func (b *Builder) addChar(text string, cmds []PathCmd, tf glyph.Affine, clip *clipBox) {
	mn, mx, ok := boundsOf(cmds, tf)
	origin := tf.Apply(glyph.Point{})
	if !ok { // a space: no outline
		mn, mx = origin, origin
	}
	if clip != nil && (mx.X < clip.min.X || mn.X > clip.max.X || mx.Y < clip.min.Y || mn.Y > clip.max.Y) {
		return
	}
	size := math.Sqrt(math.Abs(tf.A*tf.D - tf.B*tf.C))
	// Font space is y up inside a y-down page: the baseline direction is
	// the image of +x.
	angle := math.Atan2(tf.B, tf.A) * 180 / math.Pi
	b.page.Chars = append(b.page.Chars, Char{Text: text, Min: mn, Max: mx, Origin: origin, Size: size, Angle: angle})
}
