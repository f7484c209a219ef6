package synth

import (
	"fmt"
	"image/color"
	"math"

	"github.com/signintech/gopdf"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"blueprint/internal/glyph"
)

// ptPerMM converts paper millimetres to PDF points.
const ptPerMM = 72 / 25.4

// fontFamily is the name the embedded TrueType font is registered under.
const fontFamily = "goregular"

// metrics measures text set in the embedded font, so that ground-truth
// boxes of glyph text match what the PDF shows.
type metrics struct {
	font     *sfnt.Font
	buf      sfnt.Buffer
	upem     float64
	capRatio float64 // cap height / em
}

func newMetrics() (*metrics, error) {
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("synth: parse embedded font: %w", err)
	}
	m := &metrics{font: f, upem: float64(f.UnitsPerEm())}
	fm, err := f.Metrics(&m.buf, fixed.I(int(m.upem)), font.HintingNone)
	if err != nil {
		return nil, fmt.Errorf("synth: font metrics: %w", err)
	}
	m.capRatio = float64(fm.CapHeight) / 64 / m.upem
	if m.capRatio <= 0 {
		m.capRatio = 0.7
	}
	return m, nil
}

// width returns the advance width of s set with cap height capH (same unit).
func (m *metrics) width(s string, capH float64) float64 {
	em := capH / m.capRatio
	var w float64
	for _, r := range s {
		gi, err := m.font.GlyphIndex(&m.buf, r)
		if err != nil || gi == 0 {
			w += 0.6 * em
			continue
		}
		adv, err := m.font.GlyphAdvance(&m.buf, gi, fixed.I(int(m.upem)), font.HintingNone)
		if err != nil {
			w += 0.6 * em
			continue
		}
		w += float64(adv) / 64 / m.upem * em
	}
	return w
}

// Text alignment along the baseline.
const (
	alignLeft   = 0.0
	alignCenter = 0.5
	alignRight  = 1.0
)

// pen draws on one PDF page in paper millimetres, y down, and keeps the
// current graphics state so that unchanged settings are not repeated.
type pen struct {
	pdf       *gopdf.GoPdf
	m         *metrics
	stroke    color.RGBA
	fill      color.RGBA
	text      color.RGBA
	width     float64
	dashed    bool
	fontSize  float64
	haveState bool
}

func newPen(wMM, hMM float64, m *metrics) (*pen, error) {
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: gopdf.Rect{W: wMM * ptPerMM, H: hMM * ptPerMM}, Unit: gopdf.UnitPT})
	pdf.SetCompressLevel(6)
	if err := pdf.AddTTFFontData(fontFamily, goregular.TTF); err != nil {
		return nil, fmt.Errorf("synth: embed font: %w", err)
	}
	pdf.AddPage()
	return &pen{pdf: pdf, m: m}, nil
}

// newPage starts another page; the graphics state starts afresh.
func (p *pen) newPage(wMM, hMM float64) {
	p.pdf.AddPageWithOption(gopdf.PageOption{PageSize: &gopdf.Rect{W: wMM * ptPerMM, H: hMM * ptPerMM}})
	p.haveState = false
	p.fontSize = 0
}

func pt(p glyph.Point) gopdf.Point { return gopdf.Point{X: p.X * ptPerMM, Y: p.Y * ptPerMM} }

// setStroke sets colour and width (mm) for lines; dash is nil for solid
// or a pattern in mm.
func (p *pen) setStroke(c color.RGBA, widthMM float64, dash []float64) {
	if !p.haveState || c != p.stroke {
		p.pdf.SetStrokeColor(c.R, c.G, c.B)
		p.stroke = c
	}
	if !p.haveState || widthMM != p.width {
		p.pdf.SetLineWidth(widthMM * ptPerMM)
		p.width = widthMM
	}
	if dash != nil {
		d := make([]float64, len(dash))
		for i, v := range dash {
			d[i] = v * ptPerMM
		}
		p.pdf.SetCustomLineType(d, 0)
		p.dashed = true
	} else if p.dashed || !p.haveState {
		p.pdf.SetLineType("")
		p.dashed = false
	}
	p.haveState = true
}

func (p *pen) setFill(c color.RGBA) {
	if c != p.fill || !p.haveState {
		p.pdf.SetFillColor(c.R, c.G, c.B)
		p.fill = c
	}
}

func (p *pen) line(a, b glyph.Point) {
	p.pdf.Line(a.X*ptPerMM, a.Y*ptPerMM, b.X*ptPerMM, b.Y*ptPerMM)
}

func (p *pen) polyline(pts []glyph.Point) {
	for i := 1; i < len(pts); i++ {
		p.line(pts[i-1], pts[i])
	}
}

// polygon draws a closed outline, filled with the fill colour when fill
// is set (and then also stroked when stroke is set).
func (p *pen) polygon(pts []glyph.Point, fill, stroke bool) {
	if len(pts) < 3 {
		p.polyline(pts)
		return
	}
	gp := make([]gopdf.Point, len(pts))
	for i, q := range pts {
		gp[i] = pt(q)
	}
	style := "D"
	switch {
	case fill && stroke:
		style = "DF"
	case fill:
		style = "F"
	}
	p.pdf.Polygon(gp, style)
}

func (p *pen) rect(a, b glyph.Point, fill, stroke bool) {
	c := glyph.RectCorners(a, b)
	p.polygon(c[:], fill, stroke)
}

// arc strokes a circular arc as cubic Bézier segments of at most 90°.
// Angles are degrees, clockwise on the page (y down).
func (p *pen) arc(c glyph.Point, r, start, sweep float64) {
	n := int(math.Ceil(math.Abs(sweep) / 90))
	if n < 1 {
		n = 1
	}
	step := sweep / float64(n) * math.Pi / 180
	a0 := start * math.Pi / 180
	k := 4.0 / 3 * math.Tan(step/4)
	for i := 0; i < n; i++ {
		a1 := a0 + step
		p0 := glyph.Point{X: c.X + r*math.Cos(a0), Y: c.Y + r*math.Sin(a0)}
		p3 := glyph.Point{X: c.X + r*math.Cos(a1), Y: c.Y + r*math.Sin(a1)}
		p1 := glyph.Point{X: p0.X - k*r*math.Sin(a0), Y: p0.Y + k*r*math.Cos(a0)}
		p2 := glyph.Point{X: p3.X + k*r*math.Sin(a1), Y: p3.Y - k*r*math.Cos(a1)}
		p.pdf.Curve(p0.X*ptPerMM, p0.Y*ptPerMM, p1.X*ptPerMM, p1.Y*ptPerMM,
			p2.X*ptPerMM, p2.Y*ptPerMM, p3.X*ptPerMM, p3.Y*ptPerMM, "D")
		a0 = a1
	}
}

// circle strokes a Bézier circle; a filled circle is filled as a fine
// polygon under its Bézier outline.
func (p *pen) circle(c glyph.Point, r float64, fill bool) {
	if fill {
		const n = 36
		pts := make([]glyph.Point, n)
		for i := range pts {
			a := 2 * math.Pi * float64(i) / n
			pts[i] = glyph.Point{X: c.X + r*math.Cos(a), Y: c.Y + r*math.Sin(a)}
		}
		p.polygon(pts, true, false)
	}
	p.arc(c, r, 0, 360)
}

// textAt writes s as real PDF text with its baseline through at, cap
// height capH mm, rotated angle degrees clockwise, aligned by align
// (0 left, 0.5 centre, 1 right) along the baseline.
func (p *pen) textAt(s string, at glyph.Point, capH, angle, align float64, c color.RGBA) error {
	size := capH / p.m.capRatio * ptPerMM
	if size != p.fontSize {
		if err := p.pdf.SetFont(fontFamily, "", size); err != nil {
			return fmt.Errorf("synth: set font: %w", err)
		}
		p.fontSize = size
	}
	if c != p.text || !p.haveState {
		p.pdf.SetTextColor(c.R, c.G, c.B)
		p.text = c
	}
	w := p.m.width(s, capH)
	x, y := at.X*ptPerMM, at.Y*ptPerMM
	rotated := math.Abs(angle) > 1e-9
	if rotated {
		p.pdf.Rotate(-angle, x, y)
	}
	p.pdf.SetXY(x-align*w*ptPerMM, y)
	err := p.pdf.Text(s)
	// gopdf sets the text colour as the fill colour ("rg" inside BT … ET),
	// which outlives the text object: later fills must set theirs again.
	p.fill = c
	if rotated {
		p.pdf.RotateReset()
	}
	if err != nil {
		return fmt.Errorf("synth: text %q: %w", s, err)
	}
	return nil
}

// drawGlyph draws g mapped by the placement (glyph mm to paper mm) with
// the given line colour and width. Text keeps reading direction (it turns
// with the symbol but is never mirrored), as CAD block attributes do.
func (p *pen) drawGlyph(g glyph.Glyph, pl glyph.Placement, c color.RGBA, widthMM float64) error {
	m := pl.Matrix(1)
	t := g.Transform(m)
	p.setStroke(c, widthMM, nil)
	p.setFill(c)
	for i, s := range t.Shapes {
		switch s.Kind {
		case glyph.KindLine, glyph.KindPolyline:
			p.polyline(s.Pts)
		case glyph.KindPolygon:
			p.polygon(s.Pts, s.Fill, true)
		case glyph.KindRect:
			p.rect(s.Pts[0], s.Pts[1], s.Fill, true)
		case glyph.KindCircle:
			p.circle(s.Pts[0], s.R, s.Fill)
		case glyph.KindArc:
			p.arc(s.Pts[0], s.R, s.Start, s.Sweep)
		case glyph.KindText:
			// Keep text readable: upside-down text turns half a turn
			// about the centre of its box, which stays where it was.
			at, angle := s.Pts[0], math.Mod(math.Mod(pl.Rotation, 360)+360, 360)
			if angle > 90 && angle <= 270 {
				o := g.Shapes[i].Pts[0]
				at = m.Apply(glyph.Point{X: o.X, Y: o.Y - g.Shapes[i].Size})
				angle += 180
			}
			if err := p.textAt(s.Text, at, s.Size, angle, alignCenter, c); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *pen) bytes() ([]byte, error) {
	b, err := p.pdf.GetBytesPdfReturnErr()
	if err != nil {
		return nil, fmt.Errorf("synth: write PDF: %w", err)
	}
	return b, nil
}
