package eval

import (
	"bytes"
	"strings"
	"testing"

	"blueprint/internal/detect"
)

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	for _, c := range []struct{ q, want float64 }{{95, 19}, {50, 10}, {100, 20}, {1, 1}} {
		if got := Percentile(xs, c.q); got != c.want {
			t.Errorf("p%v = %v, want %v", c.q, got, c.want)
		}
	}
	if xs[0] != 5 {
		t.Fatal("input sorted in place")
	}
	if Percentile(nil, 95) != 0 || Percentile([]float64{3}, 95) != 3 {
		t.Fatal("edge cases")
	}
}

func TestSummariseTiming(t *testing.T) {
	tm := SummariseTiming([]PageTiming{{1, 1, 0.3}, {0.5, 0.5, 0}, {2, 4, 0}})
	if tm.Pages != 3 || !near(tm.SecondsPerPageMean, 3) || tm.SecondsPerPageP95 != 6 || tm.SecondsPerPageMax != 6 ||
		!near(tm.RenderSecondsMean, 3.5/3) || !near(tm.DetectSecondsMean, 5.5/3) || !near(tm.ValidateSecondsMean, 0.1) {
		t.Fatalf("%+v", tm)
	}
	if z := SummariseTiming(nil); z.Pages != 0 || z.SecondsPerPageMean != 0 {
		t.Fatalf("%+v", z)
	}
}

func TestWriteTable(t *testing.T) {
	s := Score([]Page{{
		GT:   []Object{obj("smoke_detector", box(0, 0, 10, 10)), obj("luminaire", box(50, 0, 10, 10))},
		Pred: []detect.Detection{det("heat_detector", 0.9, box(0, 0, 10, 10)), det("luminaire", 0.9, box(50, 0, 10, 10))},
	}}, flat(0.5))
	r := Report{Dataset: "d", ConfidenceMode: "flat", Sheets: 1, Overall: s.Overall, PerClass: s.PerClass, Timing: SummariseTiming([]PageTiming{{0.1, 0.2, 0}})}
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(out, "\n")
	// Header, three classes in name order, the overall row.
	var rows []string
	for _, l := range lines {
		for _, c := range []string{"class ", "heat_detector", "luminaire", "smoke_detector", "OVERALL"} {
			if strings.HasPrefix(strings.TrimSpace(l), c) {
				rows = append(rows, c)
			}
		}
	}
	if strings.Join(rows, ",") != "class ,heat_detector,luminaire,smoke_detector,OVERALL" {
		t.Fatalf("rows %v in\n%s", rows, out)
	}
	// Aligned: every table row ends at the same column.
	var width int
	for _, l := range lines[1:6] {
		if width == 0 {
			width = len(l)
		} else if len(l) != width {
			t.Fatalf("ragged table:\n%s", out)
		}
	}
	if !strings.Contains(out, "heat_detector     0     1   0   1   0      0.000       -  0.000      -") {
		t.Fatalf("undefined values should print as -:\n%s", out)
	}
	if !strings.Contains(out, "timing: 1 pages") || !strings.Contains(out, "peak RSS -") {
		t.Fatalf("timing line:\n%s", out)
	}
}

func TestWriteTableCases(t *testing.T) {
	s := Score([]Page{{
		GT:   []Object{{Class: "luminaire", Box: box(0, 0, 10, 10), Case: "sectioned"}},
		Pred: []detect.Detection{det("luminaire", 0.9, box(0, 0, 10, 10))},
	}}, flat(0.5))
	r := Report{Dataset: "d", ConfidenceMode: "flat", Sheets: 1, Overall: s.Overall, PerClass: s.PerClass, PerCase: s.PerCase}
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "sectioned") {
			row = l
		}
	}
	if f := strings.Fields(row); len(f) != 10 || f[1] != "1" || f[7] != "1.000" || f[8] != "1.000" {
		t.Fatalf("case row %q in\n%s", row, buf.String())
	}
}
