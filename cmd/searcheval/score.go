package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"syscall"
	"text/tabwriter"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/eval"
	"blueprint/internal/search"
)

// instance is one truth instance on a page: a box (generated sets), or a
// position with the distance a match's centre may lie from it (real sets:
// within > 0, box of no size at the position).
type instance struct {
	page    int
	class   string
	glyph   string // which of the class's glyphs, where the truth tells them apart
	box     detect.Box
	within  float64
	clipped bool
}

// fit is how well a match's box b is instance t, -1 when it is not: the
// IoU from eval.IoUThreshold up for a box, closeness for a position.
func (t instance) fit(b detect.Box) float64 {
	if t.within == 0 {
		if v := eval.IoU(b, t.box); v >= eval.IoUThreshold {
			return v
		}
		return -1
	}
	d := math.Hypot(b.X+b.W/2-t.box.X-t.box.W/2, b.Y+b.H/2-t.box.Y-t.box.H/2)
	if d > t.within {
		return -1
	}
	return 1 - d/t.within
}

// tally adds up searches.
type tally struct {
	searches   int
	refused    int // boxes the service refuses (no drawing, more than a symbol)
	late       int // searches past the service's budget, answered in part
	tp, fp, fn int
	// lookalike counts the false matches that are an instance of another
	// class, by that class.
	lookalike map[string]int
	times     []float64 // each search, seconds
	cpu       []float64 // each search, the process's CPU seconds (a loaded machine stretches times, not these)
	scores    []scoredMatch
}

// scoredMatch is one match's score and whether it was right.
type scoredMatch struct {
	score float64
	tp    bool
}

func (t *tally) add(o tally) {
	t.searches += o.searches
	t.refused += o.refused
	t.late += o.late
	t.tp, t.fp, t.fn = t.tp+o.tp, t.fp+o.fp, t.fn+o.fn
	for c, n := range o.lookalike {
		if t.lookalike == nil {
			t.lookalike = map[string]int{}
		}
		t.lookalike[c] += n
	}
	t.times = append(t.times, o.times...)
	t.cpu = append(t.cpu, o.cpu...)
	t.scores = append(t.scores, o.scores...)
}

func (t *tally) lookalikes() int {
	n := 0
	for _, v := range t.lookalike {
		n += v
	}
	return n
}

// miss is a missed instance or a false match, as -misses writes it.
type miss struct {
	Set      string     `json:"file"`
	Class    string     `json:"class"`
	Mode     string     `json:"mode"`
	Query    detect.Box `json:"query_box"`
	Page     int        `json:"page_index"`
	Kind     string     `json:"kind"` // fn or fp
	Box      detect.Box `json:"box"`
	Score    float64    `json:"score,omitempty"`
	OnAnther string     `json:"on_class,omitempty"`
	// Near is, for a missed instance, the best near miss the search
	// returned on it: why the search did not take it.
	Near *search.NearMiss `json:"near_miss,omitempty"`
}

// score scores one search for class (for its glyph, where glyph is not
// empty): its matches (found, every page searched) against truth (every
// instance on those pages), one to one, best score first, each match
// taking the instance it fits best. A match on another glyph of the class
// is a false match, as on another class: it is not like the exemplar.
func score(class, glyph string, truth []instance, found []search.PageMatches, t *tally, m miss, misses io.Writer) {
	// sought: an instance of the class searched for, and of its glyph
	// where one is searched for.
	sought := func(g instance) bool { return g.class == class && (glyph == "" || g.glyph == glyph) }
	type pred struct {
		page int
		m    search.Match
	}
	var preds []pred
	for _, pm := range found {
		if pm.Page < 0 {
			t.late++
		}
		for _, x := range pm.Matches {
			preds = append(preds, pred{pm.Page, x})
		}
	}
	sort.SliceStable(preds, func(i, j int) bool { return preds[i].m.Score > preds[j].m.Score })
	taken := make([]bool, len(truth))
	for _, p := range preds {
		best, bi := -1.0, -1
		for j, g := range truth {
			if !sought(g) || g.page != p.page || taken[j] {
				continue
			}
			if v := g.fit(p.m.Box); v >= 0 && v > best {
				best, bi = v, j
			}
		}
		t.scores = append(t.scores, scoredMatch{p.m.Score, bi >= 0})
		if bi >= 0 {
			taken[bi] = true
			t.tp++
			continue
		}
		t.fp++
		near := ""
		for _, g := range truth {
			if !sought(g) && g.page == p.page && g.fit(p.m.Box) >= 0 {
				near = g.class
				if g.class == class {
					near += "/" + g.glyph // another glyph of the class
				}
				break
			}
		}
		if near != "" {
			if t.lookalike == nil {
				t.lookalike = map[string]int{}
			}
			t.lookalike[near]++
		}
		m.Page, m.Kind, m.Box, m.Score, m.OnAnther = p.page, "fp", p.m.Box, p.m.Score, near
		writeMiss(misses, m)
	}
	for j, g := range truth {
		if sought(g) && !taken[j] {
			t.fn++
			m.Page, m.Kind, m.Box, m.Score, m.OnAnther = g.page, "fn", g.box, 0, ""
			m.Near = nearOn(g, found)
			writeMiss(misses, m)
		}
	}
}

// nearOn is the best near miss of found on instance g, nil when none.
func nearOn(g instance, found []search.PageMatches) *search.NearMiss {
	var best *search.NearMiss
	for _, pm := range found {
		if pm.Page != g.page {
			continue
		}
		for i := range pm.NearMisses {
			n := &pm.NearMisses[i]
			if g.fit(n.Box) >= 0 && (best == nil || n.Score > best.Score) {
				best = n
			}
		}
	}
	return best
}

func writeMiss(w io.Writer, m miss) {
	if w == nil {
		return
	}
	line, _ := json.Marshal(m)
	fmt.Fprintf(w, "%s\n", line)
}

// report is what a run measured: sections (vector, image), each with rows
// (a class, or a set's class) and their total.
type report struct {
	Sections []*section `json:"sections"`
	// Notes say what was not measured and why.
	Notes []string `json:"notes,omitempty"`
}

type section struct {
	Title string `json:"title"`
	rows  []*row
	all   tally
	// lines are the section's timing figures, as printed.
	Lines []string `json:"timing,omitempty"`
	// floors are the score floors whose kept matches are printed.
	floors []float64
}

type row struct {
	label    string
	exemplar string // real sets: the exemplar box
	t        tally
}

// sectionOf returns the section titled title, added when new.
func (r *report) sectionOf(title string, floors []float64) *section {
	for _, s := range r.Sections {
		if s.Title == title {
			return s
		}
	}
	s := &section{Title: title, floors: floors}
	r.Sections = append(r.Sections, s)
	return s
}

// rowOf returns the section's row labelled label, added when new.
func (s *section) rowOf(label, exemplar string) *row {
	for _, r := range s.rows {
		if r.label == label {
			return r
		}
	}
	r := &row{label: label, exemplar: exemplar}
	s.rows = append(s.rows, r)
	return r
}

// add counts one search in row label.
func (s *section) add(label, exemplar string, t tally) {
	s.rowOf(label, exemplar).t.add(t)
	s.all.add(t)
}

func ratio(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func (r *report) write(w io.Writer) {
	for _, s := range r.Sections {
		fmt.Fprintf(w, "== %s\n", s.Title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "class\texemplar\tsearches\ttruth\tfound\tright\ton another class\trecall\tprecision\tseconds\tcpu seconds")
		line := func(label, ex string, t tally) {
			if ex == "" {
				ex = "-"
			}
			if t.refused > 0 {
				ex += fmt.Sprintf(" (%d refused)", t.refused)
			}
			if t.late > 0 {
				ex += fmt.Sprintf(" (%d out of time)", t.late)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%.2f\t%.2f\n", label, ex, t.searches, t.tp+t.fn, t.tp+t.fp, t.tp, t.lookalikes(),
				ratio(t.tp, t.tp+t.fn), ratio(t.tp, t.tp+t.fp), quantile(t.times, 0.5), quantile(t.cpu, 0.5))
		}
		sort.Slice(s.rows, func(i, j int) bool { return s.rows[i].label < s.rows[j].label })
		for _, x := range s.rows {
			line(x.label, x.exemplar, x.t)
		}
		line("ALL", "", s.all)
		tw.Flush()
		s.writeLookalikes(w)
		fmt.Fprintf(w, "search: median %.3f s, p95 %.3f s, max %.3f s; CPU median %.3f s, max %.3f s; GOMAXPROCS %d\n",
			quantile(s.all.times, 0.5), quantile(s.all.times, 0.95), quantile(s.all.times, 1), quantile(s.all.cpu, 0.5), quantile(s.all.cpu, 1), runtime.GOMAXPROCS(0))
		for _, l := range s.Lines {
			fmt.Fprintln(w, l)
		}
		fmt.Fprint(w, "matches kept at a score floor (right / wrong):")
		for _, floor := range s.floors {
			tp, fp := 0, 0
			for _, m := range s.all.scores {
				if m.score >= floor-1e-9 {
					if m.tp {
						tp++
					} else {
						fp++
					}
				}
			}
			fmt.Fprintf(w, " %.2f: %d/%d;", floor, tp, fp)
		}
		fmt.Fprint(w, "\n\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}

// writeLookalikes prints the false matches that are an instance of another
// class, by pair of classes.
func (s *section) writeLookalikes(w io.Writer) {
	type pair struct {
		from, to string
		n        int
	}
	var pairs []pair
	for _, r := range s.rows {
		for o, n := range r.t.lookalike {
			pairs = append(pairs, pair{r.label, o, n})
		}
	}
	if len(pairs) == 0 {
		return
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].n != pairs[j].n {
			return pairs[i].n > pairs[j].n
		}
		return pairs[i].from+pairs[i].to < pairs[j].from+pairs[j].to
	})
	fmt.Fprint(w, "false matches on another class (exemplar -> instance found):")
	for i, p := range pairs {
		if i == 15 {
			fmt.Fprintf(w, " … (%d pairs)", len(pairs))
			break
		}
		fmt.Fprintf(w, " %s->%s %d;", p.from, p.to, p.n)
	}
	fmt.Fprintln(w)
}

// figures is the JSON form of a row.
type figures struct {
	Label       string   `json:"class"`
	Exemplar    string   `json:"exemplar,omitempty"`
	Searches    int      `json:"searches"`
	Refused     int      `json:"refused,omitempty"`
	OutOfTime   int      `json:"out_of_time,omitempty"`
	Truth       int      `json:"truth"`
	Found       int      `json:"found"`
	Right       int      `json:"right"`
	FPLookalike int      `json:"found_on_another_class"`
	Recall      *float64 `json:"recall"`
	Precision   *float64 `json:"precision"`
	Seconds     float64  `json:"search_median_s"`
	SecondsMax  float64  `json:"search_max_s"`
	CPU         float64  `json:"search_cpu_median_s"`
}

func figuresOf(label, ex string, t tally) figures {
	f := figures{Label: label, Exemplar: ex, Searches: t.searches, Refused: t.refused, OutOfTime: t.late, Truth: t.tp + t.fn, Found: t.tp + t.fp,
		Right: t.tp, FPLookalike: t.lookalikes(), Seconds: quantile(t.times, 0.5), SecondsMax: quantile(t.times, 1), CPU: quantile(t.cpu, 0.5)}
	if d := t.tp + t.fn; d > 0 {
		v := float64(t.tp) / float64(d)
		f.Recall = &v
	}
	if d := t.tp + t.fp; d > 0 {
		v := float64(t.tp) / float64(d)
		f.Precision = &v
	}
	return f
}

// MarshalJSON writes a section's rows and total as figures.
func (s *section) MarshalJSON() ([]byte, error) {
	rows := make([]figures, len(s.rows))
	for i, r := range s.rows {
		rows[i] = figuresOf(r.label, r.exemplar, r.t)
	}
	return json.Marshal(struct {
		Title string    `json:"title"`
		Rows  []figures `json:"rows"`
		All   figures   `json:"all"`
		Lines []string  `json:"timing,omitempty"`
	}{s.Title, rows, figuresOf("ALL", "", s.all), s.Lines})
}

func (r *report) writeJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// cpuSeconds is the CPU time the process has spent, user and system.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
