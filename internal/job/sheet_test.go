package job_test

import (
	"fmt"
	"strings"

	"blueprint/internal/document/documenttest"
)

// sheet draws a 2160 × 1440 pt page (6000 × 4000 raster pixels) for the
// search tests, in raster pixels from the top left.
type sheet struct{ c strings.Builder }

const sheetW, sheetH = 2160.0, 1440.0 // points

// pt converts raster pixels to points.
func pt(px float64) float64 { return px * 72 / 200 }

// text writes s with its baseline's left end at (x, y), size pixels high.
func (s *sheet) text(str string, x, y, size float64) {
	fmt.Fprintf(&s.c, "BT /F1 %g Tf %g %g Td (%s) Tj ET ", pt(size), pt(x), sheetH-pt(y), str)
}

func (s *sheet) line(x0, y0, x1, y1 float64) {
	fmt.Fprintf(&s.c, "%g %g m %g %g l S ", pt(x0), sheetH-pt(y0), pt(x1), sheetH-pt(y1))
}

// lamp draws a circle with a cross (4 mm across) centred at (x, y), in the
// pen pen sets ("" for black).
func (s *sheet) lamp(x, y float64, pen string) {
	fmt.Fprintf(&s.c, "q %s2.834646 0 0 2.834646 %g %g cm 0.1 w ", pen, pt(x), sheetH-pt(y))
	s.c.WriteString(documenttest.CircleOps(0, 0, 2) + " -1.414 -1.414 m 1.414 1.414 l S -1.414 1.414 m 1.414 -1.414 l S Q ")
}

// rooms draws two rows of eight rooms, 300 × 600 pixels each, from (400, 600).
func (s *sheet) rooms() {
	for i := range 8 {
		x := 400 + float64(i)*300
		s.line(x, 600, x, 1800)
		s.line(x, 600, x+300, 600)
		s.line(x, 1200, x+300, 1200)
		s.line(x, 1800, x+300, 1800)
	}
}

// pdf is the sheet as a one-page PDF.
func (s *sheet) pdf() []byte {
	return documenttest.PDF(documenttest.Page{MediaBox: fmt.Sprintf("[0 0 %g %g]", sheetW, sheetH), Content: s.c.String()})
}
