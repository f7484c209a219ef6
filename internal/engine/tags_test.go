package engine

import (
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/glyph"
	"blueprint/internal/legend"
)

// TestLabelTags: a tag labels the nearest symbol of its category within
// reach, which takes the tag's row and class; a tag with no such symbol is
// a device boxed by itself; an untagged match of a class the page names
// by tags is not counted, and one of another class is kept.
func TestLabelTags(t *testing.T) {
	classes := []string{"socket_outlet_double", "socket_outlet_3phase", "motion_detector", ""}
	cats := map[string]string{"socket_outlet_double": "sockets", "socket_outlet_3phase": "sockets", "motion_detector": "controls"}
	category := func(c string) string { return cats[c] }
	tag := func(row int, x, y float64) legend.Tag {
		return legend.Tag{Row: row, Box: legend.Rect{Min: glyph.Point{X: x, Y: y}, Max: glyph.Point{X: x + 20, Y: y + 15}}, Em: 15}
	}
	match := func(class string, row int, x, y float64) detect.Detection {
		return detect.Detection{Class: class, LegendRow: row, Confidence: 0.6, Box: detect.Box{X: x, Y: y, W: 20, H: 20}, Source: detect.Source{VectorMatching: true}}
	}
	out := []detect.Detection{
		match("socket_outlet_double", 1, 100, 100), // labelled by the 3-phase tag beside it
		match("socket_outlet_double", 1, 300, 100), // labelled by a double tag
		match("motion_detector", 3, 500, 100),      // beside a 3-phase tag: another kind
		match("socket_outlet_double", 1, 900, 900), // untagged: not counted
		match("motion_detector", 3, 1500, 1500),    // untagged, no tags of its class: kept
	}
	tags := []legend.Tag{
		tag(1, 125, 100), tag(0, 325, 100), tag(1, 525, 100), tag(0, 2000, 2000), tag(1, 2500, 2500), tag(3, 3000, 3000),
	}
	got := labelTags(out, tags, classes, category)
	count := map[string]int{}
	tagged := 0
	for _, d := range got {
		count[d.Class]++
		if d.Source.Tag {
			tagged++
			if d.Confidence < tagConfidence {
				t.Errorf("tagged %s at %.2f, want at least %.2f", d.Class, d.Confidence, tagConfidence)
			}
		}
	}
	want := map[string]int{"socket_outlet_3phase": 3, "socket_outlet_double": 2, "motion_detector": 2, "": 1}
	for c, n := range want {
		if count[c] != n {
			t.Errorf("%q: %d, want %d (all: %v)", c, count[c], n, count)
		}
	}
	if tagged != len(tags) {
		t.Errorf("%d tagged detections, want one per tag (%d)", tagged, len(tags))
	}
	if d := got[0]; d.Class != "socket_outlet_3phase" || d.LegendRow != 2 || d.Box.X != 100 {
		t.Errorf("first match labelled %+v, want the 3-phase row (2) with the symbol's box", d)
	}
}

// TestLabelTagsLearnsCodeGlyph: a code drawn with another class's glyph
// (a floodlight drawn with the wall light's) labels that glyph, which its
// other tags stand beside, before a nearer symbol of a third kind (a
// bench's double line matched as a linear light).
func TestLabelTagsLearnsCodeGlyph(t *testing.T) {
	classes := []string{"luminaire_wall", "luminaire_linear", "spotlight"}
	category := func(string) string { return "lighting" }
	tag := func(row int, x, y float64) legend.Tag {
		return legend.Tag{Row: row, Box: legend.Rect{Min: glyph.Point{X: x, Y: y}, Max: glyph.Point{X: x + 20, Y: y + 15}}, Em: 15}
	}
	match := func(class string, row int, x, y, w float64) detect.Detection {
		return detect.Detection{Class: class, LegendRow: row, Confidence: 0.6, Box: detect.Box{X: x, Y: y, W: w, H: 20}, Source: detect.Source{VectorMatching: true}}
	}
	var out []detect.Detection
	var tags []legend.Tag
	for i := range 3 { // floodlights: the wall light's glyph (row 1) beside each tag
		x := 100 + 300*float64(i)
		out = append(out, match("luminaire_wall", 1, x+30, 100, 20))
		tags = append(tags, tag(2, x, 100))
	}
	// The fourth: its glyph 8 px right of the tag, a bar 4 px below it.
	out = append(out, match("luminaire_wall", 1, 1028, 500, 20), match("luminaire_linear", 2, 990, 519, 60))
	tags = append(tags, tag(2, 1000, 500))
	got := labelTags(out, tags, classes, category)
	for _, d := range got {
		if d.Source.Tag && d.Box.X == 990 {
			t.Errorf("the fourth tag labels the bar %+v, want the wall light's glyph beside it", d.Box)
		}
		if d.Box.X == 1028 && (!d.Source.Tag || d.Class != "spotlight") {
			t.Errorf("the glyph beside the fourth tag: %+v, want a tagged spotlight", d)
		}
	}
}

// TestUnreadTagsAtTagSize: text writing a code among other words keeps
// the untagged match beside it counted only where it is written as the
// page's tags are: one many times their size (a symbol's filled parts
// read by OCR as "ML1") keeps nothing.
func TestUnreadTagsAtTagSize(t *testing.T) {
	classes := []string{"luminaire_linear"}
	category := func(string) string { return "lighting" }
	box := func(x, y, size float64) legend.Rect {
		return legend.Rect{Min: glyph.Point{X: x, Y: y}, Max: glyph.Point{X: x + 2*size, Y: y + size}}
	}
	match := func(x, y float64) detect.Detection {
		return detect.Detection{Class: "luminaire_linear", LegendRow: 1, Box: detect.Box{X: x, Y: y, W: 60, H: 10}, Source: detect.Source{VectorMatching: true}}
	}
	tags := []legend.Tag{
		{Row: 0, Box: box(0, 0, 15), Em: 15}, {Row: 0, Box: box(0, 400, 15), Em: 15},
		{Row: -1, Box: box(1000, 1000, 15), Em: 15},   // "5 L9": a tag run into a label
		{Row: -1, Box: box(2000, 2000, 220), Em: 220}, // "ML1", 220 px high
	}
	out := []detect.Detection{match(1040, 1000), match(2000, 2300)}
	got := labelTags(out, tags, classes, category)
	kept := map[float64]bool{}
	for _, d := range got {
		if !d.Source.Tag {
			kept[d.Box.X] = true
		}
	}
	if !kept[1040] || kept[2000] || len(kept) != 1 {
		t.Errorf("untagged matches kept at x %v, want the one beside the tag-sized run only", kept)
	}
}

// TestTagsReadOnImage: tags OCR read on a page image label the glyph
// search's symbols (not only vector matches), and an untagged symbol of a
// class the page names by tags stays counted: OCR misses tags.
func TestTagsReadOnImage(t *testing.T) {
	classes := []string{"socket_outlet_double", "socket_outlet_3phase"}
	category := func(string) string { return "sockets" }
	tag := func(row int, x, y float64) legend.Tag {
		return legend.Tag{Row: row, Code: []string{"P2", "P5"}[row], Box: legend.Rect{Min: glyph.Point{X: x, Y: y}, Max: glyph.Point{X: x + 20, Y: y + 15}}, Em: 15}
	}
	found := func(x, y float64) detect.Detection {
		return detect.Detection{Class: "socket_outlet_double", LegendRow: 1, Confidence: 0.9, Box: detect.Box{X: x, Y: y, W: 20, H: 20}, Source: detect.Source{Detector: true}}
	}
	out := []detect.Detection{found(100, 100), found(300, 100), found(900, 900)}
	tags := []legend.Tag{tag(1, 125, 100), tag(1, 325, 100), tag(1, 2000, 2000)}
	count := map[string]int{}
	for _, d := range pairedTags(out, tags, classes, category, true) {
		count[d.Class]++
	}
	// two labelled 3-phase, one tag alone, the untagged double kept
	if count["socket_outlet_3phase"] != 3 || count["socket_outlet_double"] != 1 {
		t.Errorf("read on an image: %v, want 3 three-phase and 1 double", count)
	}
	count = map[string]int{}
	for _, d := range pairedTags(out, tags, classes, category, false) {
		count[d.Class]++
	}
	// a text layer's tags label vector matches only; the symbols stay
	// doubles and the tags count alone
	if count["socket_outlet_3phase"] != 3 || count["socket_outlet_double"] != 3 {
		t.Errorf("from a text layer: %v, want 3 three-phase and 3 doubles", count)
	}
}

// TestCodeColumns: a schedule's code column (five codes or more, one
// under another, left-aligned) read as tags on an image page is dropped;
// tags stacked on a plan (three codes beside a wall) are not.
func TestCodeColumns(t *testing.T) {
	tag := func(code string, x, y float64) legend.Tag {
		return legend.Tag{Row: 0, Code: code, Box: legend.Rect{Min: glyph.Point{X: x, Y: y}, Max: glyph.Point{X: x + 24, Y: y + 20}}, Em: 28}
	}
	var tags []legend.Tag
	for i, c := range []string{"L1", "L2", "L3", "L4", "L7", "L11", "L12", "H1"} {
		tags = append(tags, tag(c, 5407-float64(i%3), 2318+165*float64(i)+float64(i/7)*200))
	}
	plan := []legend.Tag{tag("P2", 1970, 1281), tag("L12", 1959, 1497), tag("P5", 1965, 1733), tag("P5", 1965, 1760)}
	got := codeColumns(append(tags, plan...))
	if len(got) != len(plan) {
		t.Fatalf("%d tags kept, want the plan's %d: %+v", len(got), len(plan), got)
	}
	for i, g := range got {
		if g.Code != plan[i].Code {
			t.Errorf("kept %+v, want %+v", g, plan[i])
		}
	}
}
