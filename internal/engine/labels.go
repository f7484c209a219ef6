package engine

import (
	"context"
	"fmt"
	"runtime"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/imagevector"
)

// labelConfidence is the confidence of a device counted from its label
// (legend.Label) alone: the sheet names it in words, though no symbol
// found confirms where it stands.
const labelConfidence = 0.9

// labelled returns the devices the page numbered page names by label
// (Vocabulary.Labels on pg, its text layer or the words OCR read) of
// classes no legend row of the job names: where a legend or schedule
// keys a class, its rows and their tags count it. A label inside a
// legend or schedule table or the title block names nothing installed.
// Each is a detection boxed by its label, Source.Tag, of no legend row.
func (e *docEngine) labelled(pg *drawing.Page, page int) []detect.Detection {
	if e.vocab == nil {
		return nil
	}
	var out []detect.Detection
	for _, l := range e.vocab.Labels(pg) {
		b := rectBox(l.Box)
		if e.named[l.Class] || e.doc.OffPlan(page, glyph.Point{X: b.X + b.W/2, Y: b.Y + b.H/2}) {
			continue
		}
		out = append(out, detect.Detection{Class: l.Class, Confidence: labelConfidence, Source: detect.Source{Tag: true}, Box: b})
	}
	return out
}

// withLabels adds to out, the detections of image page p (an upload or a
// PDF page drawn as one scanned image, not read as traced geometry), the
// devices its words label (docEngine.labelled), its words read by OCR
// (imagevector.Words) where the image is rendered or exported from a
// drawing: on a scan or a photo OCR reads specks as letters (a generated
// 300-DPI A0 scan took 38 s where its detection alone took 9).
func (f *fused) withLabels(ctx context.Context, p detect.Page, out []detect.Detection) ([]detect.Detection, error) {
	if f.words == nil || f.labels == nil || f.trace || p.Raster == nil || (f.skip != nil && f.skip(p, nil)) {
		return out, nil
	}
	img, err := isImagePage(ctx, p)
	if err != nil || !img {
		return out, err
	}
	// The detector's garbage goes before the words' ink is laid out
	// (a page's worth, 78 MB on an A0 sheet at 300 DPI), so that a job
	// holds one page's working set at a time (docs/page-reading.md).
	runtime.GC()
	res, err := imagevector.Words(ctx, p.Raster, f.words, true)
	if err != nil {
		return nil, fmt.Errorf("page %d: read its words: %w", p.Index, err)
	}
	if res == nil {
		return out, nil // a scan or a photo: its words are not read
	}
	return append(out, f.labels.labelled(res.Page, p.Index)...), nil
}
