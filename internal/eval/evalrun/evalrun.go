// Package evalrun runs a detection engine over a labelled dataset through
// the service's own document pipeline (the same rendering, the same
// storage rules, the same default read filter a partner gets) and scores it
// with package eval.
package evalrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/eval"
	"blueprint/internal/eval/dataset"
	"blueprint/internal/pipeline"
)

// Config says what to run on what.
type Config struct {
	// Data is the dataset directory (see package dataset).
	Data string
	// Catalog gives the classes ground truth may name and, unless Flat is
	// set, the per-class default thresholds of the read filter.
	Catalog *catalog.Catalog
	// Engine is the detector under test; the command passes the
	// production engine, engine.New(catalog).
	Engine detect.Engine
	// Flat, when set, replaces the per-class defaults by one confidence
	// floor for precision, recall, F1 and count error (AP is unaffected).
	Flat *float64
	// MaxSheets, when positive, stops after that many sheets (path order).
	MaxSheets int
	// Progress, when not nil, gets one line per sheet and the names of
	// skipped JSON files.
	Progress io.Writer
	// Findings, when not nil, gets every false positive and false
	// negative as one JSON object per line (FindingLine).
	Findings io.Writer
}

// FindingLine is one line of Config.Findings: where, and the finding.
type FindingLine struct {
	File      string `json:"file"`
	PageIndex int    `json:"page_index"`
	eval.Finding
}

// Run evaluates cfg.Engine on every sheet of cfg.Data, one sheet and one
// page at a time, and returns the report. Any unreadable or inconsistent
// input (a drawing the service would reject, a ground-truth class not in
// the catalog, a labelled page the file does not have) is an error naming
// the file; so is a detection of a class the catalog does not know.
func Run(ctx context.Context, cfg Config) (eval.Report, error) {
	start := time.Now()
	if cfg.Catalog == nil || cfg.Engine == nil {
		return eval.Report{}, errors.New("evalrun: catalog and engine are required")
	}
	sheets, skipped, err := dataset.Load(cfg.Data)
	if err != nil {
		return eval.Report{}, err
	}
	for _, p := range skipped {
		progress(cfg.Progress, "skipped %s: not sheet ground truth\n", p)
	}
	if cfg.MaxSheets > 0 && len(sheets) > cfg.MaxSheets {
		sheets = sheets[:cfg.MaxSheets]
	}
	filter := detect.DefaultFilter(cfg.Catalog.Threshold) // every class is checked before scoring
	filter.Flat = cfg.Flat

	var (
		all     []eval.Page
		timings []eval.PageTiming
		report  = eval.Report{Dataset: cfg.Data, ConfidenceMode: filter.Mode(), Sheets: len(sheets)}
	)
	for i, s := range sheets {
		pages, pt, held, err := runSheet(ctx, cfg, s)
		if err != nil {
			return eval.Report{}, err
		}
		report.Withheld += held
		all = append(all, pages...)
		if cfg.Findings != nil {
			if err := writeFindings(cfg.Findings, s, pages, filter); err != nil {
				return eval.Report{}, err
			}
		}
		timings = append(timings, pt...)
		sc := eval.Score(pages, filter).Overall
		ss := eval.SheetScore{File: s.Path, Kind: s.Kind, Pages: len(pt), Scored: len(pages),
			GT: sc.GT, Pred: sc.Pred, TP: sc.TP, FP: sc.FP, FN: sc.FN}
		for _, t := range pt {
			ss.Seconds += t.RenderSeconds + t.DetectSeconds
		}
		report.PerSheet = append(report.PerSheet, ss)
		progress(cfg.Progress, "[%d/%d] %s: %d pages, %.2f s, gt %d pred %d tp %d fp %d fn %d withheld %d\n",
			i+1, len(sheets), s.File, ss.Pages, ss.Seconds, ss.GT, ss.Pred, ss.TP, ss.FP, ss.FN, held)
	}
	scores := eval.Score(all, filter)
	report.Overall = scores.Overall
	report.PerClass = scores.PerClass
	report.PerCase = scores.PerCase
	report.Timing = eval.SummariseTiming(timings)
	if rss, err := PeakRSSMB(); err == nil {
		report.Timing.PeakRSSMB = &rss
	} else {
		progress(cfg.Progress, "peak RSS not reported: %v\n", err)
	}
	report.Timing.WallSeconds = time.Since(start).Seconds()
	return report, nil
}

// runSheet renders and detects every page of one drawing and returns the
// labelled pages (stored detections, ground truth), the cost of every
// page and how many detections the read filter passes that the service
// withholds as guesses at classes no legend row names (detect.Withheld),
// as matches far off their legend row's size (detect.MarkOffScale) or as
// matches of a row the matcher stopped looking for (detect.Detection.Flood):
// those, stored or not, are left out of the scored pages, as the service
// leaves them out of its take-off.
func runSheet(ctx context.Context, cfg Config, s dataset.Sheet) ([]eval.Page, []eval.PageTiming, int, error) {
	for _, p := range s.Pages {
		for _, sym := range p.Symbols {
			if _, ok := cfg.Catalog.Model(sym.Class); !ok {
				return nil, nil, 0, fmt.Errorf("%s: page %d: class %q is not in the catalog", s.Label, p.PageIndex, sym.Class)
			}
		}
	}
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("read drawing: %w", err)
	}
	mime := document.Sniff(data)
	if mime == "" {
		return nil, nil, 0, fmt.Errorf("%s: not a PDF, PNG, JPEG or WebP", s.Path)
	}
	// The service validates an upload at start, then renders it: so does
	// the evaluation, with the service's limits.
	validateStart := time.Now()
	if _, err := document.Validate(ctx, data, mime, document.DefaultLimits()); err != nil {
		return nil, nil, 0, fmt.Errorf("%s: the service would refuse it: %w", s.Path, err)
	}
	openStart := time.Now()
	doc, err := document.Open(ctx, data, mime, document.DefaultLimits())
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: open: %w", s.Path, err)
	}
	defer doc.Close()
	n := doc.NumPages()
	// Images are decoded by Open, not by Page: the opening cost is part of
	// rendering, shared out over the document's pages.
	openShare := time.Since(openStart).Seconds() / float64(n)
	validateShare := openStart.Sub(validateStart).Seconds() / float64(n)
	for _, p := range s.Pages {
		if p.PageIndex >= n {
			return nil, nil, 0, fmt.Errorf("%s: ground truth labels page %d but the drawing has %d pages", s.Label, p.PageIndex, n)
		}
	}

	dets := make([][]detect.Detection, n)
	size := make([][2]int, n)
	var timings []eval.PageTiming
	var named map[string]bool // the classes the drawing's legend rows name
	unread := map[int]bool{}  // the pages whose text was not read
	var rowKeys []string      // detect.RowKey of each legend row
	opt := pipeline.Options{Engine: cfg.Engine, Document: func(info detect.DocumentInfo) error {
		named, unread, rowKeys = detect.NamedClasses(info.Legend), detect.TextUnread(info.Warnings), detect.RowKeys(info.Legend)
		return nil
	}}
	err = pipeline.Run(ctx, doc, opt, func(r pipeline.PageResult) error {
		if r.Index < 0 || r.Index >= n {
			return fmt.Errorf("pipeline reported page %d of %d", r.Index, n)
		}
		for _, d := range r.Detections {
			if _, ok := cfg.Catalog.Model(d.Class); !ok && !(d.Class == "" && d.LegendRow > 0) {
				return fmt.Errorf("page %d: engine reported class %q, which is not in the catalog", r.Index, d.Class)
			}
		}
		dets[r.Index] = r.Detections
		size[r.Index] = [2]int{r.Width, r.Height}
		timings = append(timings, eval.PageTiming{RenderSeconds: r.RenderSeconds + openShare, DetectSeconds: r.DetectSeconds, ValidateSeconds: validateShare})
		return nil
	})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", s.Path, err)
	}
	// The service marks matches far off their row's size over the whole
	// document, finds of rows of no class included; those finds (class
	// "") it counts under their rows, never reports as symbols: not
	// scored.
	detect.MarkOffScale(dets, rowKeys)
	for i, ds := range dets {
		dets[i] = slices.DeleteFunc(slices.Clone(ds), func(d detect.Detection) bool { return d.Class == "" && d.LegendRow > 0 })
	}
	// The storage rules are job-wide: one drawing is one job.
	stored := detect.KeepStored(dets)
	filter := detect.DefaultFilter(cfg.Catalog.Threshold)
	filter.Flat = cfg.Flat
	held := 0
	for i, ds := range stored {
		kept := ds[:0:0]
		for _, d := range ds {
			if detect.Held(d, named, !unread[i]) {
				if filter.Keep(d) {
					held++ // reported but for the withholding
				}
				continue
			}
			kept = append(kept, d)
		}
		stored[i] = kept
	}
	pages := make([]eval.Page, 0, len(s.Pages))
	for _, p := range s.Pages {
		objs, err := p.Objects(size[p.PageIndex][0], size[p.PageIndex][1])
		if err != nil {
			return nil, nil, 0, fmt.Errorf("%s: %w", s.Label, err)
		}
		pages = append(pages, eval.Page{GT: objs, Pred: stored[p.PageIndex], Cases: p.Cases})
	}
	return pages, timings, held, nil
}

// writeFindings writes the findings of one sheet's scored pages (in the
// order of its ground-truth pages) as JSON lines.
func writeFindings(w io.Writer, s dataset.Sheet, pages []eval.Page, filter detect.Filter) error {
	enc := json.NewEncoder(w)
	for i, p := range pages {
		for _, f := range eval.Findings(p, filter) {
			if err := enc.Encode(FindingLine{File: s.Path, PageIndex: s.Pages[i].PageIndex, Finding: f}); err != nil {
				return fmt.Errorf("write findings: %w", err)
			}
		}
	}
	return nil
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// PeakRSSMB returns the peak resident set size of this process (VmHWM in
// /proc/self/status) in MiB. It fails where /proc is not available.
func PeakRSSMB() (float64, error) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("peak RSS: %w", err)
	}
	return parseVmHWM(raw)
}

// parseVmHWM reads the "VmHWM:   123456 kB" line of a /proc status file
// and returns MiB.
func parseVmHWM(status []byte) (float64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("peak RSS: unexpected VmHWM line %q", sc.Text())
		}
		kb, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, fmt.Errorf("peak RSS: %w", err)
		}
		return kb / 1024, nil
	}
	return 0, errors.New("peak RSS: no VmHWM in /proc/self/status")
}
