package engine

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/eval/dataset"
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
	eng, err := New(cat)
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
			t.Fatal(err)
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
		for i, r := range info.Legend {
			t.Logf("  row %d p%d %-28q class %-22s", i+1, r.PageIndex, r.Description, r.Class)
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
