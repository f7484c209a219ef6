// Package detect defines what a detection engine sees (a rendered page, and
// for PDFs its vector drawing) and what it reports (boxes with a class and a
// confidence). Engines live in their own packages; the job flow and the
// evaluation command depend only on the Engine interface.
package detect

import (
	"context"
	"image"
	"math"

	"blueprint/internal/drawing"
)

// RenderDPI is the raster resolution of every page coordinate on the wire.
const RenderDPI = 200

// Box is an axis-aligned rectangle in pixels of the page raster, top-left
// origin, y down.
type Box struct {
	X, Y, W, H float64
}

// Pixels returns the whole pixels b covers, its edges rounded outwards.
func (b Box) Pixels() image.Rectangle {
	return image.Rect(int(math.Floor(b.X)), int(math.Floor(b.Y)), int(math.Ceil(b.X+b.W)), int(math.Ceil(b.Y+b.H)))
}

// Intersection returns the area b and o share, 0 when they do not
// overlap.
func (b Box) Intersection(o Box) float64 {
	ix := math.Min(b.X+b.W, o.X+o.W) - math.Max(b.X, o.X)
	iy := math.Min(b.Y+b.H, o.Y+o.H) - math.Max(b.Y, o.Y)
	if ix <= 0 || iy <= 0 {
		return 0
	}
	return ix * iy
}

// Gap returns the distance between b and o, 0 where they overlap or
// touch.
func (b Box) Gap(o Box) float64 {
	dx := math.Max(0, math.Max(b.X-(o.X+o.W), o.X-(b.X+b.W)))
	dy := math.Max(0, math.Max(b.Y-(o.Y+o.H), o.Y-(b.Y+b.H)))
	return math.Hypot(dx, dy)
}

// IoU returns the intersection over union of b and o, 0 when they do not
// overlap or when both are empty.
func (b Box) IoU(o Box) float64 {
	inter := b.Intersection(o)
	if inter == 0 {
		return 0
	}
	union := b.W*b.H + o.W*o.H - inter
	if union <= 0 {
		return 0
	}
	return inter / union
}

// Source says which methods produced a detection.
type Source struct {
	Detector       bool // the raster detector saw it
	VectorMatching bool // the vector matcher found it in the page's drawing
	// Tag: a schedule code written beside it on the plan names it (its
	// class and legend row are the code's schedule row).
	Tag bool
}

// Detection is one symbol instance found on a page.
type Detection struct {
	Class      string
	Confidence float64 // calibrated, 0..1
	Box        Box
	Source     Source
	// LegendRow is the 1-based index into DocumentInfo.Legend of the
	// legend row whose glyph found this symbol; 0 when none did. A
	// detection of a legend row that names no catalog class has Class
	// "": it is counted under its row only (the row's detected), never
	// reported as a symbol.
	LegendRow int
	// OffScale: the match is far off the size of its legend row's other
	// matches in the document (MarkOffScale): a look-alike in other
	// linework, withheld from the take-off until a reviewer accepts it.
	OffScale bool
	// Flood: its legend row's glyph matched so many places of the page
	// that the matcher stopped looking for it there (vector.FloodFinds):
	// the row is a flood on that page whatever its count, withheld.
	Flood bool
}

// MaxPerPage is more of one device than any plan draws on one sheet (a
// dense open-plan floor draws several hundred ceiling devices on an A1
// sheet; the generated legend sets up to 579): a legend row matched in
// more places of a page is a flood, a glyph plain enough to match lines
// and corners.
const MaxPerPage = 1000

// a1Pixels is an A1 sheet (841 × 594 mm) rendered at 200 DPI.
const a1Pixels = 6622 * 4677

// MaxOnPage is MaxPerPage for a page of w × h raster pixels: a smaller
// sheet holds fewer devices, so MaxPerPage in proportion to its area
// against an A1 sheet at 200 DPI, never under an eighth of it (the densest
// generated legend sheets draw 579 of a row on an A1, 58 on an A4, 470 a
// sheet's worth of A1). A page of unknown size, and one of A1 or more, is
// held to MaxPerPage.
func MaxOnPage(w, h int) int {
	if w <= 0 || h <= 0 {
		return MaxPerPage
	}
	n := int(float64(MaxPerPage) * float64(w) * float64(h) / a1Pixels)
	return min(max(n, MaxPerPage/8), MaxPerPage)
}

// PDFPage is the vector side of a page from a PDF upload.
type PDFPage interface {
	// Drawing returns what the page draws: segments, arcs and positioned
	// text characters in pixels of the page raster (RenderDPI, CropBox and
	// /Rotate applied), text kept apart from drawing. The result is shared
	// by every caller of the page: callers must not modify it.
	Drawing(ctx context.Context) (*drawing.Page, error)
}

// Page is one page as an engine sees it.
type Page struct {
	Index  int
	Width  int         // raster width in pixels
	Height int         // raster height in pixels
	Raster image.Image // the page raster: 200 DPI for PDFs, native pixels for images
	PDF    PDFPage     // nil for image uploads
}

// Engine finds symbols on one page. Implementations must be safe for
// concurrent use by several goroutines working on different pages.
type Engine interface {
	Detect(ctx context.Context, p Page) ([]Detection, error)
}

// EngineFunc adapts a function to the Engine interface.
type EngineFunc func(ctx context.Context, p Page) ([]Detection, error)

// Detect calls f.
func (f EngineFunc) Detect(ctx context.Context, p Page) ([]Detection, error) { return f(ctx, p) }

// UnreadableError is an engine's refusal of a page for a reason the
// partner may read (the job's processing_failed message quotes it), such as
// a detector the page needs being turned off by configuration.
type UnreadableError struct {
	Reason string
}

func (e *UnreadableError) Error() string { return e.Reason }

// Page kinds: what the document pass took a page for. Only floor plans
// (and images, which have no drawing to read) are counted; docs/decisions.md
// says why.
const (
	KindFloorPlan  = "floor_plan"  // an installation layout: symbols are counted
	KindLegend     = "legend"      // a legend or title sheet
	KindSchedule   = "schedule"    // schedules, calculations, bills of material, notes
	KindRiser      = "riser"       // a riser or schematic: repeats installed devices
	KindSingleLine = "single_line" // a single-line diagram of boards and circuits
	KindImage      = "image"       // a raster upload: no drawing to read
)

// Counted reports whether a take-off counts the symbols of a page of
// that kind.
func Counted(kind string) bool { return kind == KindFloorPlan || kind == KindImage || kind == "" }

// LegendRow is one row of a legend found in the document.
type LegendRow struct {
	PageIndex   int
	Description string
	Class       string // "" when the description names no catalog class
	Quantity    *int   // the printed quantity, nil when none is printed
	PartNumber  string // the row's part number as printed, "" when none
	Tag         string // the words printed beside the row's glyph, "" when none
	// Code is the product code a schedule row gives (the plans write it
	// beside the row's devices), "" for a legend row; Source is "legend"
	// or "schedule" (legend.SourceLegend, legend.SourceSchedule).
	Code, Source string
	// GlyphBox is the extent of the row's glyph on its page, in pixels of
	// that page's raster (Page.Width × Page.Height); nil when the row has
	// no glyph drawn or its extent is unknown.
	GlyphBox *Box
	// ReferenceJob, when set, names the other job whose legend or
	// reviewed detections this row comes from (a job's reference_jobs):
	// PageIndex is then a page of that job, and GlyphBox nil.
	ReferenceJob string
}

// RectBox is r as a Box, nil when r is empty: a glyph's extent found on a
// page raster (LegendRow.GlyphBox).
func RectBox(r image.Rectangle) *Box {
	if r.Empty() {
		return nil
	}
	return &Box{X: float64(r.Min.X), Y: float64(r.Min.Y), W: float64(r.Dx()), H: float64(r.Dy())}
}

// DocumentInfo is what the document pass learned about a document: its
// legend rows, what each page is, and what it could not read.
type DocumentInfo struct {
	Legend []LegendRow
	Kinds  []string // per page, one of the Kind constants
	// OffPlan are the places where a page draws no installed device: its
	// legend and schedule tables and its title block. A search ("find
	// more like this") leaves its matches there out.
	OffPlan []Region
	// Warnings say where the pass could not read what a page says it
	// holds (text drawn as outlines, legends on images not read).
	Warnings []Warning
}

// Region is a box (raster pixels) on page Page.
type Region struct {
	Page int
	Box  Box
}

// Warning is something a take-off cannot stand behind, said to the
// partner with the job (its warnings[]): a code from the Warn constants,
// the page it concerns (-1: the whole document) and a message in words.
type Warning struct {
	Code    string
	Page    int
	Message string
}

// Warning codes.
const (
	// WarnTextNotRead: a page draws its words as outlines (no text layer)
	// or is an image whose text was not read: no legend, schedule, tag or
	// title on it was read.
	WarnTextNotRead = "text_not_read"
	// WarnTextByOCR: a page draws its words as outlines (no text layer)
	// and they were read by OCR of the outlines, less surely than a text
	// layer. Its catalog-glyph guesses are withheld as on a page whose
	// text was not read (UnnamedFloor): the floor was measured on such
	// sheets, and reading their words does not make a look-alike glyph
	// any surer.
	WarnTextByOCR = "text_read_by_ocr"
	// WarnNoLegend: a counted page was read without any legend: its
	// detections come from the catalog glyphs and the raster detector,
	// which do not know the drawing's own symbols.
	WarnNoLegend = "no_legend"
	// WarnCatalogOnly: a class was found on a page only by the catalog
	// glyphs or the raster detector, though the job's legends name other
	// classes and not this one.
	WarnCatalogOnly = "catalog_only"
	// WarnFlood: a legend row matched far more places than its printed
	// quantity: its glyph is plain enough to match lines and corners.
	WarnFlood = "flood"
	// WarnOffScale: matches of a legend row far smaller or larger than
	// the row's other matches in the document (MarkOffScale) were
	// withheld: look-alikes inside a logo, a hatch or a larger symbol.
	WarnOffScale = "off_scale"
	// WarnReferenceUnavailable: a job of reference_jobs could not lend its
	// legend when the job was processed (it expired or was deleted since
	// init, or its file could not be read): the job was counted without
	// it.
	WarnReferenceUnavailable = "reference_unavailable"
	// WarnReferenceUnsure: rows of a reference job are not counted on the
	// job's image pages: their glyph, searched over its own page of the
	// reference as image pages search it, did not find what that page
	// counts.
	WarnReferenceUnsure = "reference_rows_not_counted"
	// WarnByLabels: devices of classes no legend row names were counted
	// from the equipment labels a page writes ("EVSE#P1-17",
	// 'PANEL "EV1"'), each boxed by its label, not by a symbol found.
	WarnByLabels = "counted_by_labels"
)

// Reference is what a job takes from one of its reference jobs (another
// done job of the same key): the rows its glyphs count under (that job's
// legend and schedule rows, and a row per class its reviewers confirmed,
// each with ReferenceJob set) and the glyphs to cut for them from that
// job's document.
type Reference struct {
	Rows   []LegendRow
	Glyphs []ReferenceGlyph
}

// ReferenceGlyph is one glyph of a Reference: the drawing inside Box
// (raster pixels) on page Page of the referenced job's document, counted
// under Reference.Rows[Row]. Exemplar marks a glyph drawn on a plan (a
// detection a reviewer confirmed, or a legend row's surest match); the
// others are legend rows' glyphs, drawn in a legend table with the other
// rows of their page. PixelsOnly: the glyph lends its pixels only, for
// image pages (a legend row's match on a plan: on a page drawn as vectors
// the row's legend glyph is matched itself).
type ReferenceGlyph struct {
	Page       int
	Box        Box
	Row        int
	Exemplar   bool
	PixelsOnly bool
	// Checks are pages the referenced job counts, each with how many of
	// the row's devices and of its class's it counts there (the glyph's
	// own page first where it is one; at most MaxReferenceChecks): what a
	// search for the glyph over each page's raster (its legend table
	// aside) should find.
	Checks []PageCount
}

// PageCount is what a page counts of a reference glyph's row: Count of
// the row's devices on page Page, and ClassCount of the row's class (the
// page's take-off of it: rows of one class often draw one glyph, told
// apart by a rating printed beside it).
type PageCount struct {
	Page, Count, ClassCount int
}

// MaxReferenceChecks bounds the pages a reference glyph's search is
// checked on (ReferenceGlyph.Checks): each is a search over a page.
const MaxReferenceChecks = 4

// ReferenceDoc is the open document of a referenced job: its pages'
// drawings (nil for an image) and their rasters as the pipeline renders
// them, the frame of a legend row's GlyphBox and of a detection's box.
type ReferenceDoc interface {
	Drawings
	PageImage(ctx context.Context, i int) (image.Image, error)
}

// Drawings reads a document's pages' drawings without rendering them.
type Drawings interface {
	NumPages() int
	// Drawing returns page i's drawing, nil for a page without one (an
	// image upload).
	Drawing(ctx context.Context, i int) (*drawing.Page, error)
}

// DocumentEngine is an engine that reads the whole document before its
// pages: legends found anywhere in it define templates for all its pages.
// Prepare returns the engine for that document's pages and what it
// learned. Only templates cross pages, never a page's geometry.
//
// The engine Prepare returns finds nothing on a page whose entry in
// DocumentInfo.Kinds is not Counted, so a caller may leave such a page
// unrendered and undetected (package pipeline does when it keeps no page
// images) and report the same detections.
type DocumentEngine interface {
	Engine
	Prepare(ctx context.Context, doc Drawings) (Engine, DocumentInfo, error)
}
