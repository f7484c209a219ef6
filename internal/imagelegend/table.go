package imagelegend

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	xdraw "golang.org/x/image/draw"

	"blueprint/internal/ink"
	"blueprint/internal/legend"
	"blueprint/internal/ocr"
)

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
			if v < ink.Ceiling {
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
