package document

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"blueprint/internal/document/documenttest"
)

// TestContentCostRefusesHostileFiles: the start check refuses the two
// hostile files of issue 34 with 422 reasons naming what they would cost,
// and lets the same constructions at a harmless size through.
func TestContentCostRefusesHostileFiles(t *testing.T) {
	ctx := context.Background()
	lim := DefaultLimits()
	for _, tc := range []struct {
		name   string
		data   []byte
		reason string // "" when the file passes
		detail string
	}{
		{"nested forms, 10^5 lines", documenttest.NestedFormsPDF(6, 10, false), ReasonDecompressionBomb, "content_bytes_at_least"},
		{"nested forms, 10^5 lines shifted", documenttest.NestedFormsPDF(6, 10, true), ReasonDecompressionBomb, "content_bytes_at_least"},
		{"nested forms, 10^3 lines", documenttest.NestedFormsPDF(4, 10, false), "", ""},
		{"one stream shared by 60 pages", documenttest.SharedContentPDF(60, 4), ReasonDecompressionBomb, "content_bytes_at_least"},
		{"one stream used by 1 page", documenttest.SharedContentPDF(1, 4), "", ""},
	} {
		_, err := Validate(ctx, tc.data, MimePDF, lim)
		var inv *InvalidError
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("%s (%d bytes): refused: %v", tc.name, len(tc.data), err)
		case tc.reason == "":
		case !errors.As(err, &inv) || inv.Reason != tc.reason:
			t.Errorf("%s (%d bytes): %v, want %s", tc.name, len(tc.data), err, tc.reason)
		case inv.Details[tc.detail] == nil || inv.Details["page_index"] == nil:
			t.Errorf("%s: details %v lack %s and page_index", tc.name, inv.Details, tc.detail)
		}
	}
}

// TestContentCostFormLimits: fan-out and nesting past the form limits are
// refused as drawing_too_complex even where the bytes stay in bounds.
func TestContentCostFormLimits(t *testing.T) {
	ctx := context.Background()
	lim := DefaultLimits()
	lim.MaxFormUses = 500
	_, err := Validate(ctx, documenttest.NestedFormsPDF(4, 10, false), MimePDF, lim) // 1 + 10 + 100 + 1000 uses
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex || inv.Details["max_form_uses"] != int64(500) {
		t.Errorf("fan-out: %v, want drawing_too_complex with max_form_uses", err)
	}
	lim = DefaultLimits()
	lim.MaxFormDepth = 3
	_, err = Validate(ctx, documenttest.NestedFormsPDF(4, 2, false), MimePDF, lim)
	if !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex || inv.Details["form_depth"] != 4 {
		t.Errorf("depth: %v, want drawing_too_complex with form_depth 4", err)
	}
}

// TestContentCostRealData: the real drawings pass the check, and it takes
// a small share of the start check (skips without ../shared/realdata).
func TestContentCostRealData(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "realdata", "*.pdf"))
	if len(files) == 0 {
		t.Skip("no real drawings under ../shared/realdata")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := openMuPDF(data)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		c, err := doc.Cost(context.Background(), mupdfCostLimits(len(data), DefaultLimits()))
		doc.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes, content %d bytes every use counted (%.1f× the file), most form uses %d on page %d, depth %d, %v",
			filepath.Base(f), len(data), c.Bytes, float64(c.Bytes)/float64(len(data)), c.Uses, c.WorstPage, c.Depth, time.Since(start).Round(time.Millisecond))
		if err := checkContentCost(context.Background(), data, DefaultLimits()); err != nil {
			t.Errorf("%s refused: %v", filepath.Base(f), err)
		}
	}
}

// TestContentCostChargesPatternCells: the 713-byte page of issue 47 (an A1
// page filled with a 0.01 pt tiling pattern, 4 × 10^10 cells) is refused
// at start as drawing_too_complex, its operations counted cell by cell;
// the same page with 1 pt cells (4 million) and a pattern used in a small
// clip pass.
func TestContentCostChargesPatternCells(t *testing.T) {
	ctx := context.Background()
	lim := DefaultLimits()
	bomb := documenttest.TilingPatternPDF(1684, 2384, 0.01)
	if len(bomb) != 713 {
		t.Errorf("the pattern page is %d bytes, want issue 47's 713", len(bomb))
	}
	start := time.Now()
	_, err := Validate(ctx, bomb, MimePDF, lim)
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex || inv.Details["page_index"] != 0 ||
		inv.Details["max_operations"] != lim.Drawing.MaxOps || inv.Details["operations_at_least"].(int64) <= lim.Drawing.MaxOps {
		t.Fatalf("0.01 pt cells: %v (details %v), want drawing_too_complex with page_index, operations_at_least and max_operations", err, inv)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("refusing it took %v", el)
	}
	for _, data := range [][]byte{
		documenttest.TilingPatternPDF(1684, 2384, 1),
		documenttest.FormPDF(300, 200, "0 0 m 1 1 l S", "", "1 0 0 1 0 0", ""),
	} {
		if _, err := Validate(ctx, data, MimePDF, lim); err != nil {
			t.Errorf("refused: %v", err)
		}
	}
}

// TestContentCostRefusesSelfPaintingPattern: a tiling pattern whose cell
// paints with the pattern itself (named to scn or to sc, over a real or an
// empty path, with positive or negative steps) is refused at start as
// drawing_too_complex: MuPDF nests such cells until its exception stack
// overflows, so it may never reach the walk. The fuzzer found these.
func TestContentCostRefusesSelfPaintingPattern(t *testing.T) {
	ctx := context.Background()
	lim := DefaultLimits()
	for _, c := range []struct {
		step       float64
		cell, page string
	}{
		{2, "/Pattern cs /P scn 0 0 2 3 re f", "/Pattern CS /P SCN 10 w 0 0 m 300 200 l S"},
		{-12, "/Pattern cs /P scn 0 0 2 3 re f", "/Pattern CS /P SCN 10 w 0 0 m 300 200 l S"},
		{2, "/P sc B", "/P SC B"},
		{12, "/P scn 0 0 1 1 re f", "/P scn f"},
	} {
		var b documenttest.Builder
		catalog, pages, pg, pat := b.Reserve(), b.Reserve(), b.Reserve(), b.Reserve()
		res := fmt.Sprintf("/Resources << /Pattern << /P %d 0 R >> >>", pat)
		b.Set(pat, documenttest.Stream(fmt.Sprintf("/PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 %g 3] /XStep %g /YStep 3 %s", c.step, c.step, res), []byte(c.cell), false))
		contents := b.Add(documenttest.Stream("", []byte(c.page), false))
		b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
		b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", pg))
		b.Set(pg, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 300 200] %s /Contents %d 0 R >>", pages, res, contents))
		_, err := Validate(ctx, b.Bytes(catalog, ""), MimePDF, lim)
		var inv *InvalidError
		if !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex || inv.Details["max_form_depth"] != lim.MaxFormDepth {
			t.Errorf("step %g, cell %q, page %q: %v, want drawing_too_complex naming max_form_depth", c.step, c.cell, c.page, err)
		}
	}
}

// TestContentCostRefusesSelfShowingType3Font: a Type 3 font whose glyph
// procedure shows text in the same font is refused at start as
// drawing_too_complex (MuPDF nests such glyphs until its exception stack
// overflows); the same font showing text in another font is read. Were
// such a page to reach processing, its drawing and its render refuse it
// too (mupdf.ErrNestedTooDeep).
func TestContentCostRefusesSelfShowingType3Font(t *testing.T) {
	ctx := context.Background()
	lim := DefaultLimits()
	pdf := func(proc string) []byte {
		var b documenttest.Builder
		catalog, pages, pg, font, glyphProc := b.Reserve(), b.Reserve(), b.Reserve(), b.Reserve(), b.Reserve()
		helv := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
		b.Set(glyphProc, documenttest.Stream("", []byte(proc), false))
		b.Set(font, fmt.Sprintf("<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1 1] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /a %d 0 R >> /Encoding << /Differences [97 /a] >> /FirstChar 97 /LastChar 97 /Widths [1000] /Resources << /Font << /F %d 0 R /H %d 0 R >> >> >>", glyphProc, font, helv))
		contents := b.Add(documenttest.Stream("", []byte("BT /F 12 Tf 10 10 Td (aaa) Tj ET"), false))
		b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
		b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", pg))
		b.Set(pg, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F %d 0 R >> >> /Contents %d 0 R >>", pages, font, contents))
		return b.Bytes(catalog, "")
	}
	_, err := Validate(ctx, pdf("0 0 d0 BT /F 1 Tf (a) Tj ET 0 0 1 1 re f"), MimePDF, lim)
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex || inv.Details["max_form_depth"] != lim.MaxFormDepth {
		t.Errorf("a glyph showing its own font: %v, want drawing_too_complex naming max_form_depth", err)
	}
	if _, err := Validate(ctx, pdf("0 0 d0 BT /H 1 Tf (a) Tj ET 0 0 1 1 re f"), MimePDF, lim); err != nil {
		t.Errorf("a glyph showing another font: %v", err)
	}
	// Past the start check (a cycle it would not know), both reads of the
	// page refuse it with a reason, not as a failure of the service.
	doc, err := Open(ctx, pdf("0 0 d0 BT /F 1 Tf (a) Tj ET 0 0 1 1 re f"), MimePDF, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	if _, err := doc.Drawing(ctx, 0); !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex {
		t.Errorf("drawing: %v, want drawing_too_complex", err)
	}
	if _, err := doc.Page(ctx, 0); !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex {
		t.Errorf("page: %v, want drawing_too_complex", err)
	}
}

// TestPatternPageFailsAtProcessing: were issue 47's page to reach
// processing (a start check of other limits), both reads of it stop with
// drawing_too_complex in a bounded time: the walk charges every cell, the
// render counts the cells before painting them.
func TestPatternPageFailsAtProcessing(t *testing.T) {
	ctx := context.Background()
	data := documenttest.TilingPatternPDF(1684, 2384, 0.01)
	doc, err := Open(ctx, data, MimePDF, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	start := time.Now()
	_, err = doc.Drawing(ctx, 0)
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex {
		t.Errorf("drawing: %v, want drawing_too_complex", err)
	}
	_, err = doc.Page(ctx, 0)
	if !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex {
		t.Errorf("page: %v, want drawing_too_complex", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("both reads took %v", el)
	}
	t.Logf("walk and render refused it in %v", time.Since(start))
}

// TestContentCostChargesSoftMasks: a soft mask is run again for every
// object painted under it, so the start check charges its operations at
// each: 200 lines under a mask of 100 lines ask for 20 000 operations.
func TestContentCostChargesSoftMasks(t *testing.T) {
	var b documenttest.Builder
	catalog, pages, page, mask := b.Reserve(), b.Reserve(), b.Reserve(), b.Reserve()
	b.Set(mask, documenttest.Stream("/Type /XObject /Subtype /Form /BBox [0 0 300 200] /Group << /S /Transparency /CS /DeviceGray >>",
		[]byte(strings.Repeat("1 g 0 0 m 300 200 l S\n", 100)), false))
	gs := b.Add(fmt.Sprintf("<< /Type /ExtGState /SMask << /Type /Mask /S /Luminosity /G %d 0 R >> >>", mask))
	contents := b.Add(documenttest.Stream("", []byte("/GS1 gs "+strings.Repeat("0 0 m 10 10 l S\n", 200)), false))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	b.Set(page, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 300 200] /Resources << /ExtGState << /GS1 %d 0 R >> >> /Contents %d 0 R >>", pages, gs, contents))
	data := b.Bytes(catalog, "")
	lim := DefaultLimits()
	lim.Drawing.MaxOps = 15_000
	_, err := Validate(context.Background(), data, MimePDF, lim)
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex || inv.Details["operations_at_least"].(int64) < 15_000 {
		t.Fatalf("%v, want drawing_too_complex past 15 000 operations", err)
	}
	lim.Drawing.MaxOps = 25_000
	if _, err := Validate(context.Background(), data, MimePDF, lim); err != nil {
		t.Fatalf("within 25 000 operations: %v", err)
	}
	// The walk counts it the same way: the page passes 15 000 there too.
	lim.Drawing.MaxOps = 15_000
	doc, err := Open(context.Background(), data, MimePDF, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	if _, err := doc.Drawing(context.Background(), 0); !errors.As(err, &inv) || inv.Reason != ReasonDrawingTooComplex {
		t.Errorf("walk: %v, want drawing_too_complex", err)
	}
}
