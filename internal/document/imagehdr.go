package document

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"

	"golang.org/x/image/webp"
)

// PageBytesPerPixel is what one pixel of the largest page may cost in
// memory: the 4 bytes of the 8-bit RGBA raster a PDF page is rendered to.
// An image upload is allowed MaxPagePixels × PageBytesPerPixel bytes for
// everything its decoding holds at once (imageHeader.decodeBytes).
const PageBytesPerPixel = 4

// imageHeader is what the start check reads from an image's header,
// without decoding any pixel.
type imageHeader struct {
	width, height int
	// decodeBytes is the most memory decodeImage holds at once for this
	// image: the 8-bit page plus whatever the format's decoder keeps
	// beside it (JPEG progressive coefficients, WebP lossless work
	// buffers, a conversion to RGBA).
	decodeBytes int64
	// damage is structural damage found after the dimensions were read
	// (a corrupt *InvalidError), reported after the size limits.
	damage error
}

// readImageHeader reads an image's dimensions and what decoding it costs
// from its header, and checks the structure that can be checked without
// decoding: a PNG's chunks up to IEND, a JPEG's segments up to its first
// scan, a WebP's RIFF length. A header that cannot be read is a corrupt
// *InvalidError; damage found once the dimensions are known is left in
// imageHeader.damage, so that size limits are reported first.
func readImageHeader(data []byte, mime string) (imageHeader, error) {
	var h imageHeader
	var err error
	switch mime {
	case MimePNG:
		h, err = pngImageHeader(data)
	case MimeJPEG:
		h, err = jpegImageHeader(data)
	case MimeWebP:
		h, err = webpImageHeader(data)
	default:
		return h, invalid(ReasonTypeMismatch, map[string]any{"declared": mime, "detected": mime},
			"%s is not a supported upload type", mime)
	}
	if err != nil {
		var ie *InvalidError
		if errors.As(err, &ie) {
			return h, ie
		}
		return h, invalid(ReasonCorrupt, nil, "the image header cannot be read: the file is damaged (%v)", err)
	}
	if h.width <= 0 || h.height <= 0 {
		return h, invalid(ReasonCorrupt, nil, "the image has no pixels (%d × %d)", h.width, h.height)
	}
	return h, nil
}

func pngImageHeader(data []byte) (imageHeader, error) {
	ph, err := readPNGHeader(data)
	if err != nil {
		return imageHeader{}, err
	}
	h := imageHeader{width: ph.width, height: ph.height, decodeBytes: ph.decodedBytes()}
	if err := checkPNGChunks(data); err != nil {
		h.damage = damaged(DamageTruncated, "the PNG file is damaged or cut short (%v); upload the complete file", err)
	}
	return h, nil
}

// jpegComponent is one colour component of a JPEG frame.
type jpegComponent struct{ h, v int }

// jpegImageHeader walks a JPEG's marker segments from SOI to the first
// start of scan (SOS), reading the frame header (SOFn) on the way. Every
// segment must lie inside the file; a file cut inside its entropy-coded
// data is found only when it is decoded.
func jpegImageHeader(data []byte) (imageHeader, error) {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return imageHeader{}, errors.New("jpeg: no SOI marker")
	}
	var (
		h           imageHeader
		comps       []jpegComponent
		progressive bool
	)
	// Cut short after the frame header: the size is known, the file is damaged.
	cut := func(what string) (imageHeader, error) {
		e := damaged(DamageTruncated, "the JPEG file ends %s; upload the complete file", what)
		if comps == nil {
			return h, e
		}
		h.decodeBytes = jpegDecodeBytes(h.width, h.height, comps, progressive)
		h.damage = e
		return h, nil
	}
	p := 2
	for {
		for p < len(data) && data[p] == 0xFF {
			p++ // fill bytes
		}
		if p >= len(data) {
			return cut("before its image data")
		}
		m := data[p]
		p++
		if m == 0x01 || (m >= 0xD0 && m <= 0xD7) {
			continue // markers without a length
		}
		if p+2 > len(data) {
			return cut("inside its headers")
		}
		n := int(binary.BigEndian.Uint16(data[p:]))
		if n < 2 || p+n > len(data) {
			return cut("inside a header segment")
		}
		seg := data[p+2 : p+n]
		p += n
		switch {
		case m == 0xD9:
			return h, errors.New("jpeg: EOI before any image data")
		case m == 0xDA: // start of scan
			if comps == nil {
				return h, errors.New("jpeg: scan before the frame header")
			}
			h.decodeBytes = jpegDecodeBytes(h.width, h.height, comps, progressive)
			return h, nil
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC && comps == nil:
			if len(seg) < 6 {
				return h, errors.New("jpeg: short frame header")
			}
			h.height = int(binary.BigEndian.Uint16(seg[1:]))
			h.width = int(binary.BigEndian.Uint16(seg[3:]))
			nc := int(seg[5])
			if nc != 1 && nc != 3 && nc != 4 || len(seg) < 6+3*nc {
				return h, fmt.Errorf("jpeg: %d components", nc)
			}
			for k := range nc {
				hv := seg[6+3*k+1]
				c := jpegComponent{h: int(hv >> 4), v: int(hv & 15)}
				if c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 {
					return h, errors.New("jpeg: bad sampling factor")
				}
				comps = append(comps, c)
			}
			progressive = m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE
		}
	}
}

// jpegDecodeBytes is what image/jpeg holds to decode a frame: one 8-bit
// plane per component at its sampling, for progressive frames a 256-byte
// coefficient block ([64]int32) per 8 × 8 block of every component, and a
// 4-byte RGBA copy when the result is converted (CMYK, or sampling
// factors image.YCbCr cannot hold).
func jpegDecodeBytes(w, h int, comps []jpegComponent, progressive bool) int64 {
	hmax, vmax := 1, 1
	for _, c := range comps {
		hmax, vmax = max(hmax, c.h), max(vmax, c.v)
	}
	// MCU-aligned size: image/jpeg allocates whole MCUs.
	mw := int64((w + 8*hmax - 1) / (8 * hmax) * 8 * hmax)
	mh := int64((h + 8*vmax - 1) / (8 * vmax) * 8 * vmax)
	var total int64
	for _, c := range comps {
		plane := mw * int64(c.h) / int64(hmax) * mh * int64(c.v) / int64(vmax)
		total += plane
		if progressive {
			total += plane / 64 * 256
		}
	}
	convert := len(comps) == 4
	if len(comps) == 3 {
		y, cb, cr := comps[0], comps[1], comps[2]
		standard := cb == (jpegComponent{1, 1}) && cr == cb &&
			((y.h == 1 && y.v == 1) || (y.h == 2 && y.v == 1) || (y.h == 2 && y.v == 2) ||
				(y.h == 1 && y.v == 2) || (y.h == 4 && y.v == 1) || (y.h == 4 && y.v == 2))
		convert = !standard
	}
	if convert {
		total += int64(w) * int64(h) * 4
	}
	return total
}

// webpImageHeader reads a WebP's VP8, VP8L or VP8X header and checks that
// the RIFF container is as long as it says.
func webpImageHeader(data []byte) (imageHeader, error) {
	if len(data) < 12 {
		return imageHeader{}, errors.New("webp: no RIFF header")
	}
	cfg, err := webp.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return imageHeader{}, err
	}
	var damage error
	if size := int64(binary.LittleEndian.Uint32(data[4:8])) + 8; size > int64(len(data)) {
		damage = damaged(DamageTruncated, "the WebP file is %d bytes, its header says %d: it was cut short; upload the complete file", len(data), size)
	}
	px := int64(cfg.Width) * int64(cfg.Height)
	var per float64
	switch cfg.ColorModel {
	case color.YCbCrModel: // lossy: 4:2:0 planes, kept as they are
		per = 1.5
	case color.NYCbCrAModel: // lossy with alpha: planes, the alpha plane
		// decoded through a 4-byte lossless buffer, then RGBA over white
		per = 1.5 + 1 + 4 + 4
	default: // lossless: the ARGB buffer and the NRGBA image (flattened in place)
		per = 8
	}
	return imageHeader{width: cfg.Width, height: cfg.Height, decodeBytes: int64(float64(px) * per), damage: damage}, nil
}

// decodeImage decodes an image upload into the 8-bit page the pipeline
// reads, after checking its header against lim (page_too_large): PNGs
// row by row into *image.Gray or *image.RGBA (decodePNG); JPEGs into
// image/jpeg's *image.Gray or *image.YCbCr as they are (CMYK converted to
// RGBA); WebPs into *image.YCbCr, or *image.RGBA when they have alpha.
// Transparency is flattened over white. Damage found while decoding is a
// corrupt *InvalidError.
func decodeImage(ctx context.Context, data []byte, mime string, lim Limits) (image.Image, error) {
	hd, err := readImageHeader(data, mime)
	if err != nil {
		return nil, err
	}
	if err := checkImageLimits(hd, lim); err != nil {
		return nil, err
	}
	if hd.damage != nil {
		return nil, hd.damage
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("decode image: %w", err)
	}
	var img image.Image
	switch mime {
	case MimePNG:
		img, err = decodePNG(data)
	case MimeJPEG:
		img, err = jpeg.Decode(bytes.NewReader(data))
	default:
		img, err = webp.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return nil, invalid(ReasonCorrupt, nil, "the image cannot be decoded: the file is damaged (%v)", err)
	}
	return toPage(img), nil
}

// checkImageLimits refuses an image over MaxPagePixels pixels, or whose
// decoding would hold more than MaxPagePixels × PageBytesPerPixel bytes.
func checkImageLimits(hd imageHeader, lim Limits) error {
	px := int64(hd.width) * int64(hd.height)
	maxBytes := lim.MaxPagePixels * PageBytesPerPixel
	if px > lim.MaxPagePixels || hd.decodeBytes > maxBytes {
		e := pageTooLarge(0, hd.width, hd.height, lim)
		e.Details["decode_bytes"] = hd.decodeBytes
		e.Details["max_decode_bytes"] = maxBytes
		if px <= lim.MaxPagePixels {
			e.Message = fmt.Sprintf("the image is %d × %d pixels, but decoding it takes %d bytes (its depth, channels or encoding need more than %d bytes a pixel); at most %d bytes (%d pixels of 8-bit RGBA) are accepted; save it as an 8-bit PNG or a baseline JPEG",
				hd.width, hd.height, hd.decodeBytes, PageBytesPerPixel, maxBytes, lim.MaxPagePixels)
		}
		return e
	}
	return nil
}

// toPage returns the decoded image as the pipeline's 8-bit page:
// *image.Gray, *image.YCbCr and *image.RGBA as they are; NRGBA flattened
// over white in place; anything else (CMYK, NYCbCrA) converted to opaque
// RGBA over white.
func toPage(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.Gray, *image.YCbCr, *image.RGBA:
		return img
	case *image.NRGBA:
		p := m.Pix
		for i := 0; i+3 < len(p); i += 4 {
			a := uint32(p[i+3]) * 257
			p[i] = uint8(over(uint32(p[i])*257, a) >> 8)
			p[i+1] = uint8(over(uint32(p[i+1])*257, a) >> 8)
			p[i+2] = uint8(over(uint32(p[i+2])*257, a) >> 8)
			p[i+3] = 0xff
		}
		return &image.RGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
	}
	b := img.Bounds()
	out := image.NewRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			n := color.NRGBA64Model.Convert(img.At(x, y)).(color.NRGBA64)
			a := uint32(n.A)
			o := out.PixOffset(x, y)
			out.Pix[o] = uint8(over(uint32(n.R), a) >> 8)
			out.Pix[o+1] = uint8(over(uint32(n.G), a) >> 8)
			out.Pix[o+2] = uint8(over(uint32(n.B), a) >> 8)
			out.Pix[o+3] = 0xff
		}
	}
	return out
}
