package main

import (
	"encoding/json"
	"math"
	"os"
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
		got := job.LegendView{PageIndex: r.PageIndex, Description: r.Description, Class: r.Class, PrintedQuantity: r.PrintedQuantity, Detected: r.Counted,
			Code: r.Code, Source: r.Source, Tagged: r.Tagged, Agreement: r.Agreement}
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Errorf("row %d: explain %s, takeoff %s", r.Row, g, w)
		}
		if r.GlyphMM == nil || r.GlyphMM[0] <= 0 || r.GlyphMM[1] <= 0 || r.Template < 1 {
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

// TestExplainRepeatedLegend: a legend drawn on several sheets is written
// once, each row with the pages it is drawn on, its printed quantity and
// matches summed over them, and the copies' row numbers; the JSON keeps
// every row, a copy pointing at the row it repeats (repeat_of).
func TestExplainRepeatedLegend(t *testing.T) {
	q := func(n int) *int { return &n }
	one := func(n int) *int { return &n }
	class := "smoke_detector"
	rep := &explainReport{File: "set.pdf", ConfidenceMode: "per_class_default",
		Pages: []explainPage{{PageIndex: 0, Kind: "floor_plan", Rows: []int{1, 2}}, {PageIndex: 1, Kind: "floor_plan", Rows: []int{3, 4}}},
		Rows: []explainRow{
			{Row: 1, PageIndex: 0, Description: "Smoke detector", Class: &class, PrintedQuantity: q(3), Template: 1, Counted: 3, Matches: []pageCount{{0, 3}}},
			{Row: 2, PageIndex: 0, Description: "Horn strobe", Tags: []string{"15CD"}, PrintedQuantity: q(1), Template: 2, Counted: 1, Matches: []pageCount{{0, 1}}},
			{Row: 3, PageIndex: 1, Description: "Smoke detector", Class: &class, PrintedQuantity: q(4), Template: 1, Counted: 5, Matches: []pageCount{{1, 5}}, RepeatOf: one(1)},
			{Row: 4, PageIndex: 1, Description: "Horn strobe", Tags: []string{"30CD"}, PrintedQuantity: q(2), Template: 2, Counted: 2, Matches: []pageCount{{1, 2}}},
		},
		Templates: []explainTemplate{{Row: 1, Rows: []int{1, 3}, Class: &class, MinScale: 0.3, MaxScale: 3}, {Row: 2, Rows: []int{2, 4}, MinScale: 0.3, MaxScale: 3}},
	}
	var b strings.Builder
	if err := rep.write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"legend rows read: 4, 1 of them repeating a row of an earlier page",
		"3 distinct",
		"legend rows read here: 3–4 (1 repeating rows 1 of an earlier page)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	lines := func(prefix string) []string {
		var ls []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(strings.Join(f, " "), prefix) {
				ls = append(ls, strings.Join(f, " "))
			}
		}
		return ls
	}
	// The row and its copy are one line, the rows told apart by their
	// tags two.
	if got := lines("1, 3 "); len(got) != 2 || !strings.HasPrefix(got[0], "1, 3 1–2 ") || !strings.HasSuffix(got[0], "smoke_detector - 7") ||
		got[1] != "1, 3 smoke_detector 8 8 page 1: 3, page 2: 5" {
		t.Errorf("the repeated row: %q", got)
	}
	// Rows told apart by their tags stay apart (one template finds both).
	if got := lines("2 1 "); len(got) != 1 || !strings.Contains(got[0], "15CD") {
		t.Errorf("row 2 (15CD): %q", got)
	}
	if got := lines("4 2 "); len(got) != 1 || !strings.Contains(got[0], "30CD") {
		t.Errorf("row 4 (30CD): %q", got)
	}
	if got := lines("2 - 0.3–3×"); len(got) != 1 || !strings.HasSuffix(got[0], " 2, 4") {
		t.Errorf("template of row 2 finds %q, want rows 2 and 4", got)
	}
	if got := lines("1 smoke_detector"); len(got) != 1 || !strings.HasSuffix(got[0], " 1") {
		t.Errorf("template of row 1 finds %q, want row 1 (with its copy)", got)
	}
}

// TestExplainRepeatedLegendRealData: on the South African set, whose
// legend of 20 rows is drawn on its four plans, explain writes each row
// once and its JSON points the copies at the first (skipped where
// ../shared/realdata is absent).
func TestExplainRepeatedLegendRealData(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "realdata", "electrical_za_newmark.pdf")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no ../shared/realdata: the real drawings are not committed")
	}
	code, stdout, stderr := cli(t, rasterOff, "explain", "--json", path)
	var rep explainReport
	if err := json.Unmarshal([]byte(stdout), &rep); code != exitOK || err != nil {
		t.Fatalf("explain --json: exit %d %s %v", code, stderr, err)
	}
	firsts := 0
	for _, r := range rep.Rows {
		if r.RepeatOf == nil {
			firsts++
		} else if f := rep.Rows[*r.RepeatOf-1]; f.Description != r.Description || f.PageIndex >= r.PageIndex {
			t.Errorf("row %d (%q, page %d) repeats row %d (%q, page %d)", r.Row, r.Description, r.PageIndex, *r.RepeatOf, f.Description, f.PageIndex)
		}
	}
	if len(rep.Rows) != 80 || firsts != 20 {
		t.Errorf("%d rows, %d of them first; want 80 and 20", len(rep.Rows), firsts)
	}
	var b strings.Builder // the text explain writes of the same account
	if err := rep.write(&b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "legend rows read: 80, 60 of them repeating") || !strings.Contains(strings.Join(strings.Fields(out), " "), " 1, 21, 41, 61 4–7 1.9 × 2.2 ") {
		t.Errorf("explain:\n%s", out)
	}
}

// TestExplainImagePage: on an image, with legends on images off (the
// default), explain says they were off and how to turn them on, not that
// the page writes no text (skipped without ONNX Runtime, which images
// need).
func TestExplainImagePage(t *testing.T) {
	vars := withRaster(t)
	code, stdout, stderr := cli(t, vars, "explain", filepath.Join("..", "..", "testdata", "synth", "scan-00001.png"))
	if code != exitOK || !strings.Contains(stdout, "legends: not searched: an image page, and legends on images are off: BLUEPRINT_IMAGE_LEGENDS=on") ||
		strings.Contains(stdout, "writes no text") {
		t.Errorf("explain of an image: exit %d %s\n%s", code, stderr, stdout)
	}
}

// TestGlyphSizeOfScheduleRows: a row drawing no glyph (a schedule's code)
// has an empty, infinite box; its size is null in the JSON account, which
// then still encodes (it failed with "unsupported value: -Inf").
func TestGlyphSizeOfScheduleRows(t *testing.T) {
	if got := glyphMM(math.Inf(-1), math.Inf(-1)); got != nil {
		t.Errorf("no glyph: %v mm, want nil", *got)
	}
	if got := glyphMM(40, 20); got == nil || got[0] != round1(40*mmPerPixel) || got[1] != round1(20*mmPerPixel) {
		t.Errorf("a 40 × 20 px glyph: %v", got)
	}
	rep := explainReport{Rows: []explainRow{{Row: 1, GlyphMM: glyphMM(math.Inf(-1), math.Inf(-1))}}}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("a schedule row's account does not encode: %v", err)
	}
}
