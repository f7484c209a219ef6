package documenttest

import (
	"bytes"
	"fmt"
	"strings"
)

// NestedFormsPDF writes the drawing-walk attack of issue 34: a one-page A4
// PDF whose page draws form /X once, and each of levels forms draws the
// next fan times, the last one stroking a line, so the page strokes
// fan^(levels-1) lines, all at the same place, from a file of a few
// kilobytes. shift moves each repetition a little (the lines then differ).
func NestedFormsPDF(levels, fan int, shift bool) []byte {
	var b Builder
	catalog, pages, page := b.Reserve(), b.Reserve(), b.Reserve()
	forms := make([]int, levels)
	for i := range forms {
		forms[i] = b.Reserve()
	}
	contents := b.Add(Stream("", []byte("q /X Do Q"), false))
	for i, n := range forms {
		if i == levels-1 {
			b.Set(n, Stream("/Type /XObject /Subtype /Form /BBox [0 0 595 842]", []byte("0 0 m 100 100 l S"), false))
			continue
		}
		var c strings.Builder
		for k := range fan {
			if shift {
				fmt.Fprintf(&c, "q 1 0 0 1 %d %d cm /X Do Q\n", k*3, k*2)
			} else {
				c.WriteString("/X Do\n")
			}
		}
		b.Set(n, Stream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << /XObject << /X %d 0 R >> >>", forms[i+1]), []byte(c.String()), false))
	}
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	b.Set(page, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /X %d 0 R >> >> /Contents %d 0 R >>", pages, forms[0], contents))
	return b.Bytes(catalog, "")
}

// SharedContentPDF writes the other attack of issue 34: pages A4 pages
// that all use one FlateDecode content stream of about mib MiB of line
// draws (pseudo-random ones, which compress about threefold, so that one
// use of the stream stays far inside the decompression limit).
func SharedContentPDF(pages, mib int) []byte {
	var content bytes.Buffer
	x := uint32(1)
	next := func() uint32 { x = x*1664525 + 1013904223; return x >> 22 } // 0..1023
	for content.Len() < mib<<20 {
		fmt.Fprintf(&content, "%d %d m %d %d l S\n", next(), next(), next(), next())
	}
	var b Builder
	catalog, root := b.Reserve(), b.Reserve()
	stream := b.Add(Stream("", content.Bytes(), true))
	kids := make([]string, pages)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R >>", root, stream)))
	}
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", root))
	b.Set(root, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages))
	return b.Bytes(catalog, "")
}

// TilingPatternPDF writes the attack of issue 47: one page of w × h
// points filled, edge to edge, with a coloured tiling pattern whose cell
// is cell points square and draws a square of half that side. A file of
// about 700 bytes asks for (w/cell) × (h/cell) cells: an A1 page of
// 0.01-point cells is 4 × 10^10 of them.
func TilingPatternPDF(w, h, cell float64) []byte {
	var b Builder
	catalog, pages, page := b.Reserve(), b.Reserve(), b.Reserve()
	contents := b.Add(Stream("", []byte(fmt.Sprintf("/Pattern cs /P scn 0 0 %g %g re f", w, h)), false))
	pattern := b.Add(Stream(fmt.Sprintf("/Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 %g %g] /XStep %g /YStep %g /Resources << >>", cell, cell, cell, cell),
		[]byte(fmt.Sprintf("0 0 %g %g re f", cell/2, cell/2)), false))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	b.Set(page, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %g %g] /Resources << /Pattern << /P %d 0 R >> >> /Contents %d 0 R >>", pages, w, h, pattern, contents))
	return b.Bytes(catalog, "")
}

// TilingPatternPages writes pages pages of w × h points, each filled as
// TilingPatternPDF fills its page, with one pattern object shared by all.
func TilingPatternPages(w, h, cell float64, pages int) []byte {
	var b Builder
	catalog, root := b.Reserve(), b.Reserve()
	contents := b.Add(Stream("", []byte(fmt.Sprintf("/Pattern cs /P scn 0 0 %g %g re f", w, h)), false))
	pattern := b.Add(Stream(fmt.Sprintf("/Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 %g %g] /XStep %g /YStep %g /Resources << >>", cell, cell, cell, cell),
		[]byte(fmt.Sprintf("0 0 %g %g re f", cell/2, cell/2)), false))
	kids := make([]string, pages)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %g %g] /Resources << /Pattern << /P %d 0 R >> >> /Contents %d 0 R >>", root, w, h, pattern, contents)))
	}
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", root))
	b.Set(root, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages))
	return b.Bytes(catalog, "")
}
