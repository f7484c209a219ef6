package search

import "blueprint/internal/detect"

// Tags. Where a sheet names its devices by codes written beside them (a
// schedule's S1, P2, L3; a fixture schedule's marks), one glyph often
// draws several products: a wall light and a floodlight drawn alike, told
// apart only by their codes. A take-off attaches each code to the symbol
// it labels; a search from a labelled symbol then leaves out the matches
// on symbols labelled with a code of another class, as near misses
// (ReasonOtherTag): the same drawing, but the sheet says it is another
// kind of device. Codes of one class (an open and a vapour-proof fitting
// of one length) stay matches, as does a symbol without a code: nothing
// says it is another kind.

// ReasonOtherTag: the shape fits, but the take-off read a code of another
// class beside it than beside the exemplar (SplitByTag).
const ReasonOtherTag = "another_tag"

// Label is a symbol a take-off named by the code written beside it: the
// symbol's box (raster pixels of its page), the code, and the class its
// schedule row names ("" for none).
type Label struct {
	Box   detect.Box
	Code  string
	Class string
}

// differs reports whether l names another kind of device than x: another
// code, of another class or where either names none.
func (l Label) differs(x Label) bool {
	return l.Code != x.Code && (l.Class == "" || x.Class == "" || l.Class != x.Class)
}

// labelIoU is the least intersection over union at which a label's box
// is the symbol of a match (the job's detection of it).
const labelIoU = 0.5

// ExemplarTag returns the label of the symbol that box (around an
// exemplar, with a margin) holds: of the labels whose centre lies inside
// box, the one that covers most of it; ok false when none does.
func ExemplarTag(box detect.Box, labels []Label) (ex Label, ok bool) {
	best := 0.0
	for _, l := range labels {
		cx, cy := l.Box.X+l.Box.W/2, l.Box.Y+l.Box.H/2
		if cx < box.X || cy < box.Y || cx > box.X+box.W || cy > box.Y+box.H {
			continue
		}
		if a := overlapArea(l.Box, box); a > best {
			ex, ok, best = l, true, a
		}
	}
	return ex, ok
}

// SplitByTag moves the matches of pm that lie on a symbol whose label
// names another kind of device than ex, the exemplar's (labels: those of
// pm's page), to its near misses, with ReasonOtherTag and their score.
// Nothing moves when ok is false (the exemplar carries no code).
func SplitByTag(pm *PageMatches, ex Label, ok bool, labels []Label) {
	if !ok || len(labels) == 0 {
		return
	}
	kept := pm.Matches[:0]
	for _, m := range pm.Matches {
		if l, on := labelOf(m.Box, labels); on && l.differs(ex) {
			pm.NearMisses = append(pm.NearMisses, NearMiss{Box: m.Box, Score: m.Score, Reason: ReasonOtherTag})
			continue
		}
		kept = append(kept, m)
	}
	pm.Matches = kept
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

// overlapArea is the area a and b share.
func overlapArea(a, b detect.Box) float64 {
	w := min(a.X+a.W, b.X+b.W) - max(a.X, b.X)
	h := min(a.Y+a.H, b.Y+b.H) - max(a.Y, b.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}
