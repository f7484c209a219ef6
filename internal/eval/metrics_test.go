package eval

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"blueprint/internal/detect"
)

// flat is a read-time filter with one floor for every class.
func flat(x float64) detect.Filter { return detect.Filter{Flat: &x} }

func box(x, y, w, h float64) detect.Box { return detect.Box{X: x, Y: y, W: w, H: h} }

func obj(class string, b detect.Box) Object { return Object{Class: class, Box: b} }

func det(class string, conf float64, b detect.Box) detect.Detection {
	return detect.Detection{Class: class, Confidence: conf, Box: b}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func wantPtr(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: got null, want %v", name, want)
	}
	if !near(*got, want) {
		t.Fatalf("%s: got %v, want %v", name, *got, want)
	}
}

func wantNil(t *testing.T, name string, got *float64) {
	t.Helper()
	if got != nil {
		t.Fatalf("%s: got %v, want null", name, *got)
	}
}

func wantCounts(t *testing.T, name string, cs ClassScore, gt, pred, tp, fp, fn int) {
	t.Helper()
	if cs.GT != gt || cs.Pred != pred || cs.TP != tp || cs.FP != fp || cs.FN != fn {
		t.Fatalf("%s: got gt=%d pred=%d tp=%d fp=%d fn=%d, want %d %d %d %d %d",
			name, cs.GT, cs.Pred, cs.TP, cs.FP, cs.FN, gt, pred, tp, fp, fn)
	}
}

func TestIoU(t *testing.T) {
	cases := []struct {
		a, b detect.Box
		want float64
	}{
		{box(0, 0, 10, 10), box(0, 0, 10, 10), 1},
		{box(0, 0, 10, 10), box(5, 0, 10, 10), 50.0 / 150},
		{box(0, 0, 10, 10), box(10, 0, 10, 10), 0}, // touching edges
		{box(0, 0, 10, 10), box(20, 20, 5, 5), 0},
		{box(0, 0, 10, 10), box(2, 2, 5, 5), 25.0 / 100},
		{box(0, 0, 0, 0), box(0, 0, 0, 0), 0},
	}
	for _, c := range cases {
		if got := IoU(c.a, c.b); !near(got, c.want) {
			t.Errorf("IoU(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := IoU(c.b, c.a); !near(got, c.want) {
			t.Errorf("IoU not symmetric for %v, %v", c.a, c.b)
		}
	}
}

func TestPerfectMatch(t *testing.T) {
	pages := []Page{{
		GT:   []Object{obj("luminaire", box(10, 10, 20, 20)), obj("luminaire", box(100, 10, 20, 20)), obj("sounder", box(50, 50, 8, 8))},
		Pred: []detect.Detection{det("luminaire", 0.9, box(100, 10, 20, 20)), det("luminaire", 0.8, box(10, 10, 20, 20)), det("sounder", 0.7, box(50, 50, 8, 8))},
	}}
	s := Score(pages, flat(0.5))
	wantPtr(t, "precision", s.Overall.Precision, 1)
	wantPtr(t, "recall", s.Overall.Recall, 1)
	if s.Overall.F1 != 1 || s.Overall.CountMAEPerPage != 0 {
		t.Fatalf("overall %+v", s.Overall)
	}
	wantPtr(t, "map50", s.Overall.MAP50, 1)
	wantCounts(t, "luminaire", s.PerClass["luminaire"], 2, 2, 2, 0, 0)
	wantPtr(t, "luminaire ap", s.PerClass["luminaire"].AP50, 1)
	if len(s.PerClass) != 2 {
		t.Fatalf("classes: %v", s.PerClass)
	}
}

func TestOneFalsePositive(t *testing.T) {
	gt := []Object{obj("fan", box(0, 0, 10, 10))}
	// The false positive ranks above the true one: AP drops to 0.5.
	s := Score([]Page{{GT: gt, Pred: []detect.Detection{det("fan", 0.9, box(200, 200, 10, 10)), det("fan", 0.8, box(0, 0, 10, 10))}}}, flat(0.5))
	cs := s.PerClass["fan"]
	wantCounts(t, "fan", cs, 1, 2, 1, 1, 0)
	wantPtr(t, "precision", cs.Precision, 0.5)
	wantPtr(t, "recall", cs.Recall, 1)
	if !near(cs.F1, 2.0/3) {
		t.Fatalf("f1 %v", cs.F1)
	}
	wantPtr(t, "ap", cs.AP50, 0.5)
	if s.Overall.CountMAEPerPage != 1 {
		t.Fatalf("count mae %v", s.Overall.CountMAEPerPage)
	}
	// Ranked below the true one, the same false positive leaves AP at 1.
	s = Score([]Page{{GT: gt, Pred: []detect.Detection{det("fan", 0.3, box(200, 200, 10, 10)), det("fan", 0.8, box(0, 0, 10, 10))}}}, flat(0.1))
	wantPtr(t, "ap", s.PerClass["fan"].AP50, 1)
}

func TestOneMiss(t *testing.T) {
	s := Score([]Page{{
		GT:   []Object{obj("fan", box(0, 0, 10, 10)), obj("fan", box(50, 0, 10, 10))},
		Pred: []detect.Detection{det("fan", 0.9, box(1, 0, 10, 10))},
	}}, flat(0.5))
	cs := s.PerClass["fan"]
	wantCounts(t, "fan", cs, 2, 1, 1, 0, 1)
	wantPtr(t, "precision", cs.Precision, 1)
	wantPtr(t, "recall", cs.Recall, 0.5)
	wantPtr(t, "ap", cs.AP50, 0.5)
	if !near(cs.F1, 2.0/3) || s.Overall.CountMAEPerPage != 1 {
		t.Fatalf("%+v %+v", cs, s.Overall)
	}
}

func TestDuplicateDetection(t *testing.T) {
	pred := []detect.Detection{det("fan", 0.6, box(1, 1, 10, 10)), det("fan", 0.9, box(0, 0, 10, 10))}
	tp := Match([]detect.Box{box(0, 0, 10, 10)}, pred)
	// The more confident one takes the object; the other is a false positive.
	if tp[0] || !tp[1] {
		t.Fatalf("match %v", tp)
	}
	s := Score([]Page{{GT: []Object{obj("fan", box(0, 0, 10, 10))}, Pred: pred}}, flat(0.5))
	wantCounts(t, "fan", s.PerClass["fan"], 1, 2, 1, 1, 0)
	wantPtr(t, "ap", s.PerClass["fan"].AP50, 1)
}

func TestMatchTakesBestUnmatched(t *testing.T) {
	gt := []detect.Box{box(0, 0, 10, 10), box(4, 0, 10, 10)}
	// The first prediction overlaps both objects and prefers the second
	// (IoU 1 vs 6/14); the next one then takes the first object.
	pred := []detect.Detection{det("a", 0.9, box(4, 0, 10, 10)), det("a", 0.8, box(0, 0, 10, 10))}
	if tp := Match(gt, pred); !tp[0] || !tp[1] {
		t.Fatalf("match %v", tp)
	}
	// One object, one prediction at IoU 1 ranked second: the first one,
	// at IoU 0.6, takes it (greedy by confidence, not by IoU).
	pred = []detect.Detection{det("a", 0.9, box(2, 0, 10, 10)), det("a", 0.8, box(0, 0, 10, 10))}
	if tp := Match(gt[:1], pred); !tp[0] || tp[1] {
		t.Fatalf("match %v", tp)
	}
}

func TestClassConfusion(t *testing.T) {
	s := Score([]Page{{
		GT:   []Object{obj("smoke_detector", box(0, 0, 10, 10))},
		Pred: []detect.Detection{det("heat_detector", 0.9, box(0, 0, 10, 10))},
	}}, flat(0.5))
	smoke, heat := s.PerClass["smoke_detector"], s.PerClass["heat_detector"]
	wantCounts(t, "smoke", smoke, 1, 0, 0, 0, 1)
	wantNil(t, "smoke precision", smoke.Precision)
	wantPtr(t, "smoke recall", smoke.Recall, 0)
	wantPtr(t, "smoke ap", smoke.AP50, 0)
	wantCounts(t, "heat", heat, 0, 1, 0, 1, 0)
	wantPtr(t, "heat precision", heat.Precision, 0)
	wantNil(t, "heat recall", heat.Recall)
	wantNil(t, "heat ap", heat.AP50)
	if heat.F1 != 0 || smoke.F1 != 0 {
		t.Fatalf("f1 %v %v", heat.F1, smoke.F1)
	}
	// mAP averages classes with ground truth only.
	wantPtr(t, "map", s.Overall.MAP50, 0)
	wantPtr(t, "overall precision", s.Overall.Precision, 0)
	wantPtr(t, "overall recall", s.Overall.Recall, 0)
	if s.Overall.CountMAEPerPage != 2 {
		t.Fatalf("count mae %v", s.Overall.CountMAEPerPage)
	}
}

func TestIoUBoundary(t *testing.T) {
	gt := []Object{obj("a", box(0, 0, 10, 10))}
	for _, c := range []struct {
		name string
		b    detect.Box
		tp   int
	}{
		{"exactly 0.5", box(0, 0, 20, 10), 1},   // 100 / 200
		{"just above", box(0, 0, 19.9, 10), 1},  // 100 / 199
		{"just below", box(0, 0, 20.01, 10), 0}, // 100 / 200.1
		{"shifted below", box(3.4, 0, 10, 10), 0},
		{"shifted above", box(3.3, 0, 10, 10), 1},
	} {
		s := Score([]Page{{GT: gt, Pred: []detect.Detection{det("a", 0.9, c.b)}}}, flat(0.5))
		if got := s.PerClass["a"].TP; got != c.tp {
			t.Errorf("%s: IoU %.4f, tp %d, want %d", c.name, IoU(gt[0].Box, c.b), got, c.tp)
		}
	}
}

// TestAPByHand checks the all-point interpolation on a ranking worked out
// on paper. Three objects; ranked outcomes TP FP TP FP, one object never
// found. Precision 1, 1/2, 2/3, 1/2 at recall 1/3, 1/3, 2/3, 2/3. The
// envelope is 1 up to recall 1/3 and 2/3 up to 2/3, then 0:
// AP = 1/3·1 + 1/3·2/3 = 5/9.
func TestAPByHand(t *testing.T) {
	ranked := []rankedPred{{0.9, true}, {0.8, false}, {0.7, true}, {0.6, false}}
	if got := averagePrecision(ranked, 3); !near(got, 5.0/9) {
		t.Fatalf("AP %v, want 5/9", got)
	}
	// Input order does not matter: the ranking is by confidence.
	shuffled := []rankedPred{{0.6, false}, {0.7, true}, {0.9, true}, {0.8, false}}
	if got := averagePrecision(shuffled, 3); !near(got, 5.0/9) {
		t.Fatalf("AP %v, want 5/9", got)
	}
	// The envelope lifts an earlier dip: FP TP TP over two objects has
	// precision 0, 1/2, 2/3 at recall 0, 1/2, 1; interpolated 2/3 over the
	// whole range, AP = 2/3 (11-point would give the same; a plain
	// trapezoid would not).
	if got := averagePrecision([]rankedPred{{0.9, false}, {0.8, true}, {0.7, true}}, 2); !near(got, 2.0/3) {
		t.Fatalf("AP %v, want 2/3", got)
	}
	if got := averagePrecision(nil, 4); got != 0 {
		t.Fatalf("AP with no predictions %v", got)
	}
}

// TestAPThroughScore computes the same hand case from boxes spread over two
// pages, so matching, pooling across pages and ranking are all exercised.
func TestAPThroughScore(t *testing.T) {
	pages := []Page{
		{
			GT:   []Object{obj("a", box(0, 0, 10, 10)), obj("a", box(100, 0, 10, 10))},
			Pred: []detect.Detection{det("a", 0.9, box(0, 0, 10, 10)), det("a", 0.6, box(300, 0, 10, 10))},
		},
		{
			GT:   []Object{obj("a", box(0, 0, 10, 10))},
			Pred: []detect.Detection{det("a", 0.8, box(50, 50, 10, 10)), det("a", 0.7, box(0, 0, 10, 10))},
		},
	}
	s := Score(pages, flat(0.1))
	wantPtr(t, "ap", s.PerClass["a"].AP50, 5.0/9)
	wantCounts(t, "a", s.PerClass["a"], 3, 4, 2, 2, 1)
	// Page 0: 2 predicted vs 2 labelled; page 1: 2 vs 1. Mean 0.5.
	if s.Overall.CountMAEPerPage != 0.5 {
		t.Fatalf("count mae %v", s.Overall.CountMAEPerPage)
	}
}

func TestFilterAppliesToPRNotAP(t *testing.T) {
	per := detect.Filter{PerClass: func(c string) float64 {
		if c == "a" {
			return 0.5
		}
		return 0.2
	}}
	s := Score([]Page{{
		GT:   []Object{obj("a", box(0, 0, 10, 10)), obj("b", box(50, 0, 10, 10))},
		Pred: []detect.Detection{det("a", 0.3, box(0, 0, 10, 10)), det("b", 0.3, box(50, 0, 10, 10))},
	}}, per)
	a, b := s.PerClass["a"], s.PerClass["b"]
	wantCounts(t, "a", a, 1, 0, 0, 0, 1)
	if a.Stored != 1 {
		t.Fatalf("stored %d", a.Stored)
	}
	wantPtr(t, "a ap", a.AP50, 1) // AP ranks the stored detection below the display threshold
	wantCounts(t, "b", b, 1, 1, 1, 0, 0)
	if s.Overall.CountMAEPerPage != 1 {
		t.Fatalf("count mae %v", s.Overall.CountMAEPerPage)
	}
	// A class with only filtered-out stored detections and no ground truth
	// has nothing to score and is left out.
	s = Score([]Page{{Pred: []detect.Detection{det("a", 0.3, box(0, 0, 10, 10))}}}, per)
	if len(s.PerClass) != 0 || s.Overall.CountMAEPerPage != 0 {
		t.Fatalf("%+v", s)
	}
}

func TestEmpty(t *testing.T) {
	for _, pages := range [][]Page{nil, {{}, {}}} {
		s := Score(pages, flat(0.5))
		if len(s.PerClass) != 0 || s.Overall.F1 != 0 || s.Overall.CountMAEPerPage != 0 || s.Overall.Pages != len(pages) {
			t.Fatalf("%+v", s)
		}
		wantNil(t, "precision", s.Overall.Precision)
		wantNil(t, "recall", s.Overall.Recall)
		wantNil(t, "map", s.Overall.MAP50)
	}
	// Ground truth but an engine that finds nothing: recall 0, not null.
	s := Score([]Page{{GT: []Object{obj("a", box(0, 0, 1, 1))}}}, flat(0.5))
	wantPtr(t, "recall", s.Overall.Recall, 0)
	wantPtr(t, "map", s.Overall.MAP50, 0)
	wantNil(t, "precision", s.Overall.Precision)
	if len(Match(nil, nil)) != 0 {
		t.Fatal("match of nothing")
	}
}

func TestScoresJSONStaysValid(t *testing.T) {
	s := Score([]Page{{
		GT:   []Object{obj("a", box(0, 0, 10, 10))},
		Pred: []detect.Detection{det("b", 0.9, box(0, 0, 10, 10))},
	}}, flat(0.5))
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var back map[string]any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	if !strings.Contains(string(raw), `"recall":null`) || !strings.Contains(string(raw), `"precision":null`) {
		t.Fatalf("undefined values should be null: %s", raw)
	}
}

func TestThresholdFor(t *testing.T) {
	// 50 true at 0.9..0.41, then one false at 0.4, then a true at 0.3,
	// then falses. Precision stays ≥ 0.98 down to 0.3 (51/52 = 0.981),
	// not below (51/53 = 0.962).
	var ranked []rankedPred
	for i := range 50 {
		ranked = append(ranked, rankedPred{0.9 - float64(i)*0.01, true})
	}
	ranked = append(ranked, rankedPred{0.4, false}, rankedPred{0.3, true}, rankedPred{0.2, false}, rankedPred{0.15, false})
	thr, rec := thresholdFor(ranked, 60, 0.98)
	wantPtr(t, "threshold", thr, 0.3)
	wantPtr(t, "recall", rec, 51.0/60)
	// Ties are one step: a false at the same confidence as the last true
	// one cannot be left out.
	thr, _ = thresholdFor([]rankedPred{{0.9, true}, {0.5, true}, {0.5, false}}, 2, 0.98)
	wantPtr(t, "threshold with tie", thr, 0.9)
	// Unreachable, or nothing to reach.
	thr, rec = thresholdFor([]rankedPred{{0.9, false}, {0.8, true}}, 1, 0.98)
	wantNil(t, "unreachable", thr)
	wantNil(t, "unreachable recall", rec)
	thr, _ = thresholdFor(nil, 3, 0.98)
	wantNil(t, "no predictions", thr)
	// Through Score: the same numbers land in the class score.
	s := Score([]Page{{
		GT:   []Object{obj("a", box(0, 0, 10, 10)), obj("a", box(50, 0, 10, 10))},
		Pred: []detect.Detection{det("a", 0.9, box(0, 0, 10, 10)), det("a", 0.7, box(200, 0, 10, 10)), det("a", 0.2, box(50, 0, 10, 10))},
	}}, flat(0.5))
	wantPtr(t, "score threshold", s.PerClass["a"].ThresholdP98, 0.9)
	wantPtr(t, "score recall", s.PerClass["a"].RecallAtP98, 0.5)
}

func TestFindings(t *testing.T) {
	p := Page{
		GT: []Object{obj("smoke_detector", box(0, 0, 10, 10)), obj("fan", box(100, 0, 10, 10)), obj("fan", box(200, 0, 10, 10))},
		Pred: []detect.Detection{
			det("heat_detector", 0.8, box(0, 0, 10, 10)), // class confusion
			det("fan", 0.9, box(100, 0, 10, 10)),
			det("fan", 0.95, box(101, 0, 10, 10)), // duplicate, ranked first: it takes the object
			det("fan", 0.3, box(200, 0, 10, 10)),  // under the filter: the fan at 200 stays missed
		},
	}
	got := Findings(p, flat(0.5))
	if len(got) != 4 {
		t.Fatalf("findings %+v", got)
	}
	want := []struct {
		kind, class, nearest string
		iou                  float64
	}{
		{"fp", "fan", "fan", 1},                      // 0.9, lost to the 0.95 duplicate
		{"fp", "heat_detector", "smoke_detector", 1}, // 0.8
		{"fn", "smoke_detector", "heat_detector", 1},
		{"fn", "fan", "", 0},
	}
	for i, w := range want {
		f := got[i]
		if f.Kind != w.kind || f.Class != w.class || f.NearestClass != w.nearest || !near(f.NearestIoU, w.iou) {
			t.Errorf("finding %d: %+v, want %+v", i, f, w)
		}
	}
	s := Score([]Page{p}, flat(0.5)).Overall
	if s.FP != 2 || s.FN != 2 {
		t.Fatalf("Score disagrees: %+v", s)
	}
	if len(Findings(Page{GT: p.GT[:1], Pred: p.Pred[:1]}, flat(0.9))) != 1 {
		t.Fatal("a filtered-out detection is not a finding")
	}
}

// Per-case scores: recall over the case's own objects, precision over the
// reported detections on the pages that carry the case.
func TestScorePerCase(t *testing.T) {
	boq := func(class string, b detect.Box) Object { return Object{Class: class, Box: b, Case: "boq"} }
	pages := []Page{
		{ // carries "boq" through its objects and "sectioned" through its list
			GT:    []Object{boq("switch_one_way", box(0, 0, 10, 10)), boq("luminaire", box(50, 0, 10, 10)), obj("luminaire", box(100, 0, 10, 10))},
			Pred:  []detect.Detection{det("switch_one_way", 0.9, box(0, 0, 10, 10)), det("luminaire", 0.9, box(100, 0, 10, 10)), det("luminaire", 0.9, box(200, 0, 10, 10))},
			Cases: []string{"sectioned"},
		},
		{ // no case: counts only overall
			GT:   []Object{obj("luminaire", box(0, 0, 10, 10))},
			Pred: []detect.Detection{det("luminaire", 0.9, box(300, 0, 10, 10))},
		},
	}
	s := Score(pages, flat(0.5))
	b, ok := s.PerCase["boq"]
	if !ok {
		t.Fatalf("no boq case in %+v", s.PerCase)
	}
	// Two boq objects, one found; three detections on its page, two true.
	if b.GT != 2 || b.TP != 1 || b.FN != 1 || b.Pages != 1 || b.Pred != 3 || b.PredTP != 2 || b.FP != 1 {
		t.Fatalf("boq %+v", b)
	}
	if !near(*b.Recall, 0.5) || !near(*b.Precision, 2.0/3) || !near(b.F1, 2*0.5*(2.0/3)/(0.5+2.0/3)) {
		t.Fatalf("boq p %v r %v f1 %v", *b.Precision, *b.Recall, b.F1)
	}
	sec := s.PerCase["sectioned"]
	if sec.GT != 0 || sec.Recall != nil || sec.Pred != 3 || !near(*sec.Precision, 2.0/3) {
		t.Fatalf("sectioned %+v", sec)
	}
	if len(s.PerCase) != 2 {
		t.Fatalf("cases %v", s.PerCase)
	}
	if s.Overall.TP != 2 || s.Overall.FP != 2 || s.Overall.FN != 2 {
		t.Fatalf("overall %+v", s.Overall)
	}
	if z := Score(pages[1:], flat(0.5)); z.PerCase != nil {
		t.Fatalf("per_case without cases: %+v", z.PerCase)
	}
}
