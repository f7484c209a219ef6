package search

import (
	"math"
	"sort"

	"blueprint/internal/detect"
)

// What the take-off said of the symbols. A search runs on a done job,
// whose take-off already named the page's symbols: their class, and on
// sheets that write a schedule code beside each device, the code. Two
// rules read it (labels: the take-off's symbols of a page):
//
//   - Codes (SplitByTag). Such sheets often draw several products with one
//     glyph (a wall light and a floodlight, told apart only by their
//     codes). From a symbol with a code, a match on a symbol whose code is
//     of another class is a near miss (ReasonOtherTag): the same drawing,
//     but the sheet says it is another kind of device. Codes of one class
//     (an open and a vapour-proof fitting of one length) stay matches, as
//     does a symbol without a code: nothing says it is another kind. Where
//     the take-off counted a device by its tag alone (a schedule row with
//     no glyph of its own: its label lies on the tag, Label.OnTag), the
//     tag beside a symbol gives the symbol's code (tagBeside): building2's
//     workstation socket P3, searched from one, found 29 three-phase and
//     double sockets drawn alike beside their P5 and P2 tags.
//   - Colours (JoinSameClass). A search keeps to the exemplar's colour,
//     because on some sheets colour tells two devices drawn alike apart;
//     on others it marks zones or circuits. A near miss for its colour
//     alone that the take-off found as a symbol of the exemplar's class is
//     this device in another zone: a match.

// ReasonOtherTag: the shape fits, but the take-off read a code of another
// class beside it than beside the exemplar (SplitByTag).
const ReasonOtherTag = "another_tag"

// Label is a symbol a take-off found: its box (raster pixels of its
// page), the code written beside it ("" for none) and its class ("" for a
// legend row of no class).
type Label struct {
	Box   detect.Box
	Code  string
	Class string
	// OnTag: the take-off counted the device by its tag alone (no
	// symbol's match carried it), so Box is the tag's, beside the symbol.
	OnTag bool
}

// differs reports whether l names another kind of device than x: another
// code, of another class or where either names none.
func (l Label) differs(x Label) bool {
	return l.Code != x.Code && (l.Class == "" || x.Class == "" || l.Class != x.Class)
}

// labelIoU is the least intersection over union at which a label's box
// is the symbol of a match (the job's detection of it).
const labelIoU = 0.5

// ExemplarLabel returns the label of the symbol that box (around an
// exemplar, with a margin) holds: of the labels whose centre lies inside
// box, the one that covers most of it; ok false when none does.
//
// Where that symbol carries no code, the code is the tag written beside
// the box (tagBeside): a schedule's code the take-off counted by its tag
// alone is labelled on the tag, not on the symbol. ok is true when either
// is found.
func ExemplarLabel(box detect.Box, labels []Label) (ex Label, ok bool) {
	best := 0.0
	for _, l := range labels {
		cx, cy := l.Box.X+l.Box.W/2, l.Box.Y+l.Box.H/2
		if cx < box.X || cy < box.Y || cx > box.X+box.W || cy > box.Y+box.H {
			continue
		}
		if a := l.Box.Intersection(box); a > best {
			ex, ok, best = l, true, a
		}
	}
	if ex.Code == "" {
		ex, ok = withTagBeside(ex, ok, box, labels)
	}
	return ex, ok
}

// withTagBeside is l (ok: found) with the code of the tag beside box
// (tagBeside) and, where l names none, its class; l and ok as they are
// where no tag stands beside box.
func withTagBeside(l Label, ok bool, box detect.Box, labels []Label) (Label, bool) {
	t, beside := tagBeside(box, labels)
	if !beside {
		return l, ok
	}
	l.Code = t.Code
	if l.Class == "" {
		l.Class = t.Class
	}
	return l, true
}

// tagBeside is the label of a code written beside box and on no symbol
// (Label.OnTag): of such labels, the nearest to box, at most box's longer
// side from it. ok is false for none.
func tagBeside(box detect.Box, labels []Label) (t Label, ok bool) {
	best := math.Max(box.W, box.H)
	for _, l := range labels {
		if !l.OnTag || l.Code == "" {
			continue
		}
		if g := l.Box.Gap(box); g <= best {
			t, ok, best = l, true, g
		}
	}
	return t, ok
}

// SplitByTag moves the matches of pm that lie on a symbol whose code
// names another kind of device than ex's, the exemplar's (labels: those
// of pm's page), to its near misses, with ReasonOtherTag and their score.
// Nothing moves when ok is false or the exemplar carries no code.
func SplitByTag(pm *PageMatches, ex Label, ok bool, labels []Label) {
	if !ok || ex.Code == "" || len(labels) == 0 {
		return
	}
	kept := pm.Matches[:0]
	for _, m := range pm.Matches {
		l, on := labelOf(m.Box, labels)
		if !on || l.Code == "" {
			l, on = withTagBeside(l, on, m.Box, labels)
		}
		if on && l.Code != "" && l.differs(ex) {
			pm.NearMisses = append(pm.NearMisses, NearMiss{Box: m.Box, Score: m.Score, Reason: ReasonOtherTag})
			continue
		}
		kept = append(kept, m)
	}
	pm.Matches = kept
}

// JoinSameClass moves the near misses of pm refused for their colour
// alone (ReasonOtherColour) that lie on a symbol the take-off found of
// ex's class (labels: those of pm's page) to its matches, with their
// score, best first. Nothing moves when ok is false or ex has no class.
func JoinSameClass(pm *PageMatches, ex Label, ok bool, labels []Label) {
	if !ok || ex.Class == "" || len(labels) == 0 {
		return
	}
	kept := pm.NearMisses[:0]
	joined := false
	for _, n := range pm.NearMisses {
		if l, on := labelOf(n.Box, labels); on && n.Reason == ReasonOtherColour && l.Class == ex.Class {
			pm.Matches = append(pm.Matches, Match{Box: n.Box, Score: n.Score})
			joined = true
			continue
		}
		kept = append(kept, n)
	}
	pm.NearMisses = kept
	if joined {
		sort.SliceStable(pm.Matches, func(i, j int) bool { return pm.Matches[i].Score > pm.Matches[j].Score })
	}
}

// labelOf is the label whose box is b's symbol (the highest intersection
// over union, at least labelIoU); ok false for none.
func labelOf(b detect.Box, labels []Label) (l Label, ok bool) {
	best := labelIoU
	for _, x := range labels {
		if v := x.Box.IoU(b); v >= best {
			l, ok, best = x, true, v
		}
	}
	return l, ok
}
