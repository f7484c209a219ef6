package engine

import (
	"context"
	"fmt"
	"sort"

	"blueprint/internal/detect"
	"blueprint/internal/imagevector"
)

// Fusion rules, measured on the evaluation sets (README, "Measured accuracy").
const (
	// fuseIoU is the overlap at which a raster detection and a vector match
	// are taken for the same physical symbol (or the centre of either lies
	// in the other's box: the raster box is coarser than the vector one).
	fuseIoU = 0.3
	// secondOpinionWeight scales the confidence of a raster detection on a
	// page whose drawing the vector matcher read (it found symbols there)
	// but which no vector match confirms. The matcher finds nearly every
	// catalog glyph drawn as vectors, so such a detection is a look-alike
	// far more often than a missed symbol: on the vector evaluation set,
	// weighed by 0.6, they added 184 false detections and no true one at
	// the default thresholds. Weighed by 0.25 they stay below every default
	// threshold yet are stored (0.25 > StoredFloor) for a partner who asks
	// for a lower floor, or a PDF whose symbols are pasted images.
	secondOpinionWeight = 0.25
)

// fused runs the vector matcher and the raster detector on a page and
// merges what they found.
type fused struct {
	vector detect.Engine
	raster detect.Engine // nil: turned off
	// onVector runs the raster detector on PDF pages drawn as vectors too,
	// not only on scans (drawing.Page.Scan) and images.
	onVector bool
	// skip, when set, says what the document pass rules out: a whole page
	// (d nil), where the raster detector does not run, or one raster
	// detection (inside a legend table).
	skip func(p detect.Page, d *detect.Detection) bool
	// images, when set, are the legends read on the document's image
	// pages: on an image page their glyphs are searched for instead of
	// running the raster detector, which knows only the catalog's.
	images *imageLegends
	// trace reads image pages as their traced geometry (traced), from
	// traced where the document pass traced them.
	trace  bool
	traced *traced
	read   imagevector.TextReader
	// words, when set, reads the words of image pages not traced, and
	// labels counts the equipment they label (withLabels).
	words  imagevector.TextReader
	labels *docEngine
}

// Fuse composes the vector matcher and the raster detector (nil when turned
// off) into one engine that reports one detection per physical symbol:
//
//   - a vector match and a raster detection of the same class overlapping
//     (IoU >= 0.3, or a centre inside the other box) become one detection
//     with the vector box (exact, from the drawing), both source flags, and
//     the vector match's confidence (measured: raising it for the agreement,
//     as 1-(1-v)(1-r), lifted wrong matches over the threshold and no right
//     one, 9 false detections more on the vector evaluation set);
//   - a vector match alone keeps its box, flag and confidence;
//   - a raster detection alone keeps its flag and box; its confidence is
//     kept on pages where the vector matcher found nothing (images, scanned
//     PDFs) and scaled by secondOpinionWeight where it did;
//   - a raster detection overlapping a vector match of another class is
//     dropped: the drawing's own geometry decides.
//
// On a PDF page where the matcher found symbols, a raster detector that can
// judge given boxes (raster.Detector.Verify) is asked about the matcher's
// boxes instead of searching the page (Detect says why).
//
// With the raster detector off, image pages fail with ErrRasterOff.
//
// The raster detector reads images and scanned PDF pages (drawing.Page.Scan);
// on PDF pages drawn as vectors it runs only with onVector (Options.
// RasterOnVector): there the matcher reads the drawing itself, and the
// detector's second opinion added no symbol on the generated and real sets
// while it cost more than the render (docs/raster.md).
func Fuse(vector, rasterDet detect.Engine, onVector bool) detect.Engine {
	return &fused{vector: vector, raster: rasterDet, onVector: onVector}
}

// verifier is a raster detector that can also judge given boxes instead
// of searching the page (raster.Detector.Verify).
type verifier interface {
	Verify(ctx context.Context, p detect.Page, boxes []detect.Box) ([]detect.Detection, error)
}

// Detect implements detect.Engine. On a PDF page the vector matcher runs
// first; where it found symbols, the raster model judges each of its boxes
// (verifier) rather than search the page: the matcher finds nearly every
// symbol drawn as vectors, a search there finds look-alikes far more often
// than missed symbols (see secondOpinionWeight), and it costs a detector
// pass over the whole 200-DPI page, which alone takes longer than
// rendering it. Where the matcher found nothing (a scan inside a PDF, or
// glyphs neither the catalog nor a legend knows), and on images, the
// detector searches the page.
//
// On an image page the equipment its words label is counted too
// (withLabels).
func (f *fused) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	out, err := f.detect(ctx, p)
	if err != nil {
		return nil, err
	}
	return f.withLabels(ctx, p, out)
}

// detect is Detect without the labels of image pages.
func (f *fused) detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	if f.skip != nil && f.skip(p, nil) {
		return nil, nil // a page not counted
	}
	if f.trace {
		var err error
		if p, err = asTraced(ctx, f.traced, f.read, p); err != nil {
			return nil, err
		}
	}
	if f.images != nil && p.Raster != nil && (f.skip == nil || !f.skip(p, nil)) {
		img, err := isImagePage(ctx, p)
		if err != nil {
			return nil, err
		}
		if img {
			return f.images.detect(ctx, p)
		}
	}
	var vec []detect.Detection
	if p.PDF != nil {
		var err error
		if vec, err = f.vector.Detect(ctx, p); err != nil {
			return nil, err
		}
	}
	if f.raster == nil {
		if p.PDF == nil {
			return nil, fmt.Errorf("page %d: %w", p.Index, ErrRasterOff)
		}
		return vec, nil
	}
	if p.Raster == nil || (f.skip != nil && f.skip(p, nil)) {
		return vec, nil // nothing for the detector to see, or a page not counted
	}
	if p.PDF != nil && !f.onVector {
		pg, err := p.PDF.Drawing(ctx)
		if err != nil {
			return nil, err
		}
		if !pg.Scan() {
			return vec, nil // the drawing is read as vectors
		}
	}
	var ras []detect.Detection
	var err error
	if v, ok := f.raster.(verifier); ok && len(vec) > 0 {
		boxes := make([]detect.Box, len(vec))
		for i, d := range vec {
			boxes[i] = d.Box
		}
		ras, err = v.Verify(ctx, p, boxes)
	} else {
		ras, err = f.raster.Detect(ctx, p)
	}
	if err != nil {
		return nil, err
	}
	if f.skip != nil {
		kept := ras[:0]
		for i := range ras {
			if !f.skip(p, &ras[i]) {
				kept = append(kept, ras[i])
			}
		}
		ras = kept
	}
	return merge(vec, ras), nil
}

// merge applies Fuse's rules to one page's detections.
func merge(vec, ras []detect.Detection) []detect.Detection {
	out := append([]detect.Detection(nil), vec...)
	if len(ras) == 0 {
		return out
	}
	// Strongest raster detections claim their vector match first.
	order := make([]int, len(ras))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ras[order[a]].Confidence > ras[order[b]].Confidence })
	claimed := make([]bool, len(vec))
	for _, ri := range order {
		r := ras[ri]
		best, bestIoU, other := -1, -1.0, false
		for vi, v := range vec {
			iou := r.Box.IoU(v.Box)
			if iou < fuseIoU && !centreIn(r.Box, v.Box) && !centreIn(v.Box, r.Box) {
				continue
			}
			if v.Class != r.Class {
				other = true
				continue
			}
			if !claimed[vi] && iou >= bestIoU {
				best, bestIoU = vi, iou
			}
		}
		switch {
		case best >= 0:
			claimed[best] = true
			out[best].Source.Detector = true
		case other:
			// another class's vector match: the drawing decides
		default:
			if len(vec) > 0 {
				r.Confidence *= secondOpinionWeight
			}
			out = append(out, r)
		}
	}
	return out
}

// centreIn reports whether the centre of a lies inside b.
func centreIn(a, b detect.Box) bool {
	cx, cy := a.X+a.W/2, a.Y+a.H/2
	return cx >= b.X && cx <= b.X+b.W && cy >= b.Y && cy <= b.Y+b.H
}
