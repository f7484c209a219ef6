package eval

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// Report is the JSON document `make eval` writes. Overall, PerClass and
// Timing are the fields every detector is compared on; the rest tells what
// was run.
type Report struct {
	Dataset        string `json:"dataset"`
	ConfidenceMode string `json:"confidence_mode"` // the read-time filter behind precision, recall, F1 and count error
	Sheets         int    `json:"sheets"`
	// Withheld counts the stored detections the service withholds from
	// its take-off as guesses at classes no legend row names
	// (detect.Withheld); they are not reported, so not scored.
	Withheld int                   `json:"withheld"`
	Overall  Overall               `json:"overall"`
	PerClass map[string]ClassScore `json:"per_class"`
	// PerCase scores each generated case the ground truth names
	// (CaseScore); absent when it names none.
	PerCase  map[string]CaseScore `json:"per_case,omitempty"`
	Timing   Timing               `json:"timing"`
	PerSheet []SheetScore         `json:"per_sheet"`
}

// SheetScore is the outcome of one dataset file, so the worst sheets can be
// found and opened.
type SheetScore struct {
	File    string  `json:"file"`
	Kind    string  `json:"kind,omitempty"`
	Pages   int     `json:"pages"`   // pages rendered and detected
	Scored  int     `json:"scored"`  // pages the ground truth lists
	Seconds float64 `json:"seconds"` // render + detect, all pages
	GT      int     `json:"gt"`
	Pred    int     `json:"pred"`
	TP      int     `json:"tp"`
	FP      int     `json:"fp"`
	FN      int     `json:"fn"`
}

// PageTiming is what one page cost. RenderSeconds includes the page's share
// of opening the document (an image is decoded when opened);
// ValidateSeconds is its share of the start-time validation, which is not
// part of the per-page seconds.
type PageTiming struct {
	RenderSeconds, DetectSeconds, ValidateSeconds float64
}

// Timing summarises the cost of the run. Seconds per page are render plus
// detect; the p95 is the nearest-rank 95th percentile. PeakRSSMB is the
// process's peak resident set (VmHWM) in MiB, nil where the platform does
// not report it.
type Timing struct {
	Pages               int      `json:"pages"`
	SecondsPerPageMean  float64  `json:"seconds_per_page_mean"`
	SecondsPerPageP95   float64  `json:"seconds_per_page_p95"`
	SecondsPerPageMax   float64  `json:"seconds_per_page_max"`
	RenderSecondsMean   float64  `json:"render_seconds_mean"`
	DetectSecondsMean   float64  `json:"detect_seconds_mean"`
	ValidateSecondsMean float64  `json:"validate_seconds_mean"` // start-time validation per page, not in seconds_per_page
	PeakRSSMB           *float64 `json:"peak_rss_mb"`
	WallSeconds         float64  `json:"wall_seconds"` // the whole run, loading and scoring included
}

// SummariseTiming computes the page statistics of Timing (Pages, means, p95,
// max); PeakRSSMB and WallSeconds are left for the caller.
func SummariseTiming(pages []PageTiming) Timing {
	t := Timing{Pages: len(pages)}
	if len(pages) == 0 {
		return t
	}
	total := make([]float64, len(pages))
	var sum, render, det, val float64
	for i, p := range pages {
		total[i] = p.RenderSeconds + p.DetectSeconds
		sum += total[i]
		render += p.RenderSeconds
		det += p.DetectSeconds
		val += p.ValidateSeconds
	}
	n := float64(len(pages))
	t.SecondsPerPageMean = sum / n
	t.RenderSecondsMean = render / n
	t.DetectSecondsMean = det / n
	t.ValidateSecondsMean = val / n
	t.SecondsPerPageP95 = Percentile(total, 95)
	t.SecondsPerPageMax = slices.Max(total)
	return t
}

// Percentile returns the nearest-rank q-th percentile (0 < q ≤ 100) of xs:
// the smallest value with at least q% of the values at or below it. It is 0
// for no values. xs is not modified.
func Percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(q / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// WriteTable prints the report as aligned text: one row per class sorted
// by class name (thr@p98 is ClassScore.ThresholdP98), the micro-averaged
// overall row, one row per generated case sorted by name (where the
// ground truth names any), then mAP, count error and timing. Undefined values print
// as "-".
func (r Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	o := r.Overall
	fmt.Fprintf(tw, "dataset %s: %d sheets, %d scored pages, filter %s\n", r.Dataset, r.Sheets, o.Pages, r.ConfidenceMode)
	classes := slices.Sorted(maps.Keys(r.PerClass))
	width := len(overallLabel)
	for _, c := range classes {
		width = max(width, len(c))
	}
	// Class names are padded here so they read left-aligned in a
	// right-aligned table of numbers.
	fmt.Fprintf(tw, "%-*s\tgt\tpred\ttp\tfp\tfn\tprecision\trecall\tf1\tap50\tthr@p98\t\n", width, "class")
	for _, c := range classes {
		s := r.PerClass[c]
		fmt.Fprintf(tw, "%-*s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%.3f\t%s\t%s\t\n", width, c, s.GT, s.Pred, s.TP, s.FP, s.FN, num(s.Precision), num(s.Recall), s.F1, num(s.AP50), num(s.ThresholdP98))
	}
	fmt.Fprintf(tw, "%-*s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%.3f\t%s\t\t\n", width, overallLabel, o.GT, o.Pred, o.TP, o.FP, o.FN, num(o.Precision), num(o.Recall), o.F1, num(o.MAP50))
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	if len(r.PerCase) > 0 {
		// Cases: recall over the case's objects, precision over the
		// detections on the pages carrying it (CaseScore).
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%-*s\tgt\ttp\tfn\tpages\tpred\tfp\tprecision\trecall\tf1\t\n", width, "case")
		for _, c := range slices.Sorted(maps.Keys(r.PerCase)) {
			s := r.PerCase[c]
			fmt.Fprintf(tw, "%-*s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%.3f\t\n", width, c, s.GT, s.TP, s.FN, s.Pages, s.Pred, s.FP, num(s.Precision), num(s.Recall), s.F1)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("write table: %w", err)
		}
	}
	t := r.Timing
	rss := "-"
	if t.PeakRSSMB != nil {
		rss = fmt.Sprintf("%.0f MiB", *t.PeakRSSMB)
	}
	lines := []string{
		fmt.Sprintf("map50 %s (mean AP50 over classes with ground truth), count MAE %.3f per page; withheld as guesses at classes no legend names: %d", num(o.MAP50), o.CountMAEPerPage, r.Withheld),
		fmt.Sprintf("timing: %d pages, %.3f s/page mean, %.3f s/page p95, %.3f s max; render %.3f s, detect %.3f s mean (validation %.3f s more); peak RSS %s; wall %.1f s",
			t.Pages, t.SecondsPerPageMean, t.SecondsPerPageP95, t.SecondsPerPageMax, t.RenderSecondsMean, t.DetectSecondsMean, t.ValidateSecondsMean, rss, t.WallSeconds),
	}
	if _, err := io.WriteString(w, strings.Join(lines, "\n")+"\n"); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// overallLabel names the micro-averaged row of the table.
const overallLabel = "OVERALL (micro)"

// num formats an optional metric with three decimals, "-" when undefined.
func num(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}
