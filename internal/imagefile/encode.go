package imagefile

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	"image/png"
	"runtime"
	"sync"
)

// EncodePNG encodes a page raster as PNG, favouring speed over size (the
// page images of image_url are large and written once). An opaque
// *image.RGBA (every PDF page) is written as 8-bit RGB by encodeRGB, its
// rows compressed in parallel; any other image goes through image/png.
// Either way the file decodes to the raster's pixels.
func EncodePNG(img image.Image) ([]byte, error) {
	if rgba, ok := img.(*image.RGBA); ok && rgba.Opaque() && rgba.Rect.Dx() > 0 && rgba.Rect.Dy() > 0 {
		return encodeRGB(rgba, runtime.GOMAXPROCS(0)), nil
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// pngMinRows is the fewest rows a compressed part holds.
const pngMinRows = 64

// pngDict is the deflate window: how much of the previous part primes the
// next.
const pngDict = 32 << 10

// encodeRGB writes an opaque RGBA image as an 8-bit RGB PNG. Every row is
// filtered with Up (the difference to the row above: drawings are mostly
// blank and vertical runs, and it costs one subtraction a byte where
// image/png tries five filters a row), and the rows are deflated in parts
// pigz's way: each part on its own goroutine, primed with the 32 KiB of
// filtered rows before it and ended with a sync flush, so the parts form one
// zlib stream. A part holds one filtered row at a time, besides its output.
func encodeRGB(img *image.RGBA, parts int) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	parts = max(1, min(parts, h/pngMinRows))
	rowLen := 1 + 3*w
	type part struct {
		deflt bytes.Buffer
		sum   uint32
		n     int64
	}
	ps := make([]part, parts)
	var wg sync.WaitGroup
	for k := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			y0, y1 := k*h/parts, (k+1)*h/parts
			row := make([]byte, rowLen)
			var dict []byte
			if k > 0 {
				// The filtered rows just before y0, up to the window.
				from := max(0, y0-(pngDict+rowLen-1)/rowLen)
				dict = make([]byte, 0, (y0-from)*rowLen)
				for y := from; y < y0; y++ {
					filterUp(row, img, img.Rect.Min.Y+y)
					dict = append(dict, row...)
				}
				dict = dict[max(0, len(dict)-pngDict):]
			}
			zw, _ := flate.NewWriterDict(&ps[k].deflt, flate.BestSpeed, dict) // BestSpeed is a valid level
			sum := adler32.New()
			for y := y0; y < y1; y++ {
				filterUp(row, img, img.Rect.Min.Y+y)
				zw.Write(row) // writes to a bytes.Buffer do not fail
				sum.Write(row)
			}
			if k == len(ps)-1 {
				zw.Close()
			} else {
				zw.Flush()
			}
			ps[k].sum, ps[k].n = sum.Sum32(), int64(y1-y0)*int64(rowLen)
		}()
	}
	wg.Wait()
	sum := ps[0].sum
	size := 0
	for k := range ps {
		if k > 0 {
			sum = adler32Combine(sum, ps[k].sum, ps[k].n)
		}
		size += ps[k].deflt.Len()
	}
	var out bytes.Buffer
	out.Grow(size + 128)
	out.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits, RGB; deflate, adaptive filtering, no interlace
	writeChunk(&out, "IHDR", ihdr[:])
	writeChunk(&out, "IDAT", []byte{0x78, 0x01}) // zlib header: deflate, 32 KiB window, fastest
	for k := range ps {
		writeChunk(&out, "IDAT", ps[k].deflt.Bytes())
	}
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], sum)
	writeChunk(&out, "IDAT", tail[:])
	writeChunk(&out, "IEND", nil)
	return out.Bytes()
}

// filterUp writes row y of img as a PNG row: filter type Up, then each
// RGB byte minus the byte above it.
func filterUp(dst []byte, img *image.RGBA, y int) {
	dst[0] = 2
	row := img.Pix[(y-img.Rect.Min.Y)*img.Stride:]
	var above []byte
	if y > img.Rect.Min.Y {
		above = img.Pix[(y-1-img.Rect.Min.Y)*img.Stride:]
	}
	d := dst[1:]
	for x, j := 0, 0; j < len(d); x, j = x+4, j+3 {
		r, g, b := row[x], row[x+1], row[x+2]
		if above != nil {
			r, g, b = r-above[x], g-above[x+1], b-above[x+2]
		}
		d[j], d[j+1], d[j+2] = r, g, b
	}
}

func writeChunk(out *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	out.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	out.WriteString(typ)
	out.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	out.Write(n[:])
}

// adler32Combine is the Adler-32 of two byte strings one after the other,
// from their checksums and the second's length (zlib's adler32_combine).
func adler32Combine(a1, a2 uint32, len2 int64) uint32 {
	const base = 65521
	rem := uint32(len2 % base)
	sum1 := a1 & 0xffff
	sum2 := (rem * sum1) % base
	sum1 += (a2 & 0xffff) + base - 1
	sum2 += (a1 >> 16) + (a2 >> 16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= base<<1 {
		sum2 -= base << 1
	}
	if sum2 >= base {
		sum2 -= base
	}
	return sum2<<16 | sum1
}
