package raster

import (
	"math"

	"blueprint/internal/detect"
)

// A pair box spans two proposals that could be the two ends of a beam
// detector (two small boxes joined by a dashed line, their centres about
// four box sides apart), which the detector proposes one by one on sheets
// drawn at a large symbol scale, so that no window the classifier cuts
// holds the whole beam. training/classifier.py's pair_boxes, with the same
// numbers: both boxes nearly square (sides within pairSquare of each
// other), of similar size (longer sides within pairSize), in line (centres
// off the line by at most pairAcross of their mean size) and pairNear to
// pairFar mean sizes apart. A classifier trained with such boxes
// (classifier.py --pairs; ClassifierMeta.Pairs) names them beam detectors
// or background.
const (
	pairSquare = 1.6
	pairSize   = 1.5
	pairAcross = 0.3
	pairNear   = 3.0
	pairFar    = 5.5
)

// A pair box is proposed only where ink joins its two ends: at least
// pairInk of the points on the line between the two boxes have a pixel
// within pairBand pixels across it darker than the paper by pairContrast
// levels (a beam's dashed line inks about half of it). Training learns
// from every pair box; the service looks only at these.
const (
	pairInk      = 0.25
	pairBand     = 2
	pairContrast = 48
)

// pairBoxes returns the pair boxes of the proposals on page g.
func pairBoxes(g *gray, props []cand) []detect.Box {
	square := func(b detect.Box) bool { return b.W <= pairSquare*b.H && b.H <= pairSquare*b.W }
	var out []detect.Box
	for i, a := range props {
		if !square(a.box) {
			continue
		}
		sa := math.Max(a.box.W, a.box.H)
		for _, b := range props[i+1:] {
			sb := math.Max(b.box.W, b.box.H)
			if !square(b.box) || sb > pairSize*sa || sa > pairSize*sb {
				continue
			}
			size := (sa + sb) / 2
			ax, ay := a.box.X+a.box.W/2, a.box.Y+a.box.H/2
			bx, by := b.box.X+b.box.W/2, b.box.Y+b.box.H/2
			dx, dy := math.Abs(bx-ax), math.Abs(by-ay)
			along, across := math.Max(dx, dy), math.Min(dx, dy)
			if across > pairAcross*size || along < pairNear*size || along > pairFar*size {
				continue
			}
			if !g.joined(ax, ay, bx, by, size/2) {
				continue
			}
			x0, y0 := math.Min(a.box.X, b.box.X), math.Min(a.box.Y, b.box.Y)
			x1 := math.Max(a.box.X+a.box.W, b.box.X+b.box.W)
			y1 := math.Max(a.box.Y+a.box.H, b.box.Y+b.box.H)
			out = append(out, detect.Box{X: x0, Y: y0, W: x1 - x0, H: y1 - y0})
		}
	}
	return out
}

// joined reports whether ink joins the points (ax, ay) and (bx, by), which
// lie mostly along x or mostly along y, leaving out end pixels at each end
// (pairInk, pairBand, pairContrast).
func (g *gray) joined(ax, ay, bx, by, end float64) bool {
	horiz := math.Abs(bx-ax) >= math.Abs(by-ay)
	length := math.Hypot(bx-ax, by-ay)
	n, inked := 0, 0
	for t := end + 1; t < length-end-1; t++ {
		f := t / length
		x, y := int(ax+(bx-ax)*f), int(ay+(by-ay)*f)
		n++
		for o := -pairBand; o <= pairBand; o++ {
			px, py := x, y+o
			if !horiz {
				px, py = x+o, y
			}
			if px >= 0 && py >= 0 && px < g.w && py < g.h && int(g.pix[py*g.w+px])+pairContrast < int(g.paper) {
				inked++
				break
			}
		}
	}
	return n > 0 && float64(inked) >= pairInk*float64(n)
}
