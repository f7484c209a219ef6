package catalog

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"

	"blueprint/internal/glyph"
)

// Icon geometry, shared by the SVG and PNG forms so both look the same.
const (
	// svgViewBox is the side of the square SVG viewBox.
	svgViewBox = 100.0
	// iconMargin is the empty border on each side, as a fraction of the side.
	iconMargin = 0.08
	// iconStrokeMM is the stroke width in glyph millimetres (a typical
	// plotted line weight of 0.3 mm), scaled with the glyph...
	iconStrokeMM = 0.3
	// ...but kept between these fractions of the icon side, so small glyphs
	// do not look heavy and large ones stay visible.
	iconStrokeMin = 0.025
	iconStrokeMax = 0.055
	// capHeightRatio approximates a sans-serif font's cap height as a
	// fraction of its font size, to turn a text shape's Size (cap height)
	// into an SVG font-size.
	capHeightRatio = 0.72
	// MinIconPx and MaxIconPx bound IconPNG's sizePx.
	MinIconPx = 8
	MaxIconPx = 2048
)

// fit is the placement of a glyph in a square icon of the given side.
type fit struct {
	m      glyph.Affine // glyph millimetres to icon units
	stroke float64      // stroke width in icon units
}

// fitGlyph centres g's bounds (text included) in a square of side units,
// leaving iconMargin on each side.
func fitGlyph(g glyph.Glyph, side float64) fit {
	lo, hi := g.Bounds()
	w, h := hi.X-lo.X, hi.Y-lo.Y
	extent := math.Max(w, h) + iconStrokeMM
	s := side * (1 - 2*iconMargin) / extent
	cx, cy := (lo.X+hi.X)/2, (lo.Y+hi.Y)/2
	stroke := math.Min(math.Max(iconStrokeMM*s, iconStrokeMin*side), iconStrokeMax*side)
	return fit{
		m:      glyph.Translate(-cx, -cy).Then(glyph.Scale(s)).Then(glyph.Translate(side/2, side/2)),
		stroke: stroke,
	}
}

// IconSVG returns a standalone SVG of the class's glyph in its colour,
// fitted with a margin into a square 100×100 viewBox, strokes of a width
// proportional to the glyph's scale, text as <text> in sans-serif. The
// background is transparent.
func (c *Catalog) IconSVG(class string) ([]byte, error) {
	i, ok := c.index[class]
	if !ok {
		return nil, fmt.Errorf("catalog icon %q: %w", class, ErrUnknownClass)
	}
	s := c.symbols[i]
	f := fitGlyph(s.Glyph, svgViewBox)
	g := s.Glyph.Transform(f.m)
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s">`,
		num(svgViewBox), num(svgViewBox), num(svgViewBox), num(svgViewBox))
	b.WriteString("<title>")
	xml.EscapeText(&b, []byte(s.DisplayName))
	b.WriteString("</title>")
	fmt.Fprintf(&b, `<g fill="none" stroke="%s" stroke-width="%s" stroke-linecap="round" stroke-linejoin="round">`, s.Color, num(f.stroke))
	fill := func(sh glyph.Shape) string {
		if sh.Fill {
			return ` fill="` + s.Color + `"`
		}
		return ""
	}
	pts := func(ps []glyph.Point) string {
		parts := make([]string, len(ps))
		for i, p := range ps {
			parts[i] = num(p.X) + "," + num(p.Y)
		}
		return strings.Join(parts, " ")
	}
	for _, sh := range g.Shapes {
		switch sh.Kind {
		case glyph.KindLine:
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`, num(sh.Pts[0].X), num(sh.Pts[0].Y), num(sh.Pts[1].X), num(sh.Pts[1].Y))
		case glyph.KindPolyline:
			fmt.Fprintf(&b, `<polyline points="%s"%s/>`, pts(sh.Pts), fill(sh))
		case glyph.KindPolygon:
			fmt.Fprintf(&b, `<polygon points="%s"%s/>`, pts(sh.Pts), fill(sh))
		case glyph.KindRect:
			a, z := sh.Pts[0], sh.Pts[1]
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s"%s/>`, num(a.X), num(a.Y), num(z.X-a.X), num(z.Y-a.Y), fill(sh))
		case glyph.KindCircle:
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="%s"%s/>`, num(sh.Pts[0].X), num(sh.Pts[0].Y), num(sh.R), fill(sh))
		case glyph.KindArc:
			if math.Abs(sh.Sweep) >= 360 {
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="%s"/>`, num(sh.Pts[0].X), num(sh.Pts[0].Y), num(sh.R))
				continue
			}
			at := func(deg float64) glyph.Point {
				r := deg * math.Pi / 180
				return glyph.Point{X: sh.Pts[0].X + sh.R*math.Cos(r), Y: sh.Pts[0].Y + sh.R*math.Sin(r)}
			}
			p0, p1 := at(sh.Start), at(sh.Start+sh.Sweep)
			large, sweep := 0, 0
			if math.Abs(sh.Sweep) > 180 {
				large = 1
			}
			if sh.Sweep > 0 { // positive sweeps turn clockwise on a y-down screen
				sweep = 1
			}
			fmt.Fprintf(&b, `<path d="M%s %sA%s %s 0 %d %d %s %s"/>`, num(p0.X), num(p0.Y), num(sh.R), num(sh.R), large, sweep, num(p1.X), num(p1.Y))
		case glyph.KindText:
			fmt.Fprintf(&b, `<text x="%s" y="%s" font-family="sans-serif" font-size="%s" text-anchor="middle" fill="%s" stroke="none">`,
				num(sh.Pts[0].X), num(sh.Pts[0].Y), num(sh.Size/capHeightRatio), s.Color)
			xml.EscapeText(&b, []byte(sh.Text))
			b.WriteString("</text>")
		}
	}
	b.WriteString("</g></svg>\n")
	return b.Bytes(), nil
}

// IconPNG returns a sizePx × sizePx PNG of the class's glyph in its colour
// on a transparent background, laid out exactly as IconSVG.
//
// Rendering route: the glyph is rasterised directly with
// golang.org/x/image/vector (strokes expanded to polygons with round joins
// and caps) and text drawn with the Go sans-serif font (gofont). The
// alternative, writing a one-page PDF and rendering it with MuPDF through
// go-fitz, would make this package — imported by the server, the generator
// and the engine — depend on cgo for a 64-pixel icon; the pure-Go route
// keeps it portable and fast.
func (c *Catalog) IconPNG(class string, sizePx int) ([]byte, error) {
	i, ok := c.index[class]
	if !ok {
		return nil, fmt.Errorf("catalog icon %q: %w", class, ErrUnknownClass)
	}
	if sizePx < MinIconPx || sizePx > MaxIconPx {
		return nil, fmt.Errorf("catalog icon %q: size %d px outside %d..%d", class, sizePx, MinIconPx, MaxIconPx)
	}
	s := c.symbols[i]
	col, err := parseColor(s.Color)
	if err != nil {
		return nil, fmt.Errorf("catalog icon %q: %w", class, err)
	}
	img := image.NewRGBA(image.Rect(0, 0, sizePx, sizePx))
	if err := drawGlyph(img, s.Glyph, fitGlyph(s.Glyph, float64(sizePx)), col); err != nil {
		return nil, fmt.Errorf("catalog icon %q: %w", class, err)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("catalog icon %q: encode png: %w", class, err)
	}
	return b.Bytes(), nil
}

// parseColor reads #rrggbb.
func parseColor(s string) (color.RGBA, error) {
	if err := checkColor(s); err != nil {
		return color.RGBA{}, err
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.RGBA{}, fmt.Errorf("colour %q: %w", s, err)
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}, nil
}

// drawGlyph paints g, placed by f, onto dst in col. All strokes and fills
// go through one rasteriser as polygons of one orientation, so overlaps
// add up instead of cancelling; text is drawn after, with gofont.
func drawGlyph(dst draw.Image, g glyph.Glyph, f fit, col color.RGBA) error {
	b := dst.Bounds()
	ras := vector.NewRasterizer(b.Dx(), b.Dy())
	t := g.Transform(f.m)
	half := f.stroke / 2
	tol := 0.1 // pixels: curves look round at any icon size
	for _, sh := range t.Shapes {
		if sh.Kind == glyph.KindText {
			continue
		}
		one := glyph.Glyph{Shapes: []glyph.Shape{sh}}
		for _, chain := range one.Polylines(tol) {
			addStroke(ras, chain, half, tol)
			if sh.Fill {
				addPolygon(ras, chain)
			}
		}
	}
	ras.Draw(dst, b, image.NewUniform(col), image.Point{})
	return drawText(dst, t, col)
}

// addPolygon adds a closed polygon, reversed if needed so every polygon has
// positive signed area.
func addPolygon(ras *vector.Rasterizer, pts []glyph.Point) {
	if len(pts) < 3 {
		return
	}
	area := 0.0
	for i := range pts {
		p, q := pts[i], pts[(i+1)%len(pts)]
		area += p.X*q.Y - q.X*p.Y
	}
	if area < 0 {
		rev := make([]glyph.Point, len(pts))
		for i, p := range pts {
			rev[len(pts)-1-i] = p
		}
		pts = rev
	}
	ras.MoveTo(float32(pts[0].X), float32(pts[0].Y))
	for _, p := range pts[1:] {
		ras.LineTo(float32(p.X), float32(p.Y))
	}
	ras.ClosePath()
}

// addStroke adds the outline of a polyline stroked with half-width h: one
// quadrilateral per segment, whose ends share the mitred offset points of
// smooth vertices (flattened curves, so no seams show) and carry round
// discs at the ends and at corners.
func addStroke(ras *vector.Rasterizer, chain []glyph.Point, h, tol float64) {
	n := len(chain)
	if n < 2 {
		return
	}
	closed := n > 2 && math.Hypot(chain[0].X-chain[n-1].X, chain[0].Y-chain[n-1].Y) < 1e-6
	// unit left normal of segment k (chain[k] to chain[k+1]); zero if empty
	normal := func(k int) (float64, float64) {
		dx, dy := chain[k+1].X-chain[k].X, chain[k+1].Y-chain[k].Y
		l := math.Hypot(dx, dy)
		if l == 0 {
			return 0, 0
		}
		return -dy / l, dx / l
	}
	// offset at vertex k for segment seg (k == seg or k == seg+1)
	offset := func(k, seg int) (float64, float64) {
		sx, sy := normal(seg)
		prev, next := k-1, k
		if closed && k == 0 {
			prev = n - 2
		}
		if closed && k == n-1 {
			next = 0
		}
		if prev < 0 || next > n-2 {
			return sx * h, sy * h
		}
		ax, ay := normal(prev)
		bx, by := normal(next)
		dot := ax*bx + ay*by
		if dot < math.Cos(15*math.Pi/180) || (ax == 0 && ay == 0) || (bx == 0 && by == 0) {
			return sx * h, sy * h // a corner: the disc covers the join
		}
		mx, my := ax+bx, ay+by
		scale := h / (mx*sx + my*sy) // project so the offset is h from the segment
		return mx * scale, my * scale
	}
	for k := 0; k+1 < n; k++ {
		if nx, ny := normal(k); nx == 0 && ny == 0 {
			continue
		}
		p, q := chain[k], chain[k+1]
		ax, ay := offset(k, k)
		bx, by := offset(k+1, k)
		addPolygon(ras, []glyph.Point{{X: p.X + ax, Y: p.Y + ay}, {X: q.X + bx, Y: q.Y + by}, {X: q.X - bx, Y: q.Y - by}, {X: p.X - ax, Y: p.Y - ay}})
	}
	for k, p := range chain {
		end := !closed && (k == 0 || k == n-1)
		var corner bool
		if !end {
			prev, next := k-1, k+1
			if k == 0 || k == n-1 {
				prev, next = n-2, 1
				p = chain[0]
			}
			corner = turns(chain[prev], p, chain[next])
		}
		if end || corner {
			addDisc(ras, p, h, tol)
		}
	}
}

// turns reports whether the chain a-b-c bends at b by more than 15°, where
// the gap between two segment rectangles would show without a round join.
func turns(a, b, c glyph.Point) bool {
	ux, uy := b.X-a.X, b.Y-a.Y
	vx, vy := c.X-b.X, c.Y-b.Y
	lu, lv := math.Hypot(ux, uy), math.Hypot(vx, vy)
	if lu == 0 || lv == 0 {
		return true
	}
	return (ux*vx+uy*vy)/(lu*lv) < math.Cos(15*math.Pi/180)
}

// addDisc adds a round join or cap of radius r at p.
func addDisc(ras *vector.Rasterizer, p glyph.Point, r, tol float64) {
	n := 8
	if r > tol {
		n = max(8, int(math.Ceil(math.Pi/math.Acos(1-math.Min(tol/r, 1)))))
	}
	pts := make([]glyph.Point, n)
	for i := range pts {
		a := 2 * math.Pi * float64(i) / float64(n)
		pts[i] = glyph.Point{X: p.X + r*math.Cos(a), Y: p.Y + r*math.Sin(a)}
	}
	addPolygon(ras, pts)
}

// drawText draws the text shapes of an already placed glyph: baseline
// centre at Pts[0], cap height Size.
func drawText(dst draw.Image, g glyph.Glyph, col color.RGBA) error {
	var fnt *opentype.Font
	for _, sh := range g.Shapes {
		if sh.Kind != glyph.KindText || sh.Size <= 0 {
			continue
		}
		if fnt == nil {
			var err error
			if fnt, err = opentype.Parse(goregular.TTF); err != nil {
				return fmt.Errorf("parse gofont: %w", err)
			}
		}
		size, err := fontSizeForCapHeight(fnt, sh.Size)
		if err != nil {
			return err
		}
		face, err := opentype.NewFace(fnt, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
		if err != nil {
			return fmt.Errorf("text face: %w", err)
		}
		d := font.Drawer{Dst: dst, Src: image.NewUniform(col), Face: face}
		w := d.MeasureString(sh.Text)
		d.Dot = fixed.Point26_6{
			X: fixed.Int26_6(math.Round(sh.Pts[0].X*64)) - w/2,
			Y: fixed.Int26_6(math.Round(sh.Pts[0].Y * 64)),
		}
		d.DrawString(sh.Text)
		if err := face.Close(); err != nil {
			return fmt.Errorf("text face: %w", err)
		}
	}
	return nil
}

// fontSizeForCapHeight returns the font size (pixels at 72 DPI) whose
// capital letters are capPx tall.
func fontSizeForCapHeight(fnt *opentype.Font, capPx float64) (float64, error) {
	const probe = 100
	face, err := opentype.NewFace(fnt, &opentype.FaceOptions{Size: probe, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return 0, fmt.Errorf("text face: %w", err)
	}
	defer face.Close()
	ratio := float64(face.Metrics().CapHeight) / 64 / probe
	if ratio <= 0 {
		ratio = capHeightRatio
	}
	return capPx / ratio, nil
}
