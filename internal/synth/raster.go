package synth

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"

	"github.com/gen2brain/go-fitz"

	"blueprint/internal/glyph"
)

// maxRasterPixels bounds the size of a raster sheet: the resolution is
// lowered (not below 150 DPI, where an A0 takes 35 Mpx) until it fits.
const maxRasterPixels = 40_000_000

// plane is one 8-bit channel of an image.
type plane struct {
	w, h int
	pix  []uint8
}

// raster renders the sheet's PDF with MuPDF and degrades it like a scan
// or photo: faded lines, tinted paper, slight skew, blur, uneven light,
// dust specks, noise and JPEG or PNG encoding. Boxes follow the skew
// exactly.
func (d *design) raster(ctx context.Context, pdf []byte, r *rand.Rand, stem string, seed uint64, opt Options) (Sheet, error) {
	dpi := 150 + 25*r.IntN(7) // 150..300
	for dpi > 150 && d.paper.w*d.paper.h/(25.4*25.4)*float64(dpi*dpi) > maxRasterPixels {
		dpi -= 25
	}
	if d.paper.name == "A0" && dpi > 200 {
		dpi = 200
	}
	if opt.MaxDPI > 0 && dpi > opt.MaxDPI {
		dpi = max(opt.MaxDPI, 150)
	}
	if err := ctx.Err(); err != nil {
		return Sheet{}, err
	}
	doc, err := fitz.NewFromMemory(pdf)
	if err != nil {
		return Sheet{}, fmt.Errorf("synth: open PDF for rendering: %w", err)
	}
	img, err := doc.ImageDPI(0, float64(dpi))
	if cerr := doc.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return Sheet{}, fmt.Errorf("synth: render %s at %d DPI: %w", stem, dpi, err)
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	gray := r.Float64() < 0.5
	planes := planesOf(img, gray)
	img = nil

	// Paper tone: white, grey or yellowed.
	paperTone := [3]float64{255, 255, 255}
	switch r.IntN(3) {
	case 1:
		g := 205 + 40*r.Float64()
		paperTone = [3]float64{g, g, g}
	case 2:
		paperTone = [3]float64{250, 242 - 10*r.Float64(), 205 - 25*r.Float64()}
	}
	fade := 1.0
	if r.Float64() < 0.4 {
		fade = 0.45 + 0.45*r.Float64()
	}
	angle := 0.0
	if r.Float64() < 0.8 {
		angle = (0.2 + 1.3*r.Float64()) * float64(1-2*r.IntN(2))
	}
	blurPasses := r.IntN(3)
	asJPEG := r.Float64() < 0.6 || w*h > 20_000_000 // big PNG scans would pass the upload limit
	quality := 40 + r.IntN(50)
	sigma := 2 + 9*r.Float64()
	if !asJPEG { // lossless scans are cleaner (and smaller)
		sigma = 2 * r.Float64()
		if r.Float64() < 0.5 {
			sigma = 0
		}
	}

	for c, p := range planes {
		tone := paperTone[c]
		if gray {
			tone = (paperTone[0] + paperTone[1] + paperTone[2]) / 3
		}
		p.ink(fade, tone)
		if angle != 0 {
			p.rotate(angle, clamp8(tone))
		}
		for k := 0; k < blurPasses; k++ {
			p.blur()
		}
	}
	// Photos: light falls off away from a bright spot.
	if r.Float64() < 0.3 {
		falloff(planes, r)
	}
	// Scanner dust: a few small dark specks (dot look-alikes).
	if r.Float64() < 0.3 {
		dust(planes, r)
	}
	// Noise: the same grain on every channel.
	addNoise(planes, sigma, r)

	data, name, err := encodePlanes(planes, stem, asJPEG, quality)
	if err != nil {
		return Sheet{}, err
	}

	k := float64(dpi) / 25.4
	cx, cy := float64(w)/2, float64(h)/2
	sn, cs := math.Sincos(angle * math.Pi / 180)
	toPx := func(p glyph.Point) glyph.Point {
		x, y := p.X*k-cx, p.Y*k-cy
		return glyph.Point{X: cs*x - sn*y + cx, Y: sn*x + cs*y + cy}
	}
	t := Truth{
		File: name, Kind: KindRaster, Seed: seed, Paper: d.paper.name,
		Scale: fmt.Sprintf("1:%d", d.scaleDen), Legend: d.legend, DPI: dpi,
		Pages: []TruthPage{{PageIndex: 0, WidthPx: w, HeightPx: h, Symbols: symbolsTruth(d.insts, w, h, toPx)}},
	}
	return Sheet{Name: name, Data: data, Truth: t}, nil
}

// planesOf splits a render into one luminance plane (gray) or its red,
// green and blue planes.
func planesOf(img *image.RGBA, gray bool) []*plane {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	if gray {
		p := &plane{w, h, make([]uint8, w*h)}
		for i := range p.pix {
			o := img.Pix[4*i : 4*i+3 : 4*i+3]
			p.pix[i] = uint8((299*int(o[0]) + 587*int(o[1]) + 114*int(o[2]) + 500) / 1000)
		}
		return []*plane{p}
	}
	var planes []*plane
	for c := 0; c < 3; c++ {
		p := &plane{w, h, make([]uint8, w*h)}
		for i := range p.pix {
			p.pix[i] = img.Pix[4*i+c]
		}
		planes = append(planes, p)
	}
	return planes
}

// ink fades the plane's ink by fade (1 keeps it) and tints its paper to tone.
func (p *plane) ink(fade, tone float64) {
	var lut [256]uint8
	for v := range lut {
		ink := (255 - float64(v)) * fade
		lut[v] = clamp8((255 - ink) * tone / 255)
	}
	for i, v := range p.pix {
		p.pix[i] = lut[v]
	}
}

// falloff darkens the planes away from a random bright spot, like the
// uneven light of a photograph.
func falloff(planes []*plane, r *rand.Rand) {
	w, h := planes[0].w, planes[0].h
	fx, fy := r.Float64()*float64(w), r.Float64()*float64(h)
	k := (0.05 + 0.2*r.Float64()) / (float64(w)*float64(w) + float64(h)*float64(h))
	for y := 0; y < h; y++ {
		dy := float64(y) - fy
		for x := 0; x < w; x++ {
			dx := float64(x) - fx
			f := 1 - k*(dx*dx+dy*dy)
			for _, p := range planes {
				i := y*w + x
				p.pix[i] = uint8(float64(p.pix[i]) * f)
			}
		}
	}
}

// dust drops a few small dark specks on the planes, like scanner dust.
func dust(planes []*plane, r *rand.Rand) {
	w, h := planes[0].w, planes[0].h
	for n := 20 + r.IntN(200); n > 0; n-- {
		cx, cy, rad := r.IntN(w), r.IntN(h), 0.5+2*r.Float64()
		v := uint8(30 + r.IntN(120))
		for y := max(0, cy-3); y < min(h, cy+4); y++ {
			for x := max(0, cx-3); x < min(w, cx+4); x++ {
				if float64((x-cx)*(x-cx)+(y-cy)*(y-cy)) <= rad*rad {
					for _, p := range planes {
						p.pix[y*w+x] = min(p.pix[y*w+x], v)
					}
				}
			}
		}
	}
}

// addNoise adds the same Gaussian grain of sigma to every plane.
func addNoise(planes []*plane, sigma float64, r *rand.Rand) {
	w, h := planes[0].w, planes[0].h
	for i := 0; i < w*h && sigma > 0; i++ {
		n := r.NormFloat64() * sigma
		for _, p := range planes {
			p.pix[i] = clamp8(float64(p.pix[i]) + n)
		}
	}
}

// toImage joins one plane (gray) or three (RGB) into an image.
func toImage(planes []*plane) image.Image {
	w, h := planes[0].w, planes[0].h
	if len(planes) == 1 {
		return &image.Gray{Pix: planes[0].pix, Stride: w, Rect: image.Rect(0, 0, w, h)}
	}
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w*h; i++ {
		rgba.Pix[4*i] = planes[0].pix[i]
		rgba.Pix[4*i+1] = planes[1].pix[i]
		rgba.Pix[4*i+2] = planes[2].pix[i]
		rgba.Pix[4*i+3] = 255
	}
	return rgba
}

// encodePlanes encodes the planes as stem.jpg at quality, or as stem.png,
// and returns the bytes and the file name.
func encodePlanes(planes []*plane, stem string, asJPEG bool, quality int) ([]byte, string, error) {
	out := toImage(planes)
	var buf bytes.Buffer
	name := stem + ".png"
	var err error
	if asJPEG {
		name = stem + ".jpg"
		err = jpeg.Encode(&buf, out, &jpeg.Options{Quality: quality})
	} else {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, out)
	}
	if err != nil {
		return nil, "", fmt.Errorf("synth: encode %s: %w", name, err)
	}
	return buf.Bytes(), name, nil
}

func clamp8(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}

// rotate turns the plane by deg degrees clockwise about its centre with
// bilinear sampling; uncovered corners get fill.
func (p *plane) rotate(deg float64, fill uint8) {
	src := append([]uint8(nil), p.pix...)
	sn, cs := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(p.w)/2, float64(p.h)/2
	for y := 0; y < p.h; y++ {
		dy := float64(y) + 0.5 - cy
		for x := 0; x < p.w; x++ {
			dx := float64(x) + 0.5 - cx
			// inverse rotation
			sx := cs*dx + sn*dy + cx - 0.5
			sy := -sn*dx + cs*dy + cy - 0.5
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

// blur applies the [1 2 1]/4 kernel horizontally and vertically.
func (p *plane) blur() {
	tmp := make([]uint8, len(p.pix))
	for y := 0; y < p.h; y++ {
		row := p.pix[y*p.w : (y+1)*p.w]
		out := tmp[y*p.w : (y+1)*p.w]
		for x := range row {
			l, r := row[max(x-1, 0)], row[min(x+1, p.w-1)]
			out[x] = uint8((int(l) + 2*int(row[x]) + int(r) + 2) / 4)
		}
	}
	for y := 0; y < p.h; y++ {
		up, dn := max(y-1, 0), min(y+1, p.h-1)
		for x := 0; x < p.w; x++ {
			p.pix[y*p.w+x] = uint8((int(tmp[up*p.w+x]) + 2*int(tmp[y*p.w+x]) + int(tmp[dn*p.w+x]) + 2) / 4)
		}
	}
}
