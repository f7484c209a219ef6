package engine

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"image"
	"image/color"
	"maps"
	"math"
	"slices"
	"strings"

	"blueprint/internal/detect"
	"blueprint/internal/glyph"
	"blueprint/internal/glyphsearch"
	"blueprint/internal/legend"
	"blueprint/internal/vector"
)

// refCut is a cut Reference: each glyph as a vector drawing (pages drawn
// as vectors) and as a raster crop (every page), the form CutReference
// returns encoded and the saved document pass keeps.
type refCut struct {
	Rows   []detect.LegendRow
	Glyphs []refGlyph
}

type refGlyph struct {
	Row   int
	Glyph glyph.Glyph // empty on an image page, or where no drawing was cut
	Crop  []byte      // gray PNG of the glyph on its page's raster; nil where none
	// Plain: the crop matches its legend table's rules or text
	// (legendPlain); it is not searched on image pages.
	Plain bool
	// Drawn: the glyph as a plan of the reference draws it
	// (detect.ReferenceGlyph.PixelsOnly).
	Drawn bool
	// Checked: the glyph's crop was searched over pages the reference
	// counts (detect.ReferenceGlyph.Checks) as image pages search it
	// (checkCrops); CheckedPage is the last page searched (the one that
	// failed, where one did), Count the row's devices the reference
	// counts there and Found the places the search found. A glyph whose
	// search does not reproduce a page's count (reproduces) is Plain:
	// the search cannot tell its instances on that drawing, so an image
	// page's count by it would be a guess (refWarnings says so).
	Checked                   bool
	CheckedPage, Count, Found int
}

// A glyph's search reproduces its page's count when it finds no fewer
// than its row's devices there and no more than its class's, each give or
// take drawnSlack places or drawnShare of the count, whichever is more.
const (
	drawnSlack = 2
	drawnShare = 0.2
)

// reproduces reports whether a search finding found places reproduces a
// page counting row devices of the glyph's row and class of its class
// (drawnSlack, drawnShare): rows of one class often draw one glyph, told
// apart by a rating printed beside it, whose search finds them all.
func reproduces(found, row, class int) bool {
	slack := func(n int) float64 { return math.Max(drawnSlack, drawnShare*float64(n)) }
	f := float64(found)
	return f >= float64(row)-slack(row) && f <= float64(max(row, class))+slack(max(row, class))
}

// refMagic starts every encoded refCut.
const refMagic = "blueprint-reference/1\n"

// CutReference cuts the glyphs of ref from its job's open document and
// returns them encoded (kilobytes), for WithReferences: on a page drawn as
// vectors the drawing wholly inside each box (legend.CutGlyph, as a search
// cuts its exemplar; not for a glyph of PixelsOnly), and on every page the
// box's pixels as a crop, which
// image pages search for. A glyph that cuts to nothing either way (a box
// around blank paper, or around more than one symbol) is left out; rows
// left without a glyph count nothing.
func (e *Engine) CutReference(ctx context.Context, doc detect.ReferenceDoc, ref detect.Reference) ([]byte, error) {
	out := refCut{Rows: ref.Rows}
	byPage := map[int][]int{}
	var pages []int
	var toCheck []pending
	tables := map[int]image.Rectangle{} // per page: its legend table, as legendExtent takes it
	for i, g := range ref.Glyphs {
		if g.Row < 0 || g.Row >= len(ref.Rows) || g.Page < 0 || g.Page >= doc.NumPages() {
			return nil, fmt.Errorf("engine: reference glyph %d: row %d or page %d out of range", i, g.Row, g.Page)
		}
		if _, ok := byPage[g.Page]; !ok {
			pages = append(pages, g.Page)
		}
		byPage[g.Page] = append(byPage[g.Page], i)
	}
	for _, p := range pages {
		pg, err := doc.Drawing(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("engine: reference page %d: %w", p, err)
		}
		img, err := doc.PageImage(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("engine: reference page %d: %w", p, err)
		}
		tables[p] = legendExtent(img, ref.Glyphs, byPage[p])
		plain, err := legendPlain(ctx, img, ref.Glyphs, byPage[p], tables[p])
		if err != nil {
			return nil, fmt.Errorf("engine: reference page %d: %w", p, err)
		}
		for _, i := range byPage[p] {
			g := ref.Glyphs[i]
			rg := refGlyph{Row: g.Row, Plain: plain[i], Drawn: g.PixelsOnly}
			var cut *legend.Cut
			if pg != nil && !pg.Scan() {
				c, err := legend.CutGlyph(pg, legend.Rect{Min: glyph.Point{X: g.Box.X, Y: g.Box.Y}, Max: glyph.Point{X: g.Box.X + g.Box.W, Y: g.Box.Y + g.Box.H}})
				switch {
				case err == nil:
					cut = &c
					if !g.PixelsOnly {
						rg.Glyph = c.Glyph
					}
				case errors.Is(err, legend.ErrCutEmpty), errors.Is(err, legend.ErrCutTooLarge):
				default:
					return nil, fmt.Errorf("engine: reference page %d: %w", p, err)
				}
			}
			r := g.Box.Pixels().Add(img.Bounds().Min)
			if !r.Intersect(img.Bounds()).Empty() {
				src := img
				if cut != nil && g.Exemplar {
					src = onlyGlyph(img, r, *cut)
				}
				encode := cropPNG
				if g.PixelsOnly {
					// searched as "find more like this" searches: in
					// its colours (imageRow.Drawn)
					encode = cropColourPNG
				}
				crop, err := encode(src, r)
				if err != nil {
					return nil, fmt.Errorf("engine: reference page %d: %w", p, err)
				}
				rg.Crop = crop
			}
			if len(rg.Glyph.Shapes) > 0 || rg.Crop != nil {
				if rg.Crop != nil && !rg.Plain && len(g.Checks) > 0 && (g.PixelsOnly || !g.Exemplar) {
					toCheck = append(toCheck, pending{cut: len(out.Glyphs), checks: g.Checks, table: tables[p], own: p})
				}
				out.Glyphs = append(out.Glyphs, rg)
			}
		}
	}
	// A legend glyph of a row that lends a plan's glyph is not searched on
	// image pages (searchedOnImages): nor is it checked.
	searched := out.searchedOnImages()
	toCheck = slices.DeleteFunc(toCheck, func(t pending) bool { return !searched[t.cut] })
	if err := checkCrops(ctx, doc, out.Glyphs, toCheck); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(refMagic)
	if err := gob.NewEncoder(&b).Encode(out); err != nil {
		return nil, fmt.Errorf("engine: encode reference: %w", err)
	}
	return b.Bytes(), nil
}

// pending is a cut glyph (out.Glyphs[cut]) to check on the pages of
// checks; table is the legend table of its own page own, whose matches
// there are the legend's, not devices.
type pending struct {
	cut    int
	checks []detect.PageCount
	table  image.Rectangle
	own    int
}

// checkCrops searches each glyph of todo over the pages of its checks as
// image pages will search it (a plan's glyph, Drawn, as find-more-like-
// this does, drawnMatches; a legend glyph as an image page's legend
// glyphs are, searchImageSizes: 0.5–3.2 times its size, a row's matches
// at one size), on its own page its legend table aside, and marks Plain
// among cuts a glyph whose matches on a page reproduce (reproduces)
// neither the row's count there nor its class's: it cannot tell its
// instances on that drawing, so an image page's count by it would be a
// guess. A page where the search finds nothing though the page counts
// the row's devices is not judged (the symbol is drawn there at another
// size or colour: an image page would count none, not a wrong number),
// but a glyph found on none of its pages is Plain too. The page that
// decided is recorded (refGlyph.Checked); a glyph is not searched further
// once it is Plain.
func checkCrops(ctx context.Context, doc detect.ReferenceDoc, cuts []refGlyph, todo []pending) error {
	byPage := map[int][]int{} // page -> indices into todo
	for k, t := range todo {
		for _, c := range t.checks {
			if c.Page < 0 || c.Page >= doc.NumPages() {
				return fmt.Errorf("engine: reference check on page %d out of range", c.Page)
			}
			byPage[c.Page] = append(byPage[c.Page], k)
		}
	}
	seen := map[int]bool{} // todo entries whose search found a place on a page checked
	for _, p := range slices.Sorted(maps.Keys(byPage)) {
		var legends []int // indices into todo, searched together
		var open []int
		for _, k := range byPage[p] {
			if !cuts[todo[k].cut].Plain {
				open = append(open, k)
			}
		}
		if len(open) == 0 {
			continue
		}
		img, err := doc.PageImage(ctx, p)
		if err != nil {
			return fmt.Errorf("engine: reference page %d: %w", p, err)
		}
		judge := func(k, found int) {
			t, c := todo[k], &cuts[todo[k].cut]
			var want detect.PageCount
			for _, pc := range t.checks {
				if pc.Page == p {
					want = pc
				}
			}
			if found == 0 && want.Count > 0 {
				// Not found at all: drawn at another size or colour on
				// this sheet (an enlarged plan), where an image page
				// would count none rather than a wrong number. Judged
				// below unless another page finds it.
				if !seen[k] {
					c.Checked, c.CheckedPage, c.Found, c.Count = true, p, 0, want.Count
				}
				return
			}
			seen[k] = true
			c.Checked, c.CheckedPage, c.Found, c.Count = true, p, found, want.Count
			// rows of one class often draw one glyph (told apart by a
			// rating printed beside it): a search finding its row's
			// devices and some of its class's others reproduces the page
			c.Plain = !reproduces(found, want.Count, want.ClassCount)
		}
		for _, k := range open {
			if !cuts[todo[k].cut].Drawn {
				legends = append(legends, k)
				continue
			}
			ms, err := drawnMatches(ctx, cuts[todo[k].cut].Crop, img)
			if err != nil {
				return fmt.Errorf("engine: reference page %d: %w", p, err)
			}
			judge(k, len(ms))
		}
		if len(legends) == 0 {
			continue
		}
		var (
			ts    []*glyphsearch.Template
			which []int // indices into todo, as ts
		)
		for _, k := range legends {
			t, err := cropTemplate(ctx, cuts[todo[k].cut].Crop)
			if err != nil {
				continue // not searched on image pages either (imageLegends.detect)
			}
			ts, which = append(ts, t), append(which, k)
		}
		if len(ts) == 0 {
			continue
		}
		page, err := glyphsearch.NewPage(ctx, img)
		if err != nil {
			return fmt.Errorf("engine: reference page %d: %w", p, err)
		}
		res, err := searchImageSizes(ctx, page, ts, true)
		if err != nil {
			return fmt.Errorf("engine: reference page %d: %w", p, err)
		}
		for j, ms := range res {
			t, n := todo[which[j]], 0
			for _, m := range glyphsearch.SameSize(ms) {
				if t.own != p || !centrePt(m.Box).In(t.table) {
					n++
				}
			}
			judge(which[j], n)
		}
	}
	for k, t := range todo {
		if c := &cuts[t.cut]; c.Checked && !seen[k] {
			c.Plain = true // found nowhere the reference counts its devices
		}
	}
	return nil
}

// legendExtent is the legend table of the legend glyphs among gs[idx] (on
// page image img), which legendPlain searches and a check leaves aside:
// their extent grown by plainReach glyph sizes each way; empty where idx
// holds none.
func legendExtent(img image.Image, gs []detect.ReferenceGlyph, idx []int) image.Rectangle {
	var (
		extent image.Rectangle
		side   int
	)
	for _, i := range idx {
		if g := gs[i]; !g.Exemplar {
			r := g.Box.Pixels().Add(img.Bounds().Min)
			extent = extent.Union(r)
			side = max(side, r.Dx(), r.Dy())
		}
	}
	if extent.Empty() {
		return extent
	}
	return extent.Inset(-plainReach * side)
}

// glyphReach is how far, in raster pixels, a pixel may lie from the cut
// glyph's drawing and still be its ink (half a heavy pen, antialiasing).
const glyphReach = 3

// onlyGlyph is img, in its colours, with the pixels of r that lie farther than glyphReach
// from the drawing of cut (legend.CutGlyph: what lies wholly inside the
// box, in the symbol's colour, and its text) painted white: a symbol cut
// from a plan without the walls, wires and hatching that cross its box,
// which a search for it would otherwise look for too. Outside r it is
// img.
func onlyGlyph(img image.Image, r image.Rectangle, cut legend.Cut) image.Image {
	r = r.Inset(-1).Intersect(img.Bounds())
	out := image.NewRGBA(r)
	keep := image.NewGray(r)
	c := glyph.Point{X: (cut.Drawn.Min.X + cut.Drawn.Max.X) / 2, Y: (cut.Drawn.Min.Y + cut.Drawn.Max.Y) / 2}
	px := func(p glyph.Point) (float64, float64) {
		return c.X + p.X*pxPerMM + float64(img.Bounds().Min.X), c.Y + p.Y*pxPerMM + float64(img.Bounds().Min.Y)
	}
	mark := func(x, y float64) {
		for dy := -glyphReach; dy <= glyphReach; dy++ {
			for dx := -glyphReach; dx <= glyphReach; dx++ {
				q := image.Pt(int(math.Round(x))+dx, int(math.Round(y))+dy)
				if q.In(r) {
					keep.Pix[keep.PixOffset(q.X, q.Y)] = 1
				}
			}
		}
	}
	for _, sh := range cut.Glyph.Shapes {
		if sh.Kind == glyph.KindText && len(sh.Pts) > 0 {
			// its extent: 0.6 of its height a character, centred on its baseline
			w := 0.6 * sh.Size * float64(len([]rune(sh.Text)))
			x0, y0 := px(glyph.Point{X: sh.Pts[0].X - w/2, Y: sh.Pts[0].Y - sh.Size})
			x1, y1 := px(glyph.Point{X: sh.Pts[0].X + w/2, Y: sh.Pts[0].Y})
			for y := y0; y <= y1; y++ {
				for x := x0; x <= x1; x++ {
					mark(x, y)
				}
			}
			continue
		}
		for _, chain := range (glyph.Glyph{Shapes: []glyph.Shape{sh}}).Polylines(0.5 / pxPerMM) {
			if sh.Fill && len(chain) > 0 {
				// a filled shape's inside is ink too: its extent
				x0, y0 := px(chain[0])
				x1, y1 := x0, y0
				for _, p := range chain[1:] {
					x, y := px(p)
					x0, y0, x1, y1 = math.Min(x0, x), math.Min(y0, y), math.Max(x1, x), math.Max(y1, y)
				}
				for y := y0; y <= y1; y++ {
					for x := x0; x <= x1; x++ {
						mark(x, y)
					}
				}
			}
			for i := range chain {
				if i == 0 {
					mark(px(chain[0]))
					continue
				}
				ax, ay := px(chain[i-1])
				bx, by := px(chain[i])
				n := int(math.Hypot(bx-ax, by-ay)) + 1
				for k := 1; k <= n; k++ {
					f := float64(k) / float64(n)
					mark(ax+f*(bx-ax), ay+f*(by-ay))
				}
			}
		}
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBA{255, 255, 255, 255}
			if keep.Pix[keep.PixOffset(x, y)] != 0 {
				c = color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			}
			out.SetRGBA(x, y, c)
		}
	}
	return out
}

// pxPerMM is raster pixels a millimetre of the page (legend.CutGlyph's
// glyph frame).
const pxPerMM = float64(detect.RenderDPI) / 25.4

// legendPlain reports, for the legend glyphs among gs[idx] (all on one
// page image img), whether each is too plain to search on an image
// (plainGlyphs, as for a legend read on an image): searched over its
// legend table, approximated by table (legendExtent: the extent of the
// page's legend glyphs grown by plainReach glyph sizes each way, the
// table's rules and the start of each row's text), it matches places
// that are no row's glyph. The result is indexed like gs; exemplars are
// never plain: a reviewer saw them counted on a plan.
func legendPlain(ctx context.Context, img image.Image, gs []detect.ReferenceGlyph, idx []int, table image.Rectangle) (map[int]bool, error) {
	out := map[int]bool{}
	var (
		rects []image.Rectangle
		which []int
	)
	for _, i := range idx {
		if g := gs[i]; !g.Exemplar {
			rects, which = append(rects, g.Box.Pixels().Add(img.Bounds().Min)), append(which, i)
		}
	}
	if len(rects) == 0 {
		return out, nil
	}
	plain, err := plainGlyphs(ctx, img, table, rects)
	if err != nil {
		return nil, err
	}
	for k, i := range which {
		out[i] = plain[k]
	}
	return out, nil
}

// plainReach is how far past its page's legend glyphs, in glyph sizes,
// legendPlain searches a glyph: far enough to take in the rules beside
// and between the rows.
const plainReach = 2

// decodeRefs decodes what CutReference returned.
func decodeRefs(cuts [][]byte) ([]refCut, error) {
	out := make([]refCut, 0, len(cuts))
	for i, c := range cuts {
		rest, ok := bytes.CutPrefix(c, []byte(refMagic))
		if !ok {
			return nil, fmt.Errorf("engine: reference %d: not a cut reference of this version", i)
		}
		var rc refCut
		if err := gob.NewDecoder(bytes.NewReader(rest)).Decode(&rc); err != nil {
			return nil, fmt.Errorf("engine: reference %d: %w", i, err)
		}
		for _, g := range rc.Glyphs {
			if g.Row < 0 || g.Row >= len(rc.Rows) {
				return nil, fmt.Errorf("engine: reference %d: glyph of row %d out of range", i, g.Row)
			}
		}
		out = append(out, rc)
	}
	return out, nil
}

// WithReferences returns the engine whose document pass joins the cut
// references (CutReference) to the document's own legends: each
// reference's rows follow the document's in DocumentInfo.Legend, their
// vector glyphs are matched on pages drawn as vectors and their crops
// searched on image pages, beside the document's own legend glyphs and
// competing with them for each place. Its saved pass (PrepareSaved) keeps
// the references, so Resume needs nothing more.
func (e *Engine) WithReferences(cuts [][]byte) (detect.DocumentEngine, error) {
	refs, err := decodeRefs(cuts)
	if err != nil {
		return nil, err
	}
	return &Referenced{e: e, refs: refs}, nil
}

// Referenced is an Engine whose document pass joins other jobs' glyphs
// (WithReferences). It is safe for concurrent use, as Engine is.
type Referenced struct {
	e    *Engine
	refs []refCut
}

// Detect is Engine.Detect: without a document pass, no legend counts.
func (r *Referenced) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	return r.e.Detect(ctx, p)
}

// Prepare is Engine.Prepare with the references joined.
func (r *Referenced) Prepare(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	eng, info, _, err := r.e.prepareSaved(ctx, doc, r.refs, false)
	return eng, info, err
}

// PrepareSaved is Engine.PrepareSaved with the references joined and
// saved.
func (r *Referenced) PrepareSaved(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, []byte, error) {
	return r.e.prepareSaved(ctx, doc, r.refs, true)
}

// Resume is Engine.Resume: the saved pass holds the references.
func (r *Referenced) Resume(ctx context.Context, state []byte) (detect.Engine, detect.DocumentInfo, error) {
	return r.e.Resume(ctx, state)
}

// searchedOnImages says, for each of rc's glyphs, whether image pages
// search its crop: a row that lends its glyph as a plan of the reference
// draws it (Drawn) is searched by that crop alone, the others by their
// legend glyph's.
func (rc refCut) searchedOnImages() []bool {
	drawn := map[int]bool{}
	for _, g := range rc.Glyphs {
		drawn[g.Row] = drawn[g.Row] || (g.Drawn && g.Crop != nil)
	}
	out := make([]bool, len(rc.Glyphs))
	for i, g := range rc.Glyphs {
		out[i] = g.Crop != nil && (g.Drawn || !drawn[g.Row])
	}
	return out
}

// refWarnings are the warnings of a document with image pages about the
// references' rows that are not searched there because their glyph, searched
// over its own page of the reference, did not find what that page counts
// (refGlyph.Checked): one per reference, naming up to maxNamedRows rows.
func refWarnings(refs []refCut) []detect.Warning {
	var out []detect.Warning
	for _, rc := range refs {
		searched := rc.searchedOnImages()
		var named []string
		n, job := 0, ""
		for i, g := range rc.Glyphs {
			if !searched[i] || !g.Checked || !g.Plain {
				continue
			}
			r := rc.Rows[g.Row]
			job = r.ReferenceJob
			n++
			if len(named) < maxNamedRows {
				named = append(named, fmt.Sprintf("%q (found %d places on page %d of the reference, which counts %d there)", r.Description, g.Found, g.CheckedPage, g.Count))
			}
		}
		if n == 0 {
			continue
		}
		more := ""
		if n > len(named) {
			more = fmt.Sprintf(" and %d more", n-len(named))
		}
		out = append(out, detect.Warning{Code: detect.WarnReferenceUnsure, Page: -1, Message: fmt.Sprintf(
			"%d rows of reference job %s are not counted on this job's image pages: searched over the reference's own page, their glyphs did not find what that page counts, so a count by them would be a guess: %s%s", n, job, strings.Join(named, "; "), more)})
	}
	return out
}

// maxNamedRows bounds the rows a warning names.
const maxNamedRows = 6

// refRow is a vector template's reference row: the class its matches
// count as and their 1-based row in DocumentInfo.Legend.
type refRow struct {
	class string
	row   int
}

// joinRefs appends the references' rows to info.Legend, their vector
// glyphs to tpls (numbered after the document's own rows, base of them,
// as de.refs records) and their crops to il's rows (il made when nil and
// a reference has a crop). It returns the templates and il.
//
// On image pages a row that lends its glyph as a plan of the reference
// draws it (refGlyph.Drawn) is searched for by that glyph alone: a
// legend draws its glyphs in cells of one height, often smaller than the
// plans do, and there the legend's crop matches line ends and corners
// the plan's own drawing of the symbol does not.
func joinRefs(refs []refCut, info *detect.DocumentInfo, tpls []vector.Template, base int, de *docEngine, il *imageLegends) ([]vector.Template, *imageLegends) {
	for _, rc := range refs {
		first := len(info.Legend)
		info.Legend = append(info.Legend, rc.Rows...)
		searched := rc.searchedOnImages()
		for i, g := range rc.Glyphs {
			row := first + g.Row + 1
			class := rc.Rows[g.Row].Class
			if len(g.Glyph.Shapes) > 0 {
				de.refs = append(de.refs, refRow{class: class, row: row})
				t := vector.Template{Class: class, Glyph: g.Glyph, Row: base + len(de.refs), Priority: 1, MinScale: legendMinScale, MaxScale: legendMaxScale, OptionalStubs: true, Stretch: true}
				if g.Glyph.Weak() {
					t.MinScale, t.MaxScale = weakMinScale, weakMaxScale
				}
				tpls = append(tpls, t)
			}
			if searched[i] {
				if il == nil {
					il = &imageLegends{Tables: map[int][]image.Rectangle{}, Kinds: map[int]string{}}
				}
				info := rc.Rows[g.Row]
				il.Rows = append(il.Rows, imageRow{Info: info, Crop: g.Crop, Plain: g.Plain, Drawn: g.Drawn, ref: true, row: row})
			}
		}
	}
	return tpls, il
}
