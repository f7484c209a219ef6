// Package imagefile reads the image files uploads come as (PNG, JPEG,
// WebP) and writes page rasters as PNG: what a file's header says (its
// size, and the memory decoding it holds) without decoding a pixel, the
// decoded 8-bit page, and a fast PNG encoder for page images. It knows
// nothing of upload limits or refusals: package document applies those.
package imagefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"

	"golang.org/x/image/webp"
)

// Format is an image file format this package reads.
type Format int

// The formats read.
const (
	PNG Format = iota + 1
	JPEG
	WebP
)

// String names the format.
func (f Format) String() string {
	switch f {
	case PNG:
		return "PNG"
	case JPEG:
		return "JPEG"
	case WebP:
		return "WebP"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// PageBytesPerPixel is what one pixel of the largest page may cost in
// memory: the 4 bytes of the 8-bit RGBA raster a PDF page is rendered to.
// An image upload is allowed this many bytes a pixel of its page size for
// everything its decoding holds at once (Header.DecodeBytes).
const PageBytesPerPixel = 4

// Header is what an image's header says, read without decoding any pixel.
type Header struct {
	Width, Height int
	// DecodeBytes is the most memory Decode holds at once for this
	// image: the 8-bit page plus whatever the format's decoder keeps
	// beside it (JPEG progressive coefficients, WebP lossless work
	// buffers, a conversion to RGBA).
	DecodeBytes int64
	// Damage is structural damage found after the dimensions were read
	// (a *TruncatedError), for the caller to report after the size
	// limits.
	Damage error
}

// TruncatedError says a file was cut short (or its structure runs past
// its end): Message says where, for the uploader.
type TruncatedError struct{ Message string }

func (e *TruncatedError) Error() string { return e.Message }

func truncated(format string, args ...any) *TruncatedError {
	return &TruncatedError{Message: fmt.Sprintf(format, args...)}
}

// ReadHeader reads an image's dimensions and what decoding it costs from
// its header, and checks the structure that can be checked without
// decoding: a PNG's chunks up to IEND, a JPEG's segments up to its first
// scan, a WebP's RIFF length. A header that cannot be read is an error (a
// *TruncatedError where the file ends before its frame header); damage
// found once the dimensions are known is left in Header.Damage, so that
// size limits can be reported first. A header of no pixels is an error.
func ReadHeader(data []byte, f Format) (Header, error) {
	var (
		h   Header
		err error
	)
	switch f {
	case PNG:
		h, err = pngImageHeader(data)
	case JPEG:
		h, err = jpegImageHeader(data)
	case WebP:
		h, err = webpImageHeader(data)
	default:
		return h, fmt.Errorf("imagefile: %v is not a format read", f)
	}
	if err != nil {
		return h, err
	}
	if h.Width <= 0 || h.Height <= 0 {
		return h, fmt.Errorf("the image has no pixels (%d × %d)", h.Width, h.Height)
	}
	return h, nil
}

func pngImageHeader(data []byte) (Header, error) {
	ph, err := readPNGHeader(data)
	if err != nil {
		return Header{}, err
	}
	h := Header{Width: ph.width, Height: ph.height, DecodeBytes: ph.decodedBytes()}
	if err := checkPNGChunks(data); err != nil {
		h.Damage = truncated("the PNG file is damaged or cut short (%v); upload the complete file", err)
	}
	return h, nil
}

// jpegComponent is one colour component of a JPEG frame.
type jpegComponent struct{ h, v int }

// jpegImageHeader walks a JPEG's marker segments from SOI to the first
// start of scan (SOS), reading the frame header (SOFn) on the way. Every
// segment must lie inside the file; a file cut inside its entropy-coded
// data is found only when it is decoded.
func jpegImageHeader(data []byte) (Header, error) {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return Header{}, errors.New("jpeg: no SOI marker")
	}
	var (
		h           Header
		comps       []jpegComponent
		progressive bool
	)
	// Cut short after the frame header: the size is known, the file is damaged.
	cut := func(what string) (Header, error) {
		e := truncated("the JPEG file ends %s; upload the complete file", what)
		if comps == nil {
			return h, e
		}
		h.DecodeBytes = jpegDecodeBytes(h.Width, h.Height, comps, progressive)
		h.Damage = e
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
			h.DecodeBytes = jpegDecodeBytes(h.Width, h.Height, comps, progressive)
			return h, nil
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC && comps == nil:
			if len(seg) < 6 {
				return h, errors.New("jpeg: short frame header")
			}
			h.Height = int(binary.BigEndian.Uint16(seg[1:]))
			h.Width = int(binary.BigEndian.Uint16(seg[3:]))
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
func webpImageHeader(data []byte) (Header, error) {
	if len(data) < 12 {
		return Header{}, errors.New("webp: no RIFF header")
	}
	cfg, err := webp.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Header{}, err
	}
	var damage error
	if size := int64(binary.LittleEndian.Uint32(data[4:8])) + 8; size > int64(len(data)) {
		damage = truncated("the WebP file is %d bytes, its header says %d: it was cut short; upload the complete file", len(data), size)
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
	return Header{Width: cfg.Width, Height: cfg.Height, DecodeBytes: int64(float64(px) * per), Damage: damage}, nil
}

// Decode decodes an image into the 8-bit page the pipeline reads: PNGs
// row by row into *image.Gray or *image.RGBA (decodePNG); JPEGs into
// image/jpeg's *image.Gray or *image.YCbCr as they are (CMYK converted to
// RGBA); WebPs into *image.YCbCr, or *image.RGBA when they have alpha.
// Transparency is flattened over white. It checks no limit: callers read
// the Header first and refuse what they will not hold.
func Decode(data []byte, f Format) (image.Image, error) {
	var (
		img image.Image
		err error
	)
	switch f {
	case PNG:
		img, err = decodePNG(data)
	case JPEG:
		img, err = jpeg.Decode(bytes.NewReader(data))
	case WebP:
		img, err = webp.Decode(bytes.NewReader(data))
	default:
		return nil, fmt.Errorf("imagefile: %v is not a format read", f)
	}
	if err != nil {
		return nil, err
	}
	return toPage(img), nil
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
