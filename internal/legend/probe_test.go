package legend

import (
	"blueprint/internal/drawing"
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"blueprint/internal/document"
	"blueprint/internal/ocr"
	"blueprint/internal/ocrtext"
)

func TestProbeOCR(t *testing.T) {
	name := os.Getenv("PROBE")
	if name == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(name)
	ctx := context.Background()
	doc, _ := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	pg, _ := doc.Drawing(ctx, 0)
	rec, _ := ocr.New(ctx, "tesseract", os.Getenv("LANGS"))
	d := &Document{tables: map[int][]Rect{}}
	t0 := time.Now()
	cache := name + ".gob"
	cache = "/tmp/ocrt/" + filepath.Base(cache)
	var pg2 *drawing.Page
	if b, err := os.ReadFile(cache); err == nil {
		var pt PageText
		gob.NewDecoder(bytes.NewReader(b)).Decode(&pt)
		pg2 = pt.apply(pg)
	} else {
		var err error
		pg2, err = d.readOutlines(ctx, ocrtext.New(rec, ocrtext.Options{}), 0, pg)
		var buf bytes.Buffer
		gob.NewEncoder(&buf).Encode(d.ocr[0])
		os.WriteFile(cache, buf.Bytes(), 0o644)
		fmt.Println("ocr", time.Since(t0), err)
	}
	fmt.Println(len(pg2.Chars), len(pg2.Segments), len(pg.Segments))
	fmt.Println(turnedAngles(pg2))
	vocab, _ := DefaultVocabulary()
	for _, a := range turnedAngles(pg2) {
		tt := turn{angle: a, w: pg2.Width, h: pg2.Height}
		tp := tt.page(pg2)
		rs := runs(tp)
		h, st := searched(rs, vocab.maps())
		fmt.Println("angle", a, "runs", len(rs), "header", h, st)
		pe := &PageExplanation{}
		tbs := find(tp, 0, rs, vocab.maps(), pe)
		fmt.Println("tables", len(tbs), "cands", len(pe.Candidates), "cols", len(pe.Columns))
		for _, c := range pe.Candidates {
			if c.Glyph.Min.X > 5000 && c.Glyph.Min.X < 6600 && c.Glyph.Min.Y > 5200 && c.Glyph.Min.Y < 6700 {
				fmt.Printf("  cand %q %.0f,%.0f-%.0f,%.0f rej %q\n", c.Text, c.Glyph.Min.X, c.Glyph.Min.Y, c.Glyph.Max.X, c.Glyph.Max.Y, c.Rejected)
			}
		}
		for _, c := range pe.Columns {
			fmt.Printf("  col %v rows %d table %v rej %q %q\n", c.Box, c.Rows, c.Table, c.Rejected, c.Texts)
		}
		for _, tb := range tbs {
			for _, r := range tb.Rows {
				fmt.Printf("   row %q tags %q glyphtext %q\n", r.Description, r.Tags, r.GlyphText)
			}
		}
		for _, r := range rs {
			if os.Getenv("RUNS") != "" && r.upright() && r.min.X > 5000 && r.min.X < 6600 && r.min.Y > 5200 && r.min.Y < 6600 {
				fmt.Printf("   run %q %.0f,%.0f-%.0f,%.0f size %.1f\n", r.text, r.min.X, r.min.Y, r.max.X, r.max.Y, r.size)
			}
		}
	}
}
