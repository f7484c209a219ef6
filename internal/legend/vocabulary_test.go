package legend

import "testing"

// TestVocabularyRealRows: descriptions as the real sets print them map to
// the classes an estimator expects; devices without a class stay null.
func TestVocabularyRealRows(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"ENCLOSURE, COMMAND CENTER, BLACK, SIZE D FACP":        "fire_alarm_panel",
		"9 AMP NAC POWER SUPPLY W/SYNCH NAC 1":                 "power_supply",
		"COLOR TOUCHSCREEN ANNUNCIATOR FAA":                    "fire_brigade_panel",
		"FIRE ALARM COMMUNICATOR IPGSM":                        "alarm_transmitter",
		"DOCUMENT STORAGE BOX, 12 IN. X 13 IN. DOC":            "",
		"PULL STATION, DOUBLE ACTION, ADDRESSABLE F":           "manual_call_point",
		"INTELLIGENT DUCT DETECTOR HOUSING WITHOUT SMOKE HEAD": "duct_detector",
		"OUTPUT RELAY CONTROL MODULE, ADDRESSABLE AOM":         "io_module",
		"L-SERIES SPEAKER/STROBE, WHITE, WALL 15CD 0.25W":      "speaker_visual",
		"L-SERIES STROBE, WHITE, WALL":                         "visual_alarm",
		"HORN/STROBE, 2 WIRE, M-C, RED, OUTDOOR":               "sounder_visual",
		"1lever ,1 Way Switch @ 1200mm above FFL.":             "switch_one_way",
		"2 lever,1 Way Switch @ 1200mm above FFL.":             "switch_series",
		"16A Double Switched Socket @300mm above FFL.":         "socket_outlet_double",
		"16A Single Switched Socket @1100mm above FFL.":        "socket_outlet_switched",
		"DATA SOCKET OUTLET CAT 6":                             "data_outlet",
		"18W LED Ceiling light surface mount":                  "luminaire",
		"30W LED flood light":                                  "spotlight",
		"Day/night switch @ 2000mm Abone FFL.":                 "",
		"Distribution Board.":                                  "distribution_board",
		"TELEKOMS & DATA & ROUTER Distribution Board.":         "",
		"Network cabinet 42U":                                  "",
		"200 mm GALVANIZED GABLE TRAY - (AIRCON)":              "",
		"Kaksoispistorasia":                                    "socket_outlet_double",
		"Optinen savuilmaisin":                                 "smoke_detector",
		// Weatherproof, IP44/IP65 and external choose the splash-proof
		// class over the switched or double socket they qualify.
		"Single Switched Socket - Weatherproof":         "socket_outlet_ip44",
		"16A Single Switched Socket IP44/IP65":          "socket_outlet_ip44",
		"Double Switched Socket, IP65 @ 300mm":          "socket_outlet_ip44",
		"External double socket outlet":                 "socket_outlet_ip44",
		"16A Single Switched Socket external use, IP44": "socket_outlet_ip44",
		"Switched socket outlet":                        "socket_outlet_switched",
		"Bulkhead light IP65":                           "luminaire_wall",
		"Heat lamp for bathroom":                        "electric_heater",
	}
	for text, want := range cases {
		if got, _ := v.Class(text); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
	if _, ok := v.Class("Wardrobe"); ok {
		t.Error("a description naming nothing matched a rule")
	}
}

// TestWithNames: a description that is a class's own name maps to it first.
func TestWithNames(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	v = v.WithNames(map[string][]string{"sounder_visual": {"Äänimerkinantolaite vilkkuvalolla"}})
	if got, _ := v.Class("Äänimerkinantolaite vilkkuvalolla"); got != "sounder_visual" {
		t.Errorf("got %q", got)
	}
}

// TestNamesOnlyWhole: a catalog name inside a longer description does not
// outrank the vocabulary ("data socket outlet" is a data outlet, not a
// "Socket outlet").
func TestNamesOnlyWhole(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	v = v.WithNames(map[string][]string{"socket_outlet": {"Socket outlet"}})
	if got, _ := v.Class("DATA SOCKET OUTLET CAT 6"); got != "data_outlet" {
		t.Errorf("got %q, want data_outlet", got)
	}
}

// TestPartLine: a description line of its own giving a part number is
// read as the part number, other lines are not.
func TestPartLine(t *testing.T) {
	for text, want := range map[string]string{
		"PART# AMM-2F OR IDP-MONITOR": "AMM-2F OR IDP-MONITOR",
		"Part No. 4098-9714":          "4098-9714",
		"P/N: SD355":                  "SD355",
		"CAT. NO. 2081-9274":          "2081-9274",
		"PARTITION WALL SOCKET":       "",
		"PART":                        "",
	} {
		got, ok := partLine(text)
		if got != want || ok != (want != "") {
			t.Errorf("%q: %q, %v; want %q", text, got, ok, want)
		}
	}
}

// TestGlyphCodesLendNoWords: a code written inside a glyph ("O3", "TL8")
// is no word of the description; letters alone ("DB", "WP") and numbers
// alone are.
func TestGlyphCodesLendNoWords(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ desc, glyphText, want string }{
		{"1 LEVER 1 WAY SWITCH", "O3", "switch_one_way"},
		{"Pendant light", "PL2", "luminaire"},
		{"Board", "DB", "distribution_board"},
	} {
		got, _ := v.Class(c.desc + " " + withoutCodes(c.glyphText))
		if got != c.want {
			t.Errorf("%q with %q inside its glyph: %q, want %q", c.desc, c.glyphText, got, c.want)
		}
	}
	if got := withoutCodes("TL8 S 3 A6 WP"); got != "S 3 WP" {
		t.Errorf("withoutCodes: %q", got)
	}
}

// TestLineTypes: rows that name a cable, a conduit or a tray are line
// types (their glyph a sample of line, not searched); a device named with
// a cable word (a cable TV outlet) and plain devices are not.
func TestLineTypes(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"JE-H (St) H CABLE 4x2x0.8mm":                                    true,
		"CABLU REZISTENT LA FOC E90/FE180 2X1,5 mm FIRE RESISTANT CABLE": true,
		"200 mm GALVANIZED GABLE TRAY - (AIRCON)":                        true,
		"25 mm PVC conduit":                                              true,
		"Cable TV outlet":                                                false,
		"CATV socket with frame and support box":                         false,
		"16A Double Switched Socket @300mm above FFL.":                   false,
		"Distribution Board.":                                            false,
		"":                                                               false,
	}
	for text, want := range cases {
		if got := v.LineType(text); got != want {
			c, _ := v.Class(text)
			t.Errorf("LineType(%q) = %v, want %v (class %q)", text, got, want, c)
		}
	}
}

// TestOneLetterMisread: a long word with one letter misread (OCR's G for
// a C) or mistyped still names its class; a short word one letter off is
// another word.
func TestOneLetterMisread(t *testing.T) {
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{
		"RADIANT 5FT DOUBLE OPEN T8 FLUORESGENT 1530MM 2X58W": "luminaire_linear",
		"FLUORESCENT 2X58W":          "luminaire_linear",
		"Wall HEATER":                "electric_heater",
		"Wall HEATEB":                "",
		"Addressable SMOKE DETECTDR": "smoke_detector",
	} {
		got, _ := v.Class(text)
		if got != want {
			t.Errorf("%q: class %q, want %q", text, got, want)
		}
	}
}

// TestHasWordRoundLetters: a header word OCR read with one round capital
// for another ("GTYS", "OTYS" for "QTYS") is the word; a word that differs
// otherwise is not.
func TestHasWordRoundLetters(t *testing.T) {
	for _, text := range []string{"QTYS", "GTYS", "OTYS", "LIGHTS QTY", "LE0END"} {
		if !hasWord(text, qtyWords) && !hasWord(text, headerWords) {
			t.Errorf("%q: no header or quantity word found", text)
		}
	}
	for _, text := range []string{"CITYS", "OTIS", "LEGENDS"} {
		if hasWord(text, qtyWords) || hasWord(text, headerWords) {
			t.Errorf("%q: taken for a header or quantity word", text)
		}
	}
}
