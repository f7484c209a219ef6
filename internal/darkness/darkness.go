// Package darkness measures how dark each pixel of a page image is, for
// the readers of raster pages (internal/glyphsearch, internal/imagelegend):
// 0 for white paper, 255 for black or a fully saturated colour.
//
// A pixel's darkness is 255 minus its smallest colour channel, composited
// on white (Of), so that a saturated colour (a red or green symbol layer)
// reads as ink as black does. A JPEG keeps colour at half the resolution
// of brightness, so a one-pixel line in a pale colour (the light green
// hexagons and pink boxes that fire-alarm drawings draw their symbols in)
// loses about half its colour to the paper beside it and can fall under
// an ink threshold: Restored gives the colour back to the pixels darker
// than their paper.
package darkness

import (
	"image"
	"image/color"
)

// maxGain bounds how much of its neighbourhood's colour one pixel takes
// back: a one-pixel line in a 3×3 window holds a third of it.
const maxGain = 3

// paperReach: a pixel's paper is the brightest luma within this many
// pixels (a 5×5 window, so the middle of a stroke up to 4 pixels wide
// still sees paper); ring holds the rows that takes.
const (
	paperReach = 2
	ring       = 2*paperReach + 3
)

// Of returns the darkness of img's pixels in r (clipped to img's bounds),
// 255 minus the smallest channel composited on white, row after row,
// r.Dx() to a row.
func Of(img image.Image, r image.Rectangle) []uint8 {
	r = r.Intersect(img.Bounds())
	w, h := r.Dx(), r.Dy()
	out := make([]uint8, w*h)
	if w == 0 || h == 0 {
		return out
	}
	if gray(img, r, out) {
		return out
	}
	read := rowReader(img, r)
	lum, def := make([]uint8, w), make([]uint8, w)
	for y := 0; y < h; y++ {
		read(y, lum, def)
		o := out[y*w : (y+1)*w]
		for x := range o {
			o[x] = 255 - (lum[x] - def[x])
		}
	}
	return out
}

// gray fills out with the darkness of a gray image and reports whether
// img was one.
func gray(img image.Image, r image.Rectangle, out []uint8) bool {
	g, ok := img.(*image.Gray)
	if !ok {
		return false
	}
	w := r.Dx()
	for y := 0; y < r.Dy(); y++ {
		row := g.Pix[g.PixOffset(r.Min.X, r.Min.Y+y):]
		o := out[y*w : (y+1)*w]
		for x := range o {
			o[x] = 255 - row[x]
		}
	}
	return true
}

// Restored is Of with the colour that JPEG's subsampling smeared onto the
// paper given back to the line it came from.
//
// Each pixel's colour deficit (its brightness, Rec. 601 luma, minus its
// smallest channel) is taken as at least the 3×3 window's deficit shared
// out by how much darker than its paper (the brightest luma within
// paperReach) each pixel is, up to maxGain times the window's mean. On a
// lossless image that is the pixel's own deficit. A pixel is never
// lighter than Of makes it.
func Restored(img image.Image, r image.Rectangle) []uint8 {
	r = r.Intersect(img.Bounds())
	w, h := r.Dx(), r.Dy()
	out := make([]uint8, w*h)
	if w == 0 || h == 0 || gray(img, r, out) {
		return out
	}
	read := rowReader(img, r)
	// Rings of rows: luma and deficit of rows y-3..y+3, ink (paper minus
	// luma) of rows y-1..y+1.
	var lum, def [ring][]uint8
	var ink [3][]uint8
	for i := range lum {
		lum[i], def[i] = make([]uint8, w), make([]uint8, w)
	}
	for i := range ink {
		ink[i] = make([]uint8, w)
	}
	paper, col := make([]uint8, w), make([]uint8, w)
	loaded, inked := -1, -1
	load := func(y int) {
		for ; loaded < min(y, h-1); loaded++ {
			read(loaded+1, lum[(loaded+1)%ring], def[(loaded+1)%ring])
		}
	}
	// inkRow computes row k's ink: its paper (the brightest luma within
	// paperReach pixels) minus its luma.
	inkRow := func(k int) {
		load(k + paperReach)
		for x := range col {
			col[x] = 0
		}
		for j := max(0, k-paperReach); j <= min(h-1, k+paperReach); j++ {
			for x, v := range lum[j%ring] {
				col[x] = max(col[x], v)
			}
		}
		for x := range paper {
			v := col[x]
			for i := max(0, x-paperReach); i <= min(w-1, x+paperReach); i++ {
				v = max(v, col[i])
			}
			paper[x] = v
		}
		l, o := lum[k%ring], ink[k%3]
		for x := range o {
			o[x] = paper[x] - l[x]
		}
	}
	sumD := make([]int, w) // column sums of the window's rows
	sumI := make([]int, w)
	for y := 0; y < h; y++ {
		for ; inked < min(y+1, h-1); inked++ {
			inkRow(inked + 1)
		}
		for x := range sumD {
			sumD[x], sumI[x] = 0, 0
		}
		for j := max(0, y-1); j <= min(h-1, y+1); j++ {
			d, in := def[j%ring], ink[j%3]
			for x := range sumD {
				sumD[x] += int(d[x])
				sumI[x] += int(in[x])
			}
		}
		l, d, in := lum[y%ring], def[y%ring], ink[y%3]
		o := out[y*w : (y+1)*w]
		rows := min(h-1, y+1) - max(0, y-1) + 1 // the window's rows
		for x := range o {
			x0, x1 := max(0, x-1), min(w-1, x+1)
			sd, si, n := 0, 0, (x1-x0+1)*rows
			for k := x0; k <= x1; k++ {
				sd += sumD[k]
				si += sumI[k]
			}
			deficit := int(d[x])
			if si > 0 && sd > 0 {
				back := min(sd*int(in[x])/si, maxGain*sd/n, int(l[x]))
				deficit = max(deficit, back)
			}
			o[x] = uint8(255 - (int(l[x]) - deficit))
		}
	}
	return out
}

// rowReader returns a function that fills row y of r (0-based) with each
// pixel's luma and colour deficit (luma minus the smallest channel),
// composited on white.
func rowReader(img image.Image, r image.Rectangle) func(y int, lum, def []uint8) {
	read := rgbReader(img, r)
	rgb := make([]uint8, 3*r.Dx())
	return func(y int, lum, def []uint8) {
		read(y, rgb)
		for x := range lum {
			cr, cg, cb := int(rgb[3*x]), int(rgb[3*x+1]), int(rgb[3*x+2])
			m := min(cr, cg, cb)
			l := max(m, (299*cr+587*cg+114*cb+500)/1000)
			lum[x], def[x] = uint8(l), uint8(l-m)
		}
	}
}

// rgbReader returns a function that fills row y of r (0-based) with each
// pixel's red, green and blue, composited on white, three bytes a pixel.
func rgbReader(img image.Image, r image.Rectangle) func(y int, rgb []uint8) {
	switch m := img.(type) {
	case *image.RGBA:
		return func(y int, rgb []uint8) {
			row := m.Pix[m.PixOffset(r.Min.X, r.Min.Y+y):]
			for x := 0; x < r.Dx(); x++ {
				p := row[4*x : 4*x+4 : 4*x+4]
				bg := 255 - int(p[3]) // premultiplied: the white behind adds 255-a
				for k := 0; k < 3; k++ {
					rgb[3*x+k] = uint8(min(255, int(p[k])+bg))
				}
			}
		}
	case *image.NRGBA:
		return func(y int, rgb []uint8) {
			row := m.Pix[m.PixOffset(r.Min.X, r.Min.Y+y):]
			for x := 0; x < r.Dx(); x++ {
				p := row[4*x : 4*x+4 : 4*x+4]
				a := int(p[3])
				for k := 0; k < 3; k++ {
					rgb[3*x+k] = uint8((int(p[k])*a + 255*(255-a)) / 255)
				}
			}
		}
	case *image.YCbCr:
		return func(y int, rgb []uint8) {
			for x := 0; x < r.Dx(); x++ {
				yi := m.YOffset(r.Min.X+x, r.Min.Y+y)
				ci := m.COffset(r.Min.X+x, r.Min.Y+y)
				rgb[3*x], rgb[3*x+1], rgb[3*x+2] = color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
			}
		}
	}
	return func(y int, rgb []uint8) {
		for x := 0; x < r.Dx(); x++ {
			c := color.RGBA64Model.Convert(img.At(r.Min.X+x, r.Min.Y+y)).(color.RGBA64)
			bg := 0xffff - uint32(c.A)
			on := func(v uint16) uint8 { return uint8(min(0xffff, uint32(v)+bg) >> 8) }
			rgb[3*x], rgb[3*x+1], rgb[3*x+2] = on(c.R), on(c.G), on(c.B)
		}
	}
}
