// Package eval scores a detector against ground truth: one-to-one matching
// at IoU ≥ 0.5 within a class, precision, recall and F1 per class and
// overall, VOC all-point AP50 per class and its mean, and the per-page count
// error of the quantity take-off. The metric code is pure: it sees boxes and
// confidences, never files or engines. docs/evaluation.md states every
// definition; this file is the one place they are computed.
package eval

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"blueprint/internal/detect"
)

// CalibrationPrecision is the precision each class's default threshold is
// meant to reach (issue 4: "precision ≥ 0.98 at each class's default
// threshold"); ClassScore.ThresholdP98 reports where it is reached.
const CalibrationPrecision = 0.98

// IoUThreshold is the least intersection over union at which a prediction
// can match a ground-truth object of the same class.
const IoUThreshold = 0.5

// Object is one labelled symbol instance on a page.
type Object struct {
	Class string
	Box   detect.Box
	// Case names the generated case the object stands for ("" for
	// none): Score reports precision and recall per case.
	Case string
}

// Page is the ground truth and the predictions of one page. Pred holds every
// stored detection of the page (detect.KeepStored already applied); the
// read-time filter is applied by Score.
type Page struct {
	GT   []Object
	Pred []detect.Detection
	// Cases are the generated cases drawn on the page, besides those its
	// objects name: every reported detection on the page counts towards
	// the precision of each case the page carries (CaseScore).
	Cases []string
}

// IoU returns the intersection over union of two boxes, 0 when they do not
// overlap or when both are empty (detect.Box.IoU).
func IoU(a, b detect.Box) float64 { return a.IoU(b) }

// Match pairs the predictions of one page and one class with that page's
// ground truth of the same class, one to one: predictions are visited in
// order of confidence, highest first (ties keep their input order), and each
// takes the still-unmatched object with the highest IoU, provided it is at
// least IoUThreshold. The result says, for each prediction in input order,
// whether it is a true positive. Classes are not checked here: callers pass
// one class at a time.
func Match(gt []detect.Box, pred []detect.Detection) []bool {
	tp := make([]bool, len(pred))
	for i, g := range matchPairs(gt, pred) {
		tp[i] = g >= 0
	}
	return tp
}

// matchPairs is Match returning, for each prediction, the index of the
// object it matched or -1.
func matchPairs(gt []detect.Box, pred []detect.Detection) []int {
	to := make([]int, len(pred))
	taken := make([]bool, len(gt))
	for _, i := range byConfidence(pred) {
		best, bestIoU := -1, 0.0
		for j, g := range gt {
			if taken[j] {
				continue
			}
			if v := IoU(pred[i].Box, g); v >= IoUThreshold && v > bestIoU {
				best, bestIoU = j, v
			}
		}
		if best >= 0 {
			taken[best] = true
		}
		to[i] = best
	}
	return to
}

// byConfidence returns the indices of ds sorted by confidence descending,
// stable.
func byConfidence(ds []detect.Detection) []int {
	idx := make([]int, len(ds))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(ds[b].Confidence, ds[a].Confidence) })
	return idx
}

// ClassScore is the score of one class. Pointers are nil where the value is
// undefined: Precision with no filtered predictions, Recall with no ground
// truth, AP50 with no ground truth.
type ClassScore struct {
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
	F1        float64  `json:"f1"`
	AP50      *float64 `json:"ap50"`
	GT        int      `json:"gt"`
	Pred      int      `json:"pred"`   // predictions that pass the read-time filter
	Stored    int      `json:"stored"` // all stored predictions, the set AP50 ranks
	TP        int      `json:"tp"`
	FP        int      `json:"fp"`
	FN        int      `json:"fn"`
	// ThresholdP98 is the lowest confidence threshold at which the stored
	// detections at or above it reach CalibrationPrecision, and
	// RecallAtP98 the recall there: what a calibrated per-class default
	// would be on this dataset. Both nil when no threshold reaches it.
	ThresholdP98 *float64 `json:"threshold_p98"`
	RecallAtP98  *float64 `json:"recall_at_p98"`
}

// Overall is the micro-averaged score of all classes together, the mean AP
// and the count error of the take-off.
type Overall struct {
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
	F1        float64  `json:"f1"`
	// MAP50 is the mean of AP50 over the classes with ground truth; nil
	// when no class has any.
	MAP50 *float64 `json:"map50"`
	// CountMAEPerPage is the mean over pages of Σ_class |pred_c − gt_c|,
	// with pred_c counted after the read-time filter. It is the number of
	// take-off items a page is off by, on average.
	CountMAEPerPage float64 `json:"count_mae_per_page"`
	Pages           int     `json:"pages"`
	GT              int     `json:"gt"`
	Pred            int     `json:"pred"`
	TP              int     `json:"tp"`
	FP              int     `json:"fp"`
	FN              int     `json:"fn"`
}

// CaseScore is the score of one generated case (Object.Case,
// Page.Cases). Recall is over the case's own objects: GT of them, TP
// matched by a reported detection of their class, FN not. Precision is
// over the reported detections on the pages carrying the case (a page
// carries the cases it lists and those of its objects): Pred of them,
// PredTP matching some object (of any case), FP matching none. Pointers
// are nil where undefined, as in ClassScore.
type CaseScore struct {
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
	F1        float64  `json:"f1"`
	Pages     int      `json:"pages"`
	GT        int      `json:"gt"`
	TP        int      `json:"tp"`
	FN        int      `json:"fn"`
	Pred      int      `json:"pred"`
	PredTP    int      `json:"pred_tp"`
	FP        int      `json:"fp"`
}

// Scores is the result of Score.
type Scores struct {
	Overall Overall `json:"overall"`
	// PerClass has every class with ground truth or with a prediction
	// that passes the filter on any page.
	PerClass map[string]ClassScore `json:"per_class"`
	// PerCase has every case named by an object or a page; empty when
	// none is.
	PerCase map[string]CaseScore `json:"per_case,omitempty"`
}

// Score matches every page and computes all metrics. keep is the read-time
// filter (the service's default is the catalog's per-class thresholds)
// applied to Page.Pred for precision, recall, F1 and the count error; AP50
// ranks all of Page.Pred.
func Score(pages []Page, keep detect.Filter) Scores {
	type acc struct {
		gt, pred, stored, tp int
		ranked               []rankedPred
	}
	classes := map[string]*acc{}
	get := func(c string) *acc {
		a := classes[c]
		if a == nil {
			a = &acc{}
			classes[c] = a
		}
		return a
	}
	var countErr float64
	cases := map[string]*CaseScore{}
	getCase := func(c string) *CaseScore {
		cs := cases[c]
		if cs == nil {
			cs = &CaseScore{}
			cases[c] = cs
		}
		return cs
	}
	for _, p := range pages {
		gtBy := map[string][]detect.Box{}
		gtIdx := map[string][]int{}
		for i, o := range p.GT {
			gtBy[o.Class] = append(gtBy[o.Class], o.Box)
			gtIdx[o.Class] = append(gtIdx[o.Class], i)
		}
		matched := make([]bool, len(p.GT))
		var pagePred, pageTP int
		storedBy := map[string][]detect.Detection{}
		for _, d := range p.Pred {
			storedBy[d.Class] = append(storedBy[d.Class], d)
		}
		seen := map[string]bool{}
		for c := range gtBy {
			seen[c] = true
		}
		for c := range storedBy {
			seen[c] = true
		}
		for c := range seen {
			a := get(c)
			gt, stored := gtBy[c], storedBy[c]
			a.gt += len(gt)
			a.stored += len(stored)
			for i, ok := range Match(gt, stored) {
				a.ranked = append(a.ranked, rankedPred{conf: stored[i].Confidence, tp: ok})
			}
			kept := keep.Apply(stored)
			a.pred += len(kept)
			pagePred += len(kept)
			for _, g := range matchPairs(gt, kept) {
				if g >= 0 {
					a.tp++
					pageTP++
					matched[gtIdx[c][g]] = true
				}
			}
			countErr += math.Abs(float64(len(kept) - len(gt)))
		}
		for _, c := range pageCases(p) {
			cs := getCase(c)
			cs.Pages++
			cs.Pred += pagePred
			cs.PredTP += pageTP
		}
		for i, o := range p.GT {
			if o.Case == "" {
				continue
			}
			cs := getCase(o.Case)
			cs.GT++
			if matched[i] {
				cs.TP++
			}
		}
	}

	s := Scores{PerClass: map[string]ClassScore{}}
	o := &s.Overall
	o.Pages = len(pages)
	if len(pages) > 0 {
		o.CountMAEPerPage = countErr / float64(len(pages))
	}
	var apSum float64
	var apN int
	// Sorted, so the floating-point sums are the same on every run.
	for _, c := range slices.Sorted(maps.Keys(classes)) {
		a := classes[c]
		if a.gt == 0 && a.pred == 0 {
			continue // only stored detections under the filter: nothing to score
		}
		cs := ClassScore{GT: a.gt, Pred: a.pred, Stored: a.stored, TP: a.tp, FP: a.pred - a.tp, FN: a.gt - a.tp}
		cs.Precision, cs.Recall, cs.F1 = prf(cs.TP, cs.FP, cs.FN)
		if a.gt > 0 {
			ap := averagePrecision(a.ranked, a.gt)
			cs.AP50 = &ap
			cs.ThresholdP98, cs.RecallAtP98 = thresholdFor(a.ranked, a.gt, CalibrationPrecision)
			apSum += ap
			apN++
		}
		s.PerClass[c] = cs
		o.GT += cs.GT
		o.Pred += cs.Pred
		o.TP += cs.TP
		o.FP += cs.FP
		o.FN += cs.FN
	}
	o.Precision, o.Recall, o.F1 = prf(o.TP, o.FP, o.FN)
	if apN > 0 {
		m := apSum / float64(apN)
		o.MAP50 = &m
	}
	if len(cases) > 0 {
		s.PerCase = map[string]CaseScore{}
		for c, cs := range cases {
			cs.FN = cs.GT - cs.TP
			cs.FP = cs.Pred - cs.PredTP
			cs.Precision, _, _ = prf(cs.PredTP, cs.FP, 0)
			_, cs.Recall, _ = prf(cs.TP, 0, cs.FN)
			if cs.Precision != nil && cs.Recall != nil && *cs.Precision+*cs.Recall > 0 {
				cs.F1 = 2 * *cs.Precision * *cs.Recall / (*cs.Precision + *cs.Recall)
			}
			s.PerCase[c] = *cs
		}
	}
	return s
}

// pageCases returns the cases a page carries: those it lists and those
// of its objects, each once, sorted.
func pageCases(p Page) []string {
	var out []string
	for _, c := range p.Cases {
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, o := range p.GT {
		if o.Case != "" && !slices.Contains(out, o.Case) {
			out = append(out, o.Case)
		}
	}
	slices.Sort(out)
	return out
}

// prf returns precision (nil without predictions), recall (nil without
// ground truth) and F1 = 2TP / (2TP + FP + FN), 0 when there is nothing at
// all.
func prf(tp, fp, fn int) (p, r *float64, f1 float64) {
	if tp+fp > 0 {
		v := float64(tp) / float64(tp+fp)
		p = &v
	}
	if tp+fn > 0 {
		v := float64(tp) / float64(tp+fn)
		r = &v
	}
	if d := 2*tp + fp + fn; d > 0 {
		f1 = 2 * float64(tp) / float64(d)
	}
	return p, r, f1
}

// rankedPred is one prediction of a class, already matched on its page.
type rankedPred struct {
	conf float64
	tp   bool
}

// averagePrecision returns the VOC all-point interpolated average precision
// of one class: the predictions (with their match outcome) are ranked by
// confidence, highest first, ties in input order; precision and recall are
// taken after each; the precision envelope p̂(r) = max precision at any
// recall ≥ r is integrated over recall from 0 to 1 at every recall step.
// nGT must be positive; with no predictions the AP is 0.
func averagePrecision(preds []rankedPred, nGT int) float64 {
	if nGT <= 0 {
		return 0
	}
	sorted := slices.Clone(preds)
	slices.SortStableFunc(sorted, func(a, b rankedPred) int { return cmp.Compare(b.conf, a.conf) })
	rec := make([]float64, 0, len(sorted)+2)
	prec := make([]float64, 0, len(sorted)+2)
	rec = append(rec, 0)
	prec = append(prec, 0)
	tp, fp := 0, 0
	for _, p := range sorted {
		if p.tp {
			tp++
		} else {
			fp++
		}
		rec = append(rec, float64(tp)/float64(nGT))
		prec = append(prec, float64(tp)/float64(tp+fp))
	}
	rec = append(rec, 1)
	prec = append(prec, 0)
	for i := len(prec) - 2; i >= 0; i-- {
		prec[i] = math.Max(prec[i], prec[i+1])
	}
	var ap float64
	for i := 1; i < len(rec); i++ {
		if rec[i] != rec[i-1] {
			ap += (rec[i] - rec[i-1]) * prec[i]
		}
	}
	return ap
}

// thresholdFor returns the lowest confidence t such that the predictions
// with confidence ≥ t have precision ≥ target, and the recall they reach
// over nGT objects; nil, nil when no such t exists. Predictions of equal
// confidence stand or fall together, as a threshold cannot split them.
func thresholdFor(preds []rankedPred, nGT int, target float64) (thr, rec *float64) {
	if nGT <= 0 {
		return nil, nil
	}
	sorted := slices.Clone(preds)
	slices.SortStableFunc(sorted, func(a, b rankedPred) int { return cmp.Compare(b.conf, a.conf) })
	tp := 0
	for i, p := range sorted {
		if p.tp {
			tp++
		}
		if i+1 < len(sorted) && sorted[i+1].conf == p.conf {
			continue // the threshold p.conf also admits the next one
		}
		if float64(tp) >= target*float64(i+1) {
			t, r := p.conf, float64(tp)/float64(nGT)
			thr, rec = &t, &r
		}
	}
	return thr, rec
}

// Finding is one scoring error on a page, for reading what went wrong: a
// reported detection that matched nothing (Kind "fp") or an object no
// reported detection matched (Kind "fn"). Nearest is the box on the other
// side (ground truth for an fp, reported detection for an fn) of any class
// that overlaps it most, so a class confusion or a misplaced box shows up;
// NearestIoU is 0 and NearestClass empty when nothing overlaps.
type Finding struct {
	Kind         string     `json:"kind"`
	Class        string     `json:"class"`
	Box          detect.Box `json:"box"`
	Confidence   float64    `json:"confidence,omitempty"` // fp only
	NearestClass string     `json:"nearest_class,omitempty"`
	NearestBox   detect.Box `json:"nearest_box"`
	NearestIoU   float64    `json:"nearest_iou"`
}

// Findings lists the false positives and false negatives of one page under
// the same matching and filter as Score: false positives in order of
// confidence, highest first, then false negatives in ground-truth order.
func Findings(p Page, keep detect.Filter) []Finding {
	kept := keep.Apply(p.Pred)
	byClass := map[string][]int{}
	for i, d := range kept {
		byClass[d.Class] = append(byClass[d.Class], i)
	}
	gtBy := map[string][]int{}
	for i, o := range p.GT {
		gtBy[o.Class] = append(gtBy[o.Class], i)
	}
	predTP := make([]bool, len(kept))
	gtTP := make([]bool, len(p.GT))
	for c, idx := range byClass {
		gi := gtBy[c]
		boxes := make([]detect.Box, len(gi))
		for k, j := range gi {
			boxes[k] = p.GT[j].Box
		}
		ds := make([]detect.Detection, len(idx))
		for k, i := range idx {
			ds[k] = kept[i]
		}
		for k, g := range matchPairs(boxes, ds) {
			if g >= 0 {
				predTP[idx[k]] = true
				gtTP[gi[g]] = true
			}
		}
	}
	var out []Finding
	for _, i := range byConfidence(kept) {
		if predTP[i] {
			continue
		}
		f := Finding{Kind: "fp", Class: kept[i].Class, Box: kept[i].Box, Confidence: kept[i].Confidence}
		for _, o := range p.GT {
			if v := IoU(f.Box, o.Box); v > f.NearestIoU {
				f.NearestClass, f.NearestBox, f.NearestIoU = o.Class, o.Box, v
			}
		}
		out = append(out, f)
	}
	for j, o := range p.GT {
		if gtTP[j] {
			continue
		}
		f := Finding{Kind: "fn", Class: o.Class, Box: o.Box}
		for _, d := range kept {
			if v := IoU(f.Box, d.Box); v > f.NearestIoU {
				f.NearestClass, f.NearestBox, f.NearestIoU = d.Class, d.Box, v
			}
		}
		out = append(out, f)
	}
	return out
}
