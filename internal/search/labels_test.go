package search

import (
	"testing"

	"blueprint/internal/detect"
)

// TestSplitByTag: from a symbol the take-off labelled L3 (a wall light),
// a match on a symbol labelled L4 (a floodlight drawn alike) becomes a
// near miss "another_tag" with its score; a match on an L9 of the same
// class as the exemplar's code, or on a symbol with no code, stays; an
// exemplar without a code moves nothing.
func TestSplitByTag(t *testing.T) {
	at := func(x float64) detect.Box { return detect.Box{X: x, Y: 100, W: 20, H: 20} }
	labels := []Label{
		{Box: at(100), Code: "L3", Class: "luminaire_wall"},
		{Box: at(200), Code: "L4", Class: "spotlight"},
		{Box: at(300), Code: "L5", Class: "luminaire_wall"},
		{Box: at(400), Code: "X1"},
	}
	query := detect.Box{X: 96, Y: 96, W: 28, H: 28}
	ex, ok := ExemplarLabel(query, labels)
	if !ok || ex.Code != "L3" {
		t.Fatalf("exemplar label %+v, %v; want L3", ex, ok)
	}
	if _, ok := ExemplarLabel(detect.Box{X: 600, Y: 96, W: 28, H: 28}, labels); ok {
		t.Error("a box holding no labelled symbol has a label")
	}
	pm := PageMatches{Matches: []Match{
		{Box: at(100), Score: 1},    // the exemplar itself
		{Box: at(201), Score: 0.97}, // an L4: another class
		{Box: at(300), Score: 0.95}, // an L5: the same class
		{Box: at(400), Score: 0.93}, // X1: a code of no class
		{Box: at(500), Score: 0.91}, // no code
	}}
	SplitByTag(&pm, ex, true, labels)
	var kept []float64
	for _, m := range pm.Matches {
		kept = append(kept, m.Box.X)
	}
	if len(pm.Matches) != 3 || pm.Matches[0].Box.X != 100 || pm.Matches[1].Box.X != 300 || pm.Matches[2].Box.X != 500 {
		t.Errorf("kept matches at %v; want 100, 300, 500", kept)
	}
	if len(pm.NearMisses) != 2 || pm.NearMisses[0].Reason != ReasonOtherTag || pm.NearMisses[0].Score != 0.97 || pm.NearMisses[1].Box.X != 400 {
		t.Errorf("near misses %+v; want the L4 at 0.97 and the X1, another_tag", pm.NearMisses)
	}
	before := PageMatches{Matches: []Match{{Box: at(201), Score: 0.97}}}
	SplitByTag(&before, Label{}, false, labels)
	if len(before.Matches) != 1 || len(before.NearMisses) != 0 {
		t.Errorf("an exemplar without a code moved matches: %+v", before)
	}
}

// TestJoinSameClass: a near miss for its colour alone on a symbol the
// take-off found of the exemplar's class joins the matches (a zone's
// speakers drawn in its colour); one on a symbol of another class, one
// with another reason, and any near miss when the exemplar lies on no
// symbol of a class, stay near misses.
func TestJoinSameClass(t *testing.T) {
	at := func(x float64) detect.Box { return detect.Box{X: x, Y: 100, W: 20, H: 20} }
	labels := []Label{
		{Box: at(100), Class: "speaker"},
		{Box: at(200), Class: "speaker"},
		{Box: at(300), Class: "distribution_board"},
		{Box: at(400), Class: "speaker"},
	}
	ex, ok := ExemplarLabel(detect.Box{X: 96, Y: 96, W: 28, H: 28}, labels)
	if !ok || ex.Class != "speaker" {
		t.Fatalf("exemplar label %+v, %v", ex, ok)
	}
	nears := func() []NearMiss {
		return []NearMiss{
			{Box: at(200), Score: 1, Reason: ReasonOtherColour},
			{Box: at(300), Score: 1, Reason: ReasonOtherColour},
			{Box: at(400), Score: 0.85, Reason: ReasonMissingStroke},
		}
	}
	pm := PageMatches{Matches: []Match{{Box: at(100), Score: 0.99}}, NearMisses: nears()}
	JoinSameClass(&pm, ex, ok, labels)
	if len(pm.Matches) != 2 || pm.Matches[0].Box.X != 200 || pm.Matches[0].Score != 1 || pm.Matches[1].Box.X != 100 {
		t.Errorf("matches %+v; want the other-colour speaker first, then the exemplar", pm.Matches)
	}
	if len(pm.NearMisses) != 2 || pm.NearMisses[0].Box.X != 300 || pm.NearMisses[1].Box.X != 400 {
		t.Errorf("near misses %+v; want the board and the missing stroke", pm.NearMisses)
	}
	pm = PageMatches{NearMisses: nears()}
	JoinSameClass(&pm, Label{}, false, labels)
	if len(pm.Matches) != 0 || len(pm.NearMisses) != 3 {
		t.Errorf("an exemplar on no symbol joined near misses: %+v", pm)
	}
}

// TestTagBeside: on a sheet whose take-off counted a schedule's devices
// by their tags alone (labels on the tags, beside the symbols), the
// exemplar's code is the tag written beside it, and a match beside
// another code's tag becomes a near miss "another_tag"; a match beside a
// tag of the exemplar's code, or with no tag within a symbol's size, stays.
func TestTagBeside(t *testing.T) {
	tag := func(x float64, code, class string) Label {
		return Label{Box: detect.Box{X: x + 24, Y: 100, W: 20, H: 12}, Code: code, Class: class, OnTag: true}
	}
	sym := func(x float64) detect.Box { return detect.Box{X: x, Y: 100, W: 20, H: 20} }
	labels := []Label{
		tag(100, "P3", ""),                     // the exemplar's tag
		tag(200, "P5", "socket_outlet_3phase"), // another device drawn alike
		tag(300, "P3", ""),
		{Box: sym(400), Class: "data_outlet"}, // a symbol the take-off found, no code
	}
	ex, ok := ExemplarLabel(detect.Box{X: 96, Y: 96, W: 28, H: 28}, labels)
	if !ok || ex.Code != "P3" {
		t.Fatalf("exemplar label %+v, %v; want the code P3 of the tag beside it", ex, ok)
	}
	pm := PageMatches{Matches: []Match{
		{Box: sym(100), Score: 1},
		{Box: sym(200), Score: 0.97}, // beside P5
		{Box: sym(300), Score: 0.95}, // beside P3
		{Box: sym(600), Score: 0.9},  // no tag near
	}}
	SplitByTag(&pm, ex, ok, labels)
	var kept []float64
	for _, m := range pm.Matches {
		kept = append(kept, m.Box.X)
	}
	if len(pm.Matches) != 3 || kept[0] != 100 || kept[1] != 300 || kept[2] != 600 {
		t.Errorf("kept matches at %v; want 100, 300, 600", kept)
	}
	if len(pm.NearMisses) != 1 || pm.NearMisses[0].Box.X != 200 || pm.NearMisses[0].Reason != ReasonOtherTag {
		t.Errorf("near misses %+v; want the match beside P5, another_tag", pm.NearMisses)
	}
	// A code label on a symbol (not OnTag) is that symbol's, not its
	// neighbour's.
	onSym := []Label{{Box: detect.Box{X: 124, Y: 100, W: 20, H: 20}, Code: "P5", Class: "socket_outlet_3phase"}}
	if ex, ok := ExemplarLabel(detect.Box{X: 96, Y: 96, W: 28, H: 28}, onSym); ok && ex.Code != "" {
		t.Errorf("exemplar took the code %q of the symbol beside it", ex.Code)
	}
}
