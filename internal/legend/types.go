package legend

import (
	"math"

	"blueprint/internal/glyph"
)

// Row is one legend row as read from a page: the glyph drawn in its symbol
// cell (table rules excluded), the text inside the glyph, the tags beside
// it, its description and its printed quantity.
type Row struct {
	Page        int
	Description string
	// GlyphText is the text inside the glyph's drawing ("F", "FACP").
	GlyphText string
	// Tags are the words written beside the glyph, before the description
	// ("15CD", "0.25W", "S").
	Tags []string
	// Quantity is the printed quantity, nil when the legend has no
	// quantity column or the row's cell is empty.
	Quantity *int
	// PartNumber is the text of the row's cell under a part-number head
	// (PART NUMBER, CAT. NO., …), "" when the legend has no such column
	// or the cell is empty.
	PartNumber string
	// Glyph is the row's drawing in the canonical glyph frame (mm at the
	// size drawn in the legend, centred on its box), text inside it
	// included; empty when the cell holds no usable drawing.
	Glyph glyph.Glyph
	// Color is the dominant stroke colour of the glyph, "#rrggbb".
	Color string
	// Width is the stroke width (raster pixels, 0 for a hairline) that
	// draws most of the glyph's length in Color: with Color, the pen a
	// CAD drawing tells variants of one symbol apart by.
	Width float64
	// Box is the row's extent on its page (raster pixels): glyph,
	// description and quantity.
	Box Rect
	// GlyphBox is the extent of the glyph's drawing.
	GlyphBox Rect
	// Code is the product code a schedule gives the row ("P5", "L12"),
	// which the plans write beside its symbols; "" for a legend row.
	Code string
	// Source is SourceLegend for a row read from a legend (a glyph and
	// its description), SourceSchedule for one read from a schedule (a
	// code and its description).
	Source string
	// LineType: the row's text names a line type (a cable, a conduit, a
	// wire path: Vocabulary.LineType), so its glyph is a sample of line,
	// not a device's symbol; it is not looked for on plans.
	LineType bool
}

// Rect is an axis-aligned rectangle in raster pixels.
type Rect struct{ Min, Max glyph.Point }

// Contains reports whether p lies inside r.
func (r Rect) Contains(p glyph.Point) bool {
	return p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
}

func (r Rect) union(o Rect) Rect {
	return Rect{glyph.MinPoint(r.Min, o.Min), glyph.MaxPoint(r.Max, o.Max)}
}

func (r Rect) w() float64 { return r.Max.X - r.Min.X }
func (r Rect) h() float64 { return r.Max.Y - r.Min.Y }
func (r Rect) centre() glyph.Point {
	return glyph.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
}

func emptyRect() Rect {
	return Rect{glyph.Point{X: math.Inf(1), Y: math.Inf(1)}, glyph.Point{X: math.Inf(-1), Y: math.Inf(-1)}}
}

// Table is one legend table found on a page: its extent (header included)
// and its rows in reading order.
type Table struct {
	Page int
	Box  Rect
	Rows []Row
}
