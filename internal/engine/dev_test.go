package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/eval/dataset"
	"blueprint/internal/legend"
	"blueprint/internal/vector"
)

// TestDevLegendSheets prints, for the legend sets named by
// ENGINE_DEV_SHEETS (comma-separated paths of generated PDFs), the legend
// rows read and per page the truth against the detections by class: a
// development aid, skipped otherwise.
func TestDevLegendSheets(t *testing.T) {
	env := os.Getenv("ENGINE_DEV_SHEETS")
	if env == "" {
		t.Skip("ENGINE_DEV_SHEETS not set")
	}
	ctx := context.Background()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := New(cat, Options{RasterOff: true}) // vector matching and legend reading: what these measure
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range strings.Split(env, ",") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		truth, err := dataset.Read(strings.TrimSuffix(path, filepath.Ext(path)) + ".json")
		if err != nil {
			t.Logf("no truth: %v", err)
		}
		doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		pe, info, err := eng.Prepare(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("== %s kinds %v", path, info.Kinds)
		ld, err := legend.Read(ctx, doc, eng.vocab)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("  leaders %v", ld.Leaders())
		for i, r := range info.Legend {
			var shapes []string
			for _, s := range ld.Rows[i].Glyph.Shapes {
				shapes = append(shapes, fmt.Sprintf("%s/%d%s%s", s.Kind, len(s.Pts), map[bool]string{true: "F"}[s.Fill], s.Text))
			}
			t.Logf("  row %d p%d %-28q class %-22s text %q tags %v %s %v", i+1, r.PageIndex, r.Description, r.Class, ld.Rows[i].GlyphText, ld.Rows[i].Tags, ld.Rows[i].Color, shapes)
		}
		for i := range doc.NumPages() {
			pg, err := doc.Drawing(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := pe.Detect(ctx, detect.Page{Index: i, PDF: drawingPage{pg}})
			if err != nil {
				t.Fatal(err)
			}
			got, want := map[string]int{}, map[string]int{}
			for _, d := range ds {
				if d.Class == "" {
					continue // a legend row of no class: counted under its row
				}
				if th, _ := cat.Threshold(d.Class); d.Confidence >= th {
					got[d.Class]++
				}
			}
			if i < len(truth.Pages) {
				for _, s := range truth.Pages[i].Symbols {
					want[s.Class]++
				}
			}
			var cls []string
			for c := range want {
				cls = append(cls, c)
			}
			for c := range got {
				if _, ok := want[c]; !ok {
					cls = append(cls, c)
				}
			}
			sort.Strings(cls)
			for _, c := range cls {
				mark := ""
				if got[c] != want[c] {
					mark = " <<"
				}
				t.Logf("  page %d %-22s truth %4d detected %4d%s", i, c, want[c], got[c], mark)
			}
		}
		doc.Close()
	}
}

// TestDevLegendRow matches one legend row's glyph alone (ENGINE_DEV_ROW,
// 1-based) on the first page of ENGINE_DEV_SHEETS and prints coverages.
func TestDevLegendRow(t *testing.T) {
	path, rowEnv := os.Getenv("ENGINE_DEV_SHEETS"), os.Getenv("ENGINE_DEV_ROW")
	if path == "" || rowEnv == "" {
		t.Skip("ENGINE_DEV_SHEETS or ENGINE_DEV_ROW not set")
	}
	ctx := context.Background()
	cat, _ := catalog.Load("")
	eng, _ := New(cat, Options{RasterOff: true}) // vector matching and legend reading: what these measure
	data, _ := os.ReadFile(path)
	doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	ld, _ := legend.Read(ctx, doc, eng.vocab)
	var tpls []vector.Template
	for _, f := range strings.Split(rowEnv, ",") {
		var row int
		fmt.Sscan(f, &row)
		tpls = append(tpls, vector.Template{Class: f, Glyph: ld.Rows[row-1].Glyph, MinScale: 0.15, MaxScale: 4, Row: row, Priority: 1})
	}
	m, err := vector.NewMatcher(tpls)
	if err != nil {
		t.Fatal(err)
	}
	for p := range doc.NumPages() {
		pg, _ := doc.Drawing(ctx, p)
		ms, _ := m.Match(ctx, pg)
		for _, x := range ms {
			t.Logf("page %d class %s cov %.3f conf %.2f scale %.2f legend %v at %.0f,%.0f", p, x.Class, x.Coverage, x.Confidence, x.Placement.Scale, x.Legend, x.Box.X, x.Box.Y)
		}
	}
}

// TestDevRaw prints the raw matches of the document's matcher on page
// ENGINE_DEV_PAGE of ENGINE_DEV_SHEETS by class and row.
func TestDevRaw(t *testing.T) {
	path, pageEnv := os.Getenv("ENGINE_DEV_SHEETS"), os.Getenv("ENGINE_DEV_PAGE")
	if path == "" || pageEnv == "" {
		t.Skip("ENGINE_DEV_SHEETS or ENGINE_DEV_PAGE not set")
	}
	ctx := context.Background()
	cat, _ := catalog.Load("")
	eng, _ := New(cat, Options{RasterOff: true}) // vector matching and legend reading: what these measure
	data, _ := os.ReadFile(path)
	doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	pe, _, err := eng.Prepare(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	var p int
	fmt.Sscan(pageEnv, &p)
	pg, _ := doc.Drawing(ctx, p)
	ms, _ := devDocEngine(t, pe).m.Match(ctx, pg)
	n := map[string]int{}
	for _, m := range ms {
		n[fmt.Sprintf("%s row %d legend %v conf>=0.5 %v", m.Class, m.Row, m.Legend, m.Confidence >= 0.5)]++
	}
	for k, v := range n {
		t.Logf("%4d %s", v, k)
	}
}

// TestDevTemplateCost times each legend template alone on page
// ENGINE_DEV_PAGE of ENGINE_DEV_SHEETS.
func TestDevTemplateCost(t *testing.T) {
	path, pageEnv := os.Getenv("ENGINE_DEV_SHEETS"), os.Getenv("ENGINE_DEV_PAGE")
	if path == "" || pageEnv == "" || os.Getenv("ENGINE_DEV_COST") == "" {
		t.Skip("ENGINE_DEV_SHEETS, ENGINE_DEV_PAGE or ENGINE_DEV_COST not set")
	}
	ctx := context.Background()
	cat, _ := catalog.Load("")
	eng, _ := New(cat, Options{RasterOff: true}) // vector matching and legend reading: what these measure
	data, _ := os.ReadFile(path)
	doc, _ := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	ld, _ := legend.Read(ctx, doc, eng.vocab)
	var p int
	fmt.Sscan(pageEnv, &p)
	pg, _ := doc.Drawing(ctx, p)
	base, _ := vector.NewMatcher(eng.catalog)
	t0 := time.Now()
	base.Match(ctx, pg)
	t.Logf("catalog alone %.3f s", time.Since(t0).Seconds())
	for _, l := range ld.Leaders() {
		r := ld.Rows[l]
		m, err := vector.NewMatcher(append(append([]vector.Template(nil), eng.catalog...), vector.Template{Class: "x", Glyph: r.Glyph, MinScale: legendMinScale, MaxScale: legendMaxScale}))
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		ms, _ := m.Match(ctx, pg)
		t.Logf("row %2d %-40.40q shapes %3d: %.3f s, %d matches", l+1, r.Description, len(r.Glyph.Shapes), time.Since(t0).Seconds(), len(ms))
	}
}

// devDocEngine is the legend-reading engine inside pe (wrapped by fused
// when the raster detector is on or off).
func devDocEngine(t *testing.T, pe detect.Engine) *docEngine {
	t.Helper()
	if f, ok := pe.(*fused); ok {
		pe = f.vector
	}
	d, ok := pe.(*docEngine)
	if !ok {
		t.Fatalf("engine %T holds no docEngine", pe)
	}
	return d
}
