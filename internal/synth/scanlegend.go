package synth

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"

	"github.com/gen2brain/go-fitz"

	"blueprint/internal/glyph"
)

// KindScanLegend is a legend set (KindLegend) as a scanned PDF: every page
// of the set rendered at 150–300 DPI, degraded like a scan or a photograph
// and stored as one image filling its page, the way scanned drawing sets
// reach us. The ground truth is the set's, moved with each page's skew.
const KindScanLegend Kind = "scan-legend"

// maxScanSkew is the largest skew of a scanned page, in degrees.
const maxScanSkew = 2.0

// scannedPage is one page of a scanned set: its encoded image and the
// page size in PDF points.
type scannedPage struct {
	data              []byte // JPEG, or raw 8-bit samples when flate is set
	flate             bool
	w, h              int // image pixels
	gray              bool
	widthPt, heightPt float64
}

// ScanLegend draws sheet i of the run with seed as a scanned legend set:
// legend set i of the same seed (Legend), each page rendered and degraded
// (paper tone, faded ink, skew up to ±2°, blur, noise, dust, JPEG, gray or
// colour; some pages photographed: a perspective of up to 2.5 % of the
// page and uneven light) and written as a PDF of page images.
func (g *Generator) ScanLegend(ctx context.Context, seed uint64, i int, opt Options) (Sheet, error) {
	leg, err := g.Legend(seed, i, opt)
	if err != nil {
		return Sheet{}, err
	}
	stem := SheetName(KindScanLegend, i)
	doc, err := fitz.NewFromMemory(leg.Data)
	if err != nil {
		return Sheet{}, fmt.Errorf("synth: open %s for scanning: %w", stem, err)
	}
	defer doc.Close()
	r := rngFor(seed, i, 40)
	dpi := 150 + 25*r.IntN(7) // one scanner for the set
	if opt.MaxDPI > 0 && dpi > opt.MaxDPI {
		dpi = max(opt.MaxDPI, 150)
	}
	t := leg.Truth
	t.File, t.Kind = stem+".pdf", KindScanLegend
	t.Pages = nil
	var pages []scannedPage
	if doc.NumPage() != len(leg.Truth.Pages) {
		return Sheet{}, fmt.Errorf("synth: %s has %d pages but truth for %d", stem, doc.NumPage(), len(leg.Truth.Pages))
	}
	for k := range leg.Truth.Pages {
		if err := ctx.Err(); err != nil {
			return Sheet{}, err
		}
		b, err := doc.Bound(k)
		if err != nil {
			return Sheet{}, fmt.Errorf("synth: %s page %d: %w", stem, k, err)
		}
		pageDPI := dpi
		for pageDPI > 150 && float64(b.Dx()*b.Dy())/(72*72)*float64(pageDPI*pageDPI) > maxRasterPixels {
			pageDPI -= 25
		}
		img, err := doc.ImageDPI(k, float64(pageDPI))
		if err != nil {
			return Sheet{}, fmt.Errorf("synth: render %s page %d at %d DPI: %w", stem, k, pageDPI, err)
		}
		sp, move := scanPage(img, r)
		// The page keeps its size in truth pixels, so that it renders at
		// the truth's DPI to exactly the truth's pixels.
		tp := leg.Truth.Pages[k]
		sp.widthPt = float64(tp.WidthPx) * 72 / float64(leg.Truth.DPI)
		sp.heightPt = float64(tp.HeightPx) * 72 / float64(leg.Truth.DPI)
		pages = append(pages, sp)
		t.Pages = append(t.Pages, movedTruth(tp, float64(pageDPI)/float64(leg.Truth.DPI), move))
	}
	return Sheet{Name: stem + ".pdf", Data: imagesPDF(pages), Truth: t}, nil
}

// scanPage degrades one rendered page and returns it with the map from
// rendered pixels to scanned pixels.
func scanPage(img *image.RGBA, r *rand.Rand) (scannedPage, func(glyph.Point) glyph.Point) {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	gray := r.Float64() < 0.5
	planes := planesOf(img, gray)
	tone := 255.0
	if r.Float64() < 0.4 {
		tone = 215 + 35*r.Float64()
	}
	fade := 1.0
	if r.Float64() < 0.4 {
		fade = 0.5 + 0.4*r.Float64()
	}
	angle := (0.2 + (maxScanSkew-0.2)*r.Float64()) * float64(1-2*r.IntN(2))
	photo := r.Float64() < 0.25
	var hom *homography
	if photo {
		hom = randomPerspective(float64(w), float64(h), 0.025, r)
	}
	blurPasses := r.IntN(3)
	for _, p := range planes {
		p.ink(fade, tone)
		p.rotate(angle, clamp8(tone))
		if hom != nil {
			p.warp(hom, clamp8(tone))
		}
		for k := 0; k < blurPasses; k++ {
			p.blur()
		}
	}
	if photo || r.Float64() < 0.2 {
		falloff(planes, r)
	}
	if r.Float64() < 0.3 {
		dust(planes, r)
	}
	asJPEG := r.Float64() < 0.8
	sigma := 2 + 7*r.Float64()
	if !asJPEG {
		sigma = 2 * r.Float64()
	}
	addNoise(planes, sigma, r)
	sp := scannedPage{w: w, h: h, gray: gray, flate: !asJPEG}
	if asJPEG {
		data, _, err := encodePlanes(planes, "page", true, 55+r.IntN(36))
		if err != nil { // JPEG encoding of an in-memory image cannot fail
			panic(err)
		}
		sp.data = data
	} else {
		for i := 0; i < w*h; i++ {
			for _, p := range planes {
				sp.data = append(sp.data, p.pix[i])
			}
		}
	}
	cx, cy := float64(w)/2, float64(h)/2
	sn, cs := math.Sincos(angle * math.Pi / 180)
	move := func(p glyph.Point) glyph.Point {
		x, y := p.X-cx, p.Y-cy
		q := glyph.Point{X: cs*x - sn*y + cx, Y: sn*x + cs*y + cy}
		if hom != nil {
			q = hom.apply(q)
		}
		return q
	}
	return sp, move
}

// movedTruth maps a page's truth (in pixels of its own DPI) through the
// scan's move, applied at scale k (scan pixels per truth pixel). Each
// box's corners are moved and bounded again; the scanned page keeps the
// page's size, so the truth stays in its pixel frame.
func movedTruth(tp TruthPage, k float64, move func(glyph.Point) glyph.Point) TruthPage {
	out := tp
	out.Symbols = make([]TruthSymbol, 0, len(tp.Symbols))
	for _, s := range tp.Symbols {
		b := s.BBoxPx
		lo := glyph.Point{X: math.Inf(1), Y: math.Inf(1)}
		hi := glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}
		for _, c := range []glyph.Point{{X: b.X, Y: b.Y}, {X: b.X + b.Width, Y: b.Y}, {X: b.X, Y: b.Y + b.Height}, {X: b.X + b.Width, Y: b.Y + b.Height}} {
			q := move(glyph.Point{X: c.X * k, Y: c.Y * k})
			q = glyph.Point{X: q.X / k, Y: q.Y / k}
			lo = glyph.MinPoint(lo, q)
			hi = glyph.MaxPoint(hi, q)
		}
		px, norm, clipped, ok := truthBox(lo, hi, tp.WidthPx, tp.HeightPx)
		if !ok {
			continue
		}
		s.BBoxPx, s.BBoxNorm, s.Clipped = px, norm, s.Clipped || clipped
		out.Symbols = append(out.Symbols, s)
	}
	return out
}

// homography is a projective map of the plane (a 3×3 matrix, last entry 1).
type homography [9]float64

func (m *homography) apply(p glyph.Point) glyph.Point {
	d := m[6]*p.X + m[7]*p.Y + m[8]
	return glyph.Point{X: (m[0]*p.X + m[1]*p.Y + m[2]) / d, Y: (m[3]*p.X + m[4]*p.Y + m[5]) / d}
}

// inverse returns the map's inverse (the adjugate, scaled to m[8] = 1).
func (m *homography) inverse() *homography {
	a, b, c, d, e, f, g, h, i := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]
	inv := homography{
		e*i - f*h, c*h - b*i, b*f - c*e,
		f*g - d*i, a*i - c*g, c*d - a*f,
		d*h - e*g, b*g - a*h, a*e - b*d,
	}
	for k := range inv {
		inv[k] /= inv[8]
	}
	return &inv
}

// randomPerspective returns the homography taking the corners of a w×h
// image to corners each moved by up to frac of the size: a page
// photographed slightly off square.
func randomPerspective(w, h, frac float64, r *rand.Rand) *homography {
	src := [4]glyph.Point{{X: 0, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}, {X: 0, Y: h}}
	var dst [4]glyph.Point
	for k, p := range src {
		dst[k] = glyph.Point{X: p.X + (2*r.Float64()-1)*frac*w, Y: p.Y + (2*r.Float64()-1)*frac*h}
	}
	return homographyOf(src, dst)
}

// homographyOf solves for the homography taking src[k] to dst[k].
func homographyOf(src, dst [4]glyph.Point) *homography {
	var a [8][9]float64
	for k := range 4 {
		x, y, u, v := src[k].X, src[k].Y, dst[k].X, dst[k].Y
		a[2*k] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*k+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	for c := range 8 { // Gauss–Jordan with partial pivoting
		piv := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[piv][c]) {
				piv = r
			}
		}
		a[c], a[piv] = a[piv], a[c]
		for r := range 8 {
			if r == c || a[r][c] == 0 {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k < 9; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	var m homography
	for k := range 8 {
		m[k] = a[k][8] / a[k][k]
	}
	m[8] = 1
	return &m
}

// warp maps the plane through hom (output pixel q takes the input at
// hom⁻¹(q)) with bilinear sampling; uncovered pixels get fill.
func (p *plane) warp(hom *homography, fill uint8) {
	inv := hom.inverse()
	src := append([]uint8(nil), p.pix...)
	for y := 0; y < p.h; y++ {
		for x := 0; x < p.w; x++ {
			s := inv.apply(glyph.Point{X: float64(x) + 0.5, Y: float64(y) + 0.5})
			sx, sy := s.X-0.5, s.Y-0.5
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			if x0 < 0 || y0 < 0 || x0+1 >= p.w || y0+1 >= p.h {
				p.pix[y*p.w+x] = fill
				continue
			}
			fx, fy := sx-float64(x0), sy-float64(y0)
			i := y0*p.w + x0
			top := float64(src[i])*(1-fx) + float64(src[i+1])*fx
			bot := float64(src[i+p.w])*(1-fx) + float64(src[i+p.w+1])*fx
			p.pix[y*p.w+x] = uint8(top*(1-fy) + bot*fy + 0.5)
		}
	}
}

// imagesPDF writes a PDF whose pages each show one image filling the page.
func imagesPDF(pages []scannedPage) []byte {
	var buf bytes.Buffer
	var offsets []int
	obj := func(body string, stream []byte) {
		offsets = append(offsets, buf.Len())
		fmt.Fprintf(&buf, "%d 0 obj\n%s", len(offsets), body)
		if stream != nil {
			buf.WriteString("\nstream\n")
			buf.Write(stream)
			buf.WriteString("\nendstream")
		}
		buf.WriteString("\nendobj\n")
	}
	buf.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	// Objects: 1 catalog, 2 pages, then per page: page, contents, image.
	kids := ""
	for k := range pages {
		kids += fmt.Sprintf("%d 0 R ", 3+3*k)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, len(pages)), nil)
	for k, p := range pages {
		contents, img := 4+3*k, 5+3*k
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>",
			p.widthPt, p.heightPt, img, contents), nil)
		content := fmt.Sprintf("q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q", p.widthPt, p.heightPt)
		obj(fmt.Sprintf("<< /Length %d >>", len(content)), []byte(content))
		cs := "/DeviceRGB"
		if p.gray {
			cs = "/DeviceGray"
		}
		data, filter := p.data, "/DCTDecode"
		if p.flate {
			data, filter = zlibBytes(p.data), "/FlateDecode"
		}
		obj(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent 8 /Filter %s /Length %d >>",
			p.w, p.h, cs, filter, len(data)), data)
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return buf.Bytes()
}

// zlibBytes compresses b for a FlateDecode stream.
func zlibBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	_, _ = zw.Write(b) // writes to a bytes.Buffer do not fail
	_ = zw.Close()
	return buf.Bytes()
}

// ScanCopy makes the reproducible scan-like copy of a page rendered at
// 200 DPI that `make bench-scans` sends: gray, turned 0.5–1.5° either way,
// blurred, with noise, resampled to 150 DPI and encoded as JPEG quality 70.
// The same image and seed give the same bytes.
func ScanCopy(img image.Image, seed uint64) ([]byte, error) {
	r := rand.New(rand.NewPCG(seed, 0x5CA9))
	b := img.Bounds()
	p := &plane{b.Dx(), b.Dy(), make([]uint8, b.Dx()*b.Dy())}
	for y := 0; y < p.h; y++ {
		for x := 0; x < p.w; x++ {
			cr, cg, cb, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			p.pix[y*p.w+x] = uint8((299*cr + 587*cg + 114*cb + 500*257) / (1000 * 257))
		}
	}
	angle := (0.5 + r.Float64()) * float64(1-2*r.IntN(2))
	p.rotate(angle, 255)
	p.blur()
	addNoise([]*plane{p}, 6, r)
	p = p.resized(0.75)
	data, _, err := encodePlanes([]*plane{p}, "scan", true, 70)
	return data, err
}

// resized returns the plane scaled by f (< 1) by averaging the source
// pixels under each output pixel.
func (p *plane) resized(f float64) *plane {
	w, h := max(1, int(float64(p.w)*f)), max(1, int(float64(p.h)*f))
	out := &plane{w, h, make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		y0, y1 := int(float64(y)/f), min(p.h, int(float64(y+1)/f+0.999))
		for x := 0; x < w; x++ {
			x0, x1 := int(float64(x)/f), min(p.w, int(float64(x+1)/f+0.999))
			var sum, n int
			for sy := y0; sy < max(y1, y0+1); sy++ {
				for sx := x0; sx < max(x1, x0+1); sx++ {
					sum += int(p.pix[sy*p.w+sx])
					n++
				}
			}
			out.pix[y*w+x] = uint8((sum + n/2) / n)
		}
	}
	return out
}

// JPEGPage is one page of a scanned PDF: a JPEG image filling a page of
// the given size in PDF points.
type JPEGPage struct {
	Data              []byte
	WidthPt, HeightPt float64
}

// JPEGPagesPDF writes a PDF of one JPEG image a page, each filling its
// page, without re-encoding: a scanned set as a scanner writes it.
func JPEGPagesPDF(pages []JPEGPage) ([]byte, error) {
	sp := make([]scannedPage, len(pages))
	for i, p := range pages {
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(p.Data))
		if err != nil {
			return nil, fmt.Errorf("synth: page %d is not a JPEG: %w", i, err)
		}
		sp[i] = scannedPage{data: p.Data, w: cfg.Width, h: cfg.Height, gray: cfg.ColorModel == color.GrayModel,
			widthPt: p.WidthPt, heightPt: p.HeightPt}
	}
	return imagesPDF(sp), nil
}
