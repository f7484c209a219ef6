package detect

import "testing"

// TestWithheld: a detection no legend row found, of a class no legend row
// names, is withheld below its finder's floor and counted from it; a
// legend row's find and a named class's detection never are; a vector
// match confirmed by the raster detector keeps the vector floor.
func TestWithheld(t *testing.T) {
	named := NamedClasses([]LegendRow{{Class: "smoke_detector"}, {Class: ""}, {Class: "sounder"}})
	if len(named) != 2 || !named["smoke_detector"] || !named["sounder"] {
		t.Fatalf("named %v", named)
	}
	vec := Source{VectorMatching: true}
	both := Source{VectorMatching: true, Detector: true}
	ras := Source{Detector: true}
	below := func(f float64) float64 { return f - 0.01 }
	cases := []struct {
		name string
		d    Detection
		want bool
	}{
		{"catalog glyph of an unnamed class below its floor", Detection{Class: "push_button", Confidence: below(UnnamedVectorFloor), Source: vec}, true},
		{"catalog glyph of an unnamed class at its floor", Detection{Class: "push_button", Confidence: UnnamedVectorFloor, Source: vec}, false},
		{"confirmed catalog glyph below the vector floor", Detection{Class: "push_button", Confidence: below(UnnamedVectorFloor), Source: both}, true},
		{"raster detection below its floor", Detection{Class: "heater", Confidence: below(UnnamedRasterFloor), Source: ras}, true},
		{"raster detection at its floor", Detection{Class: "heater", Confidence: UnnamedRasterFloor, Source: ras}, false},
		{"catalog glyph of a named class", Detection{Class: "smoke_detector", Confidence: 0.3, Source: vec}, false},
		{"raster detection of a named class", Detection{Class: "sounder", Confidence: 0.3, Source: ras}, false},
		{"a legend row's find of a class no row names", Detection{Class: "push_button", Confidence: 0.3, Source: vec, LegendRow: 2}, false},
		{"a legend row of no class", Detection{Confidence: 0.3, Source: vec, LegendRow: 2}, false},
	}
	for _, c := range cases {
		if got := Withheld(c.d, named); got != c.want {
			t.Errorf("%s: withheld %v, want %v", c.name, got, c.want)
		}
	}
	// Without any legend every class is unnamed.
	if !Withheld(Detection{Class: "smoke_detector", Confidence: below(UnnamedVectorFloor), Source: vec}, nil) {
		t.Error("no legend: a weak catalog smoke detector is counted")
	}
}
