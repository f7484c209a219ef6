package synth

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
)

// KindHeavy is a legend set's plan on one A1 sheet, exported the way
// ArchiCAD sheets come through PDFTron: the plan's hatching as some
// 1.5 million single-segment stroked paths, each hatched area inside two
// nested clip paths (about 40 000 clips), with some 1 900 text runs and
// 40 small images (docs/page-reading.md, "Heavy sheets"). Its symbols
// and page carry the case CaseClipHeavy.
const KindHeavy Kind = "heavy"

// CaseClipHeavy names the symbols and pages of clip-heavy exports in the
// ground truth (TruthSymbol.Case, TruthPage.Cases).
const CaseClipHeavy = "clipheavy"

// HeavyLoad is how much clip-heavy hatching ClipHeavy adds to a page.
type HeavyLoad struct {
	Segments int // single-segment stroked paths of hatching
	Clips    int // clip paths: two nested ones around each hatched area
	Texts    int // text runs of one short label each
	Images   int // small grey images
}

// FullHeavyLoad is the load of the A1 ArchiCAD/PDFTron sheet of issue
// 35 (1.44 million strokes, 44 000 clips, 1 900 text runs, 40 images),
// less the text runs the plan draws itself.
var FullHeavyLoad = HeavyLoad{Segments: 1_500_000, Clips: 40_000, Texts: 1_500, Images: 40}

// Heavy draws sheet i of the run with seed as one A1 page of a legend set
// (novel glyphs defined by the page's legend) with FullHeavyLoad of
// clip-heavy hatching under the plan. Its ground truth tags every symbol
// and the page with CaseClipHeavy.
func (g *Generator) Heavy(seed uint64, i int, _ Options) (Sheet, error) {
	return g.heavy(seed, i, FullHeavyLoad)
}

func (g *Generator) heavy(seed uint64, i int, load HeavyLoad) (Sheet, error) {
	syms := g.novelSymbols(rngFor(seed, i, 20))
	ng := &Generator{symbols: syms, met: g.met, novel: true, colourKeyed: colourTwins(syms)}
	d := &design{g: ng, r: rngFor(seed, i, 1), paper: paper{"A1", 841, 594}, scaleDen: 50}
	if d.chance(0.5) {
		d.scaleDen = 100
	}
	d.fi = d.chance(0.5)
	d.finish()
	stem := fmt.Sprintf("heavy-%05d", i+1)
	data, err := pagesPDF([]*design{d})
	if err != nil {
		return Sheet{}, fmt.Errorf("synth: sheet %s: %w", stem, err)
	}
	if data, err = ClipHeavy(data, d.hatchAreas(), rngFor(seed, i, 40), load); err != nil {
		return Sheet{}, fmt.Errorf("synth: sheet %s: %w", stem, err)
	}
	t := vectorTruth([]*design{d}, stem+".pdf", seed)
	t.Kind = KindHeavy
	for k := range t.Pages {
		t.Pages[k].Cases = []string{CaseClipHeavy}
		for j := range t.Pages[k].Symbols {
			t.Pages[k].Symbols[j].Case = CaseClipHeavy
		}
	}
	return Sheet{Name: stem + ".pdf", Data: data, Truth: t}, nil
}

// HatchAreas says where clip-heavy hatching may go on a page, in paper
// millimetres: inside Area, clear of every rectangle of Keep (symbols and
// the legend table, which hatching would hide from a reader).
type HatchAreas struct {
	PageW, PageH float64
	Area         [4]float64   // x0, y0, x1, y1
	Keep         [][4]float64 // x0, y0, x1, y1
}

// hatchAreas is the plan area of d without its symbols (grown by 1.5 mm)
// and legend table.
func (d *design) hatchAreas() HatchAreas {
	h := HatchAreas{PageW: d.paper.w, PageH: d.paper.h, Area: [4]float64{d.planArea.x0, d.planArea.y0, d.planArea.x1, d.planArea.y1}}
	for _, o := range d.occupied {
		g := o.inset(-1.5)
		h.Keep = append(h.Keep, [4]float64{g.x0, g.y0, g.x1, g.y1})
	}
	if d.legend {
		g := d.legendBox.inset(-2)
		h.Keep = append(h.Keep, [4]float64{g.x0, g.y0, g.x1, g.y1})
	}
	return h
}

// Patterns of ClipHeavy's hatching.
const (
	patTiles    = iota // a square grid, each tile edge its own path
	patBricks          // running bond: bed joints and staggered head joints
	patDashes          // 45° dashes (insulation, earth)
	patPatterns        // count
)

var (
	reStartXref = regexp.MustCompile(`startxref\s+(\d+)\s+%%EOF\s*$`)
	reSize      = regexp.MustCompile(`/Size\s+(\d+)`)
	reRoot      = regexp.MustCompile(`/Root\s+(\d+\s+\d+\s+R)`)
	reKids      = regexp.MustCompile(`/Kids\s*\[\s*(\d+)\s+0\s+R`)
	reResources = regexp.MustCompile(`/Resources\s+(\d+)\s+0\s+R`)
	reContents  = regexp.MustCompile(`/Contents\s+(\d+\s+0\s+R)`)
	reParent    = regexp.MustCompile(`/Parent\s+(\d+\s+0\s+R)`)
	reFonts     = regexp.MustCompile(`/Font\s*<<([^>]*)>>`)
)

// ClipHeavy adds load's hatching, texts and images under the first page
// of pdf (a PDF as the generator writes it: one classic cross-reference
// table, the page's resources and contents indirect) as an incremental
// update: a content stream drawn before the page's own, in cells of
// at.Area clear of at.Keep. Each cell is clipped twice (its box, then an
// octagon inside the box's margin) and hatched by single-segment stroked
// paths in one of three patterns; the cells share the segments evenly.
func ClipHeavy(pdf []byte, at HatchAreas, r *rand.Rand, load HeavyLoad) ([]byte, error) {
	m := reStartXref.FindSubmatch(pdf)
	if m == nil {
		return nil, errors.New("clip-heavy: no startxref at the end")
	}
	prevXref, _ := strconv.Atoi(string(m[1]))
	trailer := pdf[bytes.LastIndex(pdf, []byte("trailer")):]
	ms, mr := reSize.FindSubmatch(trailer), reRoot.FindSubmatch(trailer)
	if ms == nil || mr == nil {
		return nil, errors.New("clip-heavy: no /Size or /Root in the trailer")
	}
	size, _ := strconv.Atoi(string(ms[1]))
	mk := reKids.FindSubmatch(pdf)
	if mk == nil {
		return nil, errors.New("clip-heavy: no page")
	}
	pageNum, _ := strconv.Atoi(string(mk[1]))
	page := objectBody(pdf, pageNum)
	mres, mc, mp := reResources.FindSubmatch(page), reContents.FindSubmatch(page), reParent.FindSubmatch(page)
	if mres == nil || mc == nil || mp == nil {
		return nil, errors.New("clip-heavy: the page's resources, contents or parent are not indirect")
	}
	resNum, _ := strconv.Atoi(string(mres[1]))
	fonts := reFonts.FindSubmatch(objectBody(pdf, resNum))
	if fonts == nil {
		return nil, errors.New("clip-heavy: no fonts in the page's resources")
	}

	cells := hatchCells(at, load.Clips/2)
	if len(cells) == 0 {
		return nil, errors.New("clip-heavy: no room for hatching")
	}
	content := heavyContent(cells, at.PageH, r, load)

	out := bytes.NewBuffer(make([]byte, 0, len(pdf)+len(content)/3+1<<16))
	out.Write(pdf)
	if pdf[len(pdf)-1] != '\n' {
		out.WriteByte('\n')
	}
	type obj struct {
		num int
		off int
	}
	var objs []obj
	begin := func(num int) {
		objs = append(objs, obj{num, out.Len()})
		fmt.Fprintf(out, "%d 0 obj\n", num)
	}
	next := size
	contentNum, fontNum, resOut := next, next+1, next+2
	imgNum := next + 3
	next += 3 + load.Images

	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	if _, err := zw.Write(content); err != nil {
		return nil, fmt.Errorf("clip-heavy: compress: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("clip-heavy: compress: %w", err)
	}
	begin(contentNum)
	fmt.Fprintf(out, "<< /Length %d /Filter /FlateDecode >>\nstream\n", z.Len())
	out.Write(z.Bytes())
	out.WriteString("\nendstream\nendobj\n")
	begin(fontNum)
	out.WriteString("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>\nendobj\n")
	for k := range load.Images {
		px := make([]byte, 16*16)
		for j := range px {
			px[j] = byte(96 + r.IntN(160))
		}
		begin(imgNum + k)
		fmt.Fprintf(out, "<< /Type /XObject /Subtype /Image /Width 16 /Height 16 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length %d >>\nstream\n", len(px))
		out.Write(px)
		out.WriteString("\nendstream\nendobj\n")
	}
	begin(resOut)
	fmt.Fprintf(out, "<< /ProcSet [/PDF /Text /ImageB /ImageC /ImageI] /Font <<%s /FH %d 0 R >> /XObject <<", fonts[1], fontNum)
	for k := range load.Images {
		fmt.Fprintf(out, " /Ih%d %d 0 R", k, imgNum+k)
	}
	out.WriteString(" >> >>\nendobj\n")
	begin(pageNum)
	fmt.Fprintf(out, "<< /Type /Page /Parent %s /Resources %d 0 R /Contents [%d 0 R %s] >>\nendobj\n", mp[1], resOut, contentNum, mc[1])

	xref := out.Len()
	out.WriteString("xref\n0 1\n0000000000 65535 f \n")
	for _, o := range objs {
		if o.num == pageNum {
			fmt.Fprintf(out, "%d 1\n%010d 00000 n \n", o.num, o.off)
		}
	}
	fmt.Fprintf(out, "%d %d\n", size, next-size)
	offs := make([]int, next-size)
	for _, o := range objs {
		if o.num != pageNum {
			offs[o.num-size] = o.off
		}
	}
	for _, off := range offs {
		fmt.Fprintf(out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(out, "trailer\n<< /Size %d /Root %s /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", next, mr[1], prevXref, xref)
	return out.Bytes(), nil
}

// objectBody returns the text of object num's definition (up to endobj),
// nil when the file does not define it.
func objectBody(pdf []byte, num int) []byte {
	head := []byte(fmt.Sprintf("\n%d 0 obj", num))
	i := bytes.Index(pdf, head)
	if i < 0 {
		return nil
	}
	rest := pdf[i+len(head):]
	if j := bytes.Index(rest, []byte("endobj")); j >= 0 {
		return rest[:j]
	}
	return nil
}

// hatchCells tiles at.Area with about n square cells clear of at.Keep.
func hatchCells(at HatchAreas, n int) []rect {
	area := rect{at.Area[0], at.Area[1], at.Area[2], at.Area[3]}
	if area.w() <= 0 || area.h() <= 0 || n <= 0 {
		return nil
	}
	keep := make([]rect, len(at.Keep))
	for k, q := range at.Keep {
		keep[k] = rect{q[0], q[1], q[2], q[3]}
	}
	side := math.Sqrt(area.w() * area.h() / float64(n))
	var cells []rect
	for range 4 {
		cells = cells[:0]
		for y := area.y0; y+side <= area.y1; y += side {
			for x := area.x0; x+side <= area.x1; x += side {
				c := rect{x, y, x + side, y + side}
				free := true
				for _, k := range keep {
					if c.overlaps(k) {
						free = false
						break
					}
				}
				if free {
					cells = append(cells, c)
				}
			}
		}
		if len(cells) >= n {
			break
		}
		side *= math.Sqrt(float64(max(len(cells), 1))/float64(n)) * 0.98
	}
	return cells[:min(n, len(cells))]
}

// heavyContent writes the hatching of the cells (y down, millimetres)
// as a content stream on a page pageH millimetres tall, with load's text
// runs and images in some of the cells.
func heavyContent(cells []rect, pageH float64, r *rand.Rand, load HeavyLoad) []byte {
	b := make([]byte, 0, load.Segments*34+len(cells)*160)
	num := func(v float64) { b = strconv.AppendFloat(b, math.Round(v*100)/100, 'f', -1, 64); b = append(b, ' ') }
	xy := func(x, y float64) { num(x * ptPerMM); num((pageH - y) * ptPerMM) }
	seg := func(x0, y0, x1, y1 float64) {
		xy(x0, y0)
		b = append(b, "m "...)
		xy(x1, y1)
		b = append(b, "l S\n"...)
	}
	b = append(b, "q\n"...)
	left := load.Segments
	for k, c := range cells {
		n := left / (len(cells) - k)
		left -= n
		g := c.inset(-0.3)
		b = append(b, "q "...)
		xy(g.x0, g.y1)
		num(g.w() * ptPerMM)
		num(g.h() * ptPerMM)
		b = append(b, "re W n q "...)
		// The octagon: the grown box with its corners cut.
		cut := 0.2 * math.Min(g.w(), g.h())
		oct := [8][2]float64{{g.x0 + cut, g.y0}, {g.x1 - cut, g.y0}, {g.x1, g.y0 + cut}, {g.x1, g.y1 - cut},
			{g.x1 - cut, g.y1}, {g.x0 + cut, g.y1}, {g.x0, g.y1 - cut}, {g.x0, g.y0 + cut}}
		for j, p := range oct {
			xy(p[0], p[1])
			if j == 0 {
				b = append(b, "m "...)
			} else {
				b = append(b, "l "...)
			}
		}
		b = append(b, "h W n "...)
		grey := 0.3 + 0.4*r.Float64()
		num(grey)
		num(grey)
		num(grey)
		b = append(b, "RG "...)
		num(0.05 + 0.15*r.Float64())
		b = append(b, "w\n"...)
		w, h := c.w(), c.h()
		switch r.IntN(patPatterns) {
		case patTiles:
			p := math.Sqrt(2 * w * h / float64(n))
			for i := 0; i < n; i++ {
				// Horizontal edges first, then vertical ones, row by row.
				cols := max(1, int(w/p))
				half := n / 2
				if i < half {
					row, col := i/cols, i%cols
					y := c.y0 + (float64(row)+0.5)*p
					seg(c.x0+float64(col)*p, y, c.x0+float64(col+1)*p, y)
				} else {
					j := i - half
					rows := max(1, int(h/p))
					col, row := j/rows, j%rows
					x := c.x0 + (float64(col)+0.5)*p
					seg(x, c.y0+float64(row)*p, x, c.y0+float64(row+1)*p)
				}
			}
		case patBricks:
			p := math.Sqrt(w * h / float64(n))
			per := max(1, int(w/p))
			for i := 0; i < n; i++ {
				row, j := i/per, i%per
				y := c.y0 + float64(row)*p
				if j%2 == 0 { // bed joint under two head joints
					x := c.x0 + float64(j)*p
					seg(x, y, x+2*p, y)
				} else {
					x := c.x0 + float64(j)*p
					if row%2 == 1 {
						x += p
					}
					seg(x, y, x, y+p)
				}
			}
		default:
			q := math.Sqrt(w * h / float64(n))
			per := max(1, int(w/q))
			d := 0.3 * q
			for i := 0; i < n; i++ {
				x := c.x0 + (float64(i%per)+0.5)*q
				y := c.y0 + (float64(i/per)+0.5)*q
				seg(x-d, y+d, x+d, y-d)
			}
		}
		b = append(b, "Q Q\n"...)
	}
	// Labels and images in cells spread over the page.
	b = append(b, "0 g\n"...)
	for k := range load.Texts {
		c := cells[(k*7919)%len(cells)]
		b = append(b, "BT /FH "...)
		num(4 + 2*r.Float64())
		b = append(b, "Tf "...)
		xy(c.x0, c.y1)
		b = append(b, "Td ("...)
		b = strconv.AppendFloat(b, float64(100+r.IntN(900))/100, 'f', 2, 64)
		b = append(b, ") Tj ET\n"...)
	}
	for k := range load.Images {
		c := cells[(k*104729+17)%len(cells)]
		b = append(b, "q "...)
		num(c.w() * ptPerMM)
		b = append(b, "0 0 "...)
		num(c.h() * ptPerMM)
		xy(c.x0, c.y1)
		b = append(b, "cm /Ih"...)
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, " Do Q\n"...)
	}
	return append(b, "Q\n"...)
}
