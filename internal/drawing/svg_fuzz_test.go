package drawing

import (
	"context"
	"math"
	"testing"

	fitz "github.com/gen2brain/go-fitz"

	"blueprint/internal/document/documenttest"
)

// FuzzFromSVG: FromSVG reads any bytes as MuPDF's SVG of a page without a
// panic, and what it returns is geometry a matcher can index: finite
// coordinates, styles that exist.
func FuzzFromSVG(f *testing.F) {
	doc, err := fitz.NewFromMemory(documenttest.FormPDF(400, 300, "1 w 10 10 m 100 80 l S 0 0 1 RG 50 50 20 20 re f BT /F1 12 Tf 30 200 Td (Ab) Tj ET /X1 Do",
		"0 0 m 30 0 l S", "1 0 0 1 200 100", ""))
	if err != nil {
		f.Fatal(err)
	}
	svg, err := doc.SVG(0)
	doc.Close()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(svg))
	f.Add([]byte(`<svg width="100pt" height="50pt"><path d="M 0 0 L 10 10 A 5 5 0 1 1 20 20 Z" stroke="#ff0000" stroke-width="2"/></svg>`))
	f.Add([]byte(`<svg width="10" height="10"><g transform="matrix(1e308 0 0 1e308 0 0)"><path d="M1 1 L 2 2" stroke="#000000"/></g></svg>`))
	f.Add([]byte(`<svg width="10" height="10"><clipPath id="c"><path d="M0 0 H 5 V 5 Z"/></clipPath><g clip-path="url(#c)"><path d="M-10 -10 L 20 20" stroke="#000"/></g></svg>`))
	f.Add([]byte(`<svg width="1e400" height="NaN">`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := FromSVG(context.Background(), data, pxPerPt)
		if err != nil {
			return
		}
		finite := func(vs ...float64) bool {
			for _, v := range vs {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return false
				}
			}
			return true
		}
		if !finite(p.Width, p.Height) {
			t.Fatalf("page size %g × %g", p.Width, p.Height)
		}
		for _, s := range p.Segments {
			if !finite(s.A.X, s.A.Y, s.B.X, s.B.Y) || int(s.Style) >= len(p.Styles) || s.Style < 0 {
				t.Fatalf("segment %+v of %d styles", s, len(p.Styles))
			}
		}
		for _, a := range p.Arcs {
			if !finite(a.C.X, a.C.Y, a.R, a.Start, a.Sweep) || int(a.Style) >= len(p.Styles) || a.Style < 0 {
				t.Fatalf("arc %+v of %d styles", a, len(p.Styles))
			}
		}
		for _, c := range p.Chars {
			if !finite(c.Min.X, c.Min.Y, c.Max.X, c.Max.Y, c.Origin.X, c.Origin.Y, c.Size, c.Angle) {
				t.Fatalf("char %+v", c)
			}
		}
	})
}
