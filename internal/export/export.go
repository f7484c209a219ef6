// Package export writes a job's quantity take-off (job.Takeoff) as files an
// estimator opens in a spreadsheet: CSV (one row per symbol class, then the
// legend check: one row per legend row) and XLSX (the same two tables as
// sheets, then one sheet per page with detections). Beside each count
// stands what was withheld from it until a reviewer accepts it. Every count is the
// take-off's own, so the class rows sum to the summary's total_detections
// of a poll under the same filter, and each legend row's detected is the
// poll's legend[].detected.
package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"blueprint/internal/catalog"
	"blueprint/internal/job"
)

// Media types of the exports.
const (
	MediaCSV  = "text/csv; charset=utf-8; header=present"
	MediaXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
)

// CSVHeader is the header row of the CSV: stable machine names, whatever
// the language of the display names.
// withheld, the last, counts the class's detections withheld from count
// until a reviewer accepts them (the job's warnings say why).
var CSVHeader = []string{"class", "display_name", "category", "talo2010_code", "count", "printed_quantity", "withheld"}

// LegendCSVHeader is the header of the legend check's CSV (LegendCSV):
// one row per legend row of the job.
// withheld counts the row's matches withheld from detected (a flood).
var LegendCSVHeader = []string{"page_index", "description", "class", "display_name", "tag", "part_number", "printed_quantity", "detected", "difference", "code", "source", "tagged", "agreement", "withheld"}

// CSV writes the take-off of the whole job as RFC 4180 CSV (UTF-8, comma,
// CRLF): CSVHeader, then one row per class in the summary's order. Null
// fields and a missing printed quantity are empty cells. It is one
// rectangular table, as CSV readers expect; the legend check is its own
// file (LegendCSV).
func CSV(w io.Writer, t *job.Takeoff) error {
	classes, _ := Records(t)
	return writeCSV(w, append([][]string{CSVHeader}, classes...))
}

// LegendCSV writes the legend check of the job as CSV like CSV:
// LegendCSVHeader, then one row per legend row in the job's order, rows
// detected 0 times and rows of no class included (only the header when
// the job read no legend).
func LegendCSV(w io.Writer, t *job.Takeoff) error {
	_, legend := Records(t)
	return writeCSV(w, append([][]string{LegendCSVHeader}, legend...))
}

// WriteRecords writes rows as RFC 4180 CSV with CRLF line ends, the
// format of CSV and LegendCSV.
func WriteRecords(w io.Writer, rows [][]string) error {
	return writeCSV(w, rows)
}

func writeCSV(w io.Writer, rows [][]string) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	for _, row := range rows {
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("export: write CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("export: write CSV: %w", err)
	}
	return nil
}

// Records returns the rows of CSV and LegendCSV without their headers: classes under
// CSVHeader, one per class in the summary's order, then one per class
// only withheld (count 0), and legend under LegendCSVHeader, one per
// legend row in the job's order (rows detected 0 times and rows of no
// class included). Text cells are made safe for spreadsheets (Safe).
func Records(t *job.Takeoff) (classes, legend [][]string) {
	rows := classRows(t.Summary, t.Withheld)
	classes = make([][]string, 0, len(rows))
	for _, r := range rows {
		printed := ""
		if q, ok := t.Printed[r.Class]; ok {
			printed = strconv.FormatFloat(q, 'f', -1, 64)
		}
		classes = append(classes, []string{Safe(r.Class), Safe(deref(r.DisplayName)), Safe(deref(r.Category)), Safe(deref(r.Talo2010Code)), strconv.Itoa(r.Count), printed, strconv.Itoa(r.withheld)})
	}
	for _, r := range t.Legend {
		printed, diff := "", ""
		if r.Printed != nil {
			printed = strconv.Itoa(*r.Printed)
		}
		if d, ok := r.Difference(); ok {
			diff = strconv.Itoa(d)
		}
		legend = append(legend, []string{strconv.Itoa(r.PageIndex), Safe(r.Description), Safe(r.Class), Safe(deref(r.DisplayName)),
			Safe(r.Tag), Safe(r.PartNumber), printed, strconv.Itoa(r.Detected), diff, Safe(r.Code), r.Source, strconv.Itoa(r.Tagged), r.Agreement, strconv.Itoa(r.Withheld)})
	}
	return classes, legend
}

// classRow is a class's row of a take-off table: its count and how many
// of its detections are withheld.
type classRow struct {
	job.SymbolCount
	withheld int
}

// classRows are the rows of a take-off table: the summary's classes in
// its order, then the classes only withheld (count 0) in the order of
// the withheld summary.
func classRows(counted, withheld job.Summary) []classRow {
	held := map[string]int{}
	for _, r := range withheld.BySymbol {
		held[r.Class] = r.Count
	}
	out := make([]classRow, 0, len(counted.BySymbol)+len(withheld.BySymbol))
	for _, r := range counted.BySymbol {
		out = append(out, classRow{SymbolCount: r, withheld: held[r.Class]})
		delete(held, r.Class)
	}
	for _, r := range withheld.BySymbol {
		if n, ok := held[r.Class]; ok {
			r.Count = 0
			out = append(out, classRow{SymbolCount: r, withheld: n})
		}
	}
	return out
}

// Safe keeps a text cell from being taken for a formula by a spreadsheet
// that opens the CSV: a text starting with =, +, -, @, a tab or a carriage
// return (a legend description is the drawing's text, whoever drew it) gets
// a leading apostrophe, the OWASP advice. Numbers are never passed through
// it, so a negative difference stays a number.
func Safe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// cellOf is the XLSX cell of a nullable text: none for null.
func cellOf(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// words are the human texts of the XLSX in one language.
type words struct {
	takeoff, page, total                          string
	symbol, class, category, talo, count, printed string
	withheld                                      string
	title, description, confidencePerClass, flat  string
	// The legend check sheet.
	legendCheck, pageCol, legendDescription, tag, partNumber, printedRow, detected, difference string
	code, source, tagged, agreement                                                            string
	// categories names the catalog's category keys (an unknown key is
	// shown as is).
	categories map[string]string
}

var wordsByLang = map[string]words{
	catalog.LangEnglish: {
		takeoff: "Take-off", page: "Page %d", total: "Total",
		symbol: "Symbol", class: "Class", category: "Category", talo: "Talo 2010", count: "Count", printed: "Printed quantity (legend)",
		withheld: "Withheld for review",
		title:    "Take-off of %s", description: "Job %s; counts of detected symbols, confidence filter %s.",
		confidencePerClass: "per-class defaults", flat: "flat",
		legendCheck: "Legend check", pageCol: "Page", legendDescription: "Description", tag: "Tag", partNumber: "Part number",
		printedRow: "Printed quantity", detected: "Detected", difference: "Difference",
		code: "Code", source: "Source", tagged: "Tagged", agreement: "Agreement",
		categories: map[string]string{
			"alarm_devices": "Alarm devices", "call_points": "Call points", "controls": "Controls", "detectors": "Detectors",
			"distribution": "Distribution", "emergency": "Emergency lighting", "heating": "Heating", "interfaces": "Interfaces",
			"lighting": "Lighting", "panels": "Panels", "sockets": "Sockets", "switches": "Switches", "telecom": "Telecom",
		},
	},
	catalog.LangFinnish: {
		takeoff: "Määrälaskenta", page: "Sivu %d", total: "Yhteensä",
		symbol: "Symboli", class: "Luokka", category: "Ryhmä", talo: "Talo 2010", count: "Määrä", printed: "Selitteen määrä",
		withheld: "Pidätetty tarkistettavaksi",
		title:    "Määrälaskenta: %s", description: "Työ %s; tunnistettujen symbolien määrät, luottamussuodatin %s.",
		confidencePerClass: "luokkakohtaiset oletukset", flat: "kiinteä",
		legendCheck: "Selitteen tarkistus", pageCol: "Sivu", legendDescription: "Selite", tag: "Tunnus", partNumber: "Tuotenumero",
		printedRow: "Selitteen määrä", detected: "Tunnistettu", difference: "Erotus",
		code: "Tunnus", source: "Lähde", tagged: "Tunnuksin", agreement: "Yhtäpitävyys",
		categories: map[string]string{
			"alarm_devices": "Hälyttimet", "call_points": "Painikkeet", "controls": "Ohjaimet", "detectors": "Ilmaisimet",
			"distribution": "Jakelu", "emergency": "Turvavalaistus", "heating": "Lämmitys", "interfaces": "Liitännät",
			"lighting": "Valaistus", "panels": "Keskukset", "sockets": "Pistorasiat", "switches": "Kytkimet", "telecom": "Tele",
		},
	},
}

// categoryCell is the XLSX cell of a category: its name, none for null.
func (wd words) categoryCell(key *string) any {
	if key == nil {
		return nil
	}
	if name, ok := wd.categories[*key]; ok {
		return name
	}
	return *key
}

// XLSX writes the take-off as an Excel workbook an estimator can hand on:
// a first sheet with the whole job (one row per class, the summary's
// order, category names rather than keys, then a total row whose formula
// sums the counts); a "Legend check" sheet, when the job has legend rows,
// with one row per legend row (printed, detected, difference); then one
// sheet per page with detections, with that page's rows. No sheet is
// empty. Headers and sheet names are in t.Lang (English unless "fi").
// Text is written as text cells, which a spreadsheet never evaluates.
func XLSX(w io.Writer, t *job.Takeoff) error {
	wd, ok := wordsByLang[t.Lang]
	if !ok {
		wd = wordsByLang[catalog.LangEnglish]
	}
	f := excelize.NewFile()
	defer f.Close()
	mode := wd.confidencePerClass
	if t.ConfidenceMode == "flat" {
		mode = wd.flat
	}
	if err := f.SetDocProps(&excelize.DocProperties{
		Title: fmt.Sprintf(wd.title, t.FileName), Description: fmt.Sprintf(wd.description, t.JobID, mode),
		Identifier: t.JobID, Creator: "blueprint", Language: t.Lang,
	}); err != nil {
		return fmt.Errorf("export: XLSX properties: %w", err)
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return fmt.Errorf("export: XLSX style: %w", err)
	}
	first := f.GetSheetName(0)
	if err := f.SetSheetName(first, wd.takeoff); err != nil {
		return fmt.Errorf("export: XLSX sheet: %w", err)
	}
	if err := writeSheet(f, wd.takeoff, wd, bold, t.Summary, t.Withheld, t.Printed); err != nil {
		return err
	}
	if len(t.Legend) > 0 {
		if _, err := f.NewSheet(wd.legendCheck); err != nil {
			return fmt.Errorf("export: XLSX sheet %s: %w", wd.legendCheck, err)
		}
		if err := writeLegendSheet(f, wd, bold, t.Legend); err != nil {
			return err
		}
	}
	for _, p := range t.Pages {
		if p.Summary.TotalDetections == 0 && p.Withheld.TotalDetections == 0 {
			continue // no empty sheets
		}
		name := fmt.Sprintf(wd.page, p.PageIndex+1)
		if _, err := f.NewSheet(name); err != nil {
			return fmt.Errorf("export: XLSX sheet %s: %w", name, err)
		}
		if err := writeSheet(f, name, wd, bold, p.Summary, p.Withheld, p.Printed); err != nil {
			return err
		}
	}
	f.SetActiveSheet(0)
	if err := f.Write(w); err != nil {
		return fmt.Errorf("export: write XLSX: %w", err)
	}
	return nil
}

// Columns of an XLSX sheet.
const (
	colSymbol = iota + 1
	colClass
	colCategory
	colTalo
	colCount
	colPrinted
	colWithheld
	columns = colWithheld
)

// startSheet opens a sheet's stream writer with the columns' widths, the
// header row (bold, frozen) written.
func startSheet(f *excelize.File, name string, bold int, widths []float64, header []any) (*excelize.StreamWriter, error) {
	sw, err := f.NewStreamWriter(name)
	if err != nil {
		return nil, err
	}
	for i, width := range widths {
		if err := sw.SetColWidth(i+1, i+1, width); err != nil {
			return nil, err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return nil, err
	}
	if err := sw.SetRow("A1", header, excelize.RowOpts{StyleID: bold}); err != nil {
		return nil, err
	}
	return sw, nil
}

// writeSheet fills one sheet: header, one row per class (then the
// classes only withheld, count 0), total row.
func writeSheet(f *excelize.File, name string, wd words, bold int, s, withheld job.Summary, printed map[string]float64) error {
	fail := func(err error) error { return fmt.Errorf("export: XLSX sheet %s: %w", name, err) }
	sw, err := startSheet(f, name, bold, []float64{34, 26, 20, 12, 9, 24, 20},
		[]any{wd.symbol, wd.class, wd.category, wd.talo, wd.count, wd.printed, wd.withheld})
	if err != nil {
		return fail(err)
	}
	row := 2
	for _, r := range classRows(s, withheld) {
		var q, held any
		if v, ok := printed[r.Class]; ok {
			q = v
		}
		if r.withheld > 0 {
			held = r.withheld
		}
		cell, _ := excelize.CoordinatesToCellName(1, row)
		if err := sw.SetRow(cell, []any{cellOf(r.DisplayName), r.Class, wd.categoryCell(r.Category), cellOf(r.Talo2010Code), r.Count, q, held}); err != nil {
			return fail(err)
		}
		row++
	}
	countCol, _ := excelize.ColumnNumberToName(colCount)
	sum := excelize.Cell{Value: s.TotalDetections}
	if row > 2 { // no formula over an empty range: it would name the total row itself
		sum.Formula = fmt.Sprintf("SUM(%s2:%s%d)", countCol, countCol, row-1)
	}
	cell, _ := excelize.CoordinatesToCellName(1, row)
	total := make([]any, columns)
	total[colSymbol-1], total[colCount-1] = wd.total, sum
	if withheld.TotalDetections > 0 {
		total[colWithheld-1] = withheld.TotalDetections
	}
	if err := sw.SetRow(cell, total, excelize.RowOpts{StyleID: bold}); err != nil {
		return fail(err)
	}
	if err := sw.Flush(); err != nil {
		return fail(err)
	}
	return nil
}

// writeLegendSheet fills the legend check: one row per legend row with its
// page (1-based, as the page sheets), description, class name (empty for
// a row of no class), tag, part number, printed quantity, detected,
// difference (detected less printed, a formula carrying its value; empty
// when the row prints no quantity) and its matches withheld (a flood;
// empty for none).
func writeLegendSheet(f *excelize.File, wd words, bold int, rows []job.TakeoffLegendRow) error {
	name := wd.legendCheck
	fail := func(err error) error { return fmt.Errorf("export: XLSX sheet %s: %w", name, err) }
	sw, err := startSheet(f, name, bold, []float64{7, 40, 30, 12, 16, 18, 11, 11, 10, 11, 10, 18, 20},
		[]any{wd.pageCol, wd.legendDescription, wd.symbol, wd.tag, wd.partNumber, wd.printedRow, wd.detected, wd.difference, wd.code, wd.source, wd.tagged, wd.agreement, wd.withheld})
	if err != nil {
		return fail(err)
	}
	for i, r := range rows {
		row := i + 2
		var printed, diff any
		if r.Printed != nil {
			printed = *r.Printed
		}
		if d, ok := r.Difference(); ok {
			diff = excelize.Cell{Value: d, Formula: fmt.Sprintf("G%d-F%d", row, row)}
		}
		var held any
		if r.Withheld > 0 {
			held = r.Withheld
		}
		cell, _ := excelize.CoordinatesToCellName(1, row)
		if err := sw.SetRow(cell, []any{r.PageIndex + 1, r.Description, cellOf(r.DisplayName), textCell(r.Tag), textCell(r.PartNumber), printed, r.Detected, diff, textCell(r.Code), r.Source, r.Tagged, r.Agreement, held}); err != nil {
			return fail(err)
		}
	}
	if err := sw.Flush(); err != nil {
		return fail(err)
	}
	return nil
}

// textCell is the XLSX cell of a text: none for "".
func textCell(s string) any {
	if s == "" {
		return nil
	}
	return s
}
