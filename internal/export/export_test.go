package export

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"

	"blueprint/internal/catalog"
	"blueprint/internal/job"
)

func ptr(s string) *string { return &s }

func num(n int) *int { return &n }

// sample is a three-page take-off: page 0 has 3 sockets and a smoke
// detector, page 1 two sockets, page 2 (the legend sheet) nothing; the
// legend on page 2 prints 6 sockets (5 detected), a smoke detector without
// a quantity, a row of no class (4 of its matches withheld as a flood)
// and a row found 0 times whose description starts like a formula. Held
// back for review: 2 smoke detectors on page 0 and 3 push buttons on page
// 1, a class not counted at all.
func sample(lang string) *job.Takeoff {
	sock := func(n int) job.SymbolCount {
		return job.SymbolCount{Class: "socket_outlet", DisplayName: ptr("Socket outlet, \"single\""), Category: ptr("sockets"), Count: n}
	}
	smoke := job.SymbolCount{Class: "smoke_detector", DisplayName: ptr("Savuilmaisin"), Category: ptr("detectors"), Talo2010Code: ptr("T-1"), Count: 1}
	smokeHeld, push := smoke, job.SymbolCount{Class: "push_button", DisplayName: ptr("Push button"), Category: ptr("controls"), Count: 3}
	smokeHeld.Count = 2
	return &job.Takeoff{
		JobID: "j1", FileName: "plan.pdf", ConfidenceMode: "per_class_default", Lang: lang,
		Summary:  job.Summary{TotalDetections: 6, BySymbol: []job.SymbolCount{sock(5), smoke}},
		Withheld: job.Summary{TotalDetections: 5, BySymbol: []job.SymbolCount{push, smokeHeld}},
		Pages: []job.PageTakeoff{
			{PageIndex: 0, Summary: job.Summary{TotalDetections: 4, BySymbol: []job.SymbolCount{sock(3), smoke}}, Printed: map[string]float64{"socket_outlet": 6},
				Withheld: job.Summary{TotalDetections: 2, BySymbol: []job.SymbolCount{smokeHeld}}},
			{PageIndex: 1, Summary: job.Summary{TotalDetections: 2, BySymbol: []job.SymbolCount{sock(2)}}, Withheld: job.Summary{TotalDetections: 3, BySymbol: []job.SymbolCount{push}}},
			{PageIndex: 2, Summary: job.Summary{BySymbol: []job.SymbolCount{}}},
		},
		Printed: map[string]float64{"socket_outlet": 6},
		Legend: []job.TakeoffLegendRow{
			{PageIndex: 2, Description: "Socket outlet 230 V", Class: "socket_outlet", DisplayName: ptr("Socket outlet, \"single\""), Printed: num(6), Detected: 5,
				Code: "P1", Source: job.SourceSchedule, Tagged: 5, Agreement: job.AgreeDetectedTagged},
			{PageIndex: 2, Description: "Smoke detector", Class: "smoke_detector", DisplayName: ptr("Savuilmaisin"), Detected: 1, Source: job.SourceLegend, Agreement: job.AgreeUnchecked},
			{PageIndex: 2, Description: "Cable tray", Printed: num(2), Withheld: 4, Source: job.SourceLegend, Agreement: job.AgreeNone},
			{PageIndex: 2, Description: "=HYPERLINK(\"x\")", Class: "speaker", DisplayName: ptr("Speaker"), Printed: num(0), Source: job.SourceLegend, Agreement: job.AgreeAll},
		},
	}
}

func TestCSV(t *testing.T) {
	var b, lb bytes.Buffer
	if err := CSV(&b, sample("en")); err != nil {
		t.Fatal(err)
	}
	if err := LegendCSV(&lb, sample("en")); err != nil {
		t.Fatal(err)
	}
	// Each file is one rectangular table: a strict reader (one field count
	// for every record) reads it whole.
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("take-off not one CSV table: %v", err)
	}
	want := [][]string{
		CSVHeader,
		{"socket_outlet", "Socket outlet, \"single\"", "sockets", "", "5", "6", "0"},
		{"smoke_detector", "Savuilmaisin", "detectors", "T-1", "1", "", "2"},
		{"push_button", "Push button", "controls", "", "0", "", "3"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %q", rows)
	}
	legend, err := csv.NewReader(&lb).ReadAll()
	if err != nil {
		t.Fatalf("legend check not one CSV table: %v", err)
	}
	wantLegend := [][]string{
		LegendCSVHeader,
		{"2", "Socket outlet 230 V", "socket_outlet", "Socket outlet, \"single\"", "", "", "6", "5", "-1", "P1", "schedule", "5", "detected_tagged", "0"},
		{"2", "Smoke detector", "smoke_detector", "Savuilmaisin", "", "", "", "1", "", "", "legend", "0", "unchecked", "0"},
		{"2", "Cable tray", "", "", "", "", "2", "0", "-2", "", "legend", "0", "none", "4"},
		{"2", "'=HYPERLINK(\"x\")", "speaker", "Speaker", "", "", "0", "0", "0", "", "legend", "0", "all", "0"},
	}
	if !slices.EqualFunc(legend, wantLegend, slices.Equal) {
		t.Errorf("legend check %q, want %q", legend, wantLegend)
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
	if got := b.String(); got != "class,display_name,category,talo2010_code,count,printed_quantity,withheld\r\n" {
		t.Errorf("empty take-off CSV = %q", got)
	}
	b.Reset()
	if err := LegendCSV(&b, tk); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "page_index,description,class,display_name,tag,part_number,printed_quantity,detected,difference,code,source,tagged,agreement,withheld\r\n" {
		t.Errorf("legend check of a job without a legend = %q", got)
	}
}

// TestCSVWithoutLegend: a job without legend rows gives the per-class
// table alone.
func TestCSVWithoutLegend(t *testing.T) {
	tk := sample("en")
	tk.Legend, tk.Withheld = nil, job.Summary{}
	var b bytes.Buffer
	if err := CSV(&b, tk); err != nil {
		t.Fatal(err)
	}
	want := "class,display_name,category,talo2010_code,count,printed_quantity,withheld\r\n" +
		"socket_outlet,\"Socket outlet, \"\"single\"\"\",sockets,,5,6,0\r\n" +
		"smoke_detector,Savuilmaisin,detectors,T-1,1,,0\r\n"
	if got := b.String(); got != want {
		t.Errorf("CSV = %q, want %q", got, want)
	}
}

func TestSafe(t *testing.T) {
	for in, want := range map[string]string{
		"=1+1": "'=1+1", "+358": "'+358", "-x": "'-x", "@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx", "\rx": "'\rx",
		"": "", "Socket = 230 V": "Socket = 230 V", "'quoted": "'quoted",
	} {
		if got := Safe(in); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
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
	if got := f.GetSheetList(); !slices.Equal(got, []string{"Take-off", "Legend check", "Page 1", "Page 2"}) { // page 3: no detections, no sheet
		t.Fatalf("sheets %q", got)
	}
	rows, err := f.GetRows("Take-off")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"Symbol", "Class", "Category", "Talo 2010", "Count", "Printed quantity (legend)", "Withheld for review"},
		{"Socket outlet, \"single\"", "socket_outlet", "Sockets", "", "5", "6"},
		{"Savuilmaisin", "smoke_detector", "Detectors", "T-1", "1", "", "2"},
		{"Push button", "push_button", "Controls", "", "0", "", "3"},
		{"Total", "", "", "", "6", "", "5"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %q", rows)
	}
	for i := range want {
		if !slices.Equal(rows[i], want[i]) {
			t.Errorf("row %d = %q, want %q", i, rows[i], want[i])
		}
	}
	if fm, _ := f.GetCellFormula("Take-off", "E5"); fm != "SUM(E2:E4)" {
		t.Errorf("total formula %q", fm)
	}
	// The total's cached value is what a reader without a formula engine sees.
	if v, _ := f.CalcCellValue("Take-off", "E5"); v != "6" {
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
	if len(p2) != 4 || p2[1][4] != "2" || len(p2[1]) != 5 || p2[2][4] != "0" || p2[2][6] != "3" || p2[3][4] != "2" {
		t.Errorf("page 2 sheet %q (no printed quantity on this page)", p2)
	}
	legend, _ := f.GetRows("Legend check")
	wantLegend := [][]string{
		{"Page", "Description", "Symbol", "Tag", "Part number", "Printed quantity", "Detected", "Difference", "Code", "Source", "Tagged", "Agreement", "Withheld for review"},
		{"3", "Socket outlet 230 V", "Socket outlet, \"single\"", "", "", "6", "5", "-1", "P1", "schedule", "5", "detected_tagged"},
		{"3", "Smoke detector", "Savuilmaisin", "", "", "", "1", "", "", "legend", "0", "unchecked"},
		{"3", "Cable tray", "", "", "", "2", "0", "-2", "", "legend", "0", "none", "4"},
		{"3", "=HYPERLINK(\"x\")", "Speaker", "", "", "0", "0", "0", "", "legend", "0", "all"},
	}
	if !slices.EqualFunc(legend, wantLegend, slices.Equal) {
		t.Errorf("legend check %q, want %q", legend, wantLegend)
	}
	if fm, _ := f.GetCellFormula("Legend check", "H2"); fm != "G2-F2" {
		t.Errorf("difference formula %q", fm)
	}
	if v, _ := f.CalcCellValue("Legend check", "H4"); v != "-2" {
		t.Errorf("difference computes to %q", v)
	}
	// A description is the drawing's text: a text cell, never a formula.
	if fm, _ := f.GetCellFormula("Legend check", "B5"); fm != "" {
		t.Errorf("description written as formula %q", fm)
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
	if got := f.GetSheetList(); !slices.Equal(got, []string{"Määrälaskenta"}) { // no detections, no legend: no other sheet
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

func TestXLSXFinnish(t *testing.T) {
	f := readXLSX(t, sample("fi"))
	if got := f.GetSheetList(); !slices.Equal(got, []string{"Määrälaskenta", "Selitteen tarkistus", "Sivu 1", "Sivu 2"}) {
		t.Fatalf("sheets %q", got)
	}
	rows, _ := f.GetRows("Määrälaskenta")
	if len(rows) != 5 || rows[1][2] != "Pistorasiat" || rows[2][2] != "Ilmaisimet" || rows[0][6] != "Pidätetty tarkistettavaksi" {
		t.Errorf("rows %q, want Finnish category names", rows)
	}
	legend, _ := f.GetRows("Selitteen tarkistus")
	if len(legend) != 5 || legend[0][0] != "Sivu" || legend[0][7] != "Erotus" {
		t.Errorf("legend check %q", legend)
	}
}

// TestCategoryNames: every category of the catalog has a name in each
// language, so no key reaches an estimator's sheet.
func TestCategoryNames(t *testing.T) {
	c, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	for lang, wd := range wordsByLang {
		for _, s := range c.Symbols() {
			if wd.categories[s.Category] == "" {
				t.Errorf("%s: category %q of %s has no name", lang, s.Category, s.Class)
			}
		}
	}
}
