package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"blueprint/internal/detect"
	"blueprint/internal/legend"
)

// Explanation is what Prepare learned about a document and why, for a
// person diagnosing a drawing (`blueprint explain`).
type Explanation struct {
	// Document is the document pass's reading, as Prepare used it.
	Document *legend.Document
	// Legend says why it read each page as it did.
	Legend *legend.Explanation
	// Classes are the rows' classes as the engine reports them: the
	// reading's, "" where the catalog has no such class.
	Classes []string
	// Templates are the templates Prepare made of the legend's glyphs,
	// beside CatalogTemplates templates of the catalog's own glyphs.
	Templates        []LegendTemplate
	CatalogTemplates int
	// CatalogOnUnread is how many of the catalog's templates are searched
	// on the pages in UnreadPages (text not read from a text layer, in a
	// job with legend rows): those of classes a legend row names; -1 where
	// every catalog template is searched on every page.
	CatalogOnUnread int
	UnreadPages     []int
	// LegendGlyphs is the number of the legend's glyphs (one per glyph)
	// that name a class, OwnSymbols how many of those are not the
	// catalog's symbol of their class; OwnStyle: the legend draws its own
	// symbols, so on every page only the catalog templates of classes
	// whose legend glyph is the catalog's (CatalogOnUnread) are searched.
	LegendGlyphs, OwnSymbols int
	OwnStyle                 bool
	// LineTypes are the rows (0-based) whose glyph is not searched: their
	// text names a line type (a cable, a conduit), and a line's sample
	// would match every wire.
	LineTypes []int
	// ImageLegends says whether legends on image pages are read (with
	// OCR: BLUEPRINT_IMAGE_LEGENDS); ImageRows are the rows read there,
	// which follow Document's in DocumentInfo.Legend.
	ImageLegends bool
	ImageRows    []detect.LegendRow
}

// imageLegendsOff says why an image page's legends were not read.
const imageLegendsOff = "legends on images are off: BLUEPRINT_IMAGE_LEGENDS=on (with Tesseract installed) reads the legend tables of image and scanned pages and searches their glyphs (docs/raster.md, \"Legends on images\")"

// LegendTemplate is a template Prepare made of a legend row's glyph.
type LegendTemplate struct {
	Row int // index into Document.Rows of the row whose glyph it is
	// Rows are the rows its matches may go to (Document.Assign): Row,
	// rows drawing the same glyph, told apart by their tags, and the same
	// row on later sheets.
	Rows []int
	// Class is what its matches count as; "" for a row that names no
	// class, whose matches only keep catalog glyphs off its symbols.
	Class string
	// MinScale and MaxScale bound the sizes searched, relative to the
	// legend's drawing.
	MinScale, MaxScale float64
}

// Explain is Prepare, also returning an Explanation of the document pass:
// the engine and DocumentInfo it returns are Prepare's. It reads every
// page's drawing once more than Prepare.
func (e *Engine) Explain(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, *Explanation, error) {
	if e.trace {
		// Image pages explained as Prepare reads them: traced.
		if td := traceDoc(doc, e.outlines); td != nil {
			doc = td
		}
	}
	eng, info, err := e.Prepare(ctx, doc)
	if err != nil {
		return nil, info, nil, err
	}
	f, ok := eng.(*fused)
	if !ok {
		return nil, info, nil, errors.New("engine: explain: Prepare returned an engine of another kind")
	}
	de, ok := f.vector.(*docEngine)
	if !ok {
		return nil, info, nil, errors.New("engine: explain: Prepare returned a matcher of another kind")
	}
	lx, err := legend.Explain(ctx, doc, e.vocab, de.doc)
	if err != nil {
		return nil, info, nil, fmt.Errorf("engine: explain: %w", err)
	}
	x := &Explanation{Document: de.doc, Legend: lx, Classes: de.classes, CatalogTemplates: len(e.catalog), CatalogOnUnread: -1, ImageLegends: e.images != nil}
	x.LegendGlyphs, x.OwnSymbols, x.OwnStyle = de.legendRows, de.ownSymbols, de.ownStyle()
	if de.mNamed != nil {
		x.CatalogOnUnread = 0
		for _, t := range e.catalog {
			if de.catalogKept[t.Class] {
				x.CatalogOnUnread++
			}
		}
		for p := range de.unread {
			x.UnreadPages = append(x.UnreadPages, p)
		}
		slices.Sort(x.UnreadPages)
	}
	if f.images != nil {
		for _, r := range f.images.Rows {
			x.ImageRows = append(x.ImageRows, r.Info)
		}
	}
	// Image pages: their legends are the engine's to read (or not).
	for i := range lx.Pages {
		p := &lx.Pages[i]
		switch {
		case !p.Image:
		case !x.ImageLegends && p.Searched:
			p.SearchReason += "; as an image, not read: " + imageLegendsOff
		case !x.ImageLegends:
			p.SearchReason = "an image page, and " + imageLegendsOff
		default:
			n := 0
			if f.images != nil {
				n = len(f.images.Tables[i])
			}
			read := "read as an image with OCR (legends on images on): no legend table found"
			if n > 0 {
				read = fmt.Sprintf("read as an image with OCR (legends on images on): legend tables found: %d", n)
			}
			if p.Searched {
				p.SearchReason += "; " + read
			} else {
				p.Searched, p.SearchReason = true, "an image page, "+read
			}
		}
	}
	// As Prepare makes them.
	for _, l := range de.doc.Leaders() {
		if de.doc.Rows[l].LineType {
			x.LineTypes = append(x.LineTypes, l)
			continue
		}
		t := LegendTemplate{Row: l, Class: de.classes[l], MinScale: legendMinScale, MaxScale: legendMaxScale}
		if de.doc.Rows[l].Glyph.Weak() {
			t.MinScale, t.MaxScale = weakMinScale, weakMaxScale
		}
		for i := range de.doc.Rows {
			if de.doc.TemplateRow(i) == l {
				t.Rows = append(t.Rows, i)
			}
		}
		x.Templates = append(x.Templates, t)
	}
	return eng, info, x, nil
}
