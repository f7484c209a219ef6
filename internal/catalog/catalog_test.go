package catalog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"image"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"blueprint/internal/glyph"
)

// wantSymbols is the class table of ../shared/catalog/symbols.md:
// class, model, category, Finnish name, English name.
var wantSymbols = [][5]string{
	{"socket_outlet", "electricity", "sockets", "Pistorasia", "Socket outlet"},
	{"socket_outlet_earthed", "electricity", "sockets", "Suojakosketinpistorasia", "Earthed socket outlet"},
	{"socket_outlet_double", "electricity", "sockets", "Kaksoispistorasia", "Double socket outlet"},
	{"socket_outlet_ip44", "electricity", "sockets", "Roiskevesitiivis pistorasia", "Splash-proof socket outlet (IP44)"},
	{"socket_outlet_switched", "electricity", "sockets", "Kytkimellinen pistorasia", "Switched socket outlet"},
	{"socket_outlet_3phase", "electricity", "sockets", "Voimapistorasia", "Three-phase power socket"},
	{"cooker_outlet", "electricity", "sockets", "Liesiliitäntä", "Cooker connection"},
	{"shaver_outlet", "electricity", "sockets", "Parranajopistorasia", "Shaver socket outlet"},
	{"switch_one_way", "electricity", "switches", "1-kytkin", "One-way switch"},
	{"switch_two_pole", "electricity", "switches", "2-kytkin", "Two-pole switch"},
	{"switch_series", "electricity", "switches", "5-kytkin (sarjakytkin)", "Series switch"},
	{"switch_two_way", "electricity", "switches", "6-kytkin (vaihtokytkin)", "Two-way switch"},
	{"switch_intermediate", "electricity", "switches", "7-kytkin (ristikytkin)", "Intermediate switch"},
	{"dimmer", "electricity", "switches", "Valonsäädin", "Dimmer"},
	{"push_button", "electricity", "switches", "Painike", "Push button"},
	{"pull_switch", "electricity", "switches", "Vetokytkin", "Pull-cord switch"},
	{"safety_switch", "electricity", "switches", "Turvakytkin", "Safety isolating switch"},
	{"luminaire", "electricity", "lighting", "Valaisin", "Luminaire"},
	{"luminaire_wall", "electricity", "lighting", "Seinävalaisin", "Wall luminaire"},
	{"luminaire_linear", "electricity", "lighting", "Linjavalaisin", "Linear luminaire"},
	{"downlight", "electricity", "lighting", "Alasvalo", "Downlight"},
	{"spotlight", "electricity", "lighting", "Kohdevalaisin", "Spotlight / floodlight"},
	{"emergency_luminaire", "electricity", "emergency", "Turvavalaisin", "Emergency luminaire"},
	{"exit_sign", "electricity", "emergency", "Poistumisreittivalaisin", "Exit sign luminaire"},
	{"outdoor_luminaire", "electricity", "lighting", "Ulkovalaisin", "Outdoor luminaire"},
	{"junction_box", "electricity", "distribution", "Jakorasia", "Junction box"},
	{"distribution_board", "electricity", "distribution", "Ryhmäkeskus", "Distribution board"},
	{"main_switchboard", "electricity", "distribution", "Pääkeskus", "Main switchboard"},
	{"data_outlet", "electricity", "telecom", "Tietoliikennepistorasia", "Data outlet"},
	{"telephone_outlet", "electricity", "telecom", "Puhelinpistorasia", "Telephone outlet"},
	{"antenna_outlet", "electricity", "telecom", "Antennipistorasia", "TV / antenna outlet"},
	{"wireless_access_point", "electricity", "telecom", "WLAN-tukiasema", "Wireless access point"},
	{"motion_detector", "electricity", "controls", "Liiketunnistin", "Motion / presence detector"},
	{"thermostat", "electricity", "controls", "Termostaatti", "Thermostat"},
	{"electric_heater", "electricity", "heating", "Sähkölämmitin", "Electric heater"},
	{"fan", "electricity", "heating", "Puhallin", "Fan"},
	{"ev_charger", "electricity", "heating", "Latauspiste", "EV charging point"},
	{"doorbell", "electricity", "controls", "Ovikello", "Doorbell"},
	{"smoke_alarm_mains", "electricity", "controls", "Palovaroitin (230 V)", "Mains smoke alarm"},
	{"smoke_detector", "fire_alarm", "detectors", "Optinen savuilmaisin", "Optical smoke detector"},
	{"heat_detector", "fire_alarm", "detectors", "Lämpöilmaisin", "Heat detector"},
	{"multi_sensor_detector", "fire_alarm", "detectors", "Yhdistelmäilmaisin", "Multi-sensor detector"},
	{"beam_detector", "fire_alarm", "detectors", "Linjailmaisin", "Beam detector"},
	{"aspirating_detector", "fire_alarm", "detectors", "Näytteenottoilmaisin", "Aspirating smoke detector"},
	{"flame_detector", "fire_alarm", "detectors", "Liekki-ilmaisin", "Flame detector"},
	{"duct_detector", "fire_alarm", "detectors", "Kanavailmaisin", "Duct smoke detector"},
	{"manual_call_point", "fire_alarm", "call_points", "Palopainike", "Manual call point"},
	{"sounder", "fire_alarm", "alarm_devices", "Palokello / sireeni", "Sounder (bell, siren, horn)"},
	{"visual_alarm", "fire_alarm", "alarm_devices", "Vilkkuvalo", "Visual alarm device (strobe)"},
	{"sounder_visual", "fire_alarm", "alarm_devices", "Äänimerkinantolaite vilkkuvalolla", "Combined sounder and strobe"},
	{"speaker", "fire_alarm", "alarm_devices", "Hätäkuulutuskaiutin", "Voice alarm loudspeaker"},
	{"speaker_visual", "fire_alarm", "alarm_devices", "Kaiutin vilkkuvalolla", "Loudspeaker with strobe"},
	{"parallel_indicator", "fire_alarm", "alarm_devices", "Rinnakkaismerkkilaite", "Remote indicator lamp"},
	{"fire_alarm_panel", "fire_alarm", "panels", "Paloilmoitinkeskus", "Fire alarm control panel"},
	{"fire_brigade_panel", "fire_alarm", "panels", "Palokunnan käyttö- ja opastetaulu", "Fire brigade panel / annunciator"},
	{"key_box", "fire_alarm", "panels", "Avainsäilö", "Key box"},
	{"door_holder", "fire_alarm", "interfaces", "Ovimagneetti", "Door holder magnet"},
	{"io_module", "fire_alarm", "interfaces", "Ohjaus- / valvontamoduuli", "Input/output (monitor, relay) module"},
	{"sprinkler_flow_switch", "fire_alarm", "interfaces", "Virtausvahti", "Sprinkler flow switch"},
	{"alarm_transmitter", "fire_alarm", "interfaces", "Hälytyksensiirtolaite", "Alarm transmission unit"},
	{"power_supply", "fire_alarm", "interfaces", "Lisävirtalähde", "Auxiliary power supply"},
}

func mustLoad(t *testing.T, override string) *Catalog {
	t.Helper()
	c, err := Load(override)
	if err != nil {
		t.Fatalf("Load(%q): %v", override, err)
	}
	return c
}

func TestEveryClassOfTheSpec(t *testing.T) {
	c := mustLoad(t, "")
	syms := c.Symbols()
	if len(syms) != len(wantSymbols) {
		t.Fatalf("%d symbols, want %d", len(syms), len(wantSymbols))
	}
	perModel := map[string]int{}
	for i, w := range wantSymbols {
		s, ok := c.Lookup(w[0])
		if !ok {
			t.Errorf("class %s missing", w[0])
			continue
		}
		if syms[i].Class != w[0] {
			t.Errorf("order: symbol %d is %s, want %s", i, syms[i].Class, w[0])
		}
		perModel[s.Model]++
		if s.Model != w[1] || s.Category != w[2] || s.SymbolCategory != w[1]+"_symbols" {
			t.Errorf("%s: model/category/symbol_category %s/%s/%s, want %s/%s/%s_symbols", w[0], s.Model, s.Category, s.SymbolCategory, w[1], w[2], w[1])
		}
		if s.DisplayNameFI != w[3] || s.DisplayName != w[4] {
			t.Errorf("%s: names %q / %q, want %q / %q", w[0], s.DisplayNameFI, s.DisplayName, w[3], w[4])
		}
		if s.Talo2010Code != nil {
			t.Errorf("%s: talo2010_code %q, but no source gives one", w[0], *s.Talo2010Code)
		}
		if s.Threshold != syms[0].Threshold || s.Threshold <= 0 || s.Threshold >= 1 {
			// One measured number (engine.TestDefaultThresholds ties it to the vector matcher).
			t.Errorf("%s: threshold %v, want the measured default %v of every class", w[0], s.Threshold, syms[0].Threshold)
		}
		if len(s.Glyph.Shapes) == 0 {
			t.Errorf("%s: empty glyph", w[0])
			continue
		}
		// Anchor at the centre of the bounds; a plan symbol of 2..12 mm.
		lo, hi := s.Glyph.Bounds()
		if cx, cy := (lo.X+hi.X)/2, (lo.Y+hi.Y)/2; math.Abs(cx) > 0.01 || math.Abs(cy) > 0.01 {
			t.Errorf("%s: bounds centre (%.3f, %.3f), want the origin", w[0], cx, cy)
		}
		if ext := math.Max(hi.X-lo.X, hi.Y-lo.Y); ext < 2 || ext > 12 {
			t.Errorf("%s: %.1f mm across, want 2..12", w[0], ext)
		}
	}
	if perModel["electricity"] != 39 || perModel["fire_alarm"] != 22 {
		t.Errorf("per model %v, want 39 electricity and 22 fire_alarm", perModel)
	}
	if got := c.Models(); len(got) != 2 || got[0] != "fire_alarm" || got[1] != "electricity" {
		t.Errorf("Models() = %v", got)
	}
	if _, ok := c.Lookup("no_such_class"); ok {
		t.Error("Lookup of an unknown class succeeded")
	}
}

// TestTableMatchesSpecFile re-reads symbols.md when the shared tree is
// present, so wantSymbols cannot drift from the spec.
func TestTableMatchesSpecFile(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "..", "shared", "catalog", "symbols.md"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("shared catalog spec not present")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	model := ""
	heading := regexp.MustCompile("^## Model `(\\w+)`")
	var rows [][5]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ln := sc.Text()
		if m := heading.FindStringSubmatch(ln); m != nil {
			model = m[1]
			continue
		}
		if model == "" || !strings.HasPrefix(ln, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(ln), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) < 4 || !classPattern.MatchString(cells[0]) || cells[0] == "class" {
			continue
		}
		rows = append(rows, [5]string{cells[0], model, cells[3], cells[1], cells[2]})
	}
	if len(rows) != len(wantSymbols) {
		t.Fatalf("spec has %d classes, table %d", len(rows), len(wantSymbols))
	}
	for i := range rows {
		if rows[i] != wantSymbols[i] {
			t.Errorf("row %d: spec %v, table %v", i, rows[i], wantSymbols[i])
		}
	}
}

func TestCategoryColours(t *testing.T) {
	want := map[string]string{
		"lighting": "#F2C200", "emergency": "#237F52", "sockets": "#2E9E44", "switches": "#00897B",
		"distribution": "#283593", "telecom": "#7E3FA0", "heating": "#1E88E5", "controls": "#E91E8C",
		"detectors": "#C62828", "call_points": "#A52019", "alarm_devices": "#E65100",
		"panels": "#6D4C41", "interfaces": "#6D4C41",
	}
	for _, s := range mustLoad(t, "").Symbols() {
		if s.Color != want[s.Category] {
			t.Errorf("%s (%s): colour %s, want %s", s.Class, s.Category, s.Color, want[s.Category])
		}
	}
}

func TestDisplayNameAndLanguage(t *testing.T) {
	c := mustLoad(t, "")
	for _, tc := range []struct{ lang, want string }{
		{"fi", "Pistorasia"}, {"fi-FI", "Pistorasia"}, {"FI", "Pistorasia"},
		{"en", "Socket outlet"}, {"", "Socket outlet"}, {"sv", "Socket outlet"},
	} {
		if got := c.DisplayName("socket_outlet", tc.lang); got != tc.want {
			t.Errorf("DisplayName(socket_outlet, %q) = %q, want %q", tc.lang, got, tc.want)
		}
	}
	if got := c.DisplayName("nope", "fi"); got != "" {
		t.Errorf("unknown class name %q", got)
	}
	for _, tc := range []struct{ header, want string }{
		{"", LangEnglish}, {"fi", LangFinnish}, {"fi-FI,fi;q=0.9,en;q=0.8", LangFinnish},
		{"en-US,en;q=0.9,fi;q=0.8", LangEnglish}, {"sv-SE, fi;q=0.5", LangFinnish},
		{"fi;q=0", LangEnglish}, {"*, fi;q=0.5", LangEnglish}, {"de;q=0.9, fi;q=0.4", LangFinnish},
		{"fi;q=bogus", LangEnglish}, {";;,", LangEnglish},
	} {
		if got := PreferredLanguage(tc.header); got != tc.want {
			t.Errorf("PreferredLanguage(%q) = %q, want %q", tc.header, got, tc.want)
		}
	}
}

func TestCatalogIsImmutable(t *testing.T) {
	c := mustLoad(t, "")
	s, _ := c.Lookup("luminaire")
	s.DisplayName = "changed"
	s.Glyph.Shapes[0].Pts[0].X = 99
	all := c.Symbols()
	all[0].Color = "#000000"
	code := "x"
	all[0].Talo2010Code = &code
	again, _ := c.Lookup("luminaire")
	if again.DisplayName == "changed" || again.Glyph.Shapes[0].Pts[0].X == 99 {
		t.Error("Lookup returned shared state")
	}
	if first := c.Symbols()[0]; first.Color == "#000000" || first.Talo2010Code != nil {
		t.Error("Symbols returned shared state")
	}
	m := c.Models()
	m[0] = "x"
	if c.Models()[0] != "fire_alarm" {
		t.Error("Models returned shared state")
	}
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "catalog-override.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOverride(t *testing.T) {
	p := writeFile(t, `{"symbols": {
		"socket_outlet": {"display_name": "Outlet", "display_name_fi": "Rasia", "color": "#12ab34", "talo2010_code": "2311", "threshold": 0.35},
		"smoke_detector": {"threshold": 0},
		"luminaire": {"talo2010_code": null}
	}}`)
	c := mustLoad(t, p)
	s, _ := c.Lookup("socket_outlet")
	if s.DisplayName != "Outlet" || s.DisplayNameFI != "Rasia" || s.Color != "#12AB34" || s.Threshold != 0.35 ||
		s.Talo2010Code == nil || *s.Talo2010Code != "2311" {
		t.Errorf("override not applied: %+v", s)
	}
	if c.DisplayName("socket_outlet", "fi") != "Rasia" {
		t.Error("DisplayName ignores the override")
	}
	if d, _ := c.Lookup("smoke_detector"); d.Threshold != 0 || d.DisplayName != "Optical smoke detector" {
		t.Errorf("smoke_detector: %+v", d)
	}
	// Other fields and classes keep the embedded values.
	embedded, _ := mustLoad(t, "").Lookup("socket_outlet_earthed")
	if e, _ := c.Lookup("socket_outlet_earthed"); e.Color != "#2E9E44" || e.Threshold != embedded.Threshold {
		t.Errorf("untouched class changed: %+v", e)
	}
	svg, err := c.IconSVG("socket_outlet")
	if err != nil || !bytes.Contains(svg, []byte("#12AB34")) {
		t.Errorf("icon does not use the overridden colour: %v", err)
	}
	// An override can clear a code it set elsewhere: null is accepted.
	if l, _ := c.Lookup("luminaire"); l.Talo2010Code != nil {
		t.Error("null talo2010_code not kept null")
	}
}

func TestOverrideErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"malformed", `{"symbols": {`, "malformed JSON"},
		{"not an object", `[]`, "malformed JSON"},
		{"trailing data", `{"symbols": {}} {}`, "trailing data"},
		{"no symbols", `{}`, `no "symbols"`},
		{"unknown top-level field", `{"symbols": {}, "colour": 1}`, `unknown field "colour"`},
		{"unknown class", `{"symbols": {"toaster": {"color": "#000000"}}}`, `unknown class "toaster"`},
		{"unknown field", `{"symbols": {"luminaire": {"glyph": []}}}`, `unknown field "glyph"`},
		{"bad colour word", `{"symbols": {"luminaire": {"color": "red"}}}`, `colour "red"`},
		{"short colour", `{"symbols": {"luminaire": {"color": "#fff"}}}`, `colour "#fff"`},
		{"threshold high", `{"symbols": {"luminaire": {"threshold": 1.5}}}`, "outside 0..1"},
		{"threshold negative", `{"symbols": {"luminaire": {"threshold": -0.1}}}`, "outside 0..1"},
		{"threshold string", `{"symbols": {"luminaire": {"threshold": "0.4"}}}`, "malformed JSON"},
		{"code number", `{"symbols": {"luminaire": {"talo2010_code": 2311}}}`, "string or null"},
		{"code empty", `{"symbols": {"luminaire": {"talo2010_code": " "}}}`, "non-empty"},
		{"empty name", `{"symbols": {"luminaire": {"display_name": ""}}}`, "display_name must not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.body)
			_, err := Load(p)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q: want ErrInvalid naming %s and saying %q", err, p, tc.want)
			}
		})
	}
	_, err := Load(filepath.Join(t.TempDir(), "missing.json"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

// TestEmbeddedValidation runs the embedded data's checks on broken copies.
func TestEmbeddedValidation(t *testing.T) {
	var f map[string]any
	if err := json.Unmarshal(embedded, &f); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(syms []any) []any
		want string
	}{
		{"duplicate class", func(s []any) []any { return append(s, s[0]) }, "listed twice"},
		{"bad colour", func(s []any) []any { s[0].(map[string]any)["color"] = "green"; return s }, "#rrggbb"},
		{"category colour mismatch", func(s []any) []any { s[1].(map[string]any)["color"] = "#000000"; return s }, "differs from"},
		{"empty glyph", func(s []any) []any { s[2].(map[string]any)["glyph"] = []any{}; return s }, "no shapes"},
		{"text-only glyph", func(s []any) []any {
			s[2].(map[string]any)["glyph"] = []any{map[string]any{"text": "X", "at": []any{0, 0}, "size": 1}}
			return s
		}, "only text"},
		{"bad glyph shape", func(s []any) []any {
			s[2].(map[string]any)["glyph"] = []any{map[string]any{"line": []any{0, 0, 1}}}
			return s
		}, "malformed JSON"},
		{"wrong symbol_category", func(s []any) []any { s[3].(map[string]any)["symbol_category"] = "fire_alarm_symbols"; return s }, "symbol_category"},
		{"unknown model", func(s []any) []any { s[3].(map[string]any)["model"] = "plumbing"; return s }, "not one of"},
		{"missing threshold", func(s []any) []any { delete(s[4].(map[string]any), "threshold"); return s }, "threshold is required"},
		{"missing Finnish name", func(s []any) []any { s[4].(map[string]any)["display_name_fi"] = ""; return s }, "display_name_fi"},
		{"unknown field", func(s []any) []any { s[5].(map[string]any)["icon"] = "x"; return s }, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cp map[string]any
			_ = json.Unmarshal(embedded, &cp)
			cp["symbols"] = tc.edit(cp["symbols"].([]any))
			data, err := json.Marshal(cp)
			if err != nil {
				t.Fatal(err)
			}
			_, err = parse(data, "test data")
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrInvalid saying %q", err, tc.want)
			}
		})
	}
}

func TestIconSVG(t *testing.T) {
	c := mustLoad(t, "")
	for _, s := range c.Symbols() {
		b, err := c.IconSVG(s.Class)
		if err != nil {
			t.Fatalf("%s: %v", s.Class, err)
		}
		dec := xml.NewDecoder(bytes.NewReader(b))
		elems, texts := 0, 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: SVG is not XML: %v\n%s", s.Class, err, b)
			}
			if se, ok := tok.(xml.StartElement); ok {
				elems++
				if elems == 1 && (se.Name.Local != "svg" || se.Name.Space != "http://www.w3.org/2000/svg") {
					t.Fatalf("%s: root %v", s.Class, se.Name)
				}
				if se.Name.Local == "text" {
					texts++
				}
			}
		}
		wantTexts := 0
		for _, sh := range s.Glyph.Shapes {
			if sh.Kind == glyph.KindText {
				wantTexts++
			}
		}
		// svg, title, g, then one element per shape.
		if elems != 3+len(s.Glyph.Shapes) || texts != wantTexts {
			t.Errorf("%s: %d elements (%d text), want %d (%d text)", s.Class, elems, texts, 3+len(s.Glyph.Shapes), wantTexts)
		}
		if !bytes.Contains(b, []byte(`stroke="`+s.Color+`"`)) {
			t.Errorf("%s: colour %s not used", s.Class, s.Color)
		}
	}
	if _, err := c.IconSVG("nope"); !errors.Is(err, ErrUnknownClass) {
		t.Errorf("unknown class: %v", err)
	}
}

func TestIconPNG(t *testing.T) {
	c := mustLoad(t, "")
	for _, size := range []int{MinIconPx, 64, 200} {
		for _, s := range c.Symbols() {
			b, err := c.IconPNG(s.Class, size)
			if err != nil {
				t.Fatalf("%s: %v", s.Class, err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: %v", s.Class, err)
			}
			if img.Bounds() != image.Rect(0, 0, size, size) {
				t.Fatalf("%s: bounds %v, want %d px square", s.Class, img.Bounds(), size)
			}
			ink, solid := inkStats(img, s.Color)
			// Drawn, but not a filled square: between 2 % and 60 % of the
			// area (any ink at all at the smallest size).
			if frac := float64(ink) / float64(size*size); ink == 0 || size >= 64 && (frac < 0.02 || frac > 0.6) {
				t.Errorf("%s at %d px: %.1f%% of pixels inked", s.Class, size, 100*frac)
			}
			if size >= 64 && solid == 0 {
				t.Errorf("%s at %d px: no pixel in the class colour %s", s.Class, size, s.Color)
			}
		}
	}
	for _, bad := range []int{0, MinIconPx - 1, MaxIconPx + 1} {
		if _, err := c.IconPNG("luminaire", bad); err == nil {
			t.Errorf("size %d accepted", bad)
		}
	}
	if _, err := c.IconPNG("nope", 64); !errors.Is(err, ErrUnknownClass) {
		t.Errorf("unknown class: %v", err)
	}
}

// inkStats counts non-transparent pixels and opaque pixels of exactly hex.
func inkStats(img image.Image, hex string) (ink, solid int) {
	want, _ := parseColor(hex)
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			if a == 0 {
				continue
			}
			ink++
			if a == 0xffff && uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(bl>>8) == want.B {
				solid++
			}
		}
	}
	return ink, solid
}

// Distinctness grid: normalised glyphs (bounds scaled to a unit box centred
// on the origin) are sampled into cells of sigCell; a point is "near" the
// other glyph when that glyph has a sample within sigNear cells.
const (
	sigCell = 0.02
	sigSide = 56 // cells per side, the unit box plus a margin
	sigNear = 2
)

// signature is the set of grid cells a glyph's normalised drawing touches:
// its strokes, and the interior of filled shapes (a filled dot and a ring
// must not look alike). Text is left out and compared separately.
type signature struct {
	cells []int                   // occupied cell indices, in sampling order
	near  [sigSide * sigSide]bool // cells within sigNear of an occupied one
}

func newSignature(g glyph.Glyph) *signature {
	geo := glyph.Glyph{}
	for _, s := range g.Shapes {
		if s.Kind != glyph.KindText {
			geo.Shapes = append(geo.Shapes, s)
		}
	}
	lo, hi := geo.Bounds()
	ext := math.Max(hi.X-lo.X, hi.Y-lo.Y)
	norm := glyph.Translate(-(lo.X+hi.X)/2, -(lo.Y+hi.Y)/2).Then(glyph.Scale(1 / ext))
	sig := &signature{}
	occ := map[int]bool{}
	mark := func(p glyph.Point) {
		x, y := int(math.Floor(p.X/sigCell))+sigSide/2, int(math.Floor(p.Y/sigCell))+sigSide/2
		if x < 0 || y < 0 || x >= sigSide || y >= sigSide {
			return
		}
		if i := y*sigSide + x; !occ[i] {
			occ[i] = true
			sig.cells = append(sig.cells, i)
		}
	}
	for _, s := range geo.Transform(norm).Shapes {
		one := glyph.Glyph{Shapes: []glyph.Shape{s}}
		for _, chain := range one.Polylines(0.002) {
			for i := 0; i+1 < len(chain); i++ {
				p, q := chain[i], chain[i+1]
				n := int(math.Ceil(math.Hypot(q.X-p.X, q.Y-p.Y) / (sigCell / 2)))
				for k := 0; k <= n; k++ {
					f := float64(k) / float64(max(n, 1))
					mark(glyph.Point{X: p.X + f*(q.X-p.X), Y: p.Y + f*(q.Y-p.Y)})
				}
			}
			if s.Fill {
				for y := -0.5; y <= 0.5; y += sigCell / 2 {
					for x := -0.5; x <= 0.5; x += sigCell / 2 {
						if glyph.InPolygon(chain, glyph.Point{X: x, Y: y}) {
							mark(glyph.Point{X: x, Y: y})
						}
					}
				}
			}
		}
	}
	for _, i := range sig.cells {
		cx, cy := i%sigSide, i/sigSide
		for dy := -sigNear; dy <= sigNear; dy++ {
			for dx := -sigNear; dx <= sigNear; dx++ {
				x, y := cx+dx, cy+dy
				if x >= 0 && y >= 0 && x < sigSide && y < sigSide {
					sig.near[y*sigSide+x] = true
				}
			}
		}
	}
	return sig
}

// apart is the larger of the two fractions of one glyph's drawing that lie
// away from the other's: 0 for identical drawings, up to 1.
func apart(a, b *signature) float64 {
	far := func(a, b *signature) float64 {
		n := 0
		for _, i := range a.cells {
			if !b.near[i] {
				n++
			}
		}
		return float64(n) / float64(len(a.cells))
	}
	return math.Max(far(a, b), far(b, a))
}

func glyphTexts(g glyph.Glyph) string {
	var t []string
	for _, s := range g.Shapes {
		if s.Kind == glyph.KindText {
			t = append(t, s.Text)
		}
	}
	return strings.Join(t, " ")
}

// TestGlyphsDistinct compares every pair of glyphs by their normalised
// geometry. Pairs whose drawings are close must at least carry different
// labels; pairs with the same labels (or none) must differ clearly.
func TestGlyphsDistinct(t *testing.T) {
	const (
		sameGeometry = 0.02 // below: indistinguishable drawings
		clearlyApart = 0.08 // unlabelled or same-label pairs must be this far apart
	)
	syms := mustLoad(t, "").Symbols()
	sigs := make([]*signature, len(syms))
	for i, s := range syms {
		sigs[i] = newSignature(s.Glyph)
	}
	closest, pair := math.Inf(1), ""
	for i := range syms {
		for j := i + 1; j < len(syms); j++ {
			d := apart(sigs[i], sigs[j])
			if glyphTexts(syms[i].Glyph) == glyphTexts(syms[j].Glyph) && d < closest {
				closest, pair = d, syms[i].Class+" / "+syms[j].Class
			}
			ti, tj := glyphTexts(syms[i].Glyph), glyphTexts(syms[j].Glyph)
			switch {
			case ti == tj && d < clearlyApart:
				t.Errorf("%s and %s: geometry %.4f apart with the same labels %q", syms[i].Class, syms[j].Class, d, ti)
			case d < sameGeometry && ti != tj:
				t.Logf("%s and %s differ only by their labels %q / %q", syms[i].Class, syms[j].Class, ti, tj)
			}
		}
	}
	t.Logf("closest same-label pair: %s, %.3f apart", pair, closest)
}
