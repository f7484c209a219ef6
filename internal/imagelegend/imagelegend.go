// Package imagelegend reads legend tables on page images (scans, photos,
// PNG and JPEG uploads): it finds the column of glyphs with a description
// beside each, cuts out each glyph's box, and reads each row's text by OCR
// (internal/ocr) for the same vocabulary as PDF legends (internal/legend):
// description, tags beside the glyph, and the printed quantity.
//
// Finding works on the ink alone, so that OCR (the slow part) reads only
// the candidate tables: the page is binarised with a local threshold, its
// connected pieces of ink labelled, pieces of the page's text size chained
// into text lines, and a legend row is a text line with a glyph-sized
// piece of non-text ink to its left; rows whose glyphs and text starts
// line up make a table. docs/raster.md, "Legends on images", says more.
package imagelegend

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	xdraw "golang.org/x/image/draw"

	"blueprint/internal/legend"
	"blueprint/internal/ocr"
	"blueprint/internal/unionfind"
)

// Row is one legend row read from an image.
type Row struct {
	Description string
	// Class is what the vocabulary maps the description to ("" when it
	// names no class or matched a rule for a device without one); Mapped
	// says whether any vocabulary rule matched.
	Class  string
	Mapped bool
	// Tags are words written between the glyph and the description
	// ("15CD", "135°").
	Tags []string
	// Quantity is the printed quantity, nil when the table has no
	// quantity column or the row's cell is empty.
	Quantity *int
	// Glyph is the box of the row's glyph on the page, in the image's
	// pixels; Box the row's extent (glyph, tags, description).
	Glyph image.Rectangle
	Box   image.Rectangle
}

// Table is one legend table found on an image.
type Table struct {
	Box  image.Rectangle
	Rows []Row
}

// Reader finds and reads legend tables on images.
type Reader struct {
	OCR   *ocr.Reader
	Vocab *legend.Vocabulary
}

// Layout parameters, in text heights (H: the median height of the page's
// character-sized pieces of ink).
const (
	// maxGlyphGap: the glyph ends at most this far left of its text;
	// farGlyphGap where nothing else stands between them (a ruled
	// table's description centred in a wide column).
	maxGlyphGap = 12.0
	farGlyphGap = 30.0
	// wordGap: characters of one text line lie at most this far apart.
	wordGap = 1.1
	// glyphJoin: pieces of one glyph lie at most this far apart.
	glyphJoin = 0.3
	// bandJoin: pieces spanning the same rows (within bandSlack pixels)
	// join up to this share of their height apart.
	bandJoin  = 0.5
	bandSlack = 2
	// maxPitch: rows of one table lie at most this far apart.
	maxPitch = 6.0
	// align: glyph centres (and text starts) of one column agree within
	// this.
	align = 2.0
	// minRows is the fewest rows a table has.
	minRows = 2
	// colGap: words further apart than this belong to different columns.
	colGap = 2.5
	// textStrokes: ink runs a text height along the middle of a line of
	// letters run together (a glyph outline has two across its width).
	textStrokes = 1.2
)

// Glyph size range, in text heights.
const (
	minGlyphH, maxGlyphH = 0.7, 6.0
	minGlyphW, maxGlyphW = 0.6, 12.0
)

// Page is what Find learns of a page image.
type Page struct {
	// Tables are its legend tables with their rows read.
	Tables []Table
	// Text says the page is mostly text (notes, schedules, a title or
	// legend sheet) rather than a drawing: at least textInk as much of
	// its ink lies in character-sized pieces as in the other pieces.
	Text bool
	// Kind is the kind of sheet its title names (legend.TitleKind: the
	// tallest line of large type that names one), "" when none does.
	Kind string
}

// textInk: a page whose ink in character-sized pieces is at least this
// share of its ink in other pieces is a text sheet. Measured at 200 DPI:
// the plans of both development sets and a generated scanned plan 0.14–0.28,
// the US set's notes-and-legend sheet 0.73 and its schedule 1.51.
const textInk = 0.5

// Find returns the legend tables of img with their rows read, and whether
// the page is a text sheet. Tables none of whose rows the vocabulary maps,
// and that have no legend header, are left out. It fails only when OCR
// fails.
func (r *Reader) Find(ctx context.Context, img image.Image) (Page, error) {
	origin := img.Bounds().Min
	g := grayOf(img)
	m := binarise(g)
	cs := components(m)
	h := textHeight(cs)
	if h == 0 {
		return Page{}, nil
	}
	page := Page{Text: textSheet(cs, h)}
	if !page.Text {
		kind, err := r.titleKind(ctx, g, cs, h)
		if err != nil {
			return Page{}, err
		}
		page.Kind = kind
	}
	lay := layout(cs, h, m)
	for _, col := range lay.columns() {
		t, ok, err := r.read(ctx, g, lay, col)
		if err != nil {
			return Page{}, err
		}
		if !ok {
			continue
		}
		t.Box = t.Box.Add(origin)
		for i := range t.Rows {
			t.Rows[i].Glyph = t.Rows[i].Glyph.Add(origin)
			t.Rows[i].Box = t.Rows[i].Box.Add(origin)
		}
		page.Tables = append(page.Tables, t)
	}
	return page, nil
}

// Titles: lines of large type, letters minTitleH to maxTitleH text
// heights high, at least minTitleChars of them; at most maxTitles of the
// tallest are read.
const (
	minTitleH, maxTitleH = 1.6, 8.0
	minTitleChars        = 4
	maxTitles            = 8
)

// titleKind reads the page's lines of large type (sheet titles: "RISER
// DETAIL", "FIRST FLOOR PLAN"), tallest first, and returns the kind the
// tallest one naming a kind of sheet names (legend.TitleKind), "" when
// none does. Titles turned on their side (a title block's edge) are not
// read.
func (r *Reader) titleKind(ctx context.Context, g *image.Gray, cs []component, h float64) (string, error) {
	var big []image.Rectangle
	var hs []int
	for _, c := range cs {
		ch := float64(c.box.Dy())
		if ch >= minTitleH*h && ch <= maxTitleH*h && c.box.Dx() <= int(maxLetterW*ch) && float64(c.area) >= 0.12*float64(c.box.Dx()*c.box.Dy()) {
			big = append(big, c.box)
			hs = append(hs, c.box.Dy())
		}
	}
	if len(big) < minTitleChars {
		return "", nil
	}
	slices.Sort(hs)
	lines := chainLines(big, float64(hs[len(hs)/2]))
	lines = slices.DeleteFunc(lines, func(l textLine) bool { return l.chars < minTitleChars })
	sort.Slice(lines, func(a, b int) bool { return lines[a].box.Dy() > lines[b].box.Dy() })
	for _, l := range lines[:min(len(lines), maxTitles)] {
		pad := l.box.Dy() / 4
		read, err := r.OCR.Lines(ctx, g.SubImage(l.box.Inset(-pad).Intersect(g.Rect)), ocr.SingleLine)
		if err != nil {
			return "", fmt.Errorf("imagelegend: read title at %v: %w", l.box, err)
		}
		for _, rl := range read {
			if k, ok := legend.TitleKind(rl.Text()); ok {
				return k, nil
			}
		}
	}
	return "", nil
}

// textSheet reports whether the ink of pieces cs (text height h) lies
// mostly in character-sized pieces (see textInk); specks are left out.
func textSheet(cs []component, h float64) bool {
	var chars, other int
	for _, c := range cs {
		switch {
		case letterHigh(c.box, h) && float64(c.box.Dx()) <= maxLetterW*h:
			chars += c.area
		case !speck(c.box, h):
			other += c.area
		}
	}
	return float64(chars) >= textInk*float64(other) && chars > 0
}

// Character pieces, in text heights: a letter is 0.45–1.6 high and at
// most maxLetterW wide (wider only when letters run together); a piece
// under speckSize in both directions is a speck or dot.
const (
	minLetterH, maxLetterH = 0.45, 1.6
	// smallMinH: the least height of a letter in small type (tags,
	// ratings), in text heights.
	smallMinH = 0.25
	// smallMinChars: the fewest characters of a line in small type (a
	// rating, "15CD 0.25W"; the two or three letters of an abbreviation
	// inside a symbol, "AIM", stay with their glyph).
	smallMinChars = 4
	maxLetterW    = 2.2
	speckSize     = 0.3
)

// letterHigh reports whether r is as high as a letter of text height h.
func letterHigh(r image.Rectangle, h float64) bool {
	ch := float64(r.Dy())
	return ch >= minLetterH*h && ch <= maxLetterH*h
}

// speck reports whether r is a speck or dot at text height h.
func speck(r image.Rectangle, h float64) bool {
	return float64(max(r.Dx(), r.Dy())) < speckSize*h
}

// textHeight returns the median height of the character-sized pieces of
// ink (5 to 80 pixels high, not wider than about two heights, not mostly
// empty), 0 when there are too few to tell.
func textHeight(cs []component) float64 {
	var hs []int
	for _, c := range cs {
		w, h := c.box.Dx(), c.box.Dy()
		if h >= 5 && h <= 80 && w <= 2*h+2 && w >= 1 && float64(c.area) >= 0.12*float64(w*h) {
			hs = append(hs, h)
		}
	}
	if len(hs) < 20 {
		return 0
	}
	slices.Sort(hs)
	return float64(hs[len(hs)/2])
}

// textLine is a chain of character-sized pieces.
type textLine struct {
	box   image.Rectangle
	chars int
}

// glyphPiece is a cluster of non-text ink of glyph size.
type glyphPiece struct {
	box image.Rectangle
}

// pageLayout is what finding knows of a page: its text height, text
// lines and glyph-sized clusters.
type pageLayout struct {
	h      float64
	lines  []textLine
	glyphs []glyphPiece
}

// layout chains character pieces into lines and clusters the other
// pieces of ink into glyph candidates.
func layout(cs []component, h float64, m *inkMap) *pageLayout {
	// byX: the boxes of the pieces larger than a speck by left edge, to
	// find pieces inside another.
	byX := make([]image.Rectangle, 0, len(cs))
	for _, c := range cs {
		if !speck(c.box, h) {
			byX = append(byX, c.box)
		}
	}
	sort.Slice(byX, func(a, b int) bool { return byX[a].Min.X < byX[b].Min.X })
	encloses := func(r image.Rectangle) bool {
		i := sort.Search(len(byX), func(i int) bool { return byX[i].Min.X > r.Min.X })
		for ; i < len(byX) && byX[i].Min.X < r.Max.X; i++ {
			if o := byX[i]; o != r && o.In(r) && o.Min.Y > r.Min.Y && o.Max.Y < r.Max.Y && o.Max.X < r.Max.X {
				return true
			}
		}
		return false
	}
	isChar := func(c component) bool {
		if !letterHigh(c.box, h) {
			return false
		}
		// A frame round a letter (a hexagon round "S", a box round
		// "F", as high as a line of text once whole) is a glyph.
		if encloses(c.box) {
			return false
		}
		cw := float64(c.box.Dx())
		// Letters run together by blur or bold type: a flat piece
		// crossed by many strokes along its middle is text; a frame
		// round text (a boxed tag, a glyph such as "FACP" in a
		// rectangle) is crossed by the letters inside it, and is not.
		return cw <= maxLetterW*h || float64(m.crossings(c.box)) >= textStrokes*cw/h
	}
	// inside reports whether the box of another piece of glyph size holds
	// r (a frame round it: text inside a glyph is the glyph's).
	inside := func(r image.Rectangle) bool {
		i := sort.Search(len(byX), func(i int) bool { return byX[i].Min.X > r.Min.X })
		for j := i - 1; j >= 0 && float64(r.Min.X-byX[j].Min.X) <= maxGlyphW*h; j-- {
			if o := byX[j]; o != r && r.In(o) && o.Dy() > r.Dy() && float64(o.Dy()) <= maxGlyphH*h {
				return true
			}
		}
		return false
	}
	small := smallText(cs, h, inside)
	var chars, other []image.Rectangle
	for _, c := range cs {
		switch {
		case small[c.box]:
			// a tag or rating in small type beside a glyph: not the glyph
		case isChar(c):
			chars = append(chars, c.box)
		case speck(c.box, h):
			// specks and dots: neither text nor glyph
		case float64(max(c.box.Dx(), c.box.Dy())) > 15*h:
			// rules, walls, table grids
		default:
			other = append(other, c.box)
		}
	}
	lay := &pageLayout{h: h}
	lay.lines = chainLines(chars, h)
	// Glyphs: the other pieces, with character pieces inside them (text
	// drawn inside a glyph), joined when close.
	lay.glyphs = clusterGlyphs(other, chars, h)
	return lay
}

// smallText returns the pieces of a line of text in small type (a
// device's rating or tag printed beside its glyph, "15CD 0.25W"): pieces
// lower than a letter of text height h, at least smallMinH of it, no
// wider than maxLetterW of their own height, that chain into a line of
// at least smallMinChars, and that no other piece encloses.
func smallText(cs []component, h float64, inside func(image.Rectangle) bool) map[image.Rectangle]bool {
	var cand []image.Rectangle
	var hs []int
	for _, c := range cs {
		ch := float64(c.box.Dy())
		if ch >= smallMinH*h && ch < minLetterH*h && float64(c.box.Dx()) <= maxLetterW*ch && !inside(c.box) {
			cand = append(cand, c.box)
			hs = append(hs, c.box.Dy())
		}
	}
	if len(cand) < 3 {
		return nil
	}
	sort.Ints(hs)
	out := map[image.Rectangle]bool{}
	for _, l := range chainLines(slices.Clone(cand), float64(hs[len(hs)/2])) {
		if l.chars < smallMinChars {
			continue
		}
		for _, c := range cand {
			if c.In(l.box) {
				out[c] = true
			}
		}
	}
	return out
}

// chainLines joins character boxes that overlap vertically by half their
// height and lie within wordGap heights horizontally into lines of two
// or more characters.
func chainLines(chars []image.Rectangle, h float64) []textLine {
	sort.Slice(chars, func(a, b int) bool { return chars[a].Min.X < chars[b].Min.X })
	sets := unionfind.New[int](len(chars))
	// Bucket by band of rows so each char looks only at its neighbours.
	band := int(math.Max(h, 4))
	buckets := map[int][]int{}
	for i, c := range chars {
		buckets[(c.Min.Y+c.Max.Y)/2/band] = append(buckets[(c.Min.Y+c.Max.Y)/2/band], i)
	}
	gap := int(wordGap * h)
	for i, a := range chars {
		cb := (a.Min.Y + a.Max.Y) / 2 / band
		for b := cb - 1; b <= cb+1; b++ {
			for _, j := range buckets[b] {
				if j <= i {
					continue
				}
				c := chars[j]
				if c.Min.X > a.Max.X+gap || c.Max.X < a.Min.X {
					continue
				}
				ov := min(a.Max.Y, c.Max.Y) - max(a.Min.Y, c.Min.Y)
				if float64(ov) < 0.5*float64(min(a.Dy(), c.Dy())) {
					continue
				}
				sets.Join(i, j)
			}
		}
	}
	index := map[int]int{}
	var lines []textLine
	for i, c := range chars {
		r := sets.Find(i)
		k, ok := index[r]
		if !ok {
			k = len(lines)
			index[r] = k
			lines = append(lines, textLine{box: c})
		} else {
			lines[k].box = lines[k].box.Union(c)
		}
		lines[k].chars++
	}
	kept := lines[:0]
	for _, l := range lines {
		if l.chars >= 2 && float64(l.box.Dy()) <= 2.2*h {
			kept = append(kept, l)
		}
	}
	return kept
}

// clusterGlyphs joins non-text pieces lying within glyphJoin heights of
// each other, with the character pieces inside them, and keeps clusters
// of glyph size.
func clusterGlyphs(other, chars []image.Rectangle, h float64) []glyphPiece {
	join := int(math.Ceil(glyphJoin * h))
	sets := unionfind.New[int](len(other))
	// A grid of cells 4 text heights wide: each piece is listed in every
	// cell its box (grown by join) touches, and meets only those pieces.
	cell := max(int(4*h), 8)
	grid := map[[2]int][]int{}
	// Pieces spanning the same rows, at least a text height high, join
	// further apart: a faint outline broken where it fades (a light box
	// beside the dark mark it holds) keeps its pieces' tops and bottoms.
	// (reach is g for a lower piece, so only tall pieces join this way.)
	band := func(a, b image.Rectangle) bool {
		return abs(a.Min.Y-b.Min.Y) <= bandSlack && abs(a.Max.Y-b.Max.Y) <= bandSlack
	}
	for i, b := range other {
		g := b.Inset(-join)
		reach := g
		if float64(b.Dy()) >= h {
			reach.Min.X = min(reach.Min.X, b.Min.X-int(bandJoin*float64(b.Dy())))
			reach.Max.X = max(reach.Max.X, b.Max.X+int(bandJoin*float64(b.Dy())))
		}
		for cy := reach.Min.Y / cell; cy <= reach.Max.Y/cell; cy++ {
			for cx := reach.Min.X / cell; cx <= reach.Max.X/cell; cx++ {
				k := [2]int{cx, cy}
				for _, j := range grid[k] {
					if g.Overlaps(other[j]) || (reach.Overlaps(other[j]) && band(b, other[j])) {
						sets.Join(i, j)
					}
				}
				grid[k] = append(grid[k], i)
			}
		}
	}
	union := map[int]image.Rectangle{}
	for i, b := range other {
		r := sets.Find(i)
		union[r] = union[r].Union(b)
	}
	boxes := make([]image.Rectangle, 0, len(union))
	for _, b := range union {
		boxes = append(boxes, b)
	}
	sort.Slice(boxes, func(a, b int) bool {
		if boxes[a].Min.Y != boxes[b].Min.Y {
			return boxes[a].Min.Y < boxes[b].Min.Y
		}
		return boxes[a].Min.X < boxes[b].Min.X
	})
	var out []glyphPiece
	for _, b := range boxes {
		gw, gh := float64(b.Dx())/h, float64(b.Dy())/h
		if gh < minGlyphH || gh > maxGlyphH || gw < minGlyphW || gw > maxGlyphW {
			continue
		}
		for _, c := range chars {
			if c.In(b.Inset(-1)) {
				b = b.Union(c)
			}
		}
		out = append(out, glyphPiece{box: b})
	}
	return out
}

// candidate is a text line with the glyph left of it.
type candidate struct {
	line  int
	glyph int
	tags  []int // text lines between the glyph and the line
	// more are the further lines beside the same glyph (a description
	// wrapped beside a tall glyph), in order down the page.
	more []int
}

// rowsOf pairs each text line with the nearest glyph to its left on its
// height, passing over tag lines between them.
func (lay *pageLayout) rowsOf() []candidate {
	h := lay.h
	var out []candidate
	for li, l := range lay.lines {
		if l.chars < 3 {
			continue
		}
		cy := float64(l.box.Min.Y+l.box.Max.Y) / 2
		best, bestGap := -1, math.Inf(1)
		for gi, g := range lay.glyphs {
			gap := float64(l.box.Min.X - g.box.Max.X)
			gcy := float64(g.box.Min.Y+g.box.Max.Y) / 2
			if gap < -0.5*h || gap > farGlyphGap*h || math.Abs(gcy-cy) > math.Max(h, float64(g.box.Dy())/2) {
				continue
			}
			if gap > maxGlyphGap*h && !lay.clearBetween(g.box, l.box) {
				continue
			}
			if g.box.Overlaps(l.box) && g.box.Max.X > l.box.Min.X+int(h) {
				continue
			}
			if gap < bestGap {
				best, bestGap = gi, gap
			}
		}
		if best < 0 {
			continue
		}
		g := lay.glyphs[best].box
		var tags []int
		clear := true
		for oi, o := range lay.lines {
			if oi == li {
				continue
			}
			ocy := float64(o.box.Min.Y+o.box.Max.Y) / 2
			if o.box.Min.X >= g.Max.X-1 && o.box.Max.X <= l.box.Min.X+1 && math.Abs(ocy-cy) < h {
				if o.chars > 8 {
					clear = false // another description between: not this line's glyph
				}
				tags = append(tags, oi)
			}
		}
		if clear {
			out = append(out, candidate{line: li, glyph: best, tags: tags})
		}
	}
	// Lines beside one glyph are one row, read from the top.
	sort.Slice(out, func(a, b int) bool { return lay.lines[out[a].line].box.Min.Y < lay.lines[out[b].line].box.Min.Y })
	first := map[int]int{}
	kept := out[:0]
	for _, c := range out {
		if k, ok := first[c.glyph]; ok {
			kept[k].more = append(kept[k].more, c.line)
			continue
		}
		first[c.glyph] = len(kept)
		kept = append(kept, c)
	}
	return kept
}

// clearBetween reports whether no text line and no other glyph stands
// between glyph g and text line l, on l's height.
func (lay *pageLayout) clearBetween(g, l image.Rectangle) bool {
	band := image.Rect(g.Max.X, l.Min.Y, l.Min.X, l.Max.Y)
	for _, o := range lay.lines {
		if o.box != l && o.box.Overlaps(band) {
			return false
		}
	}
	for _, o := range lay.glyphs {
		if o.box != g && o.box.Overlaps(band) {
			return false
		}
	}
	return true
}

// columns groups rows whose glyphs and text starts line up, in order down
// the page, splitting where rows lie more than maxPitch apart.
func (lay *pageLayout) columns() [][]candidate {
	h := lay.h
	rows := lay.rowsOf()
	sort.Slice(rows, func(a, b int) bool {
		return lay.lines[rows[a].line].box.Min.Y < lay.lines[rows[b].line].box.Min.Y
	})
	used := make([]bool, len(rows))
	var out [][]candidate
	for i := range rows {
		if used[i] {
			continue
		}
		col := []candidate{rows[i]}
		used[i] = true
		last := rows[i]
		for j := i + 1; j < len(rows); j++ {
			if used[j] {
				continue
			}
			a, b := lay.glyphs[last.glyph].box, lay.glyphs[rows[j].glyph].box
			la, lb := lay.lines[last.line].box, lay.lines[rows[j].line].box
			if float64(lb.Min.Y-la.Max.Y) > maxPitch*h {
				break
			}
			gx := math.Abs(float64(a.Min.X+a.Max.X-b.Min.X-b.Max.X) / 2)
			// text starts line up, or (centred text) their middles
			tx := math.Min(math.Abs(float64(la.Min.X-lb.Min.X)), math.Abs(float64(la.Min.X+la.Max.X-lb.Min.X-lb.Max.X)/2))
			if gx <= align*h && tx <= align*h {
				col = append(col, rows[j])
				used[j] = true
				last = rows[j]
			}
		}
		if len(col) >= minRows {
			out = append(out, col)
		}
	}
	return out
}

var intRe = regexp.MustCompile(`^\(?(\d{1,5})\)?\.?$`)

// read OCRs one column's region and builds its rows; ok is false when
// the column is not taken for a legend.
func (r *Reader) read(ctx context.Context, g *image.Gray, lay *pageLayout, col []candidate) (Table, bool, error) {
	h := lay.h
	hi := int(h)
	// The region: the glyphs, their text, text continuing to the right
	// on the rows' heights (other columns: part number, quantity), and a
	// header band above.
	box := image.Rectangle{}
	descStart := lay.lines[col[0].line].box.Min.X
	for _, c := range col {
		box = box.Union(lay.glyphs[c.glyph].box).Union(lay.lines[c.line].box)
	}
	top, bottom := box.Min.Y-4*hi, box.Max.Y+2*hi
	right := box.Max.X
	for _, l := range lay.lines {
		cy := (l.box.Min.Y + l.box.Max.Y) / 2
		if cy >= top && cy <= bottom && l.box.Min.X >= descStart-hi && l.box.Min.X <= right+int(maxGlyphGap*h) {
			right = max(right, l.box.Max.X)
		}
	}
	region := image.Rect(box.Min.X-hi, top, right+hi, bottom).Intersect(g.Rect)
	lines, err := r.OCR.Lines(ctx, g.SubImage(region), ocrMode)
	if err != nil {
		return Table{}, false, fmt.Errorf("imagelegend: read table at %v: %w", region, err)
	}
	var words []ocr.Word
	for _, l := range lines {
		words = append(words, l.Words...)
	}
	firstY := lay.lines[col[0].line].box.Min.Y
	// Header words above the first row: legend header, quantity column.
	header, qtyX := false, math.NaN()
	for _, l := range lines {
		if l.Box.Max.Y > firstY || l.Box.Min.Y < firstY-4*hi {
			continue
		}
		if legend.IsHeader(l.Text()) {
			header = true
		}
		for _, w := range l.Words {
			if legend.IsQuantityHeader(w.Text) {
				qtyX = float64(w.Box.Min.X+w.Box.Max.X) / 2
			}
		}
	}
	if math.IsNaN(qtyX) {
		// A ruled table's quantity column can stand further right than
		// text runs on: its header is looked for beyond the region.
		if qtyX, err = r.farQuantityHeader(ctx, g, lay, region, firstY); err != nil {
			return Table{}, false, err
		}
	}
	t := Table{Box: region}
	mapped := 0
	for k, c := range col {
		lb := lay.lines[c.line].box
		gb := lay.glyphs[c.glyph].box
		// The row's text lines: its own, those beside the same glyph,
		// and continuation lines below starting where its text starts,
		// before the next row.
		next := math.MaxInt
		if k+1 < len(col) {
			next = lay.lines[col[k+1].line].box.Min.Y
		}
		bands := []image.Rectangle{lb}
		for _, m := range c.more {
			bands = append(bands, lay.lines[m].box)
		}
		last := bands[len(bands)-1]
		for _, l := range lay.lines {
			if l.box.Min.Y > last.Max.Y-hi/3 && l.box.Min.Y < next-hi/3 && float64(l.box.Min.Y-last.Max.Y) < 1.2*h &&
				math.Abs(float64(l.box.Min.X-lb.Min.X)) < 1.5*h {
				bands = append(bands, l.box)
				last = l.box
			}
		}
		row := Row{Glyph: gb, Box: gb}
		var desc []string
		var tagBox image.Rectangle
		for bi, band := range bands {
			row.Box = row.Box.Union(band)
			top, bottom := band.Min.Y-hi/3, band.Max.Y+hi/3
			// The band's words from the text start rightwards, up to a
			// gap wider than a column gap (the next column: part
			// number, model, quantity).
			var in []ocr.Word
			for _, w := range words {
				cx, cy := (w.Box.Min.X+w.Box.Max.X)/2, (w.Box.Min.Y+w.Box.Max.Y)/2
				if cy < top || cy > bottom {
					continue
				}
				switch {
				case cx >= lb.Min.X-hi/2:
					in = append(in, w)
				case bi == 0 && cx > gb.Max.X:
					row.Tags = append(row.Tags, w.Text)
					tagBox = tagBox.Union(w.Box)
				}
			}
			sort.Slice(in, func(a, b int) bool { return in[a].Box.Min.X < in[b].Box.Min.X })
			end := lb.Min.X
			for i, w := range in {
				if i > 0 && float64(w.Box.Min.X-end) > colGap*h {
					if bi == 0 && !math.IsNaN(qtyX) {
						for _, q := range in[i:] {
							if math.Abs(float64(q.Box.Min.X+q.Box.Max.X)/2-qtyX) <= 3*h {
								if m := intRe.FindStringSubmatch(q.Text); m != nil {
									n, _ := strconv.Atoi(m[1])
									row.Quantity = &n
								}
							}
						}
					}
					break
				}
				desc = append(desc, w.Text)
				end = max(end, w.Box.Max.X)
			}
		}
		if !tagBox.Empty() {
			// Tags are often in small type, which the table's OCR reads
			// poorly: read them again alone, enlarged.
			tags, err := r.smallLine(ctx, g.SubImage(tagBox.Inset(-int(hi/4))))
			if err != nil {
				return Table{}, false, err
			}
			if len(tags) > 0 {
				row.Tags = tags
			}
		}
		if !math.IsNaN(qtyX) {
			// Sparse OCR drops a lone digit in a cell, or reads a "1" as
			// "4": the row's cell under the quantity header is read again
			// on its own, enlarged.
			cell := image.Rect(int(qtyX-3*h), lb.Min.Y-hi/2, int(qtyX+3*h), lb.Max.Y+hi/2).Intersect(g.Rect)
			n, err := r.quantityIn(ctx, g.SubImage(cell))
			if err != nil {
				return Table{}, false, err
			}
			if n != nil {
				row.Quantity = n
			}
		}
		row.Description = strings.Join(desc, " ")
		row.Class, row.Mapped = r.Vocab.Class(row.Description)
		if codeLabel(desc) {
			// a circuit or wire label beside a device on a plan
			// ("FACP SLC1 #18"), not a legend's description
			row.Class, row.Mapped = "", false
		}
		if row.Mapped {
			mapped++
		}
		t.Rows = append(t.Rows, row)
	}
	if mapped == 0 && !header {
		return Table{}, false, nil
	}
	if mapped < minRows && !header {
		return Table{}, false, nil
	}
	return t, true, nil
}

// codeLabel reports whether words read as a row's description are mostly
// codes, words with digits or "#" ("SLC1 #18", "NAC1-001"): a plan's
// circuit and wire labels, which name devices ("FACP") without describing
// a symbol. A legend's description is mostly words ("9 AMP NAC POWER
// SUPPLY", "30A Isolator Switch 2000mm above FFL.").
func codeLabel(words []string) bool {
	codes := 0
	for _, w := range words {
		if strings.ContainsAny(w, "0123456789#") {
			codes++
		}
	}
	return len(words) > 0 && 2*codes > len(words)
}

// farQuantityHeader looks right of a table's region (up to farGlyphGap
// text heights), in the band of column headers above its first row (at
// firstY), for a quantity header, and returns its middle (NaN when there
// is none). Only header lines found there are read.
func (r *Reader) farQuantityHeader(ctx context.Context, g *image.Gray, lay *pageLayout, region image.Rectangle, firstY int) (float64, error) {
	hi := int(lay.h)
	band := image.Rect(region.Max.X, firstY-4*hi, region.Max.X+int(farGlyphGap*lay.h), firstY)
	var area image.Rectangle
	for _, l := range lay.lines {
		if l.box.In(band) {
			area = area.Union(l.box)
		}
	}
	if area.Empty() {
		return math.NaN(), nil
	}
	lines, err := r.OCR.Lines(ctx, g.SubImage(area.Inset(-hi/2).Intersect(g.Rect)), ocrMode)
	if err != nil {
		return math.NaN(), fmt.Errorf("imagelegend: read header at %v: %w", area, err)
	}
	for _, l := range lines {
		for _, w := range l.Words {
			if legend.IsQuantityHeader(w.Text) {
				return float64(w.Box.Min.X+w.Box.Max.X) / 2, nil
			}
		}
	}
	return math.NaN(), nil
}

// smallLine returns the words of one line of text in img (tags in small
// type), read alone by enlargedLine.
func (r *Reader) smallLine(ctx context.Context, img image.Image) ([]string, error) {
	lines, err := r.enlargedLine(ctx, img)
	if err != nil {
		return nil, fmt.Errorf("imagelegend: read tags at %v: %w", img.Bounds(), err)
	}
	var out []string
	for _, l := range lines {
		for _, w := range l.Words {
			if t := strings.Trim(w.Text, "|[]"); t != "" {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// enlargedLine reads img as one line of text, its rules removed and
// enlarged quantityZoom times: Tesseract reads small type and lone digits
// best well over 20 pixels high.
func (r *Reader) enlargedLine(ctx context.Context, img image.Image) ([]ocr.Line, error) {
	if img.Bounds().Empty() {
		return nil, nil
	}
	clean := withoutRules(img)
	big := image.NewGray(image.Rect(0, 0, quantityZoom*clean.Rect.Dx(), quantityZoom*clean.Rect.Dy()))
	xdraw.CatmullRom.Scale(big, big.Rect, clean, clean.Rect, xdraw.Src, nil)
	return r.OCR.Lines(ctx, big, ocr.SingleLine)
}

// quantityIn reads a quantity cell: the number it holds, nil when it
// holds none.
func (r *Reader) quantityIn(ctx context.Context, cell image.Image) (*int, error) {
	lines, err := r.enlargedLine(ctx, cell)
	if err != nil {
		return nil, fmt.Errorf("imagelegend: read quantity at %v: %w", cell.Bounds(), err)
	}
	var found *int
	for _, l := range lines {
		for _, w := range l.Words {
			m := intRe.FindStringSubmatch(strings.Trim(w.Text, "|[]"))
			if m == nil {
				continue
			}
			if found != nil {
				return nil, nil // two numbers: not one quantity
			}
			n, _ := strconv.Atoi(m[1])
			found = &n
		}
	}
	return found, nil
}

// quantityZoom enlarges a quantity cell before OCR.
const quantityZoom = 3

// withoutRules returns a copy of a table cell with its ruling (pixel
// columns and rows dark over nearly their whole length) turned to paper:
// OCR reads a rule beside a lone "1" as "4".
func withoutRules(cell image.Image) *image.Gray {
	b := cell.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(g, g.Bounds(), cell, b.Min, draw.Src)
	w, h := g.Rect.Dx(), g.Rect.Dy()
	// dark pixels per column and per row
	colDark, rowDark := make([]int, w), make([]int, h)
	for y := range h {
		for x, v := range g.Pix[y*g.Stride : y*g.Stride+w] {
			if v < inkCeiling {
				colDark[x]++
				rowDark[y]++
			}
		}
	}
	var cols, rows []int
	for x, n := range colDark {
		if float64(n) >= 0.85*float64(h) {
			cols = append(cols, x)
		}
	}
	for y, n := range rowDark {
		if float64(n) >= 0.85*float64(w) {
			rows = append(rows, y)
		}
	}
	for _, x := range cols {
		for y := range h {
			g.Pix[y*g.Stride+x] = 255
		}
	}
	for _, y := range rows {
		for x := range w {
			g.Pix[y*g.Stride+x] = 255
		}
	}
	return g
}

// ocrMode reads a table region: sparse text, as table cells are.
var ocrMode = ocr.Sparse

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
