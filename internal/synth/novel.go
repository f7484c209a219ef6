package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"blueprint/internal/glyph"
)

// KindLegend sheets draw every device with a novel glyph that only the
// sheet's (or the set's) own legend defines: the yardstick of legend
// reading, which no catalog glyph can pass.
const KindLegend Kind = "legend"

// maxNovelClasses bounds the devices of one legend set, so that its
// legend lists them all.
const maxNovelClasses = 9

// wordings are legend descriptions as different offices write them:
// English (catalog names), US fire-alarm and electrical, and Finnish. The
// service's vocabulary is separate data; a test checks it maps these.
var wordings = map[string][]string{
	"manual_call_point":      {"PULL STATION, DOUBLE ACTION, ADDRESSABLE", "Manual pull station", "Käsipalonilmoitin"},
	"smoke_detector":         {"SMOKE DETECTOR, PHOTOELECTRIC", "Smoke, photo, addressable", "Optinen savuilmaisin"},
	"heat_detector":          {"HEAT DETECTOR, FIXED TEMPERATURE", "Thermal detector 135F", "Lämpöilmaisin"},
	"duct_detector":          {"DUCT SMOKE DETECTOR HOUSING", "Intelligent duct detector", "Kanavailmaisin"},
	"io_module":              {"MONITOR MODULE, ADDRESSABLE", "Output relay module", "Ohjausmoduuli"},
	"speaker_visual":         {"SPEAKER/STROBE, WALL, 15CD", "Ceiling speaker strobe", "Kaiutin ja vilkkuvalo"},
	"sounder_visual":         {"HORN/STROBE, WALL", "Horn strobe, outdoor, red", "Äänivalohälytin"},
	"visual_alarm":           {"STROBE, WALL, WHITE", "Strobe only, ceiling", "Vilkkuvalo"},
	"speaker":                {"WALL SPEAKER, RED", "Speaker, ceiling", "Kuulutuskaiutin"},
	"sounder":                {"HORN, WALL", "Fire alarm bell", "Palokello"},
	"fire_alarm_panel":       {"FIRE ALARM CONTROL PANEL (FACP)", "Command center enclosure", "Paloilmoitinkeskus"},
	"power_supply":           {"NAC POWER SUPPLY, 9 AMP", "Booster power supply", "Lisävirtalähde"},
	"fire_brigade_panel":     {"REMOTE ANNUNCIATOR, LCD", "Fire fighter panel", "Palokunnan opastetaulu"},
	"alarm_transmitter":      {"FIRE ALARM COMMUNICATOR", "DACT dialer", "Hälytyksensiirtolaite"},
	"socket_outlet":          {"DUPLEX RECEPTACLE, 20A", "Single socket outlet", "Pistorasia"},
	"socket_outlet_double":   {"DOUBLE SOCKET OUTLET", "Quad receptacle", "Kaksoispistorasia"},
	"socket_outlet_switched": {"16A SWITCHED SOCKET OUTLET", "Switched receptacle", "Kytkimellinen pistorasia"},
	"switch_one_way":         {"1 LEVER 1 WAY SWITCH", "Single pole light switch", "Valokatkaisin"},
	"switch_two_way":         {"2 WAY SWITCH", "Three way switch", "Vaihtokytkin"},
	"luminaire":              {"CEILING LIGHT, SURFACE MOUNT", "Light fixture, 18W LED", "Kattovalaisin"},
	"downlight":              {"LED DOWNLIGHTER", "Recessed can light", "Alasvalo"},
	"luminaire_linear":       {"600 x 1200 FLUORESCENT LIGHT", "LED batten", "Loisteputkivalaisin"},
	"emergency_luminaire":    {"EMERGENCY LIGHT, 3H", "Emergency lighting fixture", "Turvavalaisin"},
	"distribution_board":     {"DISTRIBUTION BOARD", "Panelboard, 42 circuit", "Ryhmäkeskus"},
	"data_outlet":            {"DATA OUTLET CAT 6", "Data socket RJ45", "Datapiste"},
	"safety_switch":          {"ISOLATOR SWITCH 30A", "Rotary isolator", "Turvakytkin"},
	"motion_detector":        {"PIR OCCUPANCY SENSOR", "Motion sensor", "Liiketunnistin"},
	"spotlight":              {"30W LED FLOOD LIGHT", "Spot light", "Valonheitin"},
}

// novelPalette: device colours of legend sets (ArchiCAD and AutoCAD pens).
var novelPalette = [...]string{"#d81b60", "#1e40c8", "#c81e1e", "#138a36", "#00838f", "#8e24aa", "#ef6c00", "#000000"}

// novelSymbols returns the generator's symbols for one legend set: a few
// classes (those with wordings), each drawn with a random glyph of circles,
// boxes, triangles, letters and fills that no other device of the set
// shares, described by a random wording.
func (g *Generator) novelSymbols(r *rand.Rand) []Symbol {
	var pool []Symbol
	for _, s := range g.symbols {
		if _, ok := wordings[s.Class]; ok {
			pool = append(pool, s)
		}
	}
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	n := min(len(pool), 4+r.IntN(maxNovelClasses-3))
	seen := map[string]bool{}
	out := make([]Symbol, 0, n)
	style := r.IntN(3) // 0: one wording family for the set
	family := r.IntN(3)
	for _, s := range pool[:n] {
		var gl glyph.Glyph
		var key string
		for {
			gl, key = novelGlyph(r)
			if !seen[key] {
				seen[key] = true
				break
			}
		}
		w := wordings[s.Class]
		f := family
		if style != 0 {
			f = r.IntN(len(w))
		}
		s.Glyph = gl
		s.NameEN, s.NameFI = w[f], w[f]
		s.Color = novelPalette[r.IntN(len(novelPalette))]
		// Sockets and switches sit on walls, the rest anywhere: the
		// category keeps the generator's mounting rules.
		out = append(out, s)
	}
	return out
}

// novelGlyph composes a random glyph: an outline (circle, box, triangle,
// hexagon, diamond), one or two marks inside or on it (a letter pair, a
// filled half, a bar, a dot, a cross, an inner ring) and sometimes a tail.
// key names the composition, to keep the glyphs of a set apart.
func novelGlyph(r *rand.Rand) (glyph.Glyph, string) {
	var g glyph.Glyph
	size := 2.0 + r.Float64()*1.2 // half size, mm
	base := r.IntN(5)
	switch base {
	case 0:
		g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: size})
	case 1:
		g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindRect, Pts: []glyph.Point{{X: -size, Y: -size * 0.8}, {X: size, Y: size * 0.8}}})
	default:
		k := []int{3, 6, 4}[base-2]
		pts := make([]glyph.Point, k)
		for i := range pts {
			a := (float64(i)/float64(k))*2*math.Pi - math.Pi/2
			pts[i] = glyph.Point{X: size * math.Cos(a), Y: size * math.Sin(a)}
		}
		g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindPolygon, Pts: pts})
	}
	marks := 1 + r.IntN(2)
	used := map[int]bool{}
	// The key lists the marks in a fixed order: the same marks drawn in
	// another order are the same glyph.
	var keyMarks [6]string
	for range marks {
		m := r.IntN(6)
		if used[m] {
			continue
		}
		used[m] = true
		keyMarks[m] = fmt.Sprint(",", m)
		s := size * 0.45
		switch m {
		case 0:
			txt := string(rune('A'+r.IntN(26))) + []string{"", string(rune('A' + r.IntN(26))), fmt.Sprint(r.IntN(9) + 1)}[r.IntN(3)]
			keyMarks[m] += txt
			g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindText, Text: txt, Pts: []glyph.Point{{X: 0, Y: s * 0.9}}, Size: s * 1.6})
		case 1:
			g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindPolygon, Pts: []glyph.Point{{X: -s, Y: 0}, {X: s, Y: 0}, {X: s, Y: s}, {X: -s, Y: s}}, Fill: true})
		case 2:
			g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: -size * 0.7, Y: 0}, {X: size * 0.7, Y: 0}}})
		case 3:
			g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: s * 0.45, Fill: true})
		case 4:
			g.Shapes = append(g.Shapes,
				glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: -s, Y: -s}, {X: s, Y: s}}},
				glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: -s, Y: s}, {X: s, Y: -s}}})
		case 5:
			g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindCircle, Pts: []glyph.Point{{}}, R: s})
		}
	}
	key := fmt.Sprint(base) + strings.Join(keyMarks[:], "")
	if r.IntN(3) == 0 {
		key += ",tail"
		g.Shapes = append(g.Shapes, glyph.Shape{Kind: glyph.KindLine, Pts: []glyph.Point{{X: 0, Y: -size}, {X: 0, Y: -size * 1.6}}})
	}
	return g, key
}
