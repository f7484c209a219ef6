package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"sort"
	"strings"

	"blueprint/internal/detect"
	"blueprint/internal/glyphsearch"
	"blueprint/internal/imagelegend"
	"blueprint/internal/search"
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
	// Plain says the glyph matches its own legend table's rules or text
	// (plainGlyphs): it is not searched.
	Plain bool
	// Drawn: Crop is the glyph as a plan of the reference draws it, in
	// its colours (refGlyph.Drawn), searched for as "find more like this"
	// searches (drawnMatches).
	Drawn bool
	// row is the 1-based index into DocumentInfo.Legend (prepared sets it).
	row int
	// ref: the row is another job's (joinRefs): its glyph is Crop alone,
	// Glyph and Info.PageIndex are not of this document.
	ref bool
}

// imageLegends are the legends read on a document's image pages: scans
// inside a PDF and image uploads.
type imageLegends struct {
	Rows   []imageRow
	Tables map[int][]image.Rectangle // per page: the tables, whose glyphs are not instances
	// Kinds are the image pages read as text sheets (detect.KindLegend
	// where a legend table is on it, else detect.KindSchedule: notes,
	// schedules) and the drawings whose title names a kind not counted
	// (a riser, a single-line diagram). Their symbols are not counted, as
	// on PDF pages.
	Kinds map[int]string
}

// readImageLegends reads the legends on the document's image pages (pages
// without a drawing, or drawn as one scanned image), and which of them are
// text sheets. It returns nil when the engine has no OCR, no page is an
// image, or no legend and no text sheet is found there.
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
		read, err := e.images.Find(ctx, p.Raster)
		if err != nil {
			return nil, fmt.Errorf("engine: legend on page %d: %w", i, err)
		}
		titled := read.Kind != "" && !detect.Counted(read.Kind)
		if out == nil && (read.Text || titled || len(read.Tables) > 0) {
			out = &imageLegends{Tables: map[int][]image.Rectangle{}, Kinds: map[int]string{}}
		}
		switch {
		case read.Text && len(read.Tables) > 0:
			out.Kinds[i] = detect.KindLegend
		case read.Text:
			out.Kinds[i] = detect.KindSchedule
		case titled:
			// a riser, single-line diagram or schedule by its title: it
			// repeats devices installed elsewhere
			out.Kinds[i] = read.Kind
		}
		for _, t := range read.Tables {
			out.Tables[i] = append(out.Tables[i], t.Box)
			glyphs := make([]image.Rectangle, len(t.Rows))
			for k, r := range t.Rows {
				glyphs[k] = r.Glyph
			}
			plain, err := plainGlyphs(ctx, p.Raster, t.Box, glyphs)
			if err != nil {
				return nil, fmt.Errorf("engine: legend on page %d: %w", i, err)
			}
			for k, r := range t.Rows {
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
					Glyph: r.Glyph, Crop: crop, Plain: plain[k],
				})
			}
		}
	}
	return out, nil
}

// cropColourPNG encodes the rectangle r of img (grown by a pixel of
// margin) as a PNG in its colours.
func cropColourPNG(img image.Image, r image.Rectangle) ([]byte, error) {
	r = r.Inset(-1).Intersect(img.Bounds())
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			out.Set(x, y, img.At(r.Min.X+x, r.Min.Y+y))
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, out); err != nil {
		return nil, fmt.Errorf("glyph crop: %w", err)
	}
	return b.Bytes(), nil
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

// imageMinScale and imageMaxScale bound the sizes, relative to a legend's
// glyph, its instances on an image page are searched at. Legends draw every glyph in
// a cell of one height, while plans draw each symbol at its own size: on
// the two development sets the vector matcher's instances are 1.3–1.7
// times their legend glyph (US fire alarm) and 0.75–2.5 times (South
// African electrical); generated scanned legends put a motion sensor at
// 0.65 of its glyph. Two ranges meet at the search's default largest
// size, each searched on its own level of the page.
const (
	imageMinScale = 0.5
	imageMaxScale = 3.2
)

// imageMinScore is the least glyph-search score an instance of a legend
// glyph is counted at.
const imageMinScore = glyphsearch.DefaultMinScore

// detect finds the legend glyphs on an image page: every row's glyph is
// searched over the page (glyphsearch: any angle, mirrored, 0.5–3.2× the
// legend's size, elongated glyphs stretched); a place two rows' glyphs
// both match goes to the better match, a row keeps its instances at one
// size, and nothing inside a legend table counts. Rows naming no catalog
// class claim their instances and report none.
func (l *imageLegends) detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	page, err := glyphsearch.NewPage(ctx, p.Raster)
	if err != nil {
		return nil, fmt.Errorf("engine: page %d: %w", p.Index, err)
	}
	type found struct {
		m      glyphsearch.Match
		row    imageRow
		search int // index into ts
	}
	// compete keeps, of matches best first, those whose place no better
	// match (of any row) holds.
	compete := func(all []found) []found {
		var kept []found
		for _, f := range all {
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
		return kept
	}
	var (
		ts   []*glyphsearch.Template
		rows []imageRow
	)
	seen := map[string]bool{} // one search per glyph drawn on a page and place
	var drawn []imageRow      // searched as "find more like this" searches
	for _, r := range l.Rows {
		if r.Plain {
			continue
		}
		if r.Drawn {
			if !seen[string(r.Crop)] {
				seen[string(r.Crop)] = true
				drawn = append(drawn, r)
			}
			continue
		}
		key := fmt.Sprint(r.Info.PageIndex, r.Glyph)
		if r.ref {
			key = string(r.Crop) // the same glyph cut twice is searched once
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		var t *glyphsearch.Template
		if r.Info.PageIndex == p.Index && !r.ref {
			t, err = page.Template(r.Glyph)
		} else {
			t, err = cropTemplate(ctx, r.Crop)
		}
		if err != nil {
			continue // a glyph too small or empty to search for
		}
		ts, rows = append(ts, t), append(rows, r)
	}
	// The rows' glyphs are searched together (they share the pass over
	// the page that proposes places), over each range of sizes; a row's
	// instances on a page share one size.
	perRow, err := searchImageSizes(ctx, page, ts, true)
	if err != nil {
		return nil, fmt.Errorf("engine: page %d: legend glyphs: %w", p.Index, err)
	}
	// Nothing inside a legend table counts, nor sets a row's size (its
	// own glyph there is drawn at the legend's).
	inTable := func(b detect.Box) bool { return l.inTable(p.Index, centrePt(b)) }
	var all []found
	for i, ms := range perRow {
		for _, m := range ms {
			if !inTable(m.Box) {
				all = append(all, found{m, rows[i], i})
			}
		}
	}
	for k, r := range drawn {
		ms, err := drawnMatches(ctx, r.Crop, p.Raster)
		if err != nil {
			return nil, fmt.Errorf("engine: page %d: legend row %d as drawn: %w", p.Index, r.row, err)
		}
		for _, m := range ms {
			if !inTable(m.Box) {
				all = append(all, found{m, r, len(ts) + k})
			}
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].m.Score > all[b].m.Score })
	kept := compete(all)
	// A row's instances on a page share one size: what it kept at
	// another size is a look-alike (a corner of a larger glyph, a circle
	// of another symbol). Those are dropped and the places decided again.
	byRow := map[int][]glyphsearch.Match{}
	for _, f := range kept {
		byRow[f.search] = append(byRow[f.search], f.m)
	}
	drop := map[glyphsearch.Match]bool{}
	for _, ms := range byRow {
		same := map[glyphsearch.Match]bool{}
		for _, m := range glyphsearch.SameSize(ms) {
			same[m] = true
		}
		for _, m := range ms {
			if !same[m] {
				drop[m] = true
			}
		}
	}
	if len(drop) > 0 {
		all = slices.DeleteFunc(all, func(f found) bool { return drop[f.m] })
		kept = compete(all)
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

// inTable reports whether pt lies in a legend table read on image page
// page; a nil l has none.
func (l *imageLegends) inTable(page int, pt image.Point) bool {
	if l == nil {
		return false
	}
	for _, t := range l.Tables[page] {
		if pt.In(t) {
			return true
		}
	}
	return false
}

// cropTemplate is the glyph search's template of a glyph crop (cropPNG):
// an error for a crop that does not decode or is too small or empty to
// search for.
func cropTemplate(ctx context.Context, crop []byte) (*glyphsearch.Template, error) {
	img, err := png.Decode(bytes.NewReader(crop))
	if err != nil {
		return nil, fmt.Errorf("glyph crop: %w", err)
	}
	return glyphsearch.TemplateFromImage(ctx, img)
}

// drawnMatches finds on page the glyph crop shows as a plan draws it (a
// reference's Drawn glyph), as "find more like this" finds a box's
// drawing on an image page (search.Images, measured on the development
// sets' 200-DPI renders): near the crop's size, a glyph drawn in colour
// in the page's coloured ink. A crop too small or empty to search finds
// nothing. Each match's Scale is 1: the search keeps only matches near
// the crop's size, so a row's matches need no size of their own.
func drawnMatches(ctx context.Context, crop []byte, page image.Image) ([]glyphsearch.Match, error) {
	img, err := png.Decode(bytes.NewReader(crop))
	if err != nil {
		return nil, fmt.Errorf("glyph crop: %w", err)
	}
	b := img.Bounds()
	// A drawn glyph read for the take-off keeps the glyph search's ring
	// level, as legend glyphs do (search.ImageRingMaxRadius's 32 px lost
	// counts: cp4's speakers 4 -> 3, building2's linear fittings 33 -> 35),
	// and is a crop: its colour is told from all its ink (told also from
	// the ink lying inside it, building2's luminaires were counted 93
	// instead of 56, truth 36).
	s := search.Images{Options: glyphsearch.Options{RingMaxRadius: glyphsearch.DefaultRingMaxRadius}, Crop: true}
	q, err := s.Prepare(ctx, img, detect.Box{X: 0, Y: 0, W: float64(b.Dx()), H: float64(b.Dy())}, nil)
	if errors.Is(err, search.ErrEmptyRegion) || errors.Is(err, search.ErrRegionTooLarge) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := q.Find(ctx, page)
	if err != nil {
		return nil, err
	}
	o := page.Bounds().Min
	out := make([]glyphsearch.Match, 0, len(res.Matches))
	for _, m := range res.Matches {
		box := m.Box
		box.X, box.Y = box.X+float64(o.X), box.Y+float64(o.Y)
		out = append(out, glyphsearch.Match{Box: box, Score: m.Score, Scale: 1, Stretch: 1})
	}
	return out, nil
}

// imageSettleMatches is how many strong matches (glyphsearch.SizeOf) in
// the smaller range of sizes settle a row's size on a page: a row's
// instances on a page share one size (detect keeps only those at it,
// glyphsearch.SameSize), so when three or more strong matches put that
// size more than SizeTolerance under the larger range, a match there
// would be dropped and the larger range is not searched. A median of
// three is not moved by one look-alike.
const imageSettleMatches = 3

// searchImageSizes searches the legend glyphs ts together over page at
// every size their instances are looked for on an image page (the two
// ranges, each on its own level of the page), keeping matches from
// imageMinScore; it returns each glyph's matches. With settle, a glyph
// whose matches in the smaller range settle its size below the larger
// range (imageSettleMatches) is not searched in the larger one: on an
// A1 sheet each range's search is minutes of CPU.
func searchImageSizes(ctx context.Context, page *glyphsearch.Page, ts []*glyphsearch.Template, settle bool) ([][]glyphsearch.Match, error) {
	out := make([][]glyphsearch.Match, len(ts))
	ranges := [...][2]float64{{imageMinScale, glyphsearch.DefaultMaxScale}, {glyphsearch.DefaultMaxScale, imageMaxScale}}
	idx := make([]int, len(ts)) // the glyphs searched in this range: indices into ts
	for i := range idx {
		idx[i] = i
	}
	for k, sr := range ranges {
		sub := make([]*glyphsearch.Template, len(idx))
		for j, i := range idx {
			sub[j] = ts[i]
		}
		res, err := page.SearchAll(ctx, sub, glyphsearch.Options{MinScale: sr[0], MaxScale: sr[1], MinScore: imageMinScore})
		if err != nil {
			return nil, err
		}
		for j, ms := range res {
			out[idx[j]] = append(out[idx[j]], ms...)
		}
		if !settle || k+1 == len(ranges) {
			continue
		}
		next := ranges[k+1][0]
		idx = slices.DeleteFunc(idx, func(i int) bool {
			size, n := glyphsearch.SizeOf(out[i])
			return n >= imageSettleMatches && size*glyphsearch.SizeTolerance < next
		})
	}
	return out, nil
}

// centrePt returns the pixel holding b's centre.
func centrePt(b detect.Box) image.Point {
	return image.Pt(int(b.X+b.W/2), int(b.Y+b.H/2))
}

// plainMatches is the number of places, on its own legend table, that are
// no row's glyph, from which a glyph is too plain to search: one may be
// chance (a glyph drawn again in a note), two are rules or text.
const plainMatches = 2

// plainGlyphs reports, for each glyph of a legend table read on page
// image img (its box table), whether the glyph is too plain to count on a
// drawing: searched over the table as over a plan (any pose, the same
// sizes and floor), it matches plainMatches places or more that lie in no
// row's glyph. A filled triangle 11 pixels high (the South African set's
// distribution board at 200 DPI) matches the ends and corners of the
// table's rules there, as it matches the ends of walls and lines on the
// plans, hundreds of times; the US fire-alarm set's glyphs match only
// themselves and the rows drawn alike.
func plainGlyphs(ctx context.Context, img image.Image, table image.Rectangle, glyphs []image.Rectangle) ([]bool, error) {
	plain := make([]bool, len(glyphs))
	region := table.Intersect(img.Bounds())
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok || region.Empty() {
		return plain, nil
	}
	page, err := glyphsearch.NewPage(ctx, sub.SubImage(region))
	if err != nil {
		return plain, nil // a table too small to search
	}
	var (
		ts  []*glyphsearch.Template
		idx []int
	)
	for i, g := range glyphs {
		t, err := page.Template(g)
		if err != nil {
			continue // not searched on the plans either
		}
		ts, idx = append(ts, t), append(idx, i)
	}
	inGlyph := func(b detect.Box) bool {
		c := centrePt(b)
		for _, g := range glyphs {
			if c.In(g.Inset(-2)) {
				return true
			}
		}
		return false
	}
	res, err := searchImageSizes(ctx, page, ts, false)
	if err != nil {
		return nil, fmt.Errorf("glyphs of the table at %v: %w", table, err)
	}
	stray := make([]int, len(ts))
	for k, ms := range res {
		for _, m := range ms {
			if !inGlyph(m.Box) {
				stray[k]++
			}
		}
	}
	for k, n := range stray {
		plain[idx[k]] = n >= plainMatches
	}
	return plain, nil
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
