package realset

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"blueprint/internal/catalog"
)

func TestWithin(t *testing.T) {
	cases := []struct {
		got, want int
		ok        bool
	}{
		{0, 0, true}, {1, 0, false}, {9, 9, true}, {8, 9, false}, {10, 9, false},
		{9, 10, true}, {11, 10, true}, {8, 10, false}, {12, 10, false},
		{28, 29, true}, {30, 29, true}, {31, 29, false},
		{31, 30, true}, {32, 30, false}, // 5 % of 30 is 1.5
		{60, 63, true}, {59, 63, false}, {66, 63, true}, {67, 63, false},
		{95, 100, true}, {105, 100, true}, {94, 100, false},
	}
	for _, c := range cases {
		if got := Within(c.got, c.want); got != c.ok {
			t.Errorf("Within(%d, %d) = %v, want %v", c.got, c.want, got, c.ok)
		}
	}
}

func TestRelErrorAndMedian(t *testing.T) {
	for _, c := range []struct {
		got, want int
		e         float64
	}{{0, 0, 0}, {3, 0, 1}, {0, 5, 1}, {15, 10, 0.5}, {112, 33, 79.0 / 33}} {
		if e := RelError(c.got, c.want); math.Abs(e-c.e) > 1e-12 {
			t.Errorf("RelError(%d, %d) = %v, want %v", c.got, c.want, e, c.e)
		}
	}
	if m := Median(nil); m != 0 {
		t.Errorf("median of nothing %v", m)
	}
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("odd median %v", m)
	}
	if m := Median([]float64{4, 1, 0, 2}); m != 1.5 {
		t.Errorf("even median %v", m)
	}
}

func TestScore(t *testing.T) {
	truth := Truth{
		File: "a.pdf",
		Classes: map[string]ClassTruth{
			"socket_outlet_3phase": {Count: 63}, "luminaire_linear": {Count: 33}, "downlight": {Count: 6},
		},
		Unscored: map[string]string{"safety_switch": "too small to count"},
	}
	r := Score(truth, map[string]int{"socket_outlet_3phase": 62, "luminaire_linear": 112, "smoke_detector": 2, "safety_switch": 4})
	// Scored: 3phase (within), linear (not), downlight (0 of 6: not),
	// smoke_detector (truth 0: not). safety_switch shown, not scored.
	if r.Scored != 4 || r.WithinN != 1 || r.Share != 0.25 {
		t.Fatalf("scored %d within %d share %v, want 4, 1, 0.25", r.Scored, r.WithinN, r.Share)
	}
	// Errors: 1/63, 79/33, 1, 1: median 1.
	if r.MedianError != 1 {
		t.Errorf("median error %v, want 1", r.MedianError)
	}
	var seen []string
	for _, c := range r.Classes {
		seen = append(seen, c.Class)
		if c.Class == "safety_switch" && (c.Unscored == "" || c.Within != nil || c.Counted != 4) {
			t.Errorf("unscored class %+v", c)
		}
	}
	if got := strings.Join(seen, " "); got != "downlight luminaire_linear safety_switch smoke_detector socket_outlet_3phase" {
		t.Errorf("classes %s", got)
	}

	// A sheet that holds none of our classes: anything counted is wrong,
	// nothing counted is right on every class named.
	none := Truth{File: "b.pdf", Classes: map[string]ClassTruth{"smoke_detector": {Count: 0}}}
	if r := Score(none, nil); r.Scored != 1 || r.WithinN != 1 || r.MedianError != 0 {
		t.Errorf("empty sheet counted empty: %+v", r)
	}
	if r := Score(none, map[string]int{"socket_outlet": 5}); r.Scored != 2 || r.WithinN != 1 || r.Share != 0.5 {
		t.Errorf("empty sheet with an invented class: %+v", r)
	}

	rep := Summarise([]SetResult{Score(truth, map[string]int{"socket_outlet_3phase": 63, "luminaire_linear": 33, "downlight": 6}), r}, []string{"c.png"}, 0.9)
	if rep.Scored != 7 || rep.WithinN != 4 || rep.SetsAtTarget != 1 {
		t.Errorf("summary %+v", rep)
	}
	txt := rep.Text()
	for _, want := range []string{"a.pdf", "skipped c.png", "all sets", "unscored: too small to count", "sets at >= 90 % within tolerance: 1 of 2"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
}

// TestFixtures: every committed count truth loads, names a drawing and
// only classes of the catalog, and keeps positions consistent
// with its counts where it has them.
func TestFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "realtruth")
	truths, err := LoadTruths(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(truths) == 0 {
		t.Fatalf("no fixtures in %s", dir)
	}
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range truths {
		for c := range tr.Unscored {
			if _, ok := cat.Threshold(c); !ok {
				t.Errorf("%s: unscored %q is no class of the catalog", tr.File, c)
			}
		}
		if tr.Made == "" {
			t.Errorf("%s: no line on how the truth was made", tr.File)
		}
		for c, ct := range tr.Classes {
			if _, ok := cat.Threshold(c); !ok {
				t.Errorf("%s: %q is no class of the catalog", tr.File, c)
			}
			if ct.Confidence == "" {
				t.Errorf("%s: %s has no confidence", tr.File, c)
			}
			if len(ct.Positions) > 0 && len(ct.Positions) != ct.Count {
				t.Errorf("%s: %s counts %d with %d positions", tr.File, c, ct.Count, len(ct.Positions))
			}
			// A glyph's positions are the class's, each in one glyph.
			mine := map[string]int{}
			for _, p := range ct.Positions {
				mine[fmt.Sprint(p)]++
			}
			for g, gt := range ct.Glyphs {
				if len(gt.Exemplar) != 5 {
					t.Errorf("%s: %s glyph %s has no exemplar box", tr.File, c, g)
				}
				for _, p := range gt.Positions {
					if mine[fmt.Sprint(p)] == 0 {
						t.Errorf("%s: %s glyph %s: position %v is not one of the class's, or is in two glyphs", tr.File, c, g, p)
					}
					mine[fmt.Sprint(p)]--
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "electrical_za_building2.json")); err != nil {
		t.Error(err)
	}
}
