package realset

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func samples(spec string) []Sample {
	// "0.9+ 0.8- ..." : a confidence, + right, - wrong.
	var out []Sample
	for _, f := range strings.Fields(spec) {
		c, err := strconv.ParseFloat(f[:len(f)-1], 64)
		if err != nil {
			panic(err)
		}
		out = append(out, Sample{Confidence: c, Has: f[len(f)-1] == '+', By: ByRaster})
	}
	return out
}

// TestFloor: the floor is the lowest confidence from which the target
// share is right; equal confidences pass together; all right gives 0, a
// wrong top sample that nothing lower recovers gives a floor above it.
func TestFloor(t *testing.T) {
	cases := []struct {
		spec   string
		target float64
		want   float64
	}{
		{"0.95+ 0.9+ 0.8+ 0.7+", 0.8, 0},
		{"0.95+ 0.9+ 0.8- 0.7- 0.6-", 0.8, 0.9},
		{"0.95+ 0.9+ 0.8+ 0.8- 0.7- 0.6-", 0.8, 0.9},      // 0.8 admits one right and one wrong: 3 of 4
		{"0.95+ 0.9+ 0.9+ 0.9+ 0.8- 0.5-", 0.8, 0.8},      // 4 of 5 at 0.8
		{"0.92- 0.9- 0.5-", 0.8, math.Nextafter(0.92, 2)}, // nothing right: all withheld
		{"0.92- 0.9+ 0.9+ 0.9+ 0.9+ 0.4-", 0.8, 0.9},      // a wrong top is outweighed
		{"", 0.8, math.Nextafter(1, 2)},
	}
	for _, c := range cases {
		if got := Floor(samples(c.spec), c.target, 0); got != c.want {
			t.Errorf("Floor(%q, %v) = %v, want %v", c.spec, c.target, got, c.want)
		}
	}
}

// TestReported: legend finds and named classes are always reported;
// the others from their finder's floor.
func TestReported(t *testing.T) {
	ss := []Sample{
		{By: ByLegend, Confidence: 0.3},
		{By: ByVector, Named: true, Confidence: 0.3},
		{By: ByVector, Confidence: 0.6, Has: true},
		{By: ByRaster, Confidence: 0.6},
		{By: ByRaster, Confidence: 0.9, Has: true},
	}
	if f := Floor(samples("0.9- 0.8- 0.7-"), 0.8, 4); f != 0 {
		t.Errorf("floor on 3 samples of 4 needed: %v, want 0", f)
	}
	got := Reported(ss, func(s Sample) float64 {
		if s.By == ByVector {
			return 0.5
		}
		return 0.8
	})
	if len(got) != 4 || got[3].Confidence != 0.9 {
		t.Errorf("reported %+v", got)
	}
	if share, n := Share(got); n != 4 || share != 0.5 {
		t.Errorf("share %v of %d, want 0.5 of 4", share, n)
	}
	h := Histogram(ss[2:], 0.05)
	if !strings.Contains(h, "0.90–0.95") || !strings.Contains(h, "0.60–0.65") {
		t.Errorf("histogram:\n%s", h)
	}
}

// TestHas: a counted class and an unscored one are on the sheet; a class
// of count 0 or not in the truth is not.
func TestHas(t *testing.T) {
	tr := Truth{Classes: map[string]ClassTruth{"speaker": {Count: 87}, "push_button": {Count: 0}}, Unscored: map[string]string{"fire_alarm_panel": "one"}}
	for c, want := range map[string]bool{"speaker": true, "fire_alarm_panel": true, "push_button": false, "heater": false} {
		if tr.Has(c) != want {
			t.Errorf("Has(%s) = %v", c, !want)
		}
	}
}
