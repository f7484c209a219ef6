package raster

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"

	ort "github.com/yalue/onnxruntime_go"

	"blueprint/internal/detect"
)

// classifyBatch is the number of crops per classifier run.
const classifyBatch = 64

// classify names each proposal with the classifier, drops those it takes
// for background or scores below its threshold, and replaces each box with
// the classifier's refinement (classifierPasses).
func (d *Detector) classify(ctx context.Context, g *gray, props []cand) ([]cand, error) {
	boxes := make([]detect.Box, len(props))
	for i, p := range props {
		boxes[i] = p.box
	}
	cm := d.meta.Classifier
	crop := func(w window, dst []float32) { g.resample(dst, w, cm.Input.Size) }
	named, err := d.name(ctx, boxes, proposalPasses, cm.refineViews(), cm.views(), false, crop, g.w, g.h)
	if err != nil {
		return nil, err
	}
	return d.lookLong(ctx, named, crop, g.w, g.h)
}

// longLookContext is the window of the long look (lookLong), as a multiple
// of the named box's longer side: wide enough to hold a long symbol whose
// box was cut to half its length. Measured with the long look on the five
// catalog classes whose glyphs are 3 or more times as long as wide, the
// committed classifier and calibration, on seeds 2611253 and 26112602:
// recall 0.9241 and 0.9450 at 2.5, 0.9245 and 0.9450 at 3.0, 0.9233 and
// 0.9450 at 3.5 (0.9225 and 0.9433 without it).
const longLookContext = 3.0

// lookLong looks once more, in a window longLookContext times the longer
// side of its box, at each named window of a class in the classifier's
// LongLook list, and where the classifier names the same class there,
// takes the length of the symbol along the box's longer side from that
// look and keeps the width across it. A long symbol the proposal cut to
// half its length (beam detectors: two boxes joined by a dashed line) fits
// in no window the refining passes cut, so the classifier names it but
// boxes the part it sees; the wider window shows both ends, at too coarse
// a scale to place the thin sides as well as the narrow window did. Class
// and score stay those of the passes: the long look only moves the box.
func (d *Detector) lookLong(ctx context.Context, named []cand, crop func(w window, dst []float32), pw, ph int) ([]cand, error) {
	if len(d.longLook) == 0 {
		return named, nil
	}
	cm := d.meta.Classifier
	var idx []int
	var boxes []detect.Box
	for i, c := range named {
		if d.longLook[c.class] {
			idx = append(idx, i)
			boxes = append(boxes, c.box)
		}
	}
	for start := 0; start < len(boxes); start += classifyBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+classifyBatch, len(boxes))
		looks, err := d.look(boxes[start:end], cm.views(), longLookContext, crop, pw, ph)
		if err != nil {
			return nil, fmt.Errorf("classifier long look: %w", err)
		}
		for k, l := range looks {
			c := &named[idx[start+k]]
			if l.class != c.class || l.box.W <= 0 || l.box.H <= 0 {
				continue
			}
			if c.box.W >= c.box.H {
				c.box.X, c.box.W = l.box.X, l.box.W
			} else {
				c.box.Y, c.box.H = l.box.Y, l.box.H
			}
		}
	}
	return named, nil
}

// Verify is the second opinion on a rendered PDF page whose symbols the
// vector matcher found: rather than search the page, the classifier looks
// at each given box (a vector match) and says what it sees there. It
// returns one detection per box it takes for a symbol (class, calibrated
// confidence, refined box, source.detector), none for those it takes for
// background. Only the pixels around the boxes are read, each box in one
// view (the boxes are exact; the views are for proposals). Without a
// classifier it returns nil.
func (d *Detector) Verify(ctx context.Context, p detect.Page, boxes []detect.Box) ([]detect.Detection, error) {
	cm := d.meta.Classifier
	if cm == nil || len(boxes) == 0 {
		return nil, nil
	}
	if p.Raster == nil {
		return nil, fmt.Errorf("raster: page %d has no raster", p.Index)
	}
	b := p.Raster.Bounds()
	named, err := d.name(ctx, boxes, 1, 1, 1, true, func(w window, dst []float32) {
		g, local := windowGray(p.Raster, w)
		g.resample(dst, local, cm.Input.Size)
	}, b.Dx(), b.Dy())
	if err != nil {
		return nil, fmt.Errorf("raster: page %d: %w", p.Index, err)
	}
	return d.detections(named, b.Dx(), b.Dy()), nil
}

// proposalPasses is how often a proposal is classified: the second look
// is cut around the first look's refined box, so a symbol the proposal cut
// short or off-centre is seen whole and centred, as in training. Measured
// on the raster development set (seed 31337): symbols named with their
// class and a box at IoU >= 0.5 rose from 5060 to 5093 of 5371 with a
// second pass, and to 5095 with a third (the 8000-step classifier). A
// vector match's box is exact already: Verify looks once (with that
// classifier a second look there named 164 of the 172 fixture symbols
// right instead of 168).
const proposalPasses = 2

// A window a pass before the last names with at least settleScore, and
// whose refined box overlaps the box it was cut around by at least
// settleIoU, is settled: the next pass would cut nearly the same window
// and name it the same, so it keeps this pass's class, score and box and
// is not looked at again. Most proposals are such symbols. Measured with
// two refining views on seed 61125 (make bench-raster): detection 2.01 ->
// 1.77 s a page (3.56 -> 3.14 CPU-seconds); on seeds 112511 and 2611251
// (make eval) precision -0.0013 and +0.0002, recall -0.0002 and 0, mAP50
// -0.001 and -0.0005. Looser (0.9 and 0.7) cost seed 112511 0.008 of
// mAP50; stricter (0.98 and 0.85) settled too few to save time.
const (
	settleScore = 0.95
	settleIoU   = 0.8
)

// name classifies the page windows around boxes (crop fills one crop's
// ink) in the given number of passes, each cut around the boxes the last
// refined, each crop seen in refineViews views in the passes before the
// last and in views views in the last, and returns those it takes for
// symbols, each with the class and box of the last pass that looked at it
// (a window settled early is not looked at again: settleScore), clipped
// to the pw×ph page. A window whose best class scores under the
// classifier's threshold is dropped; so is one whose background
// probability beats its best class, where veto is true.
//
// Proposals are named without the background veto: a window the
// classifier finds more likely background than its best class keeps that
// class at its low probability, which the calibration turns into a low
// confidence (mostly under the default thresholds), instead of being lost
// to a reader with a lower confidence floor and to the ranking. Measured
// with the box corrections and each rule's own calibration on 60 sheets
// (seed 777001), on raster sets of seeds 61125 and 4242027: mAP50 up 0.6
// and 0.5 points, recall at the default thresholds the same and up 0.2
// points, precision down 0.3 points. Verify keeps the veto: there the
// classifier's answer is whether it agrees with a vector match.
func (d *Detector) name(ctx context.Context, boxes []detect.Box, passes, refineViews, views int, veto bool, crop func(w window, dst []float32), pw, ph int) ([]cand, error) {
	var out, settled []cand
	for pass := range passes {
		out = out[:0:0]
		pv := refineViews
		if pass == passes-1 {
			pv = views
		}
		for start := 0; start < len(boxes); start += classifyBatch {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			got, err := d.nameBatch(boxes[start:min(start+classifyBatch, len(boxes))], pv, veto, crop, pw, ph)
			if err != nil {
				return nil, fmt.Errorf("classifier pass %d: %w", pass+1, err)
			}
			out = append(out, got...)
		}
		if pass == passes-1 {
			break
		}
		boxes = boxes[:0:0]
		for _, c := range out {
			if c.score >= settleScore && c.box.IoU(c.from) >= settleIoU {
				settled = append(settled, c)
				continue
			}
			boxes = append(boxes, c.box)
		}
	}
	return append(out, settled...), nil
}

// nameBatch runs the classifier once over the windows of up to
// classifyBatch boxes (look) and returns those it takes for symbols: a
// window whose best class scores under the classifier's threshold is
// dropped, and so is one whose background probability beats its best
// class, where veto is true (name's).
func (d *Detector) nameBatch(boxes []detect.Box, views int, veto bool, crop func(w window, dst []float32), pw, ph int) ([]cand, error) {
	cm := d.meta.Classifier
	looks, err := d.look(boxes, views, cm.Context, crop, pw, ph)
	if err != nil {
		return nil, err
	}
	var out []cand
	for _, l := range looks {
		if l.score < cm.ScoreThreshold || (veto && l.background > l.score) || l.box.W <= 0 || l.box.H <= 0 {
			continue
		}
		out = append(out, l.cand)
	}
	return out, nil
}

// lookResult is the classifier's answer for one window: its best class
// (never background), that class's probability as the score, the box,
// clipped to the page (empty when nothing of it lies on the page), and
// the background probability.
type lookResult struct {
	cand
	background float64
}

// look runs the classifier once over the windows of up to classifyBatch
// boxes, each span times its box's longer side and seen in views views
// (views.go): their class probabilities and boxes are averaged. It
// returns one result per box, in order.
func (d *Detector) look(boxes []detect.Box, views int, span float64, crop func(w window, dst []float32), pw, ph int) ([]lookResult, error) {
	cm := d.meta.Classifier
	n := cm.Input.Size
	m := len(boxes)
	in := make([]float32, m*views*n*n)
	wins := make([]window, m)
	for k, b := range boxes {
		wins[k] = cropWindow(b, span)
		first := in[k*views*n*n : (k*views+1)*n*n]
		crop(wins[k], first)
		for v := 1; v < views; v++ {
			viewOrder[v].view(in[(k*views+v)*n*n:(k*views+v+1)*n*n], first, n)
		}
	}
	prob, box, err := d.runClassifier(in, m*views, n)
	if err != nil {
		return nil, err
	}
	k1 := cm.Background + 1
	row := make([]float32, k1)
	out := make([]lookResult, m)
	for k := range m {
		clear(row)
		var edges [4]float64
		for v := range views {
			at := k*views + v
			for c, p := range prob[at*k1 : (at+1)*k1] {
				row[c] += p / float32(views)
			}
			e := viewOrder[v].unview(box[4*at : 4*at+4])
			for i := range edges {
				edges[i] += e[i] / float64(views)
			}
		}
		best := 0
		for c := 1; c < cm.Background; c++ {
			if row[c] > row[best] {
				best = c
			}
		}
		w := wins[k]
		x0, y0 := w.left+edges[0]*w.side, w.top+edges[1]*w.side
		x1, y1 := w.left+edges[2]*w.side, w.top+edges[3]*w.side
		r := clip(detect.Box{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}, pw, ph)
		if r.W <= 0 || r.H <= 0 {
			r = detect.Box{}
		}
		out[k] = lookResult{cand: cand{class: best, score: float64(row[best]), box: r, from: boxes[k]}, background: float64(row[cm.Background])}
	}
	return out, nil
}

// runClassifier runs the classifier on count crops of n×n ink and returns
// its class probabilities (count × (classes+1)) and boxes (count × 4).
func (d *Detector) runClassifier(in []float32, count, n int) (prob, box []float32, err error) {
	outs, release, err := runSession(d.cls, ort.NewShape(int64(count), 1, int64(n), int64(n)), in, 2)
	if err != nil {
		return nil, nil, fmt.Errorf("classifier: %w", err)
	}
	defer release()
	p, ok1 := outs[0].(*ort.Tensor[float32])
	b, ok2 := outs[1].(*ort.Tensor[float32])
	if !ok1 || !ok2 {
		return nil, nil, errors.New("classifier outputs are not prob float32, box float32")
	}
	k1 := d.meta.Classifier.Background + 1
	if sh := p.GetShape(); len(sh) != 2 || sh[0] != int64(count) || sh[1] != int64(k1) {
		return nil, nil, fmt.Errorf("classifier prob shape %v, want [%d %d]", sh, count, k1)
	}
	if sh := b.GetShape(); len(sh) != 2 || sh[0] != int64(count) || sh[1] != 4 {
		return nil, nil, fmt.Errorf("classifier box shape %v, want [%d 4]", sh, count)
	}
	// The tensors' memory is freed with them: copy out.
	return append([]float32(nil), p.GetData()...), append([]float32(nil), b.GetData()...), nil
}

// window is the square part of the page a proposal is classified from.
type window struct{ left, top, side float64 }

// windowGray converts only the integer window training/classifier.py's
// crop reads around w (white beyond the page) to luma, and returns it with
// w in its coordinates.
func windowGray(img image.Image, w window) (*gray, window) {
	l, t := int(math.Floor(w.left)), int(math.Floor(w.top))
	span := int(math.Ceil(w.side)) + 1
	g := &gray{w: span, h: span, pix: make([]uint8, span*span)}
	for i := range g.pix {
		g.pix[i] = 255
	}
	r := image.Rect(l, t, l+span, t+span).Intersect(img.Bounds())
	if sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok && !r.Empty() {
		part := lumaPixels(sub.SubImage(r))
		for y := 0; y < part.h; y++ {
			copy(g.pix[(r.Min.Y-t+y)*span+r.Min.X-l:], part.pix[y*part.w:(y+1)*part.w])
		}
	}
	return g, window{left: w.left - float64(l), top: w.top - float64(t), side: w.side}
}

// cropWindow is training/classifier.py's crop_box: a square of context
// times the box's longer side (at least 4 px), centred on the box.
func cropWindow(b detect.Box, context float64) window {
	side := math.Max(math.Max(b.W, b.H), 4) * context
	return window{left: b.X + b.W/2 - side/2, top: b.Y + b.H/2 - side/2, side: side}
}

// resample writes the n×n ink of window w into dst, resampled as Pillow's
// Image.resize(BILINEAR, box=...) does in training/classifier.py's crop:
// a triangle filter widened by the scale when shrinking (so every source
// pixel counts), cut at the edges of the integer window the training crop
// is taken from, horizontal pass then vertical, rounded to 8 bits in
// between and at the end. Pixels beyond the page are white paper.
func (g *gray) resample(dst []float32, w window, n int) {
	l, t := int(math.Floor(w.left)), int(math.Floor(w.top))
	span := int(math.Ceil(w.side)) + 1 // the training crop's integer window
	xs := filterTaps(w.left-float64(l), w.side, span, n)
	ys := filterTaps(w.top-float64(t), w.side, span, n)
	// Horizontal pass over the rows the vertical taps read.
	r0, r1 := span, 0
	for _, tp := range ys {
		r0, r1 = min(r0, tp.first), max(r1, tp.first+len(tp.weights))
	}
	rows := make([]uint8, (r1-r0)*n)
	src := make([]uint8, span)
	for r := r0; r < r1; r++ {
		py := t + r
		for i := range src {
			px := l + i
			if py < 0 || py >= g.h || px < 0 || px >= g.w {
				src[i] = 255
			} else {
				src[i] = g.pix[py*g.w+px]
			}
		}
		out := rows[(r-r0)*n : (r-r0+1)*n]
		for i, tp := range xs {
			var acc float64
			for k, wt := range tp.weights {
				acc += wt * float64(src[tp.first+k])
			}
			out[i] = clamp8(acc)
		}
	}
	for j, tp := range ys {
		for i := 0; i < n; i++ {
			var acc float64
			for k, wt := range tp.weights {
				acc += wt * float64(rows[(tp.first+k-r0)*n+i])
			}
			dst[j*n+i] = float32(255-int(clamp8(acc))) / 255
		}
	}
}

// taps are one output pixel's source range and normalised weights.
type taps struct {
	first   int
	weights []float64
}

// filterTaps is Pillow's precompute_coeffs for the bilinear filter: n
// output pixels over the source span [in0, in0+size) of a line of length
// inSize.
func filterTaps(in0, size float64, inSize, n int) []taps {
	scale := size / float64(n)
	filterScale := math.Max(scale, 1)
	support := filterScale // the triangle filter's support is 1
	out := make([]taps, n)
	for i := range out {
		center := in0 + (float64(i)+0.5)*scale
		lo := max(int(center-support+0.5), 0) // Pillow truncates toward zero
		hi := min(int(center+support+0.5), inSize)
		ws := make([]float64, max(hi-lo, 0))
		var sum float64
		for k := range ws {
			x := (float64(k+lo) - center + 0.5) / filterScale
			if x < 0 {
				x = -x
			}
			if x < 1 {
				ws[k] = 1 - x
			}
			sum += ws[k]
		}
		if sum != 0 {
			for k := range ws {
				ws[k] /= sum
			}
		}
		out[i] = taps{first: lo, weights: ws}
	}
	return out
}

// clamp8 rounds v to the nearest 8-bit value.
func clamp8(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}
