package ocrtext

import (
	"math"
	"slices"

	"blueprint/internal/median"
)

// baselineSide guesses the angle the lines idx (all along one axis) read
// at from their letters' boxes: letters stand on their baseline, so
// fewer of them end off the line's usual end on that side (descenders,
// commas) than on the other (where capitals, ascenders and x-height
// letters end at three heights). It reports false where the two sides
// are too close to tell (text all in capitals and digits).
func baselineSide(ls []line, idx []int) (float64, bool) {
	const off = 0.15 // of the line's height
	var lo, hi int   // letters ending off the usual end at the low and the high side
	vertical := false
	for _, i := range idx {
		l := ls[i]
		vertical = l.vertical
		mins := make([]float64, len(l.boxes))
		maxs := make([]float64, len(l.boxes))
		for k, b := range l.boxes {
			if l.vertical {
				mins[k], maxs[k] = b[0].X, b[1].X
			} else {
				mins[k], maxs[k] = b[0].Y, b[1].Y
			}
		}
		// Each side's ends sorted for its median: the two are counted
		// apart, so their pairing by letter is not needed.
		mLo, mHi := median.Of(mins), median.Of(maxs)
		for k := range mins {
			if math.Abs(mins[k]-mLo) > off*l.height {
				lo++
			}
			if math.Abs(maxs[k]-mHi) > off*l.height {
				hi++
			}
		}
	}
	const margin = 1.5
	switch {
	case float64(lo) > margin*float64(hi):
		// Standing on the high side: upright, or turned a quarter
		// anticlockwise (reading up).
		if vertical {
			return -90, true
		}
		return 0, true
	case float64(hi) > margin*float64(lo):
		if vertical {
			return 90, true
		}
		return 180, true
	}
	return 0, false
}

// Choosing lines to read for their shapes: a line is read where it
// holds a shape the sample does not that at least minCover other lines
// hold, until the lines chosen hold coverLetters letters.
const (
	minCover     = 2
	coverLetters = 1000
)

// cover moves from rest the lines to read for their shapes, so that the
// most of the others hold only shapes that they or the sample hold, and
// returns them and what is left of rest. (Reading the lines that hold a
// shape no line read holds with them, rather than after, was measured
// slower: the pass after stays for the lines whose spelling fails, and
// the first grows.)
func cover(chars [][]cluster, sample, rest []int) (chosen, left []int) {
	seen := map[int]int{} // lines read holding each shape
	for _, i := range sample {
		for _, sh := range lineShapeSet(chars[i]) {
			seen[sh]++
		}
	}
	sets := make(map[int][]int, len(rest)) // each rest line's shapes, each once
	for _, i := range rest {
		sets[i] = lineShapeSet(chars[i])
	}
	taken := map[int]bool{}
	letters := 0
	for letters < coverLetters {
		// How many lines not chosen hold each shape read too seldom.
		count := map[int]int{}
		for _, i := range rest {
			if taken[i] {
				continue
			}
			for _, sh := range sets[i] {
				if seen[sh] < minVotes {
					count[sh]++
				}
			}
		}
		// The line whose shapes the most other lines hold, the shorter
		// of two alike.
		bestLine, bestGain := -1, 0
		for _, i := range rest {
			if taken[i] {
				continue
			}
			gain := 0
			for _, sh := range sets[i] {
				if seen[sh] < minVotes {
					gain += count[sh] - 1
				}
			}
			if gain > bestGain || gain == bestGain && gain > 0 && len(chars[i]) < len(chars[bestLine]) {
				bestLine, bestGain = i, gain
			}
		}
		if bestLine < 0 || bestGain < minCover {
			break
		}
		taken[bestLine] = true
		letters += len(chars[bestLine])
		for _, sh := range sets[bestLine] {
			seen[sh]++
		}
	}
	for _, i := range rest {
		if taken[i] {
			chosen = append(chosen, i)
		} else {
			left = append(left, i)
		}
	}
	return chosen, left
}

// lineShapeSet is the shapes a line holds, each once.
func lineShapeSet(cl []cluster) []int {
	out := make([]int, 0, len(cl))
	for _, c := range cl {
		if !slices.Contains(out, c.shape) {
			out = append(out, c.shape)
		}
	}
	return out
}
