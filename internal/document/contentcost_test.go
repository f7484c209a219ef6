package document

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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
		c, err := doc.Cost(mupdfCostLimits(len(data), DefaultLimits()))
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
