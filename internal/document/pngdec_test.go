package document

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"

	"blueprint/internal/document/documenttest"
)

// rawPNG writes a PNG of any colour type, depth and interlacing with
// random samples and a random filter on every row: what image/png's
// encoder cannot produce (low-depth gray, interlacing, tRNS keys).
func rawPNG(r *rand.Rand, w, h, depth, colorType int, interlaced bool, trns, plte []byte) []byte {
	hd := pngHeader{width: w, height: h, depth: depth, colorType: colorType}
	bitsPP := depth * hd.channels()
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
			if colorType == pngPaletted && len(plte) > 0 && r.IntN(2) == 0 {
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
	out := []byte(pngSignature)
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	il := byte(0)
	if interlaced {
		il = 1
	}
	ihdr = append(ihdr, byte(depth), byte(colorType), 0, 0, il)
	out = documenttest.PNGChunk(out, "IHDR", ihdr)
	if plte != nil {
		out = documenttest.PNGChunk(out, "PLTE", plte)
	}
	if trns != nil {
		out = documenttest.PNGChunk(out, "tRNS", trns)
	}
	// Split the data over two IDAT chunks.
	zb := z.Bytes()
	out = documenttest.PNGChunk(out, "IDAT", zb[:len(zb)/2])
	out = documenttest.PNGChunk(out, "IDAT", zb[len(zb)/2:])
	return documenttest.PNGChunk(out, "IEND", nil)
}

// overWhite8 is the reference of decodePNG: image/png's pixel with
// straight 16-bit alpha (from the decoded colour's own fields, so no
// premultiplication rounding), composited over white, top byte.
func overWhite8(c color.Color) [3]uint8 {
	var n color.NRGBA64
	switch v := c.(type) {
	case color.NRGBA:
		n = color.NRGBA64{uint16(v.R) * 257, uint16(v.G) * 257, uint16(v.B) * 257, uint16(v.A) * 257}
	case color.NRGBA64:
		n = v
	case color.Gray:
		n = color.NRGBA64{uint16(v.Y) * 257, uint16(v.Y) * 257, uint16(v.Y) * 257, 0xffff}
	case color.Gray16:
		n = color.NRGBA64{v.Y, v.Y, v.Y, 0xffff}
	default:
		n = color.NRGBA64Model.Convert(c).(color.NRGBA64)
	}
	a := uint32(n.A)
	return [3]uint8{uint8(over(uint32(n.R), a) >> 8), uint8(over(uint32(n.G), a) >> 8), uint8(over(uint32(n.B), a) >> 8)}
}

// samePixels compares decodePNG's page with image/png's decode of data.
func samePixels(t testing.TB, data []byte, got image.Image) {
	t.Helper()
	want, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("image/png: %v", err)
	}
	if got.Bounds() != want.Bounds() {
		t.Fatalf("bounds %v, want %v", got.Bounds(), want.Bounds())
	}
	b := want.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			w := overWhite8(want.At(x, y))
			var g [3]uint8
			switch img := got.(type) {
			case *image.Gray:
				v := img.GrayAt(x, y).Y
				g = [3]uint8{v, v, v}
				if w[0] != w[1] || w[1] != w[2] {
					t.Fatalf("gray page for a colour pixel %v at %d,%d", w, x, y)
				}
			case *image.RGBA:
				c := img.RGBAAt(x, y)
				if c.A != 0xff {
					t.Fatalf("alpha %d at %d,%d", c.A, x, y)
				}
				g = [3]uint8{c.R, c.G, c.B}
			default:
				t.Fatalf("page type %T", got)
			}
			if g != w {
				t.Fatalf("pixel %d,%d = %v, want %v", x, y, g, w)
			}
		}
	}
}

// TestDecodePNGMatchesImagePNG: every colour type and depth, interlaced or
// not, with and without transparency, decodes to image/png's pixels over
// white, as 8-bit gray or RGBA.
func TestDecodePNGMatchesImagePNG(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	type cfg struct {
		colorType int
		depths    []int
	}
	for _, c := range []cfg{
		{pngGray, []int{1, 2, 4, 8, 16}}, {pngRGB, []int{8, 16}}, {pngPaletted, []int{1, 2, 4, 8}},
		{pngGrayAlpha, []int{8, 16}}, {pngRGBA, []int{8, 16}},
	} {
		for _, d := range c.depths {
			for _, il := range []bool{false, true} {
				for _, withTRNS := range []bool{false, true} {
					name := fmt.Sprintf("type%d-%dbit-interlaced=%v-trns=%v", c.colorType, d, il, withTRNS)
					t.Run(name, func(t *testing.T) {
						var trns, plte []byte
						if c.colorType == pngPaletted {
							n := 1 << d
							if d == 8 {
								n = 200 // some indices past the palette
							}
							plte = make([]byte, 3*n)
							for i := range plte {
								plte[i] = byte(r.IntN(256))
							}
							if withTRNS {
								trns = make([]byte, n/2)
								for i := range trns {
									trns[i] = byte(r.IntN(256))
								}
							}
						} else if withTRNS && c.colorType == pngGray {
							trns = []byte{0, byte(r.IntN(1 << min(d, 8)))}
						} else if withTRNS && c.colorType == pngRGB {
							trns = []byte{0, 7, 0, 9, 0, 11}
						}
						if withTRNS && trns == nil {
							t.Skip("tRNS is not allowed with an alpha channel")
						}
						w, h := 1+r.IntN(37), 1+r.IntN(23)
						data := rawPNG(r, w, h, d, c.colorType, il, trns, plte)
						got, err := decodePNG(data)
						if err != nil {
							t.Fatal(err)
						}
						samePixels(t, data, got)
					})
				}
			}
		}
	}
}

// TestDecodePNGFromEncoder: files written by image/png's encoder (the
// common case: 8- and 16-bit, opaque and translucent) decode alike.
func TestDecodePNGFromEncoder(t *testing.T) {
	imgs := []image.Image{image.NewGray(image.Rect(0, 0, 9, 7)), image.NewGray16(image.Rect(0, 0, 9, 7)),
		image.NewNRGBA(image.Rect(0, 0, 9, 7)), image.NewNRGBA64(image.Rect(0, 0, 9, 7)), image.NewRGBA(image.Rect(0, 0, 9, 7))}
	r := rand.New(rand.NewPCG(3, 4))
	for _, img := range imgs {
		for y := range 7 {
			for x := range 9 {
				img.(interface{ Set(int, int, color.Color) }).Set(x, y, color.NRGBA64{uint16(r.Uint32()), uint16(r.Uint32()), uint16(r.Uint32()), uint16(r.Uint32())})
			}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		got, err := decodePNG(buf.Bytes())
		if err != nil {
			t.Fatalf("%T: %v", img, err)
		}
		samePixels(t, buf.Bytes(), got)
	}
}

// TestDecodePNGDamage: damage is an error, never a panic or a page.
func TestDecodePNGDamage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	data := rawPNG(r, 40, 30, 8, pngRGBA, false, nil, nil)
	for _, bad := range [][]byte{
		data[:len(data)/2],
		data[:40],
		append(bytes.Clone(data[:33]), documenttest.PNGChunk(nil, "IEND", nil)...),
		bytes.Replace(data, []byte("IDAT"), []byte("IDAx"), 1),
	} {
		if _, err := decodePNG(bad); err == nil {
			t.Errorf("damaged PNG of %d bytes decoded", len(bad))
		}
	}
}
