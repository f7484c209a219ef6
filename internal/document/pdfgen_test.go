package document

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// pdfBuilder writes small, well-formed PDFs for tests: numbered objects, a
// classic xref table and a trailer.
type pdfBuilder struct {
	objs [][]byte
}

// add appends an object body and returns its object number.
func (b *pdfBuilder) add(body string) int {
	b.objs = append(b.objs, []byte(body))
	return len(b.objs)
}

// reserve returns the number of an object whose body is set later.
func (b *pdfBuilder) reserve() int { return b.add("null") }

func (b *pdfBuilder) set(n int, body string) { b.objs[n-1] = []byte(body) }

// stream returns an object body with a stream of data, compressed with
// zlib when flate is true.
func stream(dict string, data []byte, flate bool) string {
	if flate {
		var buf bytes.Buffer
		zw := zlib.NewWriter(&buf)
		zw.Write(data)
		zw.Close()
		data = buf.Bytes()
		dict += " /Filter /FlateDecode"
	}
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// bytes serialises the document with root as the catalog object and extra
// trailer entries (for example an /Encrypt reference).
func (b *pdfBuilder) bytes(root int, trailer string) []byte {
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

// pageSpec is one page of a generated PDF.
type pageSpec struct {
	mediaBox string // "[0 0 612 792]"
	cropBox  string // "" for none
	rotate   int
	content  string // page content stream, "" for none
}

// buildPDF returns a PDF with the given pages in one flat Pages tree.
func buildPDF(pages ...pageSpec) []byte {
	var b pdfBuilder
	catalog := b.reserve()
	tree := b.reserve()
	kids := make([]string, 0, len(pages))
	for _, p := range pages {
		dict := fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox %s", tree, p.mediaBox)
		if p.cropBox != "" {
			dict += " /CropBox " + p.cropBox
		}
		if p.rotate != 0 {
			dict += fmt.Sprintf(" /Rotate %d", p.rotate)
		}
		if p.content != "" {
			c := b.add(stream("", []byte(p.content), true))
			dict += fmt.Sprintf(" /Contents %d 0 R", c)
		}
		kids = append(kids, fmt.Sprintf("%d 0 R", b.add(dict+" >>")))
	}
	b.set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	b.set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	return b.bytes(catalog, "")
}
