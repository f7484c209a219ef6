// Package realset scores take-off counts on real drawing sets against
// hand-made count truth (testdata/realtruth/<set>.json): per set and per
// class, whether the count is within the tolerance and its
// relative error, then each set's within-tolerance share and median error
// and the same over every (set, class). docs/evaluation.md ("Real sets")
// defines them; cmd/realeval runs the engine and prints them.
package realset

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Truth is one set's count truth, as written in testdata/realtruth.
type Truth struct {
	// File is the drawing's file name in the real-data folder.
	File  string `json:"file"`
	Pages int    `json:"pages,omitempty"`
	// Made says how the truth was made, as a whole.
	Made          string `json:"made"`
	PositionsUnit string `json:"positions_unit,omitempty"`
	// Classes holds the count of every class of ours the sheet holds. A
	// class the engine reports that is neither here nor in Unscored has a
	// truth of 0.
	Classes map[string]ClassTruth `json:"classes"`
	// Unscored names classes whose truth is not known well enough to
	// judge (the reason as the value): their counts are shown, not scored.
	Unscored map[string]string `json:"unscored,omitempty"`
	// NotOurs lists what the sheet holds that no class of ours names.
	NotOurs string `json:"not_ours,omitempty"`
}

// ClassTruth is one class's count truth.
type ClassTruth struct {
	Count int `json:"count"`
	// Confidence is high, medium or low.
	Confidence string `json:"confidence,omitempty"`
	How        string `json:"how,omitempty"`
	// Positions are the instances counted ([page, x, y], in the unit the
	// set's PositionsUnit names), so a wrong count can be found again.
	Positions [][]float64    `json:"positions,omitempty"`
	PerPage   map[string]int `json:"per_page,omitempty"`
	// PositionsAt is "tag" where the positions are the tag written beside
	// each instance (its first character), not the instance itself;
	// empty where they are the instances.
	PositionsAt string `json:"positions_at,omitempty"`
	// Exemplar is the box a reviewer draws round the first instance of
	// Positions to search for more ([page, x, y, width, height]: its
	// top-left corner and size, in the set's PositionsUnit), measured by
	// eye on a render; cmd/searcheval searches from it.
	Exemplar []float64 `json:"exemplar,omitempty"`
	// MatchWithin is how far (PositionsUnit) a found instance's centre may
	// lie from a position of the class to be that instance; 0: the
	// exemplar's longer side.
	MatchWithin float64 `json:"match_within,omitempty"`
	// Glyphs splits Positions by the glyph drawn, where the class is drawn
	// by more than one (a ceiling light, a 600 × 600 panel and a high bay
	// among luminaires): each glyph's own exemplar and its positions,
	// every one of them one of Positions. "Find more like this" finds
	// more of one glyph, so cmd/searcheval searches each glyph from its
	// own exemplar.
	Glyphs map[string]GlyphTruth `json:"glyphs,omitempty"`
}

// GlyphTruth is the instances of one glyph of a class (ClassTruth.Glyphs).
type GlyphTruth struct {
	Exemplar  []float64   `json:"exemplar"`
	Positions [][]float64 `json:"positions"`
}

// LoadTruths reads every *.json in dir, sorted by file name.
func LoadTruths(dir string) ([]Truth, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Truth
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var t Truth
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if t.File == "" {
			return nil, fmt.Errorf("%s: no file named", n)
		}
		for c, ct := range t.Classes {
			if ct.Count < 0 {
				return nil, fmt.Errorf("%s: %s: negative count", n, c)
			}
			if _, ok := t.Unscored[c]; ok {
				return nil, fmt.Errorf("%s: %s is both counted and unscored", n, c)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// Within is the tolerance on a count: exact below 10, within 1 from 10 to
// 29, within 5 % from 30 up.
func Within(got, want int) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	switch {
	case want < 10:
		return d == 0
	case want < 30:
		return d <= 1
	}
	return float64(d) <= 0.05*float64(want)
}

// RelError is |got - want| / want; where the truth is 0 it is 0 for a
// count of 0 and 1 (100 %) for any other count, so a class invented on a
// sheet that does not hold it weighs as a class missed entirely.
func RelError(got, want int) float64 {
	if want == 0 {
		if got == 0 {
			return 0
		}
		return 1
	}
	return math.Abs(float64(got-want)) / float64(want)
}

// Median of v (the mean of the two middle values for an even count); 0 for
// none.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ClassResult is one (set, class) count.
type ClassResult struct {
	Class   string `json:"class"`
	Truth   int    `json:"truth"`
	Counted int    `json:"counted"`
	// Within and RelError are absent for an unscored class.
	Within     *bool    `json:"within_tolerance,omitempty"`
	RelError   *float64 `json:"rel_error,omitempty"`
	Confidence string   `json:"confidence,omitempty"`
	// Unscored gives the reason a class is shown and not judged.
	Unscored string `json:"unscored,omitempty"`
}

// SetResult is one set's scores.
type SetResult struct {
	File string `json:"file"`
	// Error is set when the engine failed on the file; the set then has no
	// scores and counts as every class missed.
	Error   string        `json:"error,omitempty"`
	Seconds float64       `json:"seconds"`
	Classes []ClassResult `json:"classes"`
	Scored  int           `json:"scored"`
	WithinN int           `json:"within"`
	// Share is WithinN / Scored (0 when nothing is scored).
	Share       float64 `json:"share"`
	MedianError float64 `json:"median_error"`
}

// Report is the whole evaluation.
type Report struct {
	Sets []SetResult `json:"sets"`
	// Skipped names truth files whose drawing is not in the data folder.
	Skipped     []string `json:"skipped,omitempty"`
	Scored      int      `json:"scored"`
	WithinN     int      `json:"within"`
	Share       float64  `json:"share"`
	MedianError float64  `json:"median_error"`
	// SetsAtTarget counts the sets whose share reaches Target.
	Target       float64 `json:"target"`
	SetsAtTarget int     `json:"sets_at_target"`
}

// Score compares counted (class: count, as the take-off reports it) with
// t. Classes are the truth's, plus every counted class the truth does not
// name (truth 0), less none: unscored classes are listed with their count
// and reason, not judged.
func Score(t Truth, counted map[string]int) SetResult {
	classes := map[string]bool{}
	for c := range t.Classes {
		classes[c] = true
	}
	for c, n := range counted {
		if n > 0 {
			classes[c] = true
		}
	}
	for c := range t.Unscored {
		classes[c] = true
	}
	names := make([]string, 0, len(classes))
	for c := range classes {
		names = append(names, c)
	}
	sort.Strings(names)
	r := SetResult{File: t.File}
	var errs []float64
	for _, c := range names {
		ct := t.Classes[c]
		cr := ClassResult{Class: c, Truth: ct.Count, Counted: counted[c], Confidence: ct.Confidence}
		if why, ok := t.Unscored[c]; ok {
			cr.Unscored = why
			r.Classes = append(r.Classes, cr)
			continue
		}
		w := Within(cr.Counted, cr.Truth)
		e := RelError(cr.Counted, cr.Truth)
		cr.Within, cr.RelError = &w, &e
		r.Scored++
		if w {
			r.WithinN++
		}
		errs = append(errs, e)
		r.Classes = append(r.Classes, cr)
	}
	if r.Scored > 0 {
		r.Share = float64(r.WithinN) / float64(r.Scored)
	}
	r.MedianError = Median(errs)
	return r
}

// Summarise totals the sets: the within-tolerance share and median error
// over every scored (set, class), and the sets at target.
func Summarise(sets []SetResult, skipped []string, target float64) Report {
	rep := Report{Sets: sets, Skipped: skipped, Target: target}
	var errs []float64
	for _, s := range sets {
		rep.Scored += s.Scored
		rep.WithinN += s.WithinN
		for _, c := range s.Classes {
			if c.RelError != nil {
				errs = append(errs, *c.RelError)
			}
		}
		if s.Scored > 0 && s.Share >= target {
			rep.SetsAtTarget++
		}
	}
	if rep.Scored > 0 {
		rep.Share = float64(rep.WithinN) / float64(rep.Scored)
	}
	rep.MedianError = Median(errs)
	return rep
}

// Text writes rep as tables a person reads.
func (rep Report) Text() string {
	var b strings.Builder
	for _, s := range rep.Sets {
		fmt.Fprintf(&b, "%s", s.File)
		if s.Error != "" {
			fmt.Fprintf(&b, ": engine failed: %s\n", s.Error)
		} else {
			fmt.Fprintf(&b, "  (%.1f s)\n", s.Seconds)
		}
		fmt.Fprintf(&b, "  %-24s %6s %8s %7s %8s  %s\n", "class", "truth", "counted", "within", "error", "truth confidence")
		for _, c := range s.Classes {
			if c.Unscored != "" {
				fmt.Fprintf(&b, "  %-24s %6s %8d %7s %8s  unscored: %s\n", c.Class, "-", c.Counted, "-", "-", firstClause(c.Unscored))
				continue
			}
			w := "no"
			if *c.Within {
				w = "yes"
			}
			conf := c.Confidence
			if conf == "" {
				conf = "(not in the truth: 0)"
			}
			fmt.Fprintf(&b, "  %-24s %6d %8d %7s %7.0f%%  %s\n", c.Class, c.Truth, c.Counted, w, 100**c.RelError, conf)
		}
		fmt.Fprintf(&b, "  within tolerance %d of %d (%.0f %%), median error %.0f %%\n\n", s.WithinN, s.Scored, 100*s.Share, 100*s.MedianError)
	}
	for _, f := range rep.Skipped {
		fmt.Fprintf(&b, "skipped %s: not in the real-data folder\n", f)
	}
	fmt.Fprintf(&b, "%-34s %6s %7s %7s %8s\n", "set", "scored", "within", "share", "median")
	for _, s := range rep.Sets {
		fmt.Fprintf(&b, "%-34s %6d %7d %6.0f%% %7.0f%%\n", s.File, s.Scored, s.WithinN, 100*s.Share, 100*s.MedianError)
	}
	fmt.Fprintf(&b, "%-34s %6d %7d %6.0f%% %7.0f%%\n", "all sets", rep.Scored, rep.WithinN, 100*rep.Share, 100*rep.MedianError)
	fmt.Fprintf(&b, "sets at >= %.0f %% within tolerance: %d of %d\n", 100*rep.Target, rep.SetsAtTarget, len(rep.Sets))
	return b.String()
}

// firstClause shortens a reason to its first clause for the table.
func firstClause(s string) string {
	if i := strings.IndexAny(s, ":;("); i > 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strings.TrimSpace(s)
}
