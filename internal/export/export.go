// Package export writes a job's quantity take-off (job.Takeoff) as files an
// estimator opens in a spreadsheet: CSV (one row per symbol class) and XLSX
// (the same table, then one sheet per page). Every count is the take-off's
// own, so the rows sum to the summary's total_detections of a poll under
// the same filter.
package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

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
var CSVHeader = []string{"class", "display_name", "category", "talo2010_code", "count", "printed_quantity"}

// CSV writes the take-off of the whole job as RFC 4180 CSV (UTF-8, comma,
// CRLF): CSVHeader, then one row per class in the summary's order. Null
// fields and a missing printed quantity are empty cells.
func CSV(w io.Writer, t *job.Takeoff) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("export: write CSV: %w", err)
	}
	for _, r := range t.Summary.BySymbol {
		printed := ""
		if q, ok := t.Printed[r.Class]; ok {
			printed = strconv.FormatFloat(q, 'f', -1, 64)
		}
		row := []string{r.Class, deref(r.DisplayName), deref(r.Category), deref(r.Talo2010Code), strconv.Itoa(r.Count), printed}
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
	title, description, confidencePerClass, flat  string
}

var wordsByLang = map[string]words{
	catalog.LangEnglish: {
		takeoff: "Take-off", page: "Page %d", total: "Total",
		symbol: "Symbol", class: "Class", category: "Category", talo: "Talo 2010", count: "Count", printed: "Printed quantity (legend)",
		title: "Take-off of %s", description: "Job %s; counts of detected symbols, confidence filter %s.",
		confidencePerClass: "per-class defaults", flat: "flat",
	},
	catalog.LangFinnish: {
		takeoff: "Määrälaskenta", page: "Sivu %d", total: "Yhteensä",
		symbol: "Symboli", class: "Luokka", category: "Ryhmä", talo: "Talo 2010", count: "Määrä", printed: "Selitteen määrä",
		title: "Määrälaskenta: %s", description: "Työ %s; tunnistettujen symbolien määrät, luottamussuodatin %s.",
		confidencePerClass: "luokkakohtaiset oletukset", flat: "kiinteä",
	},
}

// XLSX writes the take-off as an Excel workbook: a first sheet with the
// whole job (one row per class, the summary's order, then a total row
// whose formula sums the counts), then one sheet per page with that page's
// rows. Headers and sheet names are in t.Lang (English unless "fi").
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
	if err := writeSheet(f, wd.takeoff, wd, bold, t.Summary, t.Printed); err != nil {
		return err
	}
	for _, p := range t.Pages {
		name := fmt.Sprintf(wd.page, p.PageIndex+1)
		if _, err := f.NewSheet(name); err != nil {
			return fmt.Errorf("export: XLSX sheet %s: %w", name, err)
		}
		if err := writeSheet(f, name, wd, bold, p.Summary, p.Printed); err != nil {
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
	columns = colPrinted
)

// writeSheet fills one sheet: header, one row per class, total row.
func writeSheet(f *excelize.File, name string, wd words, bold int, s job.Summary, printed map[string]float64) error {
	sw, err := f.NewStreamWriter(name)
	if err != nil {
		return fmt.Errorf("export: XLSX sheet %s: %w", name, err)
	}
	fail := func(err error) error { return fmt.Errorf("export: XLSX sheet %s: %w", name, err) }
	for col, width := range map[int]float64{colSymbol: 34, colClass: 26, colCategory: 16, colTalo: 12, colCount: 9, colPrinted: 24} {
		if err := sw.SetColWidth(col, col, width); err != nil {
			return fail(err)
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return fail(err)
	}
	header := []any{wd.symbol, wd.class, wd.category, wd.talo, wd.count, wd.printed}
	if err := sw.SetRow("A1", header, excelize.RowOpts{StyleID: bold}); err != nil {
		return fail(err)
	}
	row := 2
	for _, r := range s.BySymbol {
		var q any
		if v, ok := printed[r.Class]; ok {
			q = v
		}
		cell, _ := excelize.CoordinatesToCellName(1, row)
		if err := sw.SetRow(cell, []any{cellOf(r.DisplayName), r.Class, cellOf(r.Category), cellOf(r.Talo2010Code), r.Count, q}); err != nil {
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
	if err := sw.SetRow(cell, total, excelize.RowOpts{StyleID: bold}); err != nil {
		return fail(err)
	}
	if err := sw.Flush(); err != nil {
		return fail(err)
	}
	return nil
}
