package legend

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Legends without header words are taken by their shape alone, guarded
// against a plan's stacked labels: at least minHeadlessRows rows, glyphs
// in one column (centres or left edges within headlessAlignEm em) of
// similar size (within headlessSizeRatio), rows at an even pitch (each
// within headlessPitchRatio of the median), most rows distinct (by glyph
// or description: tag-only variants share a glyph), and most
// descriptions naming a class of the vocabulary (headlessMapped).
const (
	minHeadlessRows    = 4
	headlessAlignEm    = 0.5
	headlessSizeRatio  = 2.5
	headlessPitchRatio = 1.6
	headlessMapped     = 0.75
)

// headless reports whether the kept rows of a glyph column without header
// words make a legend (see minHeadlessRows). Where they do not and why is
// not nil, it sets *why to the first condition they fail.
func (ix *pageIndex) headless(col []candidate, kept []int, rows []Row, sigs int, why *string) bool {
	n := len(rows)
	switch {
	case ix.maps == nil:
		if why != nil {
			*why = "no vocabulary to read descriptions with"
		}
		return false
	case n < minHeadlessRows:
		if why != nil {
			*why = fmt.Sprintf("%d rows, fewer than %d", n, minHeadlessRows)
		}
		return false
	case float64(sigs) < headlessMapped*float64(n):
		if why != nil {
			*why = fmt.Sprintf("%d of %d glyphs distinct, fewer than %.0f %%", sigs, n, 100*headlessMapped)
		}
		return false
	}
	var em float64
	cx := make([]float64, 0, n)
	lx := make([]float64, 0, n)
	sizes := make([]float64, 0, n)
	ys := make([]float64, 0, n)
	for _, k := range kept {
		b := col[k].glyph.box
		em += col[k].em / float64(n)
		cx = append(cx, b.centre().X)
		lx = append(lx, b.Min.X)
		sizes = append(sizes, math.Max(b.w(), b.h()))
		ys = append(ys, b.centre().Y)
	}
	if spreadOf(cx) > headlessAlignEm*em && spreadOf(lx) > headlessAlignEm*em {
		if why != nil {
			*why = fmt.Sprintf("glyph centres and left edges spread over more than %.1f em", headlessAlignEm)
		}
		return false
	}
	if lo, hi := slices.Min(sizes), slices.Max(sizes); hi > headlessSizeRatio*lo {
		if why != nil {
			*why = fmt.Sprintf("glyph sizes differ %.1f×, more than %.1f×", hi/lo, headlessSizeRatio)
		}
		return false
	}
	pitches := make([]float64, 0, n-1)
	for i := 1; i < n; i++ {
		pitches = append(pitches, ys[i]-ys[i-1])
	}
	med := quantile(pitches, 0.5)
	for _, p := range pitches {
		if p > headlessPitchRatio*med || p*headlessPitchRatio < med {
			if why != nil {
				*why = fmt.Sprintf("uneven rows: a pitch of %.0f px against a median of %.0f px (within %.1f× needed)", p, med, headlessPitchRatio)
			}
			return false
		}
	}
	mapped := 0
	for _, r := range rows {
		if ix.maps(r.Description + " " + r.GlyphText + " " + strings.Join(r.Tags, " ")) {
			mapped++
		}
	}
	if float64(mapped) < headlessMapped*float64(n) {
		if why != nil {
			*why = fmt.Sprintf("%d of %d descriptions name a class (%.0f %% needed)", mapped, n, 100*headlessMapped)
		}
		return false
	}
	return true
}

// spreadOf is the largest distance of a value from the median.
func spreadOf(v []float64) float64 {
	m := quantile(v, 0.5)
	d := 0.0
	for _, x := range v {
		d = math.Max(d, math.Abs(x-m))
	}
	return d
}

// describedStack reports whether the page writes a stack of descriptions
// that could be a legend without header words: at least minHeadlessRows
// upright runs starting at one x (within headlessAlignEm em), each within
// maxPitchEm em of the next, most of them naming a class. Pages without
// one are not indexed for headless legends.
func describedStack(rs []run, maps func(string) bool) bool {
	var idx []int
	for i := range rs {
		if rs[i].upright() && rs[i].letters() >= 3 {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return rs[idx[a]].min.X < rs[idx[b]].min.X })
	for a := 0; a < len(idx); {
		b := a + 1
		for b < len(idx) && rs[idx[b]].min.X-rs[idx[b-1]].min.X <= headlessAlignEm*rs[idx[b]].size {
			b++
		}
		if b-a >= minHeadlessRows && stackMapped(rs, idx[a:b], maps) {
			return true
		}
		a = b
	}
	return false
}

// stackMapped: some vertical run of at least minHeadlessRows of the
// aligned runs idx lies at a row pitch, most of them naming a class.
func stackMapped(rs []run, idx []int, maps func(string) bool) bool {
	col := append([]int(nil), idx...)
	sort.Slice(col, func(a, b int) bool { return rs[col[a]].min.Y < rs[col[b]].min.Y })
	for a := 0; a < len(col); {
		b := a + 1
		for b < len(col) && rs[col[b]].min.Y-rs[col[b-1]].min.Y <= maxPitchEm*rs[col[b]].size {
			b++
		}
		if b-a >= minHeadlessRows {
			mapped := 0
			for _, i := range col[a:b] {
				if maps(rs[i].text) {
					mapped++
				}
			}
			if float64(mapped) >= headlessMapped*float64(minHeadlessRows) {
				return true
			}
		}
		a = b
	}
	return false
}
