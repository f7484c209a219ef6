// Package documenttest writes small, well-formed PDFs for tests of the
// document pipeline and of everything that takes uploads: numbered
// objects, a classic xref table, a trailer, and pages with a MediaBox,
// optional CropBox and /Rotate and a content stream.
package documenttest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// Builder collects PDF objects. The zero value is ready to use.
type Builder struct {
	objs [][]byte
}

// Add appends an object body (without "n 0 obj"/"endobj") and returns its
// object number.
func (b *Builder) Add(body string) int {
	b.objs = append(b.objs, []byte(body))
	return len(b.objs)
}

// Reserve returns the number of an object whose body is Set later.
func (b *Builder) Reserve() int { return b.Add("null") }

// Set replaces the body of object n.
func (b *Builder) Set(n int, body string) { b.objs[n-1] = []byte(body) }

// Stream returns a stream object body with the dictionary entries dict and
// the data, compressed with zlib (/FlateDecode) when flate is true.
func Stream(dict string, data []byte, flate bool) string {
	if flate {
		var buf bytes.Buffer
		zw := zlib.NewWriter(&buf)
		zw.Write(data) // writes to a bytes.Buffer do not fail
		zw.Close()
		data = buf.Bytes()
		dict += " /Filter /FlateDecode"
	}
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// Bytes serialises the document with object root as the catalog and extra
// trailer entries (for example "/Encrypt 5 0 R /ID [<..> <..>]"), ending
// with "%%EOF".
func (b *Builder) Bytes(root int, trailer string) []byte {
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(b.objs))
	for i, o := range b.objs {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(b.objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(b.objs)+1, root, trailer, xref)
	return out.Bytes()
}

// Page is one page of a generated PDF. Boxes are PDF arrays in points,
// for example "[0 0 612 792]".
type Page struct {
	MediaBox string
	CropBox  string // "" for none
	Rotate   int
	Content  string // content stream operators, "" for none
}

// PDF returns a document with the given pages in one flat Pages tree (no
// pages gives a valid document with /Count 0).
func PDF(pages ...Page) []byte {
	var b Builder
	catalog := b.Reserve()
	tree := b.Reserve()
	kids := make([]string, 0, len(pages))
	for _, p := range pages {
		dict := fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox %s", tree, p.MediaBox)
		if p.CropBox != "" {
			dict += " /CropBox " + p.CropBox
		}
		if p.Rotate != 0 {
			dict += fmt.Sprintf(" /Rotate %d", p.Rotate)
		}
		if p.Content != "" {
			c := b.Add(Stream("", []byte(p.Content), true))
			dict += fmt.Sprintf(" /Contents %d 0 R", c)
		}
		kids = append(kids, fmt.Sprintf("%d 0 R", b.Add(dict+" >>")))
	}
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	b.Set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	return b.Bytes(catalog, "")
}

// CircleOps returns content stream operators that stroke a circle of
// radius r centred at (cx, cy) as four Bézier curves, the way PDF writers
// draw circles.
func CircleOps(cx, cy, r float64) string {
	k := 0.5523 * r
	return fmt.Sprintf("%g %g m %g %g %g %g %g %g c %g %g %g %g %g %g c %g %g %g %g %g %g c %g %g %g %g %g %g c S",
		cx+r, cy,
		cx+r, cy+k, cx+k, cy+r, cx, cy+r,
		cx-k, cy+r, cx-r, cy+k, cx-r, cy,
		cx-r, cy-k, cx-k, cy-r, cx, cy-r,
		cx+k, cy-r, cx+r, cy-k, cx+r, cy)
}

// FormPDF writes a one-page PDF by hand: content is the page's content
// stream, form the stream of form XObject /X1 (its /Matrix is formMatrix),
// pageExtra goes into the page dictionary (CropBox, Rotate).
func FormPDF(mediaW, mediaH float64, content, form, formMatrix, pageExtra string) []byte {
	var b Builder
	catalog, pages, page := b.Reserve(), b.Reserve(), b.Reserve()
	contents := b.Add(Stream("", []byte(content), false))
	font := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	outer, inner := b.Reserve(), b.Reserve()
	b.Set(outer, Stream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [-1000 -1000 1000 1000] /Matrix [%s] /Resources << /XObject << /X2 %d 0 R >> >>", formMatrix, inner), []byte(form), false))
	b.Set(inner, Stream("/Type /XObject /Subtype /Form /BBox [-1000 -1000 1000 1000] /Matrix [0 1 -1 0 0 0]", []byte("0 0 m 20 0 l S"), false))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	b.Set(page, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %g %g] %s /Resources << /Font << /F1 %d 0 R >> /XObject << /X1 %d 0 R >> >> /Contents %d 0 R >>",
		pages, mediaW, mediaH, pageExtra, font, outer, contents))
	return b.Bytes(catalog, "")
}
