package document

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"blueprint/internal/document/documenttest"
)

// drawingFuzzLimits keep a fuzzed page's drawing small enough for a fuzz
// run, so that the limits themselves are exercised.
func drawingFuzzLimits() Limits {
	lim := fuzzLimits()
	lim.MaxFormUses = 5_000
	lim.Drawing.MaxOps = 20_000
	lim.Drawing.MaxBytes = 4 << 20
	lim.Drawing.MaxClipDepth = 64
	return lim
}

// readDrawing runs the start check on data and, when it accepts, reads
// page 0's drawing both ways the service does (straight from the content,
// and from the display list beside the render): each answer is a drawing
// within the limits or a refusal naming its reason, never a panic.
func readDrawing(t *testing.T, data []byte) {
	ctx := context.Background()
	lim := drawingFuzzLimits()
	if _, err := Validate(ctx, data, MimePDF, lim); checkRefusal(t, "Validate", err) != nil {
		return
	}
	doc, err := Open(ctx, data, MimePDF, lim)
	if err != nil {
		t.Fatalf("accepted, but Open: %v", err)
	}
	defer doc.Close()
	if pg, err := doc.Drawing(ctx, 0); checkRefusal(t, "Drawing", err) == nil && pg != nil {
		if n := int64(len(pg.Segments) + len(pg.Arcs) + len(pg.Chars)); n > 64*lim.Drawing.MaxOps {
			t.Fatalf("the drawing kept %d primitives past a limit of %d operations", n, lim.Drawing.MaxOps)
		}
	}
	p, err := doc.Page(ctx, 0)
	if checkRefusal(t, "Page", err) != nil {
		return
	}
	_, err = p.PDF.Drawing(ctx)
	checkRefusal(t, "listed drawing", err)
}

// FuzzDrawingContent: any content stream on a page (with a form XObject
// /X and a font /F1 in its resources) is accepted and read within the
// drawing limits, or refused with a reason.
func FuzzDrawingContent(f *testing.F) {
	f.Add([]byte("0 0 m 100 100 l S"))
	f.Add([]byte("q 0 0 10 10 re W n /X Do Q"))
	f.Add([]byte(strings.Repeat("q 0 0 50 50 re W n ", 100) + "0 0 m 9 9 l S"))
	f.Add([]byte(strings.Repeat("/X Do ", 50)))
	f.Add([]byte("BT /F1 12 Tf 10 10 Td (135\xb0 HD) Tj ET"))
	f.Add([]byte("BI /W 2 /H 2 /BPC 8 /CS /G ID \x00\x01\x02\x03 EI /X Do"))
	f.Add([]byte("/X#20 Do (unbalanced ( string) /X Do % comment /X Do\n/X Do"))
	f.Fuzz(func(t *testing.T, content []byte) {
		readDrawing(t, documenttest.FormPDF(300, 200, string(content), strings.Repeat("0 0 m 5 5 l S ", 4)+"/X2 Do", "1 0 0 1 10 10", ""))
	})
}

// FuzzFormGraph: any graph of form XObjects (forms invoking forms, with
// repetitions, cycles, clips and transforms, read from the fuzzer's
// bytes) is accepted and read within the limits, or refused with a
// reason: fan-out is refused at the start check or stopped by the
// drawing limits, never left to fill memory.
func FuzzFormGraph(f *testing.F) {
	f.Add([]byte{3, 0, 1, 10, 1, 2, 10, 2, 3, 10})       // a chain of fan-out 10
	f.Add([]byte{5, 0, 1, 9, 1, 2, 9, 2, 3, 9, 3, 4, 9}) // deeper
	f.Add([]byte{2, 0, 1, 3, 1, 0, 3})                   // a cycle
	f.Add([]byte{4, 0, 0, 1, 0, 1, 200, 1, 2, 130})      // a form that runs itself, clips
	f.Fuzz(func(t *testing.T, graph []byte) {
		readDrawing(t, formGraphPDF(graph))
	})
}

// formGraphPDF builds a one-page PDF from graph: graph[0] (mod 6, plus 1)
// forms F0.., then triples (from, to, n): form from invokes form to n%16
// times, with a clip when n ≥ 128 and a shift when n has bit 4 set. The
// page invokes F0; every form strokes a line.
func formGraphPDF(graph []byte) []byte {
	if len(graph) == 0 {
		graph = []byte{0}
	}
	n := int(graph[0])%6 + 1
	bodies := make([]strings.Builder, n)
	for i := range bodies {
		fmt.Fprintf(&bodies[i], "0 0 m %d 50 l S\n", 10+i)
	}
	for k := 1; k+2 < len(graph); k += 3 {
		from, to, times := int(graph[k])%n, int(graph[k+1])%n, graph[k+2]
		if times >= 128 {
			bodies[from].WriteString("q 0 0 40 40 re W n\n")
		}
		for r := range int(times % 16) {
			if times&16 != 0 {
				fmt.Fprintf(&bodies[from], "q 1 0 0 1 %d 0 cm /F%d Do Q\n", r, to)
			} else {
				fmt.Fprintf(&bodies[from], "/F%d Do\n", to)
			}
		}
		if times >= 128 {
			bodies[from].WriteString("Q\n")
		}
	}
	var b documenttest.Builder
	catalog, pages, page := b.Reserve(), b.Reserve(), b.Reserve()
	forms := make([]int, n)
	for i := range forms {
		forms[i] = b.Reserve()
	}
	var names strings.Builder
	for i, num := range forms {
		fmt.Fprintf(&names, "/F%d %d 0 R ", i, num)
	}
	for i, num := range forms {
		b.Set(num, documenttest.Stream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 300 200] /Resources << /XObject << %s>> >>", names.String()), []byte(bodies[i].String()), false))
	}
	contents := b.Add(documenttest.Stream("", []byte("/F0 Do"), false))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	b.Set(page, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 300 200] /Resources << /XObject << %s>> >> /Contents %d 0 R >>", pages, names.String(), contents))
	return b.Bytes(catalog, "")
}

// FuzzTilingPattern: a page painted with tiling pattern /P (the fuzzer's
// steps, matrix scale, cell content and page content; the pattern may
// paint itself or a nested pattern /Q) is accepted and read within the
// drawing limits, or refused with a reason, and in a bounded time: the
// cells a pattern paints are charged at the start check, in the walk and
// in the render (issue 47).
func FuzzTilingPattern(f *testing.F) {
	fill := "/Pattern cs /P scn 0 0 300 200 re f"
	f.Add(0.01, 0.01, 1.0, []byte("0 0 0.005 0.005 re f"), []byte(fill))
	f.Add(10.0, 10.0, 1.0, []byte("0 0 m 5 5 l S"), []byte(fill))
	f.Add(1.0, 1.0, 0.001, []byte("0 0 1 1 re f"), []byte("q 0 0 20 20 re W n "+fill+" Q"))
	f.Add(5.0, 5.0, 1.0, []byte("/Pattern cs /Q scn 0 0 5 5 re f"), []byte(fill))
	f.Add(2.0, 3.0, 1.0, []byte("/Pattern cs /P scn 0 0 2 3 re f"), []byte("/Pattern CS /P SCN 10 w 0 0 m 300 200 l S"))
	f.Add(1e-7, 0.0, -1.0, []byte("BT /F1 1 Tf (x) Tj ET"), []byte("BT /Pattern cs /P scn /F1 400 Tf 0 0 Td (ab) Tj ET"))
	f.Fuzz(func(t *testing.T, xstep, ystep, scale float64, cell, page []byte) {
		var b documenttest.Builder
		catalog, pages, pg, pat, inner := b.Reserve(), b.Reserve(), b.Reserve(), b.Reserve(), b.Reserve()
		font := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
		res := fmt.Sprintf("/Resources << /Pattern << /P %d 0 R /Q %d 0 R >> /Font << /F1 %d 0 R >> >>", pat, inner, font)
		b.Set(pat, documenttest.Stream(fmt.Sprintf("/PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 %g %g] /XStep %g /YStep %g /Matrix [%g 0 0 %g 0 0] %s",
			xstep, ystep, xstep, ystep, scale, scale, res), cell, false))
		b.Set(inner, documenttest.Stream("/PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 0.5 0.5] /XStep 0.5 /YStep 0.5", []byte("0 0 0.2 0.2 re f"), false))
		contents := b.Add(documenttest.Stream("", page, false))
		b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
		b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", pg))
		b.Set(pg, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 300 200] %s /Contents %d 0 R >>", pages, res, contents))
		start := time.Now()
		readDrawing(t, b.Bytes(catalog, ""))
		if el := time.Since(start); el > 20*time.Second {
			t.Fatalf("reading the page took %v", el)
		}
	})
}
