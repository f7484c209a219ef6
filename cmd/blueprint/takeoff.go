package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"blueprint/internal/catalog"
	"blueprint/internal/export"
	"blueprint/internal/job"
)

const takeoffUsage = `usage: blueprint takeoff [flags] FILE...

Takeoff counts the symbols on each FILE (PDF, PNG, JPEG or WebP) as a job
of the service does: the same start check and limits, document reader,
legend reading, detectors, thresholds and counting, in this process. Its
counts are the API's for the same file under the same configuration.

The output, on stdout, is one of:

	(default)   a table per file: the count of each symbol class (display
	            name, class, category, count), then each legend row read
	            (page, description, tag, class, printed quantity,
	            detected)
	--csv       the API's takeoff.csv (class, display_name, category,
	            talo2010_code, count, printed_quantity); with several
	            files one CSV with a "file" column first
	--legend-csv
	            the API's legend-check.csv: one row per legend row read
	            (page_index, description, class, display_name, tag,
	            part_number, printed_quantity, detected, difference,
	            code, source, tagged, agreement);
	            with several files one CSV with a "file" column first
	--json      a JSON array, one object per file: file, page_count,
	            pages (page_index, kind, detection_count), confidence_mode,
	            summary and legend as in the API's poll of a done job
	--xlsx OUT  the API's takeoff.xlsx written to OUT; with several files,
	            or when OUT is a directory, OUT/<name>-takeoff.xlsx each

With --legend LEGEND, the drawing LEGEND (a legend sheet, or any sheet
whose legend is wanted) is read first as a job of its own, and every FILE
is then counted with its legend beside their own, as a job whose
reference_jobs names LEGEND's job (docs/api.md): plan pages sent alone,
as images say, are then counted by the glyphs of that legend. LEGEND's own
take-off is not written.

While files are processed, a progress bar (pages done of the total) is
drawn on stderr when stderr is a terminal. A file that cannot be read is
reported on stderr in one line and the others are still counted; the exit
status is then 1.
`

func takeoffCommand() command {
	return command{name: "takeoff", short: "count the symbols on drawings: a quantity take-off", usage: takeoffUsage, flags: takeoffFlags}
}

// takeoffOptions are takeoff's flags.
type takeoffOptions struct {
	read      readFlags
	csv, json bool
	legendCSV bool
	xlsx      string
	lang      string
	legend    string // --legend: a drawing whose legend every file counts with
	profile   string // --cpuprofile: where a CPU profile of the counting is written
}

func takeoffFlags(fs *flag.FlagSet, e env) func(context.Context, []string) error {
	var o takeoffOptions
	fs.BoolVar(&o.csv, "csv", false, "write the take-off as CSV (the API's takeoff.csv)")
	fs.BoolVar(&o.legendCSV, "legend-csv", false, "write the legend check as CSV (the API's legend-check.csv)")
	fs.BoolVar(&o.json, "json", false, "write the take-off as JSON")
	fs.StringVar(&o.xlsx, "xlsx", "", "write the take-off as an Excel workbook (the API's takeoff.xlsx) to `OUT`")
	fs.StringVar(&o.lang, "lang", catalog.LangEnglish, "`language` of display names: en or fi")
	fs.StringVar(&o.legend, "legend", "", "a drawing `LEGEND` whose legend is read first; every FILE is counted with it (the API's reference_jobs)")
	fs.StringVar(&o.profile, "cpuprofile", "", "write a CPU profile of the counting (engine start-up excluded) to `FILE`, for go tool pprof")
	o.read.define(fs)
	return func(ctx context.Context, files []string) error { return takeoff(ctx, files, o, e) }
}

// check refuses a command line that cannot run.
func (o takeoffOptions) check(files []string) error {
	formats := 0
	for _, on := range []bool{o.csv, o.legendCSV, o.json, o.xlsx != ""} {
		if on {
			formats++
		}
	}
	switch {
	case len(files) == 0:
		return &usageError{cmd: "takeoff", msg: "takeoff: no FILE given"}
	case formats > 1:
		return &usageError{cmd: "takeoff", msg: "takeoff: choose one of --csv, --legend-csv, --json and --xlsx"}
	case o.lang != catalog.LangEnglish && o.lang != catalog.LangFinnish:
		return &usageError{cmd: "takeoff", msg: fmt.Sprintf("takeoff: --lang %q is not en or fi", o.lang)}
	}
	return nil
}

// readOptions are the API's read options the flags ask for.
func (o takeoffOptions) readOptions() job.ReadOptions {
	return job.ReadOptions{Lang: o.lang, Confidence: o.read.confidence}
}

func takeoff(ctx context.Context, files []string, o takeoffOptions, e env) error {
	if err := o.check(files); err != nil {
		return err
	}
	var xlsxDir bool
	if o.xlsx != "" {
		fi, err := os.Stat(o.xlsx)
		xlsxDir = err == nil && fi.IsDir()
		if len(files) > 1 && !xlsxDir {
			return &usageError{cmd: "takeoff", msg: fmt.Sprintf("takeoff: with several files --xlsx names a directory, and %s is none", o.xlsx)}
		}
	}
	// Files that cannot be read are told first, before ONNX Runtime and
	// the engine are loaded.
	if o.legend != "" {
		if err := checkFile(o.legend); err != nil {
			return fmt.Errorf("takeoff: --legend %s: %w", o.legend, err)
		}
	}
	failed := 0
	var readable []string
	for _, f := range files {
		if err := checkFile(f); err != nil {
			if len(files) == 1 {
				return fmt.Errorf("takeoff: %s: %w", f, err)
			}
			fmt.Fprintf(e.stderr, "blueprint: takeoff: %s: %s\n", f, oneLine(err.Error()))
			failed++
			continue
		}
		readable = append(readable, f)
	}
	if len(readable) == 0 {
		return fmt.Errorf("takeoff: %d of %d files failed", failed, len(files))
	}
	r, err := o.read.newReader(e)
	if err != nil {
		return err
	}
	l, err := newLocalService(r)
	if err != nil {
		return err
	}
	defer l.Close()
	if o.profile != "" {
		stop, err := startCPUProfile(o.profile)
		if err != nil {
			return fmt.Errorf("takeoff: %w", err)
		}
		defer stop()
	}
	if o.legend != "" {
		res, err := takeoffFile(ctx, l, o.legend, o.readOptions(), e)
		if err != nil {
			return fmt.Errorf("takeoff: --legend %s: %w", o.legend, err)
		}
		l.refs = []string{res.JobID}
	}
	var results []*result
	for _, f := range readable {
		res, err := takeoffFile(ctx, l, f, o.readOptions(), e)
		if err != nil && (ctx.Err() != nil || len(files) == 1) {
			return fmt.Errorf("takeoff: %s: %w", f, err)
		}
		if err != nil {
			// Say so, and count the other files.
			fmt.Fprintf(e.stderr, "blueprint: takeoff: %s: %s\n", f, oneLine(err.Error()))
			failed++
			continue
		}
		if o.xlsx != "" {
			out := o.xlsx
			if xlsxDir {
				out = filepath.Join(o.xlsx, takeoffFileName(f, "xlsx"))
			}
			if err := writeXLSX(out, res.Takeoff); err != nil {
				return err
			}
		}
		results = append(results, res)
	}
	switch {
	case o.csv:
		err = writeCSV(e.stdout, results, false)
	case o.legendCSV:
		err = writeCSV(e.stdout, results, true)
	case o.json:
		err = writeJSON(e.stdout, results)
	case o.xlsx == "":
		err = writeTables(e.stdout, results)
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("takeoff: %d of %d files failed", failed, len(files))
	}
	return nil
}

// takeoffFile reads and counts one file, drawing progress on a terminal.
func takeoffFile(ctx context.Context, l *localService, name string, opt job.ReadOptions, e env) (*result, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var bar *progressBar
	if e.terminal {
		bar = newProgressBar(e.stderr, filepath.Base(name))
		defer bar.clear()
	}
	return l.takeoff(ctx, name, data, opt, bar.show)
}

// takeoffFileName names a file's take-off as the API's download does:
// "plan.pdf" gives "plan-takeoff.xlsx".
func takeoffFileName(name, ext string) string {
	base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	if base == "" || base == "." {
		base = "job"
	}
	return base + "-takeoff." + ext
}

func writeXLSX(path string, t *job.Takeoff) error {
	var b bytes.Buffer
	if err := export.XLSX(&b, t); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the workbook: %w", err)
	}
	return nil
}

// writeCSV writes the API's takeoff.csv (legend false) or
// legend-check.csv (legend true) of one file, or of several in one table
// with a "file" column first.
func writeCSV(w io.Writer, results []*result, legend bool) error {
	if len(results) == 1 {
		if legend {
			return export.LegendCSV(w, results[0].Takeoff)
		}
		return export.CSV(w, results[0].Takeoff)
	}
	header := export.CSVHeader
	if legend {
		header = export.LegendCSVHeader
	}
	rows := [][]string{append([]string{"file"}, header...)}
	for _, res := range results {
		recs, lrecs := export.Records(res.Takeoff)
		if legend {
			recs = lrecs
		}
		file := export.Safe(res.File)
		for _, rec := range recs {
			rows = append(rows, append([]string{file}, rec...))
		}
	}
	return export.WriteRecords(w, rows)
}

// fileTakeoff is one file's take-off in JSON: the API's poll of the done
// job, less what is about URLs and the service.
type fileTakeoff struct {
	File           string           `json:"file"`
	PageCount      int              `json:"page_count"`
	Pages          []pageTakeoff    `json:"pages"`
	ConfidenceMode string           `json:"confidence_mode"`
	Summary        job.Summary      `json:"summary"`
	Legend         []job.LegendView `json:"legend"`
	// Warnings are the poll's: what the take-off cannot stand behind.
	Warnings []job.WarningView `json:"warnings"`
}

type pageTakeoff struct {
	PageIndex      int    `json:"page_index"`
	Kind           string `json:"kind,omitempty"`
	DetectionCount int    `json:"detection_count"`
}

func writeJSON(w io.Writer, results []*result) error {
	out := make([]fileTakeoff, 0, len(results))
	for _, res := range results {
		d := res.Done
		ft := fileTakeoff{File: res.File, PageCount: d.PageCount, ConfidenceMode: d.ConfidenceMode, Summary: d.Summary, Legend: d.Legend, Warnings: d.Warnings}
		for _, p := range d.Pages {
			ft.Pages = append(ft.Pages, pageTakeoff{PageIndex: p.PageIndex, Kind: p.Kind, DetectionCount: p.DetectionCount})
		}
		out = append(out, ft)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeTables writes each file's take-off as tables a person reads.
func writeTables(w io.Writer, results []*result) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for i, res := range results {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		d := res.Done
		kinds := make([]string, 0, len(d.Pages))
		for _, p := range d.Pages {
			kinds = append(kinds, orDash(p.Kind))
		}
		fmt.Fprintf(tw, "%s: %s (%s), %s\n\n", res.File, plural(d.PageCount, "page"), strings.Join(kinds, ", "), plural(d.Summary.TotalDetections, "symbol"))
		fmt.Fprintln(tw, "SYMBOL\tCLASS\tCATEGORY\tCOUNT")
		for _, s := range d.Summary.BySymbol {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", orDash(deref(s.DisplayName)), s.Class, orDash(deref(s.Category)), s.Count)
		}
		fmt.Fprintf(tw, "total\t\t\t%d\n", d.Summary.TotalDetections)
		if len(d.Legend) == 0 {
			fmt.Fprintln(tw, "\nno legend read")
		} else {
			// The tag tells apart rows drawing one glyph (15CD / 30CD).
			fmt.Fprintln(tw, "\nPAGE\tLEGEND ROW\tTAG\tCLASS\tPRINTED\tDETECTED")
			for _, r := range d.Legend {
				q := "-"
				if r.PrintedQuantity != nil {
					q = strconv.Itoa(*r.PrintedQuantity)
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\n", r.PageIndex+1, r.Description, orDash(deref(r.Tag)), orDash(deref(r.Class)), q, r.Detected)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		// Warnings are sentences, outside the table's columns.
		for k, wv := range d.Warnings {
			if k == 0 {
				fmt.Fprintln(w, "\nwarnings:")
			}
			fmt.Fprintf(w, "  %s: %s\n", wv.Code, wv.Message)
		}
	}
	return tw.Flush()
}

// plural writes n things: "1 page", "3 pages".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
