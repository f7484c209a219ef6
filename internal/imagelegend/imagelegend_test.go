package imagelegend

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"blueprint/internal/catalog"
	"blueprint/internal/document"
	"blueprint/internal/legend"
	"blueprint/internal/ocr"
	"blueprint/internal/synth"
)

// newReader returns a Reader on this machine's tesseract, skipping where
// it is not installed unless BLUEPRINT_REQUIRE_OCR is set (.ci/run).
func newReader(t *testing.T) *Reader {
	t.Helper()
	o, err := ocr.New(context.Background(), "tesseract", "")
	if err != nil {
		if os.Getenv("BLUEPRINT_REQUIRE_OCR") != "" {
			t.Fatalf("tesseract is required here: %v", err)
		}
		t.Skipf("tesseract not installed: %v", err)
	}
	v, err := legend.DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	return &Reader{OCR: o, Vocab: v}
}

// The legends of generated sets scanned (synth KIND=scan-legend) read as
// the same sets' PDF legends do: each PDF row is found on the scan, near
// the same place, with the same class.
func TestScannedLegendsReadLikeThePDF(t *testing.T) {
	r := newReader(t)
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	g, err := synth.New(synth.FromCatalog(cat))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opt := synth.Options{MaxPaper: "A3", MaxDPI: 200}
	var rows, found, classed int
	for i := range 4 {
		vec, err := g.Legend(31, i, opt)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := document.Open(ctx, vec.Data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		pg, err := doc.Drawing(ctx, 0)
		doc.Close()
		if err != nil {
			t.Fatal(err)
		}
		var want []legend.Row
		for _, tb := range legend.Find(pg, 0, r.Vocab) {
			want = append(want, tb.Rows...)
		}
		scan, err := g.ScanLegend(ctx, 31, i, opt)
		if err != nil {
			t.Fatal(err)
		}
		sdoc, err := document.Open(ctx, scan.Data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		page, err := sdoc.Page(ctx, 0)
		if err != nil {
			sdoc.Close()
			t.Fatal(err)
		}
		tables, err := r.Find(ctx, page.Raster)
		sdoc.Close()
		if err != nil {
			t.Fatal(err)
		}
		var got []Row
		for _, tb := range tables {
			got = append(got, tb.Rows...)
		}
		if os.Getenv("IL_ROWS") != "" {
			for _, o := range got {
				t.Logf("set %d: got %q (%s) tags %v qty %v glyph %v", i, o.Description, o.Class, o.Tags, o.Quantity, o.Glyph)
			}
		}
		// A scan is skewed by up to 2°: rows are matched by their words,
		// not their place.
		for _, w := range want {
			rows++
			wc, _ := r.Vocab.Class(w.Description)
			best, bestShare := -1, 0.6
			for k, o := range got {
				if s := wordShare(w.Description, o.Description); s >= bestShare {
					best, bestShare = k, s
				}
			}
			if best < 0 {
				t.Logf("set %d: row %q (%s) not found", i, w.Description, wc)
				continue
			}
			found++
			if got[best].Class == wc {
				classed++
			} else {
				t.Logf("set %d: row %q (%s) read as %q (%s)", i, w.Description, wc, got[best].Description, got[best].Class)
			}
		}
	}
	t.Logf("%d PDF legend rows: %d found on the scans, %d with the same class", rows, found, classed)
	// Measured: 45 of 55 found, every one with the PDF's class
	// (docs/raster.md, "Legends on images").
	if rows == 0 || float64(found) < 0.75*float64(rows) || classed < found*95/100 {
		t.Errorf("%d PDF legend rows: %d found on the scans, %d with the same class; want 75 %% found, 95 %% of those with the class", rows, found, classed)
	}
}

// wordShare is the share of a's words (upper case, letters and digits)
// found in b.
func wordShare(a, b string) float64 {
	norm := func(s string) []string {
		return strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	wa, wb := norm(a), norm(b)
	if len(wa) == 0 {
		return 0
	}
	n := 0
	for _, w := range wa {
		if slices.Contains(wb, w) {
			n++
		}
	}
	return float64(n) / float64(len(wa))
}
