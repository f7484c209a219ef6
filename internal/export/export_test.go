package export

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"

	"blueprint/internal/job"
)

func ptr(s string) *string { return &s }

// sample is a two-page take-off: page 0 has 3 sockets and a smoke detector,
// page 1 two sockets; the legend prints 6 sockets.
func sample(lang string) *job.Takeoff {
	sock := func(n int) job.SymbolCount {
		return job.SymbolCount{Class: "socket_outlet", DisplayName: ptr("Socket outlet, \"single\""), Category: ptr("sockets"), Count: n}
	}
	smoke := job.SymbolCount{Class: "smoke_detector", DisplayName: ptr("Savuilmaisin"), Category: ptr("detectors"), Talo2010Code: ptr("T-1"), Count: 1}
	return &job.Takeoff{
		JobID: "j1", FileName: "plan.pdf", ConfidenceMode: "per_class_default", Lang: lang,
		Summary: job.Summary{TotalDetections: 6, BySymbol: []job.SymbolCount{sock(5), smoke}},
		Pages: []job.PageTakeoff{
			{PageIndex: 0, Summary: job.Summary{TotalDetections: 4, BySymbol: []job.SymbolCount{sock(3), smoke}}, Printed: map[string]float64{"socket_outlet": 6}},
			{PageIndex: 1, Summary: job.Summary{TotalDetections: 2, BySymbol: []job.SymbolCount{sock(2)}}},
		},
		Printed: map[string]float64{"socket_outlet": 6},
	}
}

func TestCSV(t *testing.T) {
	var b bytes.Buffer
	if err := CSV(&b, sample("en")); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v", err)
	}
	want := [][]string{
		CSVHeader,
		{"socket_outlet", "Socket outlet, \"single\"", "sockets", "", "5", "6"},
		{"smoke_detector", "Savuilmaisin", "detectors", "T-1", "1", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %q", rows)
	}
	sum := 0
	for i := range want {
		if !slices.Equal(rows[i], want[i]) {
			t.Errorf("row %d = %q, want %q", i, rows[i], want[i])
		}
		if i > 0 {
			n, _ := strconv.Atoi(rows[i][4])
			sum += n
		}
	}
	if sum != 6 {
		t.Errorf("counts sum to %d, want total_detections 6", sum)
	}
}

func TestCSVEmpty(t *testing.T) {
	var b bytes.Buffer
	tk := &job.Takeoff{JobID: "j", Summary: job.Summary{BySymbol: []job.SymbolCount{}}}
	if err := CSV(&b, tk); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "class,display_name,category,talo2010_code,count,printed_quantity\r\n" {
		t.Errorf("empty take-off CSV = %q", got)
	}
}

func readXLSX(t *testing.T, tk *job.Takeoff) *excelize.File {
	t.Helper()
	var b bytes.Buffer
	if err := XLSX(&b, tk); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatalf("not an XLSX excelize can open: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestXLSX(t *testing.T) {
	f := readXLSX(t, sample("en"))
	if got := f.GetSheetList(); !slices.Equal(got, []string{"Take-off", "Page 1", "Page 2"}) {
		t.Fatalf("sheets %q", got)
	}
	rows, err := f.GetRows("Take-off")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"Symbol", "Class", "Category", "Talo 2010", "Count", "Printed quantity (legend)"},
		{"Socket outlet, \"single\"", "socket_outlet", "sockets", "", "5", "6"},
		{"Savuilmaisin", "smoke_detector", "detectors", "T-1", "1"},
		{"Total", "", "", "", "6"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %q", rows)
	}
	for i := range want {
		if !slices.Equal(rows[i], want[i]) {
			t.Errorf("row %d = %q, want %q", i, rows[i], want[i])
		}
	}
	if fm, _ := f.GetCellFormula("Take-off", "E4"); fm != "SUM(E2:E3)" {
		t.Errorf("total formula %q", fm)
	}
	// The total's cached value is what a reader without a formula engine sees.
	if v, _ := f.CalcCellValue("Take-off", "E4"); v != "6" {
		t.Errorf("total computes to %q", v)
	}
	p1, _ := f.GetRows("Page 1")
	p2, _ := f.GetRows("Page 2")
	if len(p1) != 4 || p1[1][4] != "3" || p1[1][5] != "6" || p1[3][4] != "4" {
		t.Errorf("page 1 sheet %q", p1)
	}
	if cell, _ := f.GetCellType("Take-off", "D2"); cell != excelize.CellTypeUnset {
		t.Errorf("null Talo code written as a cell of type %v, want no cell", cell)
	}
	if len(p2) != 3 || p2[1][4] != "2" || len(p2[1]) != 5 || p2[2][4] != "2" {
		t.Errorf("page 2 sheet %q (no printed quantity on this page)", p2)
	}
	props, err := f.GetDocProps()
	if err != nil || props.Identifier != "j1" || props.Title != "Take-off of plan.pdf" {
		t.Errorf("doc props %+v %v", props, err)
	}
}

func TestXLSXFinnishAndEmpty(t *testing.T) {
	tk := &job.Takeoff{JobID: "j", Lang: "fi", Summary: job.Summary{BySymbol: []job.SymbolCount{}},
		Pages: []job.PageTakeoff{{PageIndex: 0, Summary: job.Summary{BySymbol: []job.SymbolCount{}}}}}
	f := readXLSX(t, tk)
	if got := f.GetSheetList(); !slices.Equal(got, []string{"Määrälaskenta", "Sivu 1"}) {
		t.Fatalf("sheets %q", got)
	}
	rows, _ := f.GetRows("Määrälaskenta")
	if len(rows) != 2 || rows[0][0] != "Symboli" || rows[1][0] != "Yhteensä" || rows[1][4] != "0" {
		t.Errorf("rows %q", rows)
	}
	if fm, _ := f.GetCellFormula("Määrälaskenta", "E2"); fm != "" {
		t.Errorf("empty take-off has total formula %q (it would refer to itself)", fm)
	}
}
