package documenttest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
)

// PNG16 returns a w × h PNG of 16-bit RGBA samples (8 bytes a pixel once
// decoded at its depth): white paper with a black line every 500 rows and
// a red one every 500 columns, and a translucent blue band. It is written
// row by row, so a 12 200 × 12 200 file (about 1.2 MB, 1.19 GB decoded at
// 16 bits) never exists decoded here.
func PNG16(w, h int) []byte {
	const bpp = 8
	white := make([]byte, 1+w*bpp) // filter byte 0, then the samples
	for i := 1; i < len(white); i++ {
		white[i] = 0xff
	}
	line := make([]byte, 1+w*bpp) // a black row
	for x := range w {
		line[1+x*bpp+6], line[1+x*bpp+7] = 0xff, 0xff
	}
	band := bytes.Clone(white) // translucent blue
	for x := range w {
		p := band[1+x*bpp:]
		p[0], p[1], p[2], p[3], p[6], p[7] = 0, 0, 0, 0, 0x80, 0x00
	}
	for _, row := range [][]byte{white, band} {
		for x := 0; x < w; x += 500 { // red verticals
			p := row[1+x*bpp:]
			p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7] = 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff
		}
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.DefaultCompression) // a valid level never fails
	for y := range h {
		switch {
		case y%500 == 0:
			zw.Write(line)
		case y >= h/3 && y < h/3+200:
			zw.Write(band)
		default:
			zw.Write(white)
		}
	}
	zw.Close()
	out := []byte("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 16, 6, 0, 0, 0) // 16-bit RGBA, not interlaced
	out = PNGChunk(out, "IHDR", ihdr)
	out = PNGChunk(out, "IDAT", z.Bytes())
	return PNGChunk(out, "IEND", nil)
}

// PNGChunk appends a PNG chunk (length, type, body, CRC-32) to out.
func PNGChunk(out []byte, typ string, body []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	start := len(out)
	out = append(out, typ...)
	out = append(out, body...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}
