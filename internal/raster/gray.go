package raster

import (
	"image"
	"image/color"
)

// Blank-tile test: a page is seen as 4×4-pixel blocks (averaging cuts
// scan noise fourfold); a tile is blank when fewer than blankMinBlocks of
// its blocks are darker than its paper by blankContrast levels. Faint,
// blurred strokes of a symbol still leave dozens of such blocks.
const (
	blockSide      = 4
	blankContrast  = 24
	blankMinBlocks = 3
)

// gray is a page as 8-bit luma, with its 4×4 block means and paper level.
type gray struct {
	w, h   int
	pix    []uint8
	bw, bh int
	blocks []uint8
	paper  uint8
}

// luma converts an image to BT.601 luma (299 R + 587 G + 114 B) / 1000,
// composited on white, the conversion training/data.py applies to the
// generator's sheets.
func luma(img image.Image) *gray {
	g := lumaPixels(img)
	g.blockMeans()
	return g
}

// lumaPixels is luma without the block means.
func lumaPixels(img image.Image) *gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	g := &gray{w: w, h: h, pix: make([]uint8, w*h)}
	switch m := img.(type) {
	case *image.Gray:
		for y := 0; y < h; y++ {
			copy(g.pix[y*w:(y+1)*w], m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):])
		}
	case *image.YCbCr: // JPEG: Y is already BT.601 luma
		for y := 0; y < h; y++ {
			copy(g.pix[y*w:(y+1)*w], m.Y[m.YOffset(b.Min.X, b.Min.Y+y):])
		}
	case *image.RGBA:
		for y := 0; y < h; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			out := g.pix[y*w : (y+1)*w]
			for x := range out {
				p := row[4*x : 4*x+4 : 4*x+4]
				// premultiplied: add the white that shows through
				bg := 255 - int(p[3])
				out[x] = uint8((299*(int(p[0])+bg) + 587*(int(p[1])+bg) + 114*(int(p[2])+bg) + 500) / 1000)
			}
		}
	default:
		for y := 0; y < h; y++ {
			out := g.pix[y*w : (y+1)*w]
			for x := range out {
				c := color.RGBA64Model.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.RGBA64)
				bg := 0xffff - int(c.A)
				out[x] = uint8((299*(int(c.R)+bg) + 587*(int(c.G)+bg) + 114*(int(c.B)+bg) + 500*257) / (1000 * 257))
			}
		}
	}
	return g
}

// blockMeans fills the 4×4 block means and the page's paper level (the
// median block).
func (g *gray) blockMeans() {
	g.bw, g.bh = (g.w+blockSide-1)/blockSide, (g.h+blockSide-1)/blockSide
	sums := make([]uint32, g.bw*g.bh)
	counts := make([]uint32, g.bw*g.bh)
	for y := 0; y < g.h; y++ {
		row := g.pix[y*g.w : (y+1)*g.w]
		base := (y / blockSide) * g.bw
		for x, v := range row {
			sums[base+x/blockSide] += uint32(v)
			counts[base+x/blockSide]++
		}
	}
	g.blocks = make([]uint8, len(sums))
	var hist [256]int
	for i, s := range sums {
		g.blocks[i] = uint8(s / counts[i])
		hist[g.blocks[i]]++
	}
	g.paper = percentile(&hist, len(g.blocks), 0.5)
}

// percentile returns the value below which share of n counted values lie.
func percentile(hist *[256]int, n int, share float64) uint8 {
	want := int(share * float64(n))
	acc := 0
	for v, c := range hist {
		acc += c
		if acc > want {
			return uint8(v)
		}
	}
	return 255
}

// blank reports whether the tw×th tile at (x, y) holds no ink: its paper
// is its 75th-percentile block.
func (g *gray) blank(x, y, tw, th int) bool {
	bx0, by0 := max(x, 0)/blockSide, max(y, 0)/blockSide
	bx1, by1 := min((x+tw+blockSide-1)/blockSide, g.bw), min((y+th+blockSide-1)/blockSide, g.bh)
	var hist [256]int
	n := 0
	for by := by0; by < by1; by++ {
		for _, v := range g.blocks[by*g.bw+bx0 : by*g.bw+bx1] {
			hist[v]++
			n++
		}
	}
	if n == 0 {
		return true
	}
	paper := int(percentile(&hist, n, 0.75))
	dark := 0
	for v := 0; v < paper-blankContrast; v++ {
		dark += hist[v]
	}
	return dark < blankMinBlocks
}

// ink writes the network input of the tw×th tile at (x, y) into dst:
// (255 - luma) / 255, paper beyond the page's edges.
func (g *gray) ink(dst []float32, x, y, tw, th int) {
	var lut [256]float32
	for v := range lut {
		lut[v] = float32(255-v) / 255
	}
	pad := lut[g.paper]
	for j := 0; j < th; j++ {
		row := dst[j*tw : (j+1)*tw]
		py := y + j
		if py < 0 || py >= g.h {
			for i := range row {
				row[i] = pad
			}
			continue
		}
		src := g.pix[py*g.w : (py+1)*g.w]
		for i := range row {
			px := x + i
			if px < 0 || px >= g.w {
				row[i] = pad
				continue
			}
			row[i] = lut[src[px]]
		}
	}
}
