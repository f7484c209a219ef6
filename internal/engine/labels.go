package engine

import (
	"context"
	"fmt"
	"image"
	"math"
	"runtime"
	"sort"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/imagevector"
	"blueprint/internal/legend"
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
	out = f.labels.imageTags(res.Page, p.Index, out, f.images.inTable)
	return append(out, f.labels.labelled(res.Page, p.Index)...), nil
}

// imageTags attaches to out, the detections of image page page, the tags
// of the job's coded rows (schedules, its own and its references') that
// the words OCR read there (pg) write, as text-layer tags label a PDF
// page's symbols (labelTags): a tag labels the symbol beside it, which
// takes its row's class, and one with no symbol near is a device of its
// own. OCR misses tags a text layer holds, so a symbol without one stays
// counted (pairedTags). No tag is read in a legend table, on the title
// block or off the plan.
func (e *docEngine) imageTags(pg *drawing.Page, page int, out []detect.Detection, inTable func(int, image.Point) bool) []detect.Detection {
	codes := map[string][]int{}
	classes := make([]string, len(e.rows))
	for i, r := range e.rows {
		classes[i] = r.Class
		if r.Code != "" && r.Class != "" {
			codes[r.Code] = append(codes[r.Code], i)
		}
	}
	if len(codes) == 0 {
		return out
	}
	tags := legend.TagsOf(pg, codes, func(c glyph.Point) bool {
		return e.doc.OffPlan(page, c) || inTable(page, image.Pt(int(c.X), int(c.Y)))
	})
	return pairedTags(out, codeColumns(tags), classes, e.category, true)
}

// Schedule columns on an image page (codeColumns): codes stacked
// left-aligned within columnAlignEm of their text size, each within
// columnGapEm of the one above, columnCodes distinct codes or more.
const (
	columnAlignEm = 0.5
	columnGapEm   = 15.0
	columnCodes   = 5
)

// codeColumns returns tags less those standing in a schedule's code
// column: on an image page whose tables were not read (legends on images
// off, or a schedule the reader did not find), a schedule's codes read
// as tags each count a device more. A schedule lists several codes one
// under another; tags stacked on a plan (a pair of sockets, one above the
// other) repeat one code.
func codeColumns(tags []legend.Tag) []legend.Tag {
	var idx []int
	for i, t := range tags {
		if t.Row >= 0 && t.Em > 0 {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return tags[idx[a]].Box.Min.Y < tags[idx[b]].Box.Min.Y })
	drop := make([]bool, len(tags))
	used := make([]bool, len(tags))
	for _, i := range idx {
		if used[i] {
			continue
		}
		col := []int{i}
		used[i] = true
		last := tags[i]
		for _, j := range idx {
			t := tags[j]
			if used[j] || t.Box.Min.Y < last.Box.Min.Y {
				continue
			}
			em := max(last.Em, t.Em)
			if math.Abs(t.Box.Min.X-tags[i].Box.Min.X) <= columnAlignEm*em && t.Box.Min.Y-last.Box.Max.Y <= columnGapEm*em {
				col, used[j], last = append(col, j), true, t
			}
		}
		codes := map[string]bool{}
		for _, k := range col {
			codes[tags[k].Code] = true
		}
		if len(codes) >= columnCodes {
			for _, k := range col {
				drop[k] = true
			}
		}
	}
	kept := tags[:0:0]
	for i, t := range tags {
		if !drop[i] {
			kept = append(kept, t)
		}
	}
	return kept
}
