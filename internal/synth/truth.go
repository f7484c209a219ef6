package synth

import (
	"math"

	"blueprint/internal/detect"
	"blueprint/internal/glyph"
)

// Truth is the ground-truth file written beside every sheet, in the
// dataset format shared with the evaluation command.
type Truth struct {
	File   string      `json:"file"`
	Kind   Kind        `json:"kind"`
	Seed   uint64      `json:"seed"`
	Paper  string      `json:"paper"`
	Scale  string      `json:"scale"`
	Legend bool        `json:"legend"`
	DPI    int         `json:"dpi"`
	Pages  []TruthPage `json:"pages"`
}

// TruthPage is one page of a sheet: its raster size and every symbol
// instance on it (legend glyphs excluded).
type TruthPage struct {
	PageIndex int           `json:"page_index"`
	WidthPx   int           `json:"width_px"`
	HeightPx  int           `json:"height_px"`
	Symbols   []TruthSymbol `json:"symbols"`
	// Cases lists the generated cases drawn on the page (the eval
	// dataset's Page.Cases).
	Cases []string `json:"cases,omitempty"`
}

// TruthSymbol is one symbol instance: the axis-aligned bounds of its
// transformed glyph (stroke centrelines, glyph text included), clipped to
// the page, in pixels and normalised to the page size.
type TruthSymbol struct {
	Class    string  `json:"class"`
	BBoxPx   Box     `json:"bbox_px"`
	BBoxNorm Box     `json:"bbox_norm"`
	Rotation float64 `json:"rotation"`
	Mirrored bool    `json:"mirrored"`
	Scale    float64 `json:"scale"`
	Clipped  bool    `json:"clipped"`
	// Case names the generated case the instance stands for (the eval
	// dataset's Symbol.Case); empty for ordinary instances.
	Case string `json:"case,omitempty"`
}

// Box is an axis-aligned rectangle, top-left origin, y down.
type Box struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// pxPerMM converts paper millimetres to pixels of the 200-DPI raster.
const pxPerMM = detect.RenderDPI / 25.4

// instance is a placed symbol with its outline points in paper mm, kept
// so that the raster variant can map them through its skew exactly.
type instance struct {
	class string
	pl    glyph.Placement // At in paper mm
	pts   []glyph.Point   // sampled outline in paper mm
}

// outline samples the glyph's geometry (text as its measured box) mapped
// by m; see glyph.Glyph.Outline.
func outline(g glyph.Glyph, m glyph.Affine, met *metrics) []glyph.Point {
	pts := g.Outline(met.width)
	for i, p := range pts {
		pts[i] = m.Apply(p)
	}
	return pts
}

// boundsOf returns the axis-aligned bounds of pts.
func boundsOf(pts []glyph.Point) (lo, hi glyph.Point) {
	lo = glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi = glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range pts {
		lo.X, lo.Y = math.Min(lo.X, p.X), math.Min(lo.Y, p.Y)
		hi.X, hi.Y = math.Max(hi.X, p.X), math.Max(hi.Y, p.Y)
	}
	return lo, hi
}

// truthBox turns bounds in pixels into a clipped ground-truth box for a
// page of w×h pixels. ok is false when nothing of it lies on the page.
func truthBox(lo, hi glyph.Point, w, h int) (px, norm Box, clipped, ok bool) {
	W, H := float64(w), float64(h)
	x0, y0 := math.Max(lo.X, 0), math.Max(lo.Y, 0)
	x1, y1 := math.Min(hi.X, W), math.Min(hi.Y, H)
	if x1-x0 < 1 || y1-y0 < 1 {
		return Box{}, Box{}, false, false
	}
	clipped = lo.X < 0 || lo.Y < 0 || hi.X > W || hi.Y > H
	r2 := func(v float64) float64 { return math.Round(v*100) / 100 }
	r6 := func(v float64) float64 { return math.Round(v*1e6) / 1e6 }
	px = Box{X: r2(x0), Y: r2(y0), Width: r2(x1 - x0), Height: r2(y1 - y0)}
	norm = Box{X: r6(px.X / W), Y: r6(px.Y / H), Width: r6(px.Width / W), Height: r6(px.Height / H)}
	return px, norm, clipped, true
}

// normAngle maps degrees into [0, 360) rounded to 0.01.
func normAngle(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	a = math.Round(a*100) / 100
	if a >= 360 {
		a -= 360
	}
	return a
}

// symbolsTruth builds the ground truth of insts on a page of w×h pixels
// where paper millimetre p lands on pixel toPx(p).
func symbolsTruth(insts []instance, w, h int, toPx func(glyph.Point) glyph.Point) []TruthSymbol {
	out := make([]TruthSymbol, 0, len(insts))
	for _, in := range insts {
		pts := make([]glyph.Point, len(in.pts))
		for i, p := range in.pts {
			pts[i] = toPx(p)
		}
		lo, hi := boundsOf(pts)
		px, norm, clipped, ok := truthBox(lo, hi, w, h)
		if !ok {
			continue
		}
		out = append(out, TruthSymbol{
			Class: in.class, BBoxPx: px, BBoxNorm: norm,
			Rotation: normAngle(in.pl.Rotation), Mirrored: in.pl.Mirrored,
			Scale: math.Round(in.pl.Scale*1000) / 1000, Clipped: clipped,
		})
	}
	return out
}
