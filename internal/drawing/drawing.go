// Package drawing holds what a PDF page draws, as the detectors read it:
// straight segments, circular arcs and text characters with their paint, in
// pixels of the page raster, text kept apart from drawing. FromSVG builds a
// Page from MuPDF's SVG rendering of a page.
package drawing

import (
	"math"
	"strings"

	"blueprint/internal/glyph"
)

// Style is the paint of one drawn path: colours as "#rrggbb" ("" when the
// path is not stroked or not filled) and stroke width in raster pixels.
type Style struct {
	Stroke string
	Fill   string
	Width  float64
}

// PaperColour is the paint of the paper (Style colours are "#rrggbb"): a
// fill in it draws nothing on the sheet. CAD masks what lies under a
// symbol, a tag or a text with such a fill (a wipeout).
const PaperColour = "#ffffff"

// Paint is the colour the style draws in: its stroke's, else its fill's
// ("" for neither).
func (s Style) Paint() string {
	if s.Stroke != "" {
		return s.Stroke
	}
	return s.Fill
}

// InkFill reports whether the style fills in a colour that shows on the
// paper.
func (s Style) InkFill() bool { return s.Fill != "" && !strings.EqualFold(s.Fill, PaperColour) }

// Segment is a straight piece of a drawn path, in raster pixels.
type Segment struct {
	A, B  glyph.Point
	Style int32 // index into Page.Styles
}

// Arc is a circular piece of a drawn path, in raster pixels: centre C,
// radius R, from Start sweeping Sweep degrees (y down, so positive sweeps
// turn clockwise on screen). A full circle has |Sweep| = 360.
type Arc struct {
	C            glyph.Point
	R            float64
	Start, Sweep float64
	Style        int32
}

// Covers reports whether the angle deg (degrees, as the arc's Start)
// lies on the arc's sweep, with slack degrees either side.
func (a Arc) Covers(deg, slack float64) bool {
	if math.Abs(a.Sweep) >= 360-2*slack {
		return true
	}
	d := deg - a.Start
	if a.Sweep < 0 {
		d = -d
	}
	d = math.Mod(d+720+slack, 360) - slack
	return d >= -slack && d <= math.Abs(a.Sweep)+slack
}

// Char is one drawn text character: its Unicode text as MuPDF reports it,
// its box corners in raster pixels (glyph outline bounds mapped by the text
// matrix), baseline origin, em size in pixels and baseline direction in
// degrees.
type Char struct {
	Text   string
	Min    glyph.Point
	Max    glyph.Point
	Origin glyph.Point
	Size   float64
	Angle  float64
}

// Page holds the drawing primitives of one page in pixels of its 200-DPI
// raster (top-left origin, y down, CropBox and /Rotate applied). Text is kept
// apart from drawing: a character's outline never becomes a Segment or Arc.
type Page struct {
	Width, Height float64
	Styles        []Style
	Segments      []Segment
	Arcs          []Arc
	Chars         []Char
	// ImageArea is the area, in square pixels, that drawn images cover
	// inside the page and its clips, overlaps counted twice: a page
	// mostly covered is a scan (Scan).
	ImageArea float64
	// Traced marks geometry traced from a page image
	// (internal/imagevector), not drawn by CAD: its lines may break where
	// others meet them and its corners be cut, so a symbol's anchor
	// corner may be missing where the rest of it is found.
	Traced bool
}

// Scan reports whether images cover more than half the page: a scanned
// sheet (a vector title block around it or not), read from its pixels.
func (p *Page) Scan() bool {
	return p != nil && p.ImageArea > 0.5*p.Width*p.Height
}
