package detect

import "testing"

// TestWithheld: a detection no legend row found, of a class no legend row
// names, is withheld below its finder's floor and counted from it (a
// catalog glyph match on a page whose text was not read has a floor of
// its own); a legend row's find and a named class's detection never are;
// a vector match confirmed by the raster detector keeps the vector floor.
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
		name     string
		d        Detection
		textRead bool
		want     bool
	}{
		{"catalog glyph of an unnamed class, text unread, below its floor", Detection{Class: "push_button", Confidence: below(UnnamedUnreadFloor), Source: vec}, false, true},
		{"catalog glyph of an unnamed class, text unread, at its floor", Detection{Class: "push_button", Confidence: UnnamedUnreadFloor, Source: vec}, false, false},
		{"catalog glyph of a class the legend leaves out, text read, at its floor", Detection{Class: "push_button", Confidence: UnnamedLegendFloor, Source: vec}, true, false},
		{"confirmed catalog glyph, text unread", Detection{Class: "push_button", Confidence: below(UnnamedUnreadFloor), Source: both}, false, true},
		{"raster detection below its floor", Detection{Class: "heater", Confidence: below(UnnamedRasterFloor), Source: ras}, true, true},
		{"raster detection at its floor", Detection{Class: "heater", Confidence: UnnamedRasterFloor, Source: ras}, false, false},
		{"catalog glyph of a named class", Detection{Class: "smoke_detector", Confidence: 0.3, Source: vec}, false, false},
		{"raster detection of a named class", Detection{Class: "sounder", Confidence: 0.3, Source: ras}, false, false},
		{"a legend row's find of a class no row names", Detection{Class: "push_button", Confidence: 0.3, Source: vec, LegendRow: 2}, false, false},
		{"a legend row of no class", Detection{Confidence: 0.3, Source: vec, LegendRow: 2}, false, false},
		{"a source of neither finder", Detection{Class: "heater", Confidence: 0.3}, false, false},
	}
	for _, c := range cases {
		if got := Withheld(c.d, named, c.textRead); got != c.want {
			t.Errorf("%s: withheld %v, want %v", c.name, got, c.want)
		}
	}
	// Without any legend every class is unnamed; a catalog glyph on a
	// page whose text was read then has the floor of no legend.
	if !Withheld(Detection{Class: "smoke_detector", Confidence: 0.9, Source: ras}, nil, true) {
		t.Error("no legend: a raster smoke detector at 0.9 is counted")
	}
	if Withheld(Detection{Class: "push_button", Confidence: UnnamedVectorFloor, Source: vec}, nil, true) {
		t.Error("no legend, text read: a catalog glyph at the floor of no legend is withheld")
	}
	unread := TextUnread([]Warning{{Code: WarnTextNotRead, Page: 2}, {Code: WarnFlood, Page: 1}, {Code: WarnTextNotRead, Page: -1}})
	if len(unread) != 1 || !unread[2] {
		t.Errorf("TextUnread %v, want page 2", unread)
	}
}

// TestHeld: a legend row's match is held out of the take-off when it is
// off its row's scale or of a row stopped as a flood, as an unnamed guess
// is; a plain legend-row match is not.
func TestHeld(t *testing.T) {
	named := map[string]bool{"speaker": true}
	row := Detection{Class: "speaker", Confidence: 0.9, LegendRow: 1, Source: Source{VectorMatching: true}}
	if Held(row, named, true) {
		t.Error("a legend row's match is held")
	}
	off, flood := row, row
	off.OffScale, flood.Flood = true, true
	if !Held(off, named, true) || !Held(flood, named, true) {
		t.Error("an off-scale match or a flood's is counted")
	}
	guess := Detection{Class: "push_button", Confidence: 0.99, Source: Source{VectorMatching: true}}
	if Held(guess, named, true) || !Held(guess, named, false) || Held(guess, nil, true) {
		t.Error("a catalog guess: held where the text was read, or counted where it was not")
	}
}
