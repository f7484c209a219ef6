package imagefile

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"io"
)

// PNG colour types (PNG specification, IHDR).
const (
	pngGray      = 0
	pngRGB       = 2
	pngPaletted  = 3
	pngGrayAlpha = 4
	pngRGBA      = 6
)

// pngSignature starts every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// pngHeader is what a PNG's IHDR chunk says.
type pngHeader struct {
	width, height int
	depth         int // bits per sample
	colorType     int
	interlaced    bool
}

// channels is the number of samples of one pixel.
func (h pngHeader) channels() int {
	switch h.colorType {
	case pngRGB:
		return 3
	case pngGrayAlpha:
		return 2
	case pngRGBA:
		return 4
	}
	return 1
}

// gray reports whether the decoded page is 8-bit gray (gray, gray with
// alpha: over white it stays gray), not RGBA.
func (h pngHeader) gray() bool { return h.colorType == pngGray || h.colorType == pngGrayAlpha }

// decodedBytes is the size of the page decodePNG allocates: one byte a
// pixel for gray, four for colour. Row buffers and the inflater add a few
// hundred kilobytes at most.
func (h pngHeader) decodedBytes() int64 {
	per := int64(4)
	if h.gray() {
		per = 1
	}
	return int64(h.width) * int64(h.height) * per
}

// readPNGHeader reads the IHDR chunk that must follow the signature and
// checks the combination of depth and colour type.
func readPNGHeader(data []byte) (pngHeader, error) {
	if len(data) < 8+8+13+4 || string(data[:8]) != pngSignature || string(data[12:16]) != "IHDR" ||
		binary.BigEndian.Uint32(data[8:12]) != 13 {
		return pngHeader{}, errors.New("png: no IHDR chunk after the signature")
	}
	b := data[16:29]
	if crc32.ChecksumIEEE(data[12:29]) != binary.BigEndian.Uint32(data[29:33]) {
		return pngHeader{}, errors.New("png: IHDR checksum mismatch")
	}
	h := pngHeader{
		width:      int(binary.BigEndian.Uint32(b[0:4])),
		height:     int(binary.BigEndian.Uint32(b[4:8])),
		depth:      int(b[8]),
		colorType:  int(b[9]),
		interlaced: b[12] == 1,
	}
	if b[10] != 0 || b[11] != 0 || b[12] > 1 {
		return h, errors.New("png: unknown compression, filter or interlace method")
	}
	if h.width <= 0 || h.height <= 0 || h.width > 1<<30 || h.height > 1<<30 {
		return h, fmt.Errorf("png: bad dimensions %d × %d", h.width, h.height)
	}
	ok := false
	switch h.colorType {
	case pngGray:
		ok = h.depth == 1 || h.depth == 2 || h.depth == 4 || h.depth == 8 || h.depth == 16
	case pngPaletted:
		ok = h.depth == 1 || h.depth == 2 || h.depth == 4 || h.depth == 8
	case pngRGB, pngGrayAlpha, pngRGBA:
		ok = h.depth == 8 || h.depth == 16
	}
	if !ok {
		return h, fmt.Errorf("png: colour type %d with %d-bit samples is not valid", h.colorType, h.depth)
	}
	return h, nil
}

// checkPNGChunks walks the chunk structure after IHDR without inflating
// anything: every chunk must fit in the file with a correct checksum, at
// least one IDAT must come before IEND, and IEND must be there (a file cut
// short has none).
func checkPNGChunks(data []byte) error {
	p, idat := 33, false
	for {
		if p+12 > len(data) {
			return errors.New("png: the file ends before its IEND chunk (truncated)")
		}
		n := int64(binary.BigEndian.Uint32(data[p:]))
		if n > int64(len(data)-p-12) {
			return errors.New("png: a chunk runs past the end of the file (truncated)")
		}
		typ := string(data[p+4 : p+8])
		body := data[p+4 : p+8+int(n)]
		if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(data[p+8+int(n):]) {
			return fmt.Errorf("png: %q chunk checksum mismatch", typ)
		}
		switch typ {
		case "IDAT":
			idat = true
		case "IEND":
			if !idat {
				return errors.New("png: no IDAT chunk")
			}
			return nil
		}
		p += 12 + int(n)
	}
}

// idatReader yields the data of consecutive IDAT chunks, checking each
// chunk's checksum; other chunks between them end the image data.
type idatReader struct {
	data []byte
	p    int    // next chunk
	cur  []byte // rest of the current IDAT's data
	done bool
}

func (r *idatReader) Read(b []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.done || r.p+12 > len(r.data) {
			return 0, io.ErrUnexpectedEOF
		}
		n := int(binary.BigEndian.Uint32(r.data[r.p:]))
		if n < 0 || n > len(r.data)-r.p-12 {
			return 0, io.ErrUnexpectedEOF
		}
		if string(r.data[r.p+4:r.p+8]) != "IDAT" {
			r.done = true
			return 0, io.EOF
		}
		if crc32.ChecksumIEEE(r.data[r.p+4:r.p+8+n]) != binary.BigEndian.Uint32(r.data[r.p+8+n:]) {
			return 0, errors.New("png: IDAT checksum mismatch")
		}
		r.cur = r.data[r.p+8 : r.p+8+n]
		r.p += 12 + n
	}
	k := copy(b, r.cur)
	r.cur = r.cur[k:]
	return k, nil
}

// pngColors is the palette and transparency of a PNG, read before IDAT.
type pngColors struct {
	palette [][4]uint16 // paletted: RGBA (straight alpha), 16-bit scale
	key     [3]uint16   // gray or RGB tRNS: the transparent sample values
	hasKey  bool
}

// decodePNG decodes a PNG straight into the 8-bit page the pipeline uses,
// row by row, without a full-size copy at the file's depth: an *image.Gray
// for gray types, an *image.RGBA for colour types, transparency flattened
// over white (a drawing's paper), 16-bit samples rounded down to 8 bits
// (the top byte, as image/png's colour conversion does). Memory is the
// page plus two rows and the inflater. The result equals image/png's
// decode composited over white; errors wrap the reason.
func decodePNG(data []byte) (image.Image, error) {
	h, err := readPNGHeader(data)
	if err != nil {
		return nil, err
	}
	var col pngColors
	p := 33
	for { // ancillary chunks up to the first IDAT
		if p+12 > len(data) {
			return nil, errors.New("png: no IDAT chunk")
		}
		n := int(binary.BigEndian.Uint32(data[p:]))
		if n < 0 || n > len(data)-p-12 {
			return nil, errors.New("png: a chunk runs past the end of the file")
		}
		typ, body := string(data[p+4:p+8]), data[p+8:p+8+n]
		if typ == "IDAT" {
			break
		}
		if crc32.ChecksumIEEE(data[p+4:p+8+n]) != binary.BigEndian.Uint32(data[p+8+n:]) {
			return nil, fmt.Errorf("png: %q chunk checksum mismatch", typ)
		}
		switch typ {
		case "PLTE":
			if n%3 != 0 || n == 0 || n > 256*3 {
				return nil, errors.New("png: bad PLTE length")
			}
			if h.colorType == pngPaletted {
				col.palette = make([][4]uint16, n/3)
				for i := range col.palette {
					col.palette[i] = [4]uint16{uint16(body[3*i]) * 257, uint16(body[3*i+1]) * 257, uint16(body[3*i+2]) * 257, 0xffff}
				}
			}
		case "tRNS":
			if err := col.transparency(h, body); err != nil {
				return nil, err
			}
		case "IEND":
			return nil, errors.New("png: no IDAT chunk")
		}
		p += 12 + n
	}
	if h.colorType == pngPaletted && col.palette == nil {
		return nil, errors.New("png: paletted image without PLTE")
	}
	var gray *image.Gray
	var rgba *image.RGBA
	if h.gray() {
		gray = image.NewGray(image.Rect(0, 0, h.width, h.height))
	} else {
		rgba = image.NewRGBA(image.Rect(0, 0, h.width, h.height))
	}
	zr, err := zlib.NewReader(bufio.NewReader(&idatReader{data: data, p: p}))
	if err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	defer zr.Close()
	bitsPP := h.depth * h.channels()
	bpp := max(1, bitsPP/8) // bytes per complete pixel, for the filters
	// Adam7 passes: start x, start y, step x, step y.
	passes := [][4]int{{0, 0, 1, 1}}
	if h.interlaced {
		passes = [][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}
	}
	maxRow := (bitsPP*h.width + 7) / 8
	cur, prev := make([]byte, 1+maxRow), make([]byte, 1+maxRow)
	for _, ps := range passes {
		pw := (h.width - ps[0] + ps[2] - 1) / ps[2]
		ph := (h.height - ps[1] + ps[3] - 1) / ps[3]
		if pw <= 0 || ph <= 0 {
			continue
		}
		rowLen := (bitsPP*pw + 7) / 8
		clear(prev)
		for j := range ph {
			row := cur[:1+rowLen]
			if _, err := io.ReadFull(zr, row); err != nil {
				return nil, fmt.Errorf("png: image data: %w", err)
			}
			if err := UnfilterRow(row[0], row[1:], prev[1:1+rowLen], bpp); err != nil {
				return nil, err
			}
			y := ps[1] + j*ps[3]
			if gray != nil {
				out := gray.Pix[y*gray.Stride:]
				if !col.grayRow(h, row[1:], pw, out[ps[0]:], ps[2]) {
					for i := range pw {
						out[ps[0]+i*ps[2]] = uint8(col.sample(h, row[1:], i)[0] >> 8)
					}
				}
			} else {
				out := rgba.Pix[y*rgba.Stride:]
				if !col.rgbaRow(h, row[1:], pw, out[4*ps[0]:], 4*ps[2]) {
					for i := range pw {
						c := col.sample(h, row[1:], i)
						o := 4 * (ps[0] + i*ps[2])
						out[o], out[o+1], out[o+2], out[o+3] = uint8(c[0]>>8), uint8(c[1]>>8), uint8(c[2]>>8), 0xff
					}
				}
			}
			cur, prev = prev, cur
		}
	}
	if gray != nil {
		return gray, nil
	}
	return rgba, nil
}

// grayRow converts an unfiltered row of pw pixels of the common gray
// layouts (8- or 16-bit gray without a tRNS key, gray with alpha) into
// out[0], out[step], …, and reports false for the others, which take the
// general path (sample).
func (col *pngColors) grayRow(h pngHeader, row []byte, pw int, out []byte, step int) bool {
	switch {
	case h.colorType == pngGray && h.depth == 8 && !col.hasKey:
		for i := range pw {
			out[i*step] = row[i]
		}
	case h.colorType == pngGray && h.depth == 16 && !col.hasKey:
		for i := range pw {
			out[i*step] = row[2*i]
		}
	case h.colorType == pngGrayAlpha && h.depth == 8:
		for i := range pw {
			out[i*step] = uint8(over(uint32(row[2*i])*257, uint32(row[2*i+1])*257) >> 8)
		}
	case h.colorType == pngGrayAlpha && h.depth == 16:
		for i := range pw {
			o := 4 * i
			out[i*step] = uint8(over(uint32(row[o])<<8|uint32(row[o+1]), uint32(row[o+2])<<8|uint32(row[o+3])) >> 8)
		}
	default:
		return false
	}
	return true
}

// rgbaRow converts an unfiltered row of pw pixels of the common colour
// layouts (8- or 16-bit RGB without a tRNS key, RGBA) into opaque RGBA at
// out[0:4], out[step:step+4], …, and reports false for the others.
func (col *pngColors) rgbaRow(h pngHeader, row []byte, pw int, out []byte, step int) bool {
	switch {
	case h.colorType == pngRGB && h.depth == 8 && !col.hasKey:
		for i := range pw {
			o, s := i*step, row[3*i:3*i+3]
			out[o], out[o+1], out[o+2], out[o+3] = s[0], s[1], s[2], 0xff
		}
	case h.colorType == pngRGB && h.depth == 16 && !col.hasKey:
		for i := range pw {
			o, s := i*step, row[6*i:6*i+6]
			out[o], out[o+1], out[o+2], out[o+3] = s[0], s[2], s[4], 0xff
		}
	case h.colorType == pngRGBA && h.depth == 8:
		for i := range pw {
			o, s := i*step, row[4*i:4*i+4]
			if s[3] == 0xff {
				out[o], out[o+1], out[o+2], out[o+3] = s[0], s[1], s[2], 0xff
				continue
			}
			a := uint32(s[3]) * 257
			out[o] = uint8(over(uint32(s[0])*257, a) >> 8)
			out[o+1] = uint8(over(uint32(s[1])*257, a) >> 8)
			out[o+2] = uint8(over(uint32(s[2])*257, a) >> 8)
			out[o+3] = 0xff
		}
	case h.colorType == pngRGBA && h.depth == 16:
		for i := range pw {
			o, s := i*step, row[8*i:8*i+8]
			if s[6] == 0xff && s[7] == 0xff {
				out[o], out[o+1], out[o+2], out[o+3] = s[0], s[2], s[4], 0xff
				continue
			}
			a := uint32(s[6])<<8 | uint32(s[7])
			out[o] = uint8(over(uint32(s[0])<<8|uint32(s[1]), a) >> 8)
			out[o+1] = uint8(over(uint32(s[2])<<8|uint32(s[3]), a) >> 8)
			out[o+2] = uint8(over(uint32(s[4])<<8|uint32(s[5]), a) >> 8)
			out[o+3] = 0xff
		}
	default:
		return false
	}
	return true
}

// transparency reads a tRNS chunk.
func (col *pngColors) transparency(h pngHeader, body []byte) error {
	switch h.colorType {
	case pngPaletted:
		if len(body) > len(col.palette) {
			return errors.New("png: tRNS longer than the palette")
		}
		for i, a := range body {
			col.palette[i][3] = uint16(a) * 257
		}
	case pngGray:
		if len(body) < 2 {
			return errors.New("png: short tRNS")
		}
		col.key[0], col.hasKey = binary.BigEndian.Uint16(body), true
	case pngRGB:
		if len(body) < 6 {
			return errors.New("png: short tRNS")
		}
		for k := range 3 {
			col.key[k] = binary.BigEndian.Uint16(body[2*k:])
		}
		col.hasKey = true
	}
	return nil
}

// sample returns pixel i of an unfiltered row as 16-bit R, G, B composited
// over white (gray types: R only).
func (col *pngColors) sample(h pngHeader, row []byte, i int) [3]uint32 {
	raw := func(k int) uint32 { // sample k of pixel i at the file's depth
		switch h.depth {
		case 16:
			o := 2 * (i*h.channels() + k)
			return uint32(row[o])<<8 | uint32(row[o+1])
		case 8:
			return uint32(row[i*h.channels()+k])
		}
		bit := (i*h.channels() + k) * h.depth
		return uint32(row[bit/8]>>(8-h.depth-bit%8)) & (1<<h.depth - 1)
	}
	scale := func(v uint32) uint32 { return v * 0xffff / (1<<h.depth - 1) } // to 16 bits
	switch h.colorType {
	case pngGray:
		v := raw(0)
		if col.hasKey && v == uint32(col.key[0])&(1<<h.depth-1) {
			return [3]uint32{0xffff}
		}
		return [3]uint32{scale(v)}
	case pngGrayAlpha:
		return [3]uint32{over(scale(raw(0)), scale(raw(1)))}
	case pngRGB:
		r, g, b := raw(0), raw(1), raw(2)
		if col.hasKey && r == uint32(col.key[0]) && g == uint32(col.key[1]) && b == uint32(col.key[2]) {
			return [3]uint32{0xffff, 0xffff, 0xffff}
		}
		return [3]uint32{scale(r), scale(g), scale(b)}
	case pngRGBA:
		a := scale(raw(3))
		return [3]uint32{over(scale(raw(0)), a), over(scale(raw(1)), a), over(scale(raw(2)), a)}
	}
	idx := int(raw(0))
	c := [4]uint16{0, 0, 0, 0xffff} // an index past the palette is opaque black, as in image/png
	if idx < len(col.palette) {
		c = col.palette[idx]
	}
	a := uint32(c[3])
	return [3]uint32{over(uint32(c[0]), a), over(uint32(c[1]), a), over(uint32(c[2]), a)}
}

// over composites a 16-bit sample c of straight alpha a over white.
func over(c, a uint32) uint32 {
	switch a {
	case 0xffff:
		return c
	case 0:
		return 0xffff
	}
	return (c*a + 0xffff*(0xffff-a)) / 0xffff
}

// UnfilterRow undoes a PNG row filter (PNG specification, section 9;
// PDF's PNG predictors are the same) in place: cur is the row without its
// filter byte ft, prev the unfiltered previous row (zeros for the first
// row of a pass), bpp the bytes a pixel (at least 1).
func UnfilterRow(ft byte, cur, prev []byte, bpp int) error {
	switch ft {
	case 0:
	case 1:
		for i := bpp; i < len(cur); i++ {
			cur[i] += cur[i-bpp]
		}
	case 2:
		for i := range cur {
			cur[i] += prev[i]
		}
	case 3:
		for i := range cur {
			var left byte
			if i >= bpp {
				left = cur[i-bpp]
			}
			cur[i] += byte((int(left) + int(prev[i])) / 2)
		}
	case 4:
		for i := range cur {
			var left, upLeft byte
			if i >= bpp {
				left, upLeft = cur[i-bpp], prev[i-bpp]
			}
			cur[i] += paeth(left, prev[i], upLeft)
		}
	default:
		return fmt.Errorf("png: bad filter type %d", ft)
	}
	return nil
}

// paeth is the PNG Paeth predictor.
func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
