// Package engine assembles the production detection engine: every available
// detector, fused into one detect.Engine. The job flow and the evaluation
// command both use New, so what is scored is what partners get.
package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/glyph"
	"blueprint/internal/imagelegend"
	"blueprint/internal/legend"
	"blueprint/internal/ocr"
	"blueprint/internal/ocrtext"
	"blueprint/internal/raster"
	"blueprint/internal/vector"
)

// Options choose the detectors besides the vector matcher.
type Options struct {
	// RasterOff leaves the raster detector out: PDF pages get the vector
	// matcher alone and image pages fail with ErrRasterOff.
	RasterOff bool
	// RasterOnVector runs the raster detector on PDF pages drawn as
	// vectors as well (a second opinion on the matcher's boxes, a search
	// where it found none); by default it reads only images and scanned
	// pages (Fuse).
	RasterOnVector bool
	// Raster locates ONNX Runtime for the raster detector.
	Raster raster.Config
	// LazyRaster opens the raster detector on the first page that needs
	// it (raster.Lazy) rather than in New, which then reads only the
	// model's metadata: check at start that the detector opens with
	// raster.CheckInChild.
	LazyRaster bool
	// RasterDetector, when set, is the raster detector, used instead of
	// opening the embedded model in this process (Raster and LazyRaster
	// are then unused): where a page's inference runs is its business,
	// e.g. a SageMaker endpoint (internal/sagemakerdetect).
	RasterDetector RasterDetector
	// OCR, when set, reads text on image pages: legend tables on images
	// and scans are then read (internal/imagelegend) and their glyphs
	// searched for (internal/glyphsearch). Without it image pages get the
	// raster detector alone.
	OCR *ocr.Reader
	// Outlines, when set, reads the words that PDF pages draw as outlines
	// (CAD exports without a text layer) with OCR (internal/ocrtext), so
	// their legends, schedules, tags and titles are read; without it
	// such pages are read for their drawing alone, with a warning. It
	// also reads the words of image pages for the equipment they label
	// (legend.Label; fused.withLabels).
	Outlines *ocr.Reader
	// TraceImages reads image pages (uploads and scanned PDF pages) as
	// the vector geometry their ink traces to (internal/imagevector):
	// their legends, schedules and tags are read by Outlines' OCR and
	// their symbols matched as on PDF pages. Without Outlines it does
	// nothing.
	TraceImages bool
}

// RasterDetector is what the engine needs of the raster detector: search a
// page (Detect), judge given boxes (Verify, as raster.Detector.Verify),
// and the model's metadata. raster.Detector and raster.Lazy run the model
// in this process.
type RasterDetector interface {
	detect.Engine
	verifier
	Meta() raster.Meta
}

// ErrRasterOff is the error of an image page when the raster detector is
// turned off by configuration.
var ErrRasterOff error = &detect.UnreadableError{Reason: "the raster detector is turned off by configuration (BLUEPRINT_RASTER_DETECTOR=off), so images and scanned pages cannot be read"}

// Engine is the production engine. As a detect.Engine it matches the
// catalog's glyphs on each page; as a detect.DocumentEngine (what the
// pipeline uses) it first reads the whole document, and its pages are then
// also matched against the glyphs of the document's own legends. The raster
// detector runs on every counted page and is fused with the matcher (Fuse).
type Engine struct {
	cat     *catalog.Catalog
	catalog []vector.Template
	plain   *vector.Engine
	vocab   *legend.Vocabulary
	raster  detect.Engine // nil: turned off
	// onVector runs raster on PDF pages drawn as vectors (Options.RasterOnVector).
	onVector bool
	// images reads legends on image pages; nil without OCR.
	images *imagelegend.Reader
	// outlines reads words drawn as outlines; nil without OCR.
	outlines legend.OutlineReader
	// trace reads image pages as traced geometry (Options.TraceImages).
	trace bool
}

// New returns the production engine for the catalog's classes: the vector
// matcher with every catalog glyph as a template and legend reading on PDF
// pages, and the raster detector on images and scanned PDF pages (on PDF
// pages drawn as vectors too with opt.RasterOnVector), fused by Fuse. It fails, saying
// why, when the raster detector cannot be loaded (ONNX Runtime missing or
// the wrong version) unless opt.RasterOff; with opt.LazyRaster that is
// found by the first page that needs the detector, which then fails. The
// engine is safe for
// concurrent use by several goroutines working on different pages or
// documents.
func New(cat *catalog.Catalog, opt Options) (*Engine, error) {
	if cat == nil {
		return nil, errors.New("engine: nil catalog")
	}
	syms := cat.Symbols()
	tpls := make([]vector.Template, 0, len(syms))
	for _, s := range syms {
		tpls = append(tpls, vector.Template{Class: s.Class, Glyph: s.Glyph})
	}
	plain, err := vector.NewEngine(tpls)
	if err != nil {
		return nil, fmt.Errorf("engine: vector matcher: %w", err)
	}
	vocab, err := legend.DefaultVocabulary()
	if err != nil {
		return nil, fmt.Errorf("engine: legend vocabulary: %w", err)
	}
	names := map[string][]string{}
	for _, s := range syms {
		names[s.Class] = []string{s.DisplayName, s.DisplayNameFI}
	}
	vocab = vocab.WithNames(names)
	e := &Engine{cat: cat, catalog: tpls, plain: plain, vocab: vocab, onVector: opt.RasterOnVector}
	e.images = newImageReader(opt, e)
	if opt.Outlines != nil {
		e.outlines = ocrtext.New(opt.Outlines, ocrtext.Options{})
		e.trace = opt.TraceImages
	}
	if opt.RasterOff {
		return e, nil
	}
	det := opt.RasterDetector
	switch {
	case det != nil:
	case opt.LazyRaster:
		det, err = raster.NewLazy(opt.Raster)
	default:
		det, err = raster.New(opt.Raster)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: raster detector: %w", err)
	}
	for _, c := range det.Meta().Classes {
		if _, ok := cat.Model(c); !ok {
			return nil, fmt.Errorf("engine: raster detector: the model's class %q is not in the catalog", c)
		}
	}
	e.raster = det
	return e, nil
}

// Detect matches the catalog's glyphs on one page, without a document
// pass (no legends, every page counted), fused with the raster detector.
func (e *Engine) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	return Fuse(e.plain, e.raster, e.onVector).Detect(ctx, p)
}

// nullClass is the template class of a legend row that names no catalog
// class: its matches claim their symbols (so no catalog glyph is counted
// there) and are not reported.
const nullClass = "-"

// Legend template scale ranges: a glyph with little to tell it apart (a
// lone circle, a bare box) is searched only near the size the legend
// draws it.
const (
	weakMinScale = 0.8
	weakMaxScale = 1.25
)

// Legend glyphs are often drawn larger than the plan's symbols (a
// legend row is sized to its text): every legend glyph but a lone shape
// is searched from legendMinScale of its legend size. A small pose that
// finds part of a larger symbol loses to that symbol's own match, which
// explains more of the page (matches are ranked at the page's size).
const legendMinScale = 0.3

// legendMaxScale: a legend may also draw a glyph smaller than the plan
// does (a tall glyph shrunk to its row).
const legendMaxScale = 3.0

// Prepare reads the document (legends, page kinds) and returns the engine
// for its pages: catalog and legend glyphs matched together, the legend's
// class winning where both find one symbol. The returned engine reports
// nothing on a page of a kind not counted (docEngine.skip), as
// detect.DocumentEngine promises.
func (e *Engine) Prepare(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	eng, info, _, err := e.prepareSaved(ctx, doc, nil, false)
	return eng, info, err
}

// prepared is the engine for the pages of the document the document pass
// read as ld (and il on its image pages, nil for none), joined by the
// references refs (WithReferences), and what it learned (Prepare,
// Resume). The image pages' legend rows follow the PDF legends' in
// DocumentInfo.Legend, and the references' rows follow those.
func (e *Engine) prepared(ctx context.Context, ld *legend.Document, il *imageLegends, refs []refCut, td *traced, tr map[int]tracedText) (detect.Engine, detect.DocumentInfo, error) {
	if il != nil {
		// Image pages read as text sheets are not counted, as PDF
		// pages of those kinds are not.
		for i, k := range il.Kinds {
			if i < len(ld.Kinds) {
				ld.Kinds[i] = k
			}
		}
	}
	info := detect.DocumentInfo{Kinds: ld.Kinds, Legend: make([]detect.LegendRow, len(ld.Rows)), OffPlan: offPlan(ld, il)}
	classes := make([]string, len(ld.Rows))
	for i, r := range ld.Rows {
		c := ld.Classes[i]
		if _, ok := e.cat.Model(c); !ok {
			c = "" // a class this catalog does not have
		}
		classes[i] = c
		info.Legend[i] = detect.LegendRow{PageIndex: r.Page, Description: r.Description, Class: c, Quantity: r.Quantity,
			PartNumber: r.PartNumber, Tag: strings.Join(r.Tags, " "), GlyphBox: glyphBox(r.GlyphBox), Code: r.Code, Source: r.Source}
	}
	tpls := append([]vector.Template(nil), e.catalog...)
	for _, l := range ld.Leaders() {
		r := ld.Rows[l]
		if r.LineType {
			continue // a sample of a cable's line: it would match every wire
		}
		class := classes[l]
		if class == "" {
			class = nullClass
		}
		t := vector.Template{Class: class, Glyph: r.Glyph, Row: l + 1, Priority: 1, MinScale: legendMinScale, MaxScale: legendMaxScale, OptionalStubs: true, Stretch: true}
		if r.Glyph.Weak() {
			t.MinScale, t.MaxScale = weakMinScale, weakMaxScale
		}
		tpls = append(tpls, t)
	}
	if il != nil {
		for k := range il.Rows {
			info.Legend = append(info.Legend, il.Rows[k].Info)
			il.Rows[k].row = len(info.Legend)
		}
	}
	de := &docEngine{doc: ld, classes: classes, category: func(c string) string {
		meta, _ := e.cat.Meta(c)
		return meta.Category
	}}
	tpls, il = joinRefs(refs, &info, tpls, len(ld.Rows), de, il)
	de.rows = info.Legend
	m, err := vector.NewMatcher(tpls)
	if err != nil {
		return nil, detect.DocumentInfo{}, fmt.Errorf("engine: legend templates: %w", err)
	}
	info.Warnings = append(e.unreadPages(ld, len(info.Legend) > 0), tracedWarnings(tr)...)
	if slices.Contains(ld.Kinds, detect.KindImage) {
		info.Warnings = append(info.Warnings, refWarnings(refs)...)
	}
	de.m, de.unread = m, detect.TextUnread(info.Warnings)
	// On a page whose text was not read from a text layer, a catalog
	// glyph's match of a class no legend row names is withheld whatever
	// its confidence (detect.UnnamedUnreadFloor), and on the real sets
	// every one was wrong: where the job has legend rows (the drawing
	// said what it holds), those glyphs are not searched there. Where it
	// has none, the catalog's guesses are all a reviewer has.
	//
	// Nor are they searched on any page where the legend draws its own
	// symbols, not the catalog's (ownStyle): such a sheet keys what it
	// holds, and every catalog guess of a class its legend left out was
	// wrong on the real sets (docs/decisions.md). There the catalog
	// glyphs of the classes it names are searched only where its glyph
	// for the class is the catalog's: its own symbol of a class is drawn
	// its own way, and a catalog glyph of the class finds look-alikes
	// (cp4 plotted at 0.7 of its size: a second smoke detector).
	var drawn map[string]bool
	if len(info.Legend) > 0 {
		gs := legendGlyphs(ld, classes, refs)
		de.legendRows = len(gs)
		if de.ownSymbols, drawn, err = e.legendStyle(ctx, gs); err != nil {
			return nil, detect.DocumentInfo{}, err
		}
	}
	if named := detect.NamedClasses(info.Legend); len(info.Legend) > 0 && (len(de.unread) > 0 || de.ownStyle()) {
		keep := named
		if de.ownStyle() {
			keep = drawn
		}
		de.mNamed, de.catalogKept = m.Subset(func(class string, row int) bool { return row > 0 || keep[class] }), keep
	}
	de.vocab, de.named = e.vocab, detect.NamedClasses(info.Legend)
	f := &fused{vector: de, raster: e.raster, skip: de.skip, onVector: e.onVector, words: e.outlines, labels: de}
	// Image pages are read as traced geometry where the job has legend
	// rows to match there; without any, the raster detector's guesses
	// are all there is.
	if e.trace && len(info.Legend) > 0 {
		f.trace, f.traced, f.read = true, td, e.outlines
	}
	if il != nil && len(il.Rows) > 0 {
		f.images = il
	}
	return f, info, nil
}

// unreadPages are the warnings of the pages whose text the document pass
// could not read: vector pages that draw their words as outlines, and
// image pages where legends on images are off; rows says whether the
// job has legend rows (its own or its references').
func (e *Engine) unreadPages(ld *legend.Document, rows bool) []detect.Warning {
	var out []detect.Warning
	// What becomes of the catalog's guesses on a page whose text was read
	// by OCR (prepared: searched only where no legend row was read).
	guesses := "Guesses of the catalog's glyphs on it are withheld to review"
	if rows {
		guesses = "The catalog's glyphs of classes no legend row names are not looked for on it"
	}
	for _, i := range ld.Textless {
		out = append(out, detect.Warning{Code: detect.WarnTextNotRead, Page: i, Message: fmt.Sprintf(
			"page %d writes no text (its words are drawn as outlines): no legend, schedule, tag or title on it was read, so it is counted by glyph shapes alone", i)})
	}
	for i := range ld.Kinds {
		if t := ld.OCRText(i); t != nil && t.Unread == 0 {
			out = append(out, detect.Warning{Code: detect.WarnTextByOCR, Page: i, Message: fmt.Sprintf(
				"page %d draws its words as outlines: OCR read its %d lines of text, less surely than a text layer; check the legend rows and tags read from it. %s", i, t.Read, guesses)})
		}
		if t := ld.OCRText(i); t != nil && t.Unread > 0 {
			out = append(out, detect.Warning{Code: detect.WarnTextNotRead, Page: i, Message: fmt.Sprintf(
				"page %d draws its words as outlines: OCR read %d of its %d lines of text within its time and size bounds, %d were left unread, so a legend, schedule or tag among them was not read", i, t.Read, t.Lines, t.Unread)})
		}
	}
	if e.images != nil {
		return out
	}
	read := "no legend, schedule or tag on it was read"
	if e.outlines != nil && !e.trace {
		read = `no legend or schedule on it was read; where it is rendered or exported from a drawing (not a scan or a photo), its words are read by OCR for the equipment they label alone (EVSE-1, PANEL "A")`
	}
	for i, k := range ld.Kinds {
		if k == detect.KindImage {
			out = append(out, detect.Warning{Code: detect.WarnTextNotRead, Page: i, Message: fmt.Sprintf(
				"page %d is an image and legends on images are off (BLUEPRINT_IMAGE_LEGENDS): %s", i, read)})
		}
	}
	return out
}

// offPlan returns where the document's pages draw no installed device,
// page by page: the tables and title blocks the document pass found on
// its PDF pages (ld) and the tables on its image pages (il, nil for
// none).
func offPlan(ld *legend.Document, il *imageLegends) []detect.Region {
	out := ld.OffPlanRegions()
	if il != nil {
		for p, ts := range il.Tables {
			for _, t := range ts {
				out = append(out, detect.Region{Page: p, Box: detect.Box{X: float64(t.Min.X), Y: float64(t.Min.Y), W: float64(t.Dx()), H: float64(t.Dy())}})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b detect.Region) int { return cmp.Compare(a.Page, b.Page) })
	return out
}

// glyphBox is a legend row's glyph extent as a detect.Box, nil when the
// row has none (an empty extent).
func glyphBox(r legend.Rect) *detect.Box {
	if r.Max.X <= r.Min.X || r.Max.Y <= r.Min.Y {
		return nil
	}
	b := rectBox(r)
	return &b
}

// rectBox is a legend rectangle (raster pixels) as a detect.Box.
func rectBox(r legend.Rect) detect.Box {
	return detect.Box{X: r.Min.X, Y: r.Min.Y, W: r.Max.X - r.Min.X, H: r.Max.Y - r.Min.Y}
}

// docEngine detects on the pages of one document.
type docEngine struct {
	m *vector.Matcher
	// mNamed is m without the catalog glyphs of classes no legend of
	// the job names, used on the pages in unread (their text not read
	// from a text layer), and on every page where the legend draws its
	// own symbols (ownStyle); nil where m serves every page.
	mNamed *vector.Matcher
	// catalogKept are the classes whose catalog glyphs mNamed keeps.
	catalogKept map[string]bool
	unread      map[int]bool
	// legendRows is the number of the job's legend glyphs that name a
	// class (legendGlyphs: its own legends', one per glyph, and its
	// references'), ownSymbols of them not the catalog's symbol of their
	// class (legendStyle).
	legendRows, ownSymbols int
	doc                    *legend.Document
	classes                []string
	// category gives a class's catalog category ("" for none).
	category func(class string) string
	// refs are the reference rows of the templates numbered after the
	// document's rows (joinRefs): template Row len(doc.Rows)+k+1 is refs[k].
	refs []refRow
	// rows are the job's legend rows, DocumentInfo.Legend: its own, its
	// image pages', its references' (imageTags reads their codes).
	rows []detect.LegendRow
	// vocab reads the equipment labels of the pages (labelled), of the
	// classes named does not hold: those the job's legend rows name.
	vocab *legend.Vocabulary
	named map[string]bool
}

// ownStyleMinRows is the fewest legend glyphs naming a class that tell
// whether a legend draws its own symbols. A sheet drawn in the standard's
// symbols (EN 60617, which the catalog draws) may key only its few
// special ones, none of them the catalog's, and rely on the standard for
// the rest: a legend of two or three such glyphs says nothing of the
// others.
const ownStyleMinRows = 4

// ownStyle reports whether the job's legend draws its own symbols: of
// ownStyleMinRows or more glyphs naming a class, more than half are not
// the catalog's symbol of that class. On the development sets none of
// the 57 such glyphs of the four sets with that many was the catalog's;
// on generated sheets drawn in the catalog's symbols 33 of 36 were.
func (e *docEngine) ownStyle() bool {
	return e.legendRows >= ownStyleMinRows && 2*e.ownSymbols > e.legendRows
}

// skip reports whether a detection on page p is not to be reported: the
// page is not counted (legends, schedules, risers, single-line diagrams;
// docs/decisions.md), or the detection (d non-nil) lies inside a legend
// or schedule table or the title block.
func (e *docEngine) skip(p detect.Page, d *detect.Detection) bool {
	if p.Index < len(e.doc.Kinds) && !detect.Counted(e.doc.Kinds[p.Index]) {
		return true // an image page read as a text sheet too
	}
	if p.PDF == nil {
		return false
	}
	return d != nil && e.doc.OffPlan(p.Index, glyph.Point{X: d.Box.X + d.Box.W/2, Y: d.Box.Y + d.Box.H/2})
}

// Detect matches catalog and legend glyphs on a counted page. Pages the
// document pass took for legends, schedules, risers or single-line
// diagrams yield nothing (docs/decisions.md); nor does anything inside a
// legend or schedule table or the title block.
func (e *docEngine) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	if p.PDF == nil || e.skip(p, nil) {
		return nil, nil
	}
	pg, err := p.PDF.Drawing(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine: page %d: %w", p.Index, err)
	}
	// Words drawn as outlines and read by the document pass: text, as a
	// PDF's text layer would be (tags near symbols, text inside glyphs).
	pg = e.doc.Page(p.Index, pg)
	m := e.m
	if e.mNamed != nil && (e.unread[p.Index] || e.ownStyle()) {
		m = e.mNamed
	}
	ms, err := m.Match(ctx, pg)
	if err != nil {
		return nil, fmt.Errorf("engine: page %d: %w", p.Index, err)
	}
	onPlan := func(m vector.Match) bool {
		return !m.Legend && !e.doc.OffPlan(p.Index, glyph.Point{X: m.Box.X + m.Box.W/2, Y: m.Box.Y + m.Box.H/2})
	}
	liftConsistent(ms, onPlan)
	out := make([]detect.Detection, 0, len(ms))
	for _, m := range ms {
		if !onPlan(m) {
			continue
		}
		d := detect.Detection{Class: m.Class, Confidence: m.Confidence, Box: m.Box, Source: detect.Source{VectorMatching: true}, Flood: m.Flooded}
		if k := m.Row - len(e.doc.Rows) - 1; k >= 0 && k < len(e.refs) {
			d.Class, d.LegendRow = e.refs[k].class, e.refs[k].row
		} else if m.Row > 0 {
			// A row of no class is counted under its row (class "").
			row := e.doc.Assign(pg, p.Index, m.Row-1, m.Box)
			d.Class, d.LegendRow = e.classes[row], row+1
		}
		if math.IsNaN(d.Confidence) {
			continue
		}
		out = append(out, d)
	}
	out = labelTags(out, e.doc.Tags(pg, p.Index), e.classes, e.category)
	if !pg.Scan() || pg.Traced {
		// A scanned page's words are read from its image (withLabels).
		out = append(out, e.labelled(pg, p.Index)...)
	}
	return out, nil
}
