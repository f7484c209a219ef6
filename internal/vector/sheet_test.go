package vector

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// sheet writes a test drawing as a PDF content stream in points, y down
// (the stream starts with a flip), the way CAD exporters and the generator
// draw: lines as separate paths, arcs as Bézier curves, text as real text.
type sheet struct {
	wPt, hPt float64
	b        strings.Builder
	// polyArcs writes arcs as polylines of 10° chords, as some
	// exporters do.
	polyArcs bool
}

func newSheet(wPt, hPt float64) *sheet {
	s := &sheet{wPt: wPt, hPt: hPt}
	fmt.Fprintf(&s.b, "1 0 0 -1 0 %g cm 1 J ", hPt)
	return s
}

const ptPerMM = 72 / 25.4

func (s *sheet) width(mm float64) { fmt.Fprintf(&s.b, "%.3f w ", mm*ptPerMM) }

// colour sets the stroke and fill colour (RGB, 0 to 1 each) of what
// follows.
func (s *sheet) colour(r, g, b float64) {
	fmt.Fprintf(&s.b, "%.3f %.3f %.3f RG %.3f %.3f %.3f rg ", r, g, b, r, g, b)
}

func (s *sheet) line(a, b glyph.Point) {
	fmt.Fprintf(&s.b, "%.3f %.3f m %.3f %.3f l S\n", a.X, a.Y, b.X, b.Y)
}

func (s *sheet) poly(pts []glyph.Point, closed, fill bool) {
	for i, p := range pts {
		op := "l"
		if i == 0 {
			op = "m"
		}
		fmt.Fprintf(&s.b, "%.3f %.3f %s ", p.X, p.Y, op)
	}
	switch {
	case fill:
		s.b.WriteString("h B\n")
	case closed:
		s.b.WriteString("h S\n")
	default:
		s.b.WriteString("S\n")
	}
}

func (s *sheet) arc(c glyph.Point, r, start, sweep float64, fill bool) {
	if s.polyArcs {
		n := int(math.Ceil(math.Abs(sweep) / 10))
		pts := make([]glyph.Point, n+1)
		for i := range pts {
			a := (start + sweep*float64(i)/float64(n)) * math.Pi / 180
			pts[i] = glyph.Point{X: c.X + r*math.Cos(a), Y: c.Y + r*math.Sin(a)}
		}
		s.poly(pts, false, fill)
		return
	}
	n := int(math.Ceil(math.Abs(sweep) / 90))
	step := sweep / float64(n) * math.Pi / 180
	a0 := start * math.Pi / 180
	k := 4.0 / 3 * math.Tan(step/4)
	fmt.Fprintf(&s.b, "%.3f %.3f m ", c.X+r*math.Cos(a0), c.Y+r*math.Sin(a0))
	for i := 0; i < n; i++ {
		a1 := a0 + step
		p0 := glyph.Point{X: c.X + r*math.Cos(a0), Y: c.Y + r*math.Sin(a0)}
		p3 := glyph.Point{X: c.X + r*math.Cos(a1), Y: c.Y + r*math.Sin(a1)}
		fmt.Fprintf(&s.b, "%.3f %.3f %.3f %.3f %.3f %.3f c ",
			p0.X-k*r*math.Sin(a0), p0.Y+k*r*math.Cos(a0),
			p3.X+k*r*math.Sin(a1), p3.Y-k*r*math.Cos(a1), p3.X, p3.Y)
		a0 = a1
	}
	if fill {
		s.b.WriteString("B\n")
	} else {
		s.b.WriteString("S\n")
	}
}

// text writes str centred on its baseline point at (points), cap height
// capPt, baseline turned rot degrees clockwise.
func (s *sheet) text(str string, at glyph.Point, capPt, rot float64) {
	size := capPt / 0.72
	w := 0.6 * size * float64(len(str))
	r := rot * math.Pi / 180
	c, sn := math.Cos(r), math.Sin(r)
	x, y := at.X-c*w/2, at.Y-sn*w/2
	fmt.Fprintf(&s.b, "BT /F1 1 Tf %.4f %.4f %.4f %.4f %.3f %.3f Tm (%s) Tj ET\n",
		size*c, size*sn, size*sn, -size*c, x, y, winAnsi(str))
}

// winAnsi writes str as a PDF literal string body in WinAnsiEncoding (the
// standard fonts' encoding): Latin-1 runes as octal escapes.
func winAnsi(str string) string {
	var b strings.Builder
	for _, r := range str {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 128:
			b.WriteRune(r)
		case r < 256:
			fmt.Fprintf(&b, "\\%03o", r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// glyph draws g with the placement (At in points).
func (s *sheet) glyph(g glyph.Glyph, pl glyph.Placement) {
	t := g.Transform(pl.Matrix(ptPerMM))
	for _, sh := range t.Shapes {
		switch sh.Kind {
		case glyph.KindLine, glyph.KindPolyline:
			for i := 1; i < len(sh.Pts); i++ {
				s.line(sh.Pts[i-1], sh.Pts[i])
			}
		case glyph.KindPolygon:
			s.poly(sh.Pts, true, sh.Fill)
		case glyph.KindRect:
			c := glyph.RectCorners(sh.Pts[0], sh.Pts[1])
			s.poly(c[:], true, sh.Fill)
		case glyph.KindCircle:
			s.arc(sh.Pts[0], sh.R, 0, 360, sh.Fill)
		case glyph.KindArc:
			s.arc(sh.Pts[0], sh.R, sh.Start, sh.Sweep, false)
		case glyph.KindText:
			s.text(sh.Text, sh.Pts[0], sh.Size, pl.Rotation)
		}
	}
}

func (s *sheet) pdf() []byte {
	return documenttest.FormPDF(s.wPt, s.hPt, s.b.String(), "", "1 0 0 1 0 0", "")
}

type placed struct {
	class string
	box   detect.Box
}

// buildSheet places n random catalog symbols on a grid of cells over a
// sheet with walls, crossing wires and stray text, and returns the PDF and
// the truth boxes in pixels.
func buildSheet(t testing.TB, cat *catalog.Catalog, seed uint64, cols, rows int, polyArcs bool) ([]byte, []placed) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	syms := cat.Symbols()
	cellMM := 24.0
	wPt, hPt := float64(cols)*cellMM*ptPerMM, float64(rows)*cellMM*ptPerMM
	s := newSheet(wPt, hPt)
	s.polyArcs = polyArcs
	var truth []placed
	s.width(0.35)
	// Walls: double lines between cells.
	for c := 1; c < cols; c++ {
		x := float64(c) * cellMM * ptPerMM
		s.line(glyph.Point{X: x, Y: 0}, glyph.Point{X: x, Y: hPt})
		s.line(glyph.Point{X: x + 4, Y: 0}, glyph.Point{X: x + 4, Y: hPt})
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			sym := syms[rng.IntN(len(syms))]
			pl := glyph.Placement{
				At: glyph.Point{
					X: (float64(c)+0.5)*cellMM*ptPerMM + (rng.Float64()-0.5)*10,
					Y: (float64(r)+0.5)*cellMM*ptPerMM + (rng.Float64()-0.5)*10,
				},
				Scale:    0.6 + 1.2*rng.Float64(),
				Rotation: float64(rng.IntN(360)),
				Mirrored: rng.IntN(2) == 1,
			}
			s.width(0.13 + 0.5*rng.Float64())
			s.glyph(sym.Glyph, pl)
			// The truth box in pixels: the same placement in pixels.
			pxPl := pl
			pxPl.At = glyph.Point{X: pl.At.X * PixelsPerPoint, Y: pl.At.Y * PixelsPerPoint}
			p, err := prepare(Template{Class: sym.Class, Glyph: sym.Glyph})
			if err != nil {
				t.Fatal(err)
			}
			truth = append(truth, placed{sym.Class, boxOf(p, pxPl, wPt*PixelsPerPoint, hPt*PixelsPerPoint)})
			// A wire from the symbol's centre out of the cell, and
			// stray text that is never a symbol.
			s.width(0.25)
			a := rng.Float64() * 2 * math.Pi
			s.line(pl.At, glyph.Point{X: pl.At.X + 60*math.Cos(a), Y: pl.At.Y + 60*math.Sin(a)})
			s.text("O X 1/3", glyph.Point{X: pl.At.X + 18, Y: pl.At.Y + 24}, 5, 0)
		}
	}
	return s.pdf(), truth
}

func loadTemplates(t testing.TB) (*catalog.Catalog, *Matcher) {
	t.Helper()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	var tpls []Template
	for _, s := range cat.Symbols() {
		tpls = append(tpls, Template{Class: s.Class, Glyph: s.Glyph})
	}
	m, err := NewMatcher(tpls)
	if err != nil {
		t.Fatal(err)
	}
	return cat, m
}

func iou(a, b detect.Box) float64 {
	in := a.Intersection(b)
	return in / (a.W*a.H + b.W*b.H - in)
}

// extracted is one page of a PDF as the matcher receives it, with the time
// reading its drawing took (MuPDF's display list and the walk device, as
// the service reads pages).
type extracted struct {
	page *drawing.Page
	read time.Duration
}

// extractPage reads the drawing of page i of doc; label names the document
// in failures.
func extractPage(t testing.TB, doc *document.Document, label string, i int) extracted {
	t.Helper()
	t0 := time.Now()
	pg, err := doc.Drawing(context.Background(), i)
	if err != nil {
		t.Fatalf("%s page %d: %v", label, i, err)
	}
	return extracted{page: pg, read: time.Since(t0)}
}

// openPDF opens pdf as the service does; the caller closes it.
func openPDF(t testing.TB, pdf []byte) *document.Document {
	t.Helper()
	doc, err := document.Open(context.Background(), pdf, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// pageOf returns the extracted first page of pdf.
func pageOf(t testing.TB, pdf []byte) *drawing.Page {
	t.Helper()
	doc := openPDF(t, pdf)
	defer doc.Close()
	return extractPage(t, doc, "test PDF", 0).page
}

// TestMatchCatalogSheet draws every kind of catalog symbol at random poses
// with wires through them, walls and stray "O"/"X" text, once with curves
// as polylines, and checks that each is found with its class and box and
// nothing else is reported.
func TestMatchCatalogSheet(t *testing.T) {
	cat, m := loadTemplates(t)
	tp, fp, fn := 0, 0, 0
	conf := map[string]int{}
	for seed := uint64(1); seed <= 4; seed++ {
		// Seed 4 writes every arc and circle as a polyline.
		pdf, truth := buildSheet(t, cat, seed, 10, 8, seed == 4)
		matches, err := m.Match(context.Background(), pageOf(t, pdf))
		if err != nil {
			t.Fatal(err)
		}
		used := make([]bool, len(matches))
		for _, g := range truth {
			ok := false
			for i, d := range matches {
				if !used[i] && d.Class == g.class && iou(d.Box, g.box) >= 0.5 {
					used[i], ok = true, true
					break
				}
			}
			if ok {
				tp++
				continue
			}
			fn++
			best := ""
			for _, d := range matches {
				if iou(d.Box, g.box) >= 0.3 {
					best += fmt.Sprintf(" %s(%.2f)", d.Class, d.Coverage)
				}
			}
			conf[g.class+" ->"+best]++
		}
		for i, d := range matches {
			if !used[i] && d.Confidence >= OperatingConfidence {
				fp++
				t.Logf("false positive %s cov %.2f at %+v", d.Class, d.Coverage, d.Box)
			}
		}
	}
	for k, v := range conf {
		t.Logf("missed %s ×%d", k, v)
	}
	t.Logf("tp %d fp %d fn %d", tp, fp, fn)
	if fp > 0 || fn > 0 {
		t.Errorf("tp %d, false positives %d, misses %d", tp, fp, fn)
	}
}

// buildDenseA1 draws an A1 sheet (841 × 594 mm) with n symbols over a dense
// architectural background: double walls, hatching, door swings, furniture
// circles, dimension lines, room text, wires touching every symbol.
func buildDenseA1(t testing.TB, cat *catalog.Catalog, seed uint64, n int) ([]byte, []placed) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	syms := cat.Symbols()
	const wMM, hMM = 841.0, 594.0
	mm := func(x, y float64) glyph.Point { return glyph.Point{X: x * ptPerMM, Y: y * ptPerMM} }
	s := newSheet(wMM*ptPerMM, hMM*ptPerMM)
	s.width(0.25)
	// Room grid with double walls every ~60 mm.
	for x := 20.0; x < wMM; x += 55 + 10*rng.Float64() {
		s.line(mm(x, 10), mm(x, hMM-10))
		s.line(mm(x+3, 10), mm(x+3, hMM-10))
	}
	for y := 20.0; y < hMM; y += 45 + 10*rng.Float64() {
		s.line(mm(10, y), mm(wMM-10, y))
		s.line(mm(10, y+3), mm(wMM-10, y+3))
	}
	// Hatching: short diagonal strokes in patches.
	s.width(0.13)
	for k := 0; k < 60; k++ {
		x0, y0 := 20+rng.Float64()*(wMM-60), 20+rng.Float64()*(hMM-60)
		for d := 0.0; d < 30; d += 1.0 {
			s.line(mm(x0+d, y0), mm(x0+d+8, y0+8))
		}
	}
	// Door swings, furniture circles, dimension ticks, room names.
	s.width(0.18)
	for k := 0; k < 150; k++ {
		c := mm(20+rng.Float64()*(wMM-40), 20+rng.Float64()*(hMM-40))
		switch k % 3 {
		case 0:
			r := (8 + 6*rng.Float64()) * ptPerMM
			s.arc(c, r, float64(rng.IntN(4))*90, 90, false)
			s.line(c, glyph.Point{X: c.X + r, Y: c.Y})
		case 1:
			s.arc(c, (5+8*rng.Float64())*ptPerMM, 0, 360, false)
		default:
			s.text(fmt.Sprintf("HUONE %d", 100+k), c, 2.5*ptPerMM, 0)
			for d := 0.0; d < 40; d += 8 {
				p := glyph.Point{X: c.X + d*ptPerMM, Y: c.Y + 6*ptPerMM}
				s.line(glyph.Point{X: p.X - 2, Y: p.Y + 2}, glyph.Point{X: p.X + 2, Y: p.Y - 2})
			}
			s.line(glyph.Point{X: c.X, Y: c.Y + 6*ptPerMM}, glyph.Point{X: c.X + 40*ptPerMM, Y: c.Y + 6*ptPerMM})
		}
	}
	// Symbols on a jittered lattice so they do not overlap one another.
	cols := int(math.Ceil(math.Sqrt(float64(n) * wMM / hMM)))
	rows := (n + cols - 1) / cols
	cw, ch := (wMM-40)/float64(cols), (hMM-40)/float64(rows)
	var truth []placed
	for i := 0; i < n; i++ {
		sym := syms[rng.IntN(len(syms))]
		cx := 20 + (float64(i%cols)+0.5)*cw + (rng.Float64()-0.5)*cw*0.3
		cy := 20 + (float64(i/cols)+0.5)*ch + (rng.Float64()-0.5)*ch*0.3
		pl := glyph.Placement{At: mm(cx, cy), Scale: 0.6 + 1.2*rng.Float64(),
			Rotation: float64(rng.IntN(360)), Mirrored: rng.IntN(2) == 1}
		s.width(0.13 + 0.5*rng.Float64())
		s.glyph(sym.Glyph, pl)
		pxPl := pl
		pxPl.At = glyph.Point{X: pl.At.X * PixelsPerPoint, Y: pl.At.Y * PixelsPerPoint}
		p, err := prepare(Template{Class: sym.Class, Glyph: sym.Glyph})
		if err != nil {
			t.Fatal(err)
		}
		truth = append(truth, placed{sym.Class, boxOf(p, pxPl, wMM*ptPerMM*PixelsPerPoint, hMM*ptPerMM*PixelsPerPoint)})
		s.width(0.25)
		a := rng.Float64() * 2 * math.Pi
		s.line(pl.At, glyph.Point{X: pl.At.X + 30*ptPerMM*math.Cos(a), Y: pl.At.Y + 30*ptPerMM*math.Sin(a)})
		s.text(fmt.Sprintf("%d/%d", 1+rng.IntN(9), 1+rng.IntN(20)), glyph.Point{X: pl.At.X + 9*ptPerMM, Y: pl.At.Y - 6*ptPerMM}, 2*ptPerMM, 0)
	}
	return s.pdf(), truth
}

// score matches detections to truth one-to-one at IoU 0.5, same class.
func score(ms []Match, truth []placed, minConf float64) (tp, fp, fn int, missed []string) {
	used := make([]bool, len(ms))
	for _, g := range truth {
		ok := false
		for i, d := range ms {
			if !used[i] && d.Confidence >= minConf && d.Class == g.class && iou(d.Box, g.box) >= 0.5 {
				used[i], ok = true, true
				break
			}
		}
		if ok {
			tp++
		} else {
			fn++
			missed = append(missed, g.class)
		}
	}
	for i, d := range ms {
		if !used[i] && d.Confidence >= minConf {
			fp++
			missed = append(missed, "FP:"+d.Class)
		}
	}
	return tp, fp, fn, missed
}

// TestDenseA1 checks accuracy and reports the time of extraction and
// matching on an A1 sheet with 300 symbols on a dense background.
func TestDenseA1(t *testing.T) {
	cat, m := loadTemplates(t)
	pdf, truth := buildDenseA1(t, cat, 5, 300)
	doc := openPDF(t, pdf)
	defer doc.Close()
	x := extractPage(t, doc, "dense A1", 0)
	pg := x.page
	t0 := time.Now()
	ms, err := m.Match(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	matchTime := time.Since(t0)
	tp, fp, fn, missed := score(ms, truth, OperatingConfidence)
	t.Logf("A1 300 symbols: %d segments, %d arcs, %d chars; read %v, match %v; tp %d fp %d fn %d %v",
		len(pg.Segments), len(pg.Arcs), len(pg.Chars), x.read, matchTime, tp, fp, fn, missed)
	if fp > 0 || fn > 0 {
		t.Errorf("tp %d, false positives %d, misses %d: %v", tp, fp, fn, missed)
	}
}

// TestLegendNotInstances draws a legend table (glyph column, descriptions
// starting at one x, row lines) beside instances of the same classes: the
// legend glyphs are flagged, the instances are not.
func TestLegendNotInstances(t *testing.T) {
	cat, m := loadTemplates(t)
	syms := cat.Symbols()
	s := newSheet(600, 500)
	s.width(0.25)
	const rowPt, x0, y0 = 24.0, 40.0, 40.0
	var want []string
	for i := 0; i < 8; i++ {
		sym := syms[(i*7)%len(syms)]
		want = append(want, sym.Class)
		y := y0 + float64(i)*rowPt
		s.line(glyph.Point{X: x0 - 20, Y: y - rowPt/2}, glyph.Point{X: x0 + 200, Y: y - rowPt/2})
		s.glyph(sym.Glyph, glyph.Placement{At: glyph.Point{X: x0, Y: y}, Scale: 1})
		fmt.Fprintf(&s.b, "BT /F1 1 Tf 8.33 0 0 -8.33 %.3f %.3f Tm (%s) Tj ET\n", x0+30, y+3, winAnsi(sym.DisplayNameFI))
		// An instance of the same class out on the plan.
		s.glyph(sym.Glyph, glyph.Placement{At: glyph.Point{X: 400 + float64(i%2)*100, Y: y0 + float64(i)*55}, Scale: 1.2, Rotation: float64(30 * i)})
	}
	s.line(glyph.Point{X: x0 + 22, Y: y0 - rowPt/2}, glyph.Point{X: x0 + 22, Y: y0 + 8*rowPt})
	ms, err := m.Match(context.Background(), pageOf(t, s.pdf()))
	if err != nil {
		t.Fatal(err)
	}
	legend, inst := map[string]int{}, map[string]int{}
	for _, d := range ms {
		if d.Confidence < OperatingConfidence {
			continue
		}
		if d.Legend {
			legend[d.Class]++
		} else {
			inst[d.Class]++
		}
	}
	for _, c := range want {
		if legend[c] != 1 || inst[c] != 1 {
			t.Errorf("%s: %d legend glyphs and %d instances, want 1 and 1", c, legend[c], inst[c])
		}
	}
}

// TestRepeatedBlocksCheap: a block repeated at one rotation (as CAD inserts
// it) is found everywhere, and after the first instance each costs about
// one verification instead of a ring search.
func TestRepeatedBlocksCheap(t *testing.T) {
	cat, m := loadTemplates(t)
	sym, _ := cat.Lookup("socket_outlet_earthed")
	count := func(rot func(i int) float64) (int, int) {
		s := newSheet(800, 600)
		s.width(0.25)
		for i := 0; i < 48; i++ {
			at := glyph.Point{X: 60 + float64(i%8)*90, Y: 60 + float64(i/8)*90}
			s.glyph(sym.Glyph, glyph.Placement{At: at, Scale: 1.3, Rotation: rot(i)})
			s.line(at, glyph.Point{X: at.X + 40, Y: at.Y + 25})
		}
		ms, ix, err := m.match(context.Background(), pageOf(t, s.pdf()))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range ms {
			if d.Class == "socket_outlet_earthed" && d.Confidence >= OperatingConfidence {
				n++
			}
		}
		return n, int(ix.verified.Load())
	}
	nSame, vSame := count(func(int) float64 { return 30 })
	nVar, vVar := count(func(i int) float64 { return float64(7 * i) })
	t.Logf("48 blocks at one rotation: %d found, %d verifications; at 48 rotations: %d found, %d verifications", nSame, vSame, nVar, vVar)
	if nSame != 48 || nVar != 48 {
		t.Fatalf("found %d and %d of 48", nSame, nVar)
	}
	if vSame >= vVar {
		t.Errorf("repeated blocks cost %d verifications, no fewer than %d for varied ones", vSame, vVar)
	}
}
