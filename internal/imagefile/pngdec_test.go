package imagefile

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"

	"blueprint/internal/document/documenttest"
)

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
						data := documenttest.RawPNG(r, w, h, d, c.colorType, il, trns, plte)
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
	data := documenttest.RawPNG(r, 40, 30, 8, pngRGBA, false, nil, nil)
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
