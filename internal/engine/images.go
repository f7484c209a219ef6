package engine

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"sort"
	"strings"

	"blueprint/internal/detect"
	"blueprint/internal/glyphsearch"
	"blueprint/internal/imagelegend"
)

// pager renders a document's pages (document.Document does): the engine
// reads legends on image pages in the document pass through it.
type pager interface {
	Page(ctx context.Context, i int) (detect.Page, error)
}

// imageRow is a legend row read on an image page, with what searching
// for its glyph needs. Its fields are exported for the saved document
// pass (PrepareSaved).
type imageRow struct {
	Info  detect.LegendRow
	Glyph image.Rectangle // on its page
	Crop  []byte          // the glyph cut from its page (PNG), searched on other pages
	// row is the 1-based index into DocumentInfo.Legend (prepared sets it).
	row int
}

// imageLegends are the legends read on a document's image pages: scans
// inside a PDF and image uploads.
type imageLegends struct {
	Rows   []imageRow
	Tables map[int][]image.Rectangle // per page: the tables, whose glyphs are not instances
}

// readImageLegends reads the legends on the document's image pages (pages
// without a drawing, or drawn as one scanned image). It returns nil when
// the engine has no OCR, no page is an image or no legend is found there.
func (e *Engine) readImageLegends(ctx context.Context, doc detect.Drawings) (*imageLegends, error) {
	pg, ok := doc.(pager)
	if !ok || e.images == nil {
		return nil, nil
	}
	var out *imageLegends
	for i := range doc.NumPages() {
		d, err := doc.Drawing(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("engine: page %d: %w", i, err)
		}
		if d != nil && !d.Scan() {
			continue // drawn as vectors: read by package legend
		}
		p, err := pg.Page(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("engine: page %d: %w", i, err)
		}
		if p.Raster == nil {
			continue
		}
		tables, err := e.images.Find(ctx, p.Raster)
		if err != nil {
			return nil, fmt.Errorf("engine: legend on page %d: %w", i, err)
		}
		for _, t := range tables {
			if out == nil {
				out = &imageLegends{Tables: map[int][]image.Rectangle{}}
			}
			out.Tables[i] = append(out.Tables[i], t.Box)
			for _, r := range t.Rows {
				class := r.Class
				if _, ok := e.cat.Model(class); !ok {
					class = ""
				}
				crop, err := cropPNG(p.Raster, r.Glyph)
				if err != nil {
					return nil, fmt.Errorf("engine: legend on page %d: %w", i, err)
				}
				out.Rows = append(out.Rows, imageRow{
					Info:  detect.LegendRow{PageIndex: i, Description: r.Description, Class: class, Quantity: r.Quantity, Tag: strings.Join(r.Tags, " "), GlyphBox: detect.RectBox(r.Glyph)},
					Glyph: r.Glyph, Crop: crop,
				})
			}
		}
	}
	return out, nil
}

// cropPNG encodes the rectangle r of img (grown by a pixel of margin) as
// a gray PNG.
func cropPNG(img image.Image, r image.Rectangle) ([]byte, error) {
	r = r.Inset(-1).Intersect(img.Bounds())
	out := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			out.Pix[y*out.Stride+x] = color.GrayModel.Convert(img.At(r.Min.X+x, r.Min.Y+y)).(color.Gray).Y
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, out); err != nil {
		return nil, fmt.Errorf("glyph crop: %w", err)
	}
	return b.Bytes(), nil
}

// imageMinScore is the least glyph-search score an instance of a legend
// glyph is counted at.
const imageMinScore = glyphsearch.DefaultMinScore

// detect finds the legend glyphs on an image page: every row's glyph is
// searched over the page (glyphsearch: any angle, mirrored, 0.7–1.5× the
// legend's size, elongated glyphs stretched); a place two rows' glyphs
// both match goes to the better match, and nothing inside a legend table
// counts. Rows naming no catalog class claim their instances and report
// none.
func (l *imageLegends) detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	page, err := glyphsearch.NewPage(ctx, p.Raster)
	if err != nil {
		return nil, fmt.Errorf("engine: page %d: %w", p.Index, err)
	}
	type found struct {
		m   glyphsearch.Match
		row imageRow
	}
	var (
		ts   []*glyphsearch.Template
		rows []imageRow
	)
	seen := map[string]bool{} // one search per glyph drawn on a page and place
	for _, r := range l.Rows {
		key := fmt.Sprint(r.Info.PageIndex, r.Glyph)
		if seen[key] {
			continue
		}
		seen[key] = true
		var t *glyphsearch.Template
		if r.Info.PageIndex == p.Index {
			t, err = page.Template(r.Glyph)
		} else {
			var crop image.Image
			if crop, err = png.Decode(bytes.NewReader(r.Crop)); err == nil {
				t, err = glyphsearch.TemplateFromImage(ctx, crop)
			}
		}
		if err != nil {
			continue // a glyph too small or empty to search for
		}
		ts, rows = append(ts, t), append(rows, r)
	}
	// The rows' glyphs are searched together: they share the pass over
	// the page that proposes places.
	res, err := page.SearchAll(ctx, ts, glyphsearch.Options{MinScore: imageMinScore})
	if err != nil {
		return nil, fmt.Errorf("engine: page %d: legend glyphs: %w", p.Index, err)
	}
	var all []found
	for i, ms := range res {
		for _, m := range ms {
			all = append(all, found{m, rows[i]})
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].m.Score > all[b].m.Score })
	var kept []found
	for _, f := range all {
		c := image.Pt(int(f.m.Box.X+f.m.Box.W/2), int(f.m.Box.Y+f.m.Box.H/2))
		inTable := false
		for _, t := range l.Tables[p.Index] {
			if c.In(t) {
				inTable = true
			}
		}
		if inTable {
			continue
		}
		clash := false
		for _, k := range kept {
			if f.m.Box.IoU(k.m.Box) > 0.3 || centreIn(f.m.Box, k.m.Box) || centreIn(k.m.Box, f.m.Box) {
				clash = true
				break
			}
		}
		if !clash {
			kept = append(kept, f)
		}
	}
	out := make([]detect.Detection, 0, len(kept))
	for _, f := range kept {
		if f.row.Info.Class == "" {
			continue
		}
		out = append(out, detect.Detection{
			Class: f.row.Info.Class, Confidence: math.Min(1, f.m.Score), Box: f.m.Box,
			Source: detect.Source{Detector: true}, LegendRow: f.row.row,
		})
	}
	return out, nil
}

// newImageReader returns the legend reader for image pages, nil when the
// engine has no OCR.
func newImageReader(opt Options, e *Engine) *imagelegend.Reader {
	if opt.OCR == nil {
		return nil
	}
	return &imagelegend.Reader{OCR: opt.OCR, Vocab: e.vocab}
}

// isImagePage reports whether p is read as an image: an image upload, or a
// PDF page drawn as one scanned image.
func isImagePage(ctx context.Context, p detect.Page) (bool, error) {
	if p.PDF == nil {
		return true, nil
	}
	pg, err := p.PDF.Drawing(ctx)
	if err != nil {
		return false, err
	}
	return pg.Scan(), nil
}
