package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"blueprint/internal/job"
)

// TestExplainAgreesWithTakeoff: explain's account of a generated set
// (its legend on page 2) is of the reading takeoff counts with: the same
// page kinds and legend rows, each row's counted matches its detected;
// and it says why, in text and in JSON.
func TestExplainAgreesWithTakeoff(t *testing.T) {
	sheet := filepath.Join("..", "..", "testdata", "synth", "sheet-00003.pdf")
	code, stdout, stderr := cli(t, rasterOff, "explain", "--json", sheet)
	if code != exitOK {
		t.Fatalf("explain --json: exit %d: %s", code, stderr)
	}
	var rep explainReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("explain --json: %v\n%s", err, stdout)
	}
	code, stdout, stderr = cli(t, rasterOff, "takeoff", "--json", sheet)
	if code != exitOK {
		t.Fatalf("takeoff --json: exit %d: %s", code, stderr)
	}
	var tk []fileTakeoff
	if err := json.Unmarshal([]byte(stdout), &tk); err != nil || len(tk) != 1 {
		t.Fatalf("takeoff --json: %v\n%s", err, stdout)
	}
	if len(rep.Pages) != len(tk[0].Pages) || len(rep.Rows) != len(tk[0].Legend) || len(rep.Rows) == 0 {
		t.Fatalf("explain: %d pages, %d rows; takeoff: %d pages, %d legend rows", len(rep.Pages), len(rep.Rows), len(tk[0].Pages), len(tk[0].Legend))
	}
	for i, p := range rep.Pages {
		if p.Kind != tk[0].Pages[i].Kind || p.KindReason == "" || p.SearchReason == "" {
			t.Errorf("page %d: explain %q because %q (search: %q); takeoff %q", i, p.Kind, p.KindReason, p.SearchReason, tk[0].Pages[i].Kind)
		}
	}
	if p := rep.Pages[1]; !p.Searched || len(p.Rows) != len(rep.Rows) || len(p.Tables) != 1 {
		t.Errorf("the legend page: searched %v, rows %v, tables %v", p.Searched, p.Rows, p.Tables)
	}
	for i, r := range rep.Rows {
		want := tk[0].Legend[i]
		if want.GlyphBBoxNorm == nil {
			t.Errorf("row %d: the take-off gives no glyph box", r.Row)
		}
		want.GlyphBBoxNorm = nil // explain gives the glyph's size in mm instead (checked below)
		got := job.LegendView{PageIndex: r.PageIndex, Description: r.Description, Class: r.Class, PrintedQuantity: r.PrintedQuantity, Detected: r.Counted}
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Errorf("row %d: explain %s, takeoff %s", r.Row, g, w)
		}
		if r.GlyphMM[0] <= 0 || r.GlyphMM[1] <= 0 || r.Template < 1 {
			t.Errorf("row %d: glyph %v mm, template row %d", r.Row, r.GlyphMM, r.Template)
		}
	}
	if len(rep.Templates) == 0 || rep.CatalogTemplates == 0 {
		t.Errorf("templates: %d of the legend, %d of the catalog", len(rep.Templates), rep.CatalogTemplates)
	}

	code, stdout, stderr = cli(t, rasterOff, "explain", sheet)
	for _, want := range []string{"page 2: floor_plan", "legends: searched", "legend table of 10 rows", "rejected", "legend rows read: 10", "templates: 10", "matches per legend row"} {
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Errorf("explain: exit %d %s; no %q in\n%s", code, stderr, want, stdout)
			break
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
