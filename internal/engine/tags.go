package engine

import (
	"math"
	"slices"
	"sort"

	"blueprint/internal/detect"
	"blueprint/internal/legend"
	"blueprint/internal/median"
)

// Tag labelling (see docs/legend.md, "Schedules and tags").
const (
	// tagReachEm is how far, in the tag's text heights, a symbol may stand
	// from the tag that labels it (box to box): tags are written beside
	// their symbols.
	tagReachEm = 2.0
	// tagConfidence is the confidence of a device named by its tag: the
	// code the sheet writes beside it says what it is.
	tagConfidence = 0.95
	// minTaggedClass is the fewest tags of a class on a page for the page
	// to be taken as naming that class's devices by tags.
	minTaggedClass = 2
	// unreadEmRatio: a run writing a code among other words counts only
	// at most this many times the size of the page's tags.
	unreadEmRatio = 3.0
	// mismatchPenalty orders pairs of a tag and a symbol of another class
	// after every pair of one class (pixels; more than any page spans).
	mismatchPenalty = 1e6
)

// labelTags attaches the page's tags to the detections out (the page's
// glyph matches): each tag labels at most one symbol and each symbol
// carries at most one tag, nearest pairs first, a symbol within
// tagReachEm of its tag. A labelled symbol takes the tag's row and class
// (the schedule says what it is; the legend's category glyph often
// cannot: a double socket and a 3-phase socket share one); a tag with no
// symbol near is a device of its own, boxed by the tag. On a page that
// names a class's devices by tags (minTaggedClass tags or more), a glyph
// match of that class that no tag labels is not counted: every device of
// a scheduled kind carries its code there, so an untagged look-alike is
// another thing (a bar glyph on furniture, a door's leaf), unless text
// writing a code among other words stands beside it (a tag the text
// layer ran into a label: Row -1). classes maps a
// legend row (0-based) to its class, category a class to its catalog
// category ("" for none).
func labelTags(out []detect.Detection, tags []legend.Tag, classes []string, category func(class string) string) []detect.Detection {
	return pairedTags(out, tags, classes, category, false)
}

// pairedTags is labelTags; with read (tags OCR read on a page image) a
// tag labels a symbol of any source (the glyph search's, the raster
// detector's), and an untagged symbol of a class the page names by tags
// is kept: OCR misses tags a text layer holds (building2's 200-DPI
// render reads 54–56 of its 63 P5 tags), so a symbol without one is not
// therefore another thing.
func pairedTags(out []detect.Detection, tags []legend.Tag, classes []string, category func(class string) string, read bool) []detect.Detection {
	if len(tags) == 0 {
		return out
	}
	var pairs []tagPair
	var unread []detect.Box // runs writing a code among other words
	// A run writing a code among other words is written as the tags
	// are: one far larger (a symbol's filled parts read by OCR as "ML1"
	// 220 px high, on building2 with its words outlined) shielded every
	// untagged match within twice its size from being dropped.
	var ems []float64
	for _, t := range tags {
		if t.Row >= 0 {
			ems = append(ems, t.Em)
		}
	}
	maxEm := math.Inf(1)
	if len(ems) > 0 {
		maxEm = unreadEmRatio * median.Of(ems)
	}
	for _, t := range tags {
		if t.Row < 0 && t.Em <= maxEm {
			unread = append(unread, detect.Box{X: t.Box.Min.X - tagReachEm*t.Em, Y: t.Box.Min.Y - tagReachEm*t.Em,
				W: t.Box.Max.X - t.Box.Min.X + 2*tagReachEm*t.Em, H: t.Box.Max.Y - t.Box.Min.Y + 2*tagReachEm*t.Em})
		}
	}
	for ti, t := range tags {
		if t.Row < 0 || classes[t.Row] == "" {
			// A row naming no class says nothing of the symbol beside
			// its tag: the tag stands alone rather than take another
			// kind's symbol (a look-alike flood, a neighbour).
			continue
		}
		reach := tagReachEm * t.Em
		tb := rectBox(t.Box)
		for di, d := range out {
			if !d.Source.VectorMatching && !read {
				continue
			}
			// A tag names a device of its kind: a switch's code does not
			// label the motion detector beside it (a symbol of another
			// category whose own tag, if any, is elsewhere).
			if tc, dc := category(classes[t.Row]), category(d.Class); tc != "" && dc != "" && tc != dc {
				continue
			}
			if g := tb.Gap(d.Box); g <= reach {
				// Ties (a symbol between two tags) go to the nearer centre.
				g += 1e-3 * centreDist(tb, d.Box)
				pairs = append(pairs, tagPair{t: ti, d: di, gap: g, other: d.Class != classes[t.Row]})
			}
		}
	}
	tagged, done := pairTags(pairs, len(tags), len(out))
	// Each code's glyph: a sheet draws every device of one code with one
	// glyph, often a legend row of another class (a floodlight drawn with
	// the wall light's glyph), and most of the code's tags stand nearest
	// to it. What the first pairing says each code's tags label decides;
	// a symbol of its code's glyph is then its first witness, as one of
	// the code's class is, and a tag no longer takes a nearer neighbour
	// of a third kind (a bench's double line matched as a linear light).
	if own := codeGlyphs(out, tags, tagged); len(own) > 0 {
		for i, p := range pairs {
			if g, ok := own[tags[p.t].Row]; ok && p.other && g == out[p.d].LegendRow {
				pairs[i].other = false
			}
		}
		tagged, done = pairTags(pairs, len(tags), len(out))
	}
	perClass := map[string]int{}
	for _, t := range tags {
		if t.Row >= 0 {
			perClass[classes[t.Row]]++
		}
	}
	nearUnread := func(b detect.Box) bool {
		for _, u := range unread {
			if u.Gap(b) == 0 {
				return true
			}
		}
		return false
	}
	res := make([]detect.Detection, 0, len(out)+len(tags))
	for i, d := range out {
		if k := tagged[i]; k > 0 {
			t := tags[k-1]
			d.Class, d.LegendRow = classes[t.Row], t.Row+1
			d.Source.Tag = true
			d.Confidence = math.Max(d.Confidence, tagConfidence)
			res = append(res, d)
			continue
		}
		if !read && d.Class != "" && perClass[d.Class] >= minTaggedClass && !nearUnread(d.Box) {
			continue // an untagged match of a class the page names by tags
		}
		res = append(res, d)
	}
	for ti, t := range tags {
		if done[ti] || t.Row < 0 {
			continue
		}
		res = append(res, detect.Detection{Class: classes[t.Row], Confidence: tagConfidence, LegendRow: t.Row + 1, Source: detect.Source{Tag: true},
			Box: rectBox(t.Box)})
	}
	return res
}

// tagPair is a tag (index t) and a symbol (index d) within its reach,
// gap apart; other: the symbol is not a witness of the tag's kind (its
// glyph names another class than the tag's row, and is not the code's
// own glyph). A witness is paired before any other: a tag is often
// written nearer a neighbour of another kind than its own symbol.
type tagPair struct {
	t, d  int
	gap   float64
	other bool
}

// pairTags pairs tags with symbols, nearest first, every pair of a
// witness before any other: each tag labels at most one symbol, each
// symbol carries at most one tag. It returns, per symbol, the 1-based
// index of its tag (0 for none), and per tag whether it labels one.
func pairTags(pairs []tagPair, nTags, nOut int) (tagged []int, done []bool) {
	key := func(p tagPair) float64 {
		if p.other {
			return p.gap + mismatchPenalty
		}
		return p.gap
	}
	sorted := slices.Clone(pairs)
	sort.SliceStable(sorted, func(a, b int) bool { return key(sorted[a]) < key(sorted[b]) })
	tagged, done = make([]int, nOut), make([]bool, nTags)
	for _, p := range sorted {
		if done[p.t] || tagged[p.d] > 0 {
			continue
		}
		done[p.t], tagged[p.d] = true, p.t+1
	}
	return tagged, done
}

// minCodeGlyph is the fewest of a code's tags that must label symbols of
// one legend row, and more than half of those it labels, for that row to
// be taken as the code's glyph.
const minCodeGlyph = 3

// codeGlyphs returns, per tag row (0-based) whose tags mostly label
// symbols of one legend row (minCodeGlyph of them and a majority), that
// row (1-based, a detection's LegendRow). tagged is pairTags's answer.
func codeGlyphs(out []detect.Detection, tags []legend.Tag, tagged []int) map[int]int {
	votes := map[int]map[int]int{} // tag row -> glyph row -> tags
	labelled := map[int]int{}      // tag row -> tags labelling a symbol
	for di, k := range tagged {
		if k == 0 || out[di].LegendRow <= 0 {
			continue
		}
		row := tags[k-1].Row
		if votes[row] == nil {
			votes[row] = map[int]int{}
		}
		votes[row][out[di].LegendRow]++
		labelled[row]++
	}
	own := map[int]int{}
	for row, vs := range votes {
		for glyphRow, n := range vs {
			if n >= minCodeGlyph && 2*n > labelled[row] {
				own[row] = glyphRow
			}
		}
	}
	return own
}

// centreDist is the distance between two boxes' centres.
func centreDist(a, b detect.Box) float64 {
	return math.Hypot(a.X+a.W/2-b.X-b.W/2, a.Y+a.H/2-b.Y-b.H/2)
}
