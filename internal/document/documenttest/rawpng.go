package documenttest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math/rand/v2"
)

// PNG colour types (PNG specification, IHDR), for RawPNG.
const (
	PNGGray      = 0
	PNGRGB       = 2
	PNGPaletted  = 3
	PNGGrayAlpha = 4
	PNGRGBA      = 6
)

// RawPNG writes a PNG of any colour type, depth and interlacing with
// random samples and a random filter on every row: what image/png's
// encoder cannot produce (low-depth gray, interlacing, tRNS keys).
func RawPNG(r *rand.Rand, w, h, depth, colorType int, interlaced bool, trns, plte []byte) []byte {
	bitsPP := depth * channels(colorType)
	bpp := max(1, bitsPP/8)
	passes := [][4]int{{0, 0, 1, 1}}
	if interlaced {
		passes = [][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}
	}
	var raw bytes.Buffer
	for _, ps := range passes {
		pw := (w - ps[0] + ps[2] - 1) / ps[2]
		ph := (h - ps[1] + ps[3] - 1) / ps[3]
		if pw <= 0 || ph <= 0 {
			continue
		}
		rowLen := (bitsPP*pw + 7) / 8
		prev := make([]byte, rowLen)
		for range ph {
			row := make([]byte, rowLen)
			for i := range row {
				row[i] = byte(r.IntN(256))
				if r.IntN(3) == 0 && i > 0 {
					row[i] = row[i-1] // some runs, so filters matter
				}
			}
			if colorType == PNGPaletted && len(plte) > 0 && r.IntN(2) == 0 {
				// Mostly valid indices, a few past the palette.
				for i := range row {
					row[i] &= byte(0xff >> (8 - depth) * 0x01)
				}
			}
			ft := byte(r.IntN(5))
			filtered := make([]byte, rowLen)
			for i := range row {
				var left, upLeft byte
				if i >= bpp {
					left, upLeft = row[i-bpp], prev[i-bpp]
				}
				var pred byte
				switch ft {
				case 1:
					pred = left
				case 2:
					pred = prev[i]
				case 3:
					pred = byte((int(left) + int(prev[i])) / 2)
				case 4:
					pred = paeth(left, prev[i], upLeft)
				}
				filtered[i] = row[i] - pred
			}
			raw.WriteByte(ft)
			raw.Write(filtered)
			prev = row
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw.Bytes())
	zw.Close()
	out := []byte("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	il := byte(0)
	if interlaced {
		il = 1
	}
	ihdr = append(ihdr, byte(depth), byte(colorType), 0, 0, il)
	out = PNGChunk(out, "IHDR", ihdr)
	if plte != nil {
		out = PNGChunk(out, "PLTE", plte)
	}
	if trns != nil {
		out = PNGChunk(out, "tRNS", trns)
	}
	// Split the data over two IDAT chunks.
	zb := z.Bytes()
	out = PNGChunk(out, "IDAT", zb[:len(zb)/2])
	out = PNGChunk(out, "IDAT", zb[len(zb)/2:])
	return PNGChunk(out, "IEND", nil)
}

// channels is the number of samples of one pixel of a colour type.
func channels(colorType int) int {
	switch colorType {
	case PNGRGB:
		return 3
	case PNGGrayAlpha:
		return 2
	case PNGRGBA:
		return 4
	}
	return 1
}

// paeth is the PNG Paeth predictor.
func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := absInt(p-int(a)), absInt(p-int(b)), absInt(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
