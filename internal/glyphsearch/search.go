package glyphsearch

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"runtime"
	"sort"
	"sync"

	"blueprint/internal/detect"
)

// Defaults of Options.
const (
	DefaultMinScale   = 0.7
	DefaultMaxScale   = 1.5
	DefaultMaxStretch = 1.5
	// DefaultRingMaxRadius is Options.RingMaxRadius's default.
	DefaultRingMaxRadius = ringMaxRadius
	// DefaultMinScore is the least score a match is returned with; see
	// docs/raster.md ("Glyph search") for how it was chosen.
	DefaultMinScore = 0.82
	// ColouredExplained is the least Explained share of a match where the
	// page is searched in its coloured ink (darkness.ColouredInk); under
	// it the pose is a near miss, an extra stroke. Black walls, hatches and
	// text being paper there, coloured ink the exemplar lacks inside its
	// box is another symbol's (a luminaire's ring inside a floodlight's
	// two). Measured on the real renders' image searches (`make
	// search-eval REAL=1 SEARCH_EVAL_FLAGS="-modes image"`, 20 searches,
	// recall / precision): coloured ink without it 0.886 / 0.763, at 0.9
	// 0.875 / 0.795, at this 0.861 / 0.809, at 0.95 0.805 / 0.821 (by
	// darkness 0.788 / 0.759).
	ColouredExplained = 0.93
	// ringMinScore is the least ring correlation a place needs to be
	// looked at more closely.
	ringMinScore = 0.66
	// maxCandidates bounds the places verified per search; the best by
	// ring correlation are kept.
	maxCandidates = 20000
	// firstFloor and rescoreSlack: poses scoring at least the larger of
	// firstFloor and MinScore less rescoreSlack before the consensus are
	// scored again after it.
	firstFloor   = 0.5
	rescoreSlack = 0.15
)

// Options tunes a search. The zero value searches at every angle,
// mirrored or not, at 0.7–1.5 times the exemplar's size, stretched up to
// 1.5 times along the long axis if the glyph is elongated.
type Options struct {
	// MinScale and MaxScale bound the instances' size relative to the
	// exemplar's (0: the defaults).
	MinScale, MaxScale float64
	// MaxStretch bounds the stretch of elongated glyphs along their long
	// axis, from 1/MaxStretch to MaxStretch (0: the default; 1: none).
	MaxStretch float64
	// MaxTilt, when positive, keeps only instances within MaxTilt degrees
	// of the exemplar turned by a multiple of 90°; 0 allows any angle.
	MaxTilt float64
	// NoMirror skips mirrored instances.
	NoMirror bool
	// MinScore is the least score returned (0: DefaultMinScore).
	MinScore float64
	// NearMissScore, when positive and under MinScore, also returns the
	// poses scoring from NearMissScore up to MinScore, marked NearMiss:
	// what was looked at and fell just short. The matches scoring
	// MinScore or more are the same with it as without it.
	NearMissScore float64
	// RingFloor is the least ring likeness of a place looked at more
	// closely (0: ringMinScore). Lower finds instances whose rings a
	// neighbour or a wire disturbs, at more candidates' cost.
	RingFloor float64
	// RingMaxRadius, when positive, bounds the radius in coarse pixels
	// of the largest variant of a glyph searched stretched as well as
	// scaled on the ring stage's level: lower reads its rings on
	// a coarser level, faster on a large page and less disturbed by
	// wires, but a legend's small glyph loses detail there
	// (0: DefaultRingMaxRadius).
	RingMaxRadius int
	// Workers is the number of goroutines (0: GOMAXPROCS).
	Workers int
}

func (o Options) ringMaxRadius() int {
	if o.RingMaxRadius > 0 {
		return max(o.RingMaxRadius, ringMinRadius)
	}
	return ringMaxRadius
}

func (o Options) ringFloor() float64 {
	if o.RingFloor > 0 {
		return o.RingFloor
	}
	return ringMinScore
}

func (o Options) minScale() float64 {
	if o.MinScale > 0 {
		return o.MinScale
	}
	return DefaultMinScale
}

func (o Options) maxScale() float64 {
	if o.MaxScale > 0 {
		return max(o.MaxScale, o.minScale())
	}
	return max(DefaultMaxScale, o.minScale())
}

func (o Options) maxStretch() float64 {
	if o.MaxStretch >= 1 {
		return o.MaxStretch
	}
	return DefaultMaxStretch
}

func (o Options) minScore() float64 {
	if o.MinScore > 0 {
		return o.MinScore
	}
	return DefaultMinScore
}

// nearMissScore is the least score of a near miss: MinScore when none
// are asked for.
func (o Options) nearMissScore() float64 {
	if o.NearMissScore > 0 && o.NearMissScore < o.minScore() {
		return o.NearMissScore
	}
	return o.minScore()
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (o Options) check() error {
	switch {
	case o.MinScale < 0 || o.MaxScale < 0 || math.IsNaN(o.MinScale) || math.IsNaN(o.MaxScale):
		return errors.New("glyphsearch: negative scale bound")
	case o.minScale() < 0.2 || o.maxScale() > 5:
		return fmt.Errorf("glyphsearch: scales %.2f–%.2f: want within 0.2–5", o.minScale(), o.maxScale())
	case o.MaxStretch > 3:
		return fmt.Errorf("glyphsearch: stretch %.2f: want at most 3", o.MaxStretch)
	case o.RingFloor < 0 || o.RingFloor >= 1:
		return fmt.Errorf("glyphsearch: ring floor %.2f: want 0–1", o.RingFloor)
	case o.MaxTilt < 0 || o.MaxTilt > 45:
		return fmt.Errorf("glyphsearch: tilt %.1f°: want 0–45", o.MaxTilt)
	}
	return nil
}

// Match is one instance found on a page.
type Match struct {
	// Box is the instance's box in page pixels: the bounds of the
	// exemplar's strokes (those inside its box) placed by the pose.
	Box detect.Box
	// Score (0..1) is the geometric mean of the pose's likeness and its
	// correlation. Likeness is the geometric mean of the share of the
	// exemplar's ink that the page holds (within a pixel) at the pose and
	// the share of the page's ink inside the placed exemplar box that the
	// exemplar's ink explains (within a pixel); correlation is the Pearson
	// correlation, over the placed box grown by a tenth, of the page's ink
	// and the placed exemplar's, both slightly blurred (0 when negative).
	Score float64
	// Angle is the turn from the exemplar to the instance in degrees,
	// clockwise on the page, [0, 360); applied after the mirror.
	Angle float64
	// Mirrored says the exemplar was mirrored (about its vertical axis)
	// before turning.
	Mirrored bool
	// Scale is the instance's size over the exemplar's.
	Scale float64
	// Stretch is the extra scale along the exemplar's long axis (1 for
	// glyphs that are not elongated).
	Stretch float64
	// NearMiss marks a pose scoring under MinScore, returned because
	// Options.NearMissScore asked for them.
	NearMiss bool
	// Found and Explained are the likeness's two shares (of a near miss,
	// what fell short): found, the share of the exemplar's ink the page
	// holds there; explained, the share of the page's ink in the placed
	// box the exemplar explains.
	Found, Explained float64
}

// Search finds every instance, on page, of the glyph inside the exemplar
// rectangle of the same page (page pixels), the exemplar itself included.
func Search(ctx context.Context, page image.Image, exemplar image.Rectangle, opt Options) ([]Match, error) {
	p, err := NewPage(ctx, page)
	if err != nil {
		return nil, err
	}
	t, err := p.Template(exemplar)
	if err != nil {
		return nil, err
	}
	return p.Search(ctx, t, opt)
}

// SearchImage finds every instance, on page, of the glyph drawn in
// exemplar, a separate image such as a legend row's glyph.
func SearchImage(ctx context.Context, page image.Image, exemplar image.Image, opt Options) ([]Match, error) {
	p, err := NewPage(ctx, page)
	if err != nil {
		return nil, err
	}
	t, err := TemplateFromImage(ctx, exemplar)
	if err != nil {
		return nil, err
	}
	return p.Search(ctx, t, opt)
}

// Search finds every instance of t on the page, best first. Matches do not
// overlap by more than a third of their union.
func (p *Page) Search(ctx context.Context, t *Template, opt Options) ([]Match, error) {
	ms, err := p.SearchAll(ctx, []*Template{t}, opt)
	if err != nil {
		return nil, err
	}
	return ms[0], nil
}

// ringGroup bounds the templates whose ring stage runs in one pass over
// the page: each holds a score and a variant per place of the level.
const ringGroup = 16

// SearchAll finds every instance of each template on the page: its i-th
// list is what Search returns for ts[i]. Templates looked at on the same
// coarse level (glyphs of about one size, such as a legend's) share the
// ring stage's pass over the page, which is most of a search's time.
func (p *Page) SearchAll(ctx context.Context, ts []*Template, opt Options) ([][]Match, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	pls := make([]*plan, len(ts))
	byLevel := map[levelKey][]int{}
	var levels []levelKey
	for i, t := range ts {
		pls[i] = newPlan(t, opt)
		k := levelKey{t.gain, pls[i].kc}
		if byLevel[k] == nil {
			levels = append(levels, k)
		}
		byLevel[k] = append(byLevel[k], i)
	}
	out := make([][]Match, len(ts))
	for _, k := range levels {
		idx := byLevel[k]
		lc := p.level(k.gain, k.k)
		for len(idx) > 0 {
			n := min(len(idx), ringGroup)
			group := make([]*plan, n)
			for j, i := range idx[:n] {
				group[j] = pls[i]
			}
			cands, err := ringSearch(ctx, lc, group, opt.workers())
			if err != nil {
				return nil, err
			}
			for j, i := range idx[:n] {
				if out[i], err = p.verify(ctx, pls[i], lc, cands[j]); err != nil {
					return nil, err
				}
			}
			idx = idx[n:]
		}
	}
	return out, nil
}

// verify turns the ring stage's candidates (on level lc) of one plan into
// matches: each candidate's poses verified and refined, the template
// cleaned by the consensus of its best matches, and the survivors scored
// by likeness and correlation, best first, overlaps suppressed.
func (p *Page) verify(ctx context.Context, pl *plan, lc *level, cands []candidate) ([]Match, error) {
	sort.Slice(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	if len(cands) > maxCandidates {
		cands = cands[:maxCandidates]
	}
	vf := &verifier{pl: pl, lv: p.level(pl.t.gain, pl.kv)}
	vf.dil = vf.lv.dilated()
	minScore := pl.opt.minScore()
	nearScore := pl.opt.nearMissScore()
	floor := max(firstFloor, min(minScore*minScore-rescoreSlack, nearScore*nearScore))
	first := make([]scored, len(cands))
	err := parallel(ctx, pl.workers, len(cands), func(i int) {
		first[i] = pl.examine(cands[i], lc, vf)
	})
	if err != nil {
		return nil, err
	}
	kept := first[:0]
	for _, f := range first {
		if f.score >= floor {
			kept = append(kept, f)
		}
	}
	kept = pl.suppressScored(kept)
	// Consensus: strokes of the exemplar's box that its best matches do
	// not share (a label, a wire, a neighbour's corner) are left out, and
	// the matches scored again without them.
	clean := pl.consensus(kept, p)
	if clean != nil {
		vc := &verifier{pl: clean, lv: vf.lv, dil: vf.dil}
		err = parallel(ctx, pl.workers, len(kept), func(i int) {
			s, _ := vc.climb(kept[i].s, clean.vfg, clean.vbg, 0.25)
			found, expl := vc.likeness(s)
			kept[i] = scored{s: s, score: math.Sqrt(found * expl), found: found, explained: expl}
		})
		if err != nil {
			return nil, err
		}
	}
	fin := pl
	if clean != nil {
		fin = clean
	}
	vfin := &verifier{pl: fin, lv: vf.lv, dil: vf.dil}
	var all []Match
	for _, k := range kept {
		// Score ≤ likeness: only a likeness over MinScore² (of a near
		// miss: NearMissScore²) can make it.
		if k.score < nearScore*nearScore {
			continue
		}
		// The correlation is refined near MinScore only, so that the
		// matches are the same with near misses asked for as without.
		score := math.Sqrt(k.score * vfin.bestCorrelation(k.s, k.score, minScore))
		if score < nearScore {
			continue
		}
		m := pl.match(k.s, score)
		m.NearMiss, m.Found, m.Explained = score < minScore, math.Round(k.found*1000)/1000, math.Round(k.explained*1000)/1000
		all = append(all, m)
	}
	out := suppress(all)
	off := p.bounds.Min
	for i := range out {
		out[i].Box.X += float64(off.X)
		out[i].Box.Y += float64(off.Y)
	}
	return out, nil
}

// scored is a verified pose and its score: of a verified pose, its
// likeness, found and explained being its two shares (verifier.likeness).
type scored struct {
	s                state
	score            float64
	found, explained float64
}

// examine verifies one candidate place: its radial hypotheses, each
// started, the best refined and scored. It returns the best (score -1
// when none holds).
func (pl *plan) examine(c candidate, lc *level, vf *verifier) scored {
	cx, cy := toLevel(c.x, lc.k), toLevel(c.y, lc.k)
	slack := int(math.Ceil(float64(pl.kc*ringStride) / 2 / float64(pl.kv)))
	// The rings' best size, and the exemplar's own size: clutter across
	// a glyph (a dashed line, a label) can make the rings favour another.
	vis := []int{c.variant}
	if u := pl.unit; u != c.variant && math.Abs(math.Log(pl.variants[c.variant].scale)) > math.Log(scaleStep) {
		vis = append(vis, u)
	}
	// Each hypothesis's best start on the sparse points; only those near
	// the best are refined.
	var starts []scored
	top := 0.0
	for _, vi := range vis {
		v := &pl.variants[vi]
		sig, ok := radialSignature(lc.ink.bilinear, cx, cy, v.rc)
		for _, h := range withRightAngles(radialHypotheses(sig, ok, v.sig, v.sigOK, pl.opt.NoMirror), pl.opt.NoMirror) {
			s := state{
				x: toLevel(c.x, pl.kv), y: toLevel(c.y, pl.kv),
				angle: h.angle, mirror: h.mirror, scale: v.scale, stretch: v.stretch,
			}
			s, fit := vf.start(s, slack)
			if fit >= startCover {
				starts = append(starts, scored{s: s, score: fit})
				top = max(top, fit)
			}
		}
	}
	best := scored{score: -1}
	for _, st := range starts {
		if st.score < top-startKeep {
			continue
		}
		s, f := vf.climb(st.s, pl.vfgSparse, pl.vbgSparse, 1)
		if f < climbFit {
			continue
		}
		s, _ = vf.climb(s, pl.vfg, pl.vbg, 0.25)
		if pl.opt.MaxTilt > 0 && !nearRightAngle(s.angle, pl.opt.MaxTilt) {
			continue
		}
		found, expl := vf.likeness(s)
		if score := math.Sqrt(found * expl); score > best.score {
			best = scored{s: s, score: score, found: found, explained: expl}
		}
	}
	return best
}

// withRightAngles adds the exemplar's quarter turns, mirrored too, to the
// rays' hypotheses: drawings place most symbols at right angles, and the
// rays miss them where a wire crosses the glyph or the candidate's centre
// is a pixel or two off (a box with a cross through its centre lined up
// at 45°). The starts judge them with the others.
func withRightAngles(hs []hypothesis, noMirror bool) []hypothesis {
	out := append([]hypothesis(nil), hs...)
	for m := 0; m < 2; m++ {
		if m == 1 && noMirror {
			break
		}
		for q := 0; q < 4; q++ {
			a := float64(q) * math.Pi / 2
			dup := false
			for _, h := range hs {
				if h.mirror == (m == 1) && math.Abs(math.Remainder(h.angle-a, 2*math.Pi)) < 5*math.Pi/180 {
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, hypothesis{angle: a, mirror: m == 1})
			}
		}
	}
	return out
}

// parallel runs f(0..n-1) on workers goroutines, stopping early when ctx
// ends.
func parallel(ctx context.Context, workers, n int, f func(i int)) error {
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	var cerr error
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				if cerr == nil && i%64 == 0 {
					cerr = ctx.Err()
				}
				stop := cerr != nil
				mu.Unlock()
				if stop || i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
	return cerr
}

// suppressScored keeps the best of poses whose boxes overlap by more than
// a third, best first.
func (pl *plan) suppressScored(ss []scored) []scored {
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].score > ss[j].score })
	var out []scored
	var boxes []detect.Box
	for _, s := range ss {
		b := pl.match(s.s, s.score).Box
		keep := true
		for _, o := range boxes {
			if b.IoU(o) > 1.0/3 {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, s)
			boxes = append(boxes, b)
		}
	}
	return out
}

// nearRightAngle reports whether angle (radians) is within tilt degrees of
// a multiple of 90°.
func nearRightAngle(angle, tilt float64) bool {
	d := math.Mod(angle*180/math.Pi, 90)
	return d <= tilt || 90-d <= tilt
}

// match makes the Match of a verified pose.
func (pl *plan) match(s state, score float64) Match {
	t := pl.t
	k := pl.kv
	ps := pose{angle: s.angle, mirror: s.mirror, scale: s.scale, stretch: s.stretch}
	m := ps.linear(t.axis)
	cx, cy := fromLevel(s.x, k), fromLevel(s.y, k)
	lo, hi := vec{math.Inf(1), math.Inf(1)}, vec{math.Inf(-1), math.Inf(-1)}
	for _, h := range t.hull {
		x, y := m.apply(h.x, h.y)
		lo.x, lo.y = min(lo.x, x), min(lo.y, y)
		hi.x, hi.y = max(hi.x, x), max(hi.y, y)
	}
	return Match{
		Box:      detect.Box{X: cx + lo.x, Y: cy + lo.y, W: hi.x - lo.x, H: hi.y - lo.y},
		Score:    math.Round(score*1000) / 1000,
		Angle:    math.Round(s.angle*180/math.Pi*10) / 10,
		Mirrored: s.mirror,
		Scale:    math.Round(s.scale*1000) / 1000,
		Stretch:  math.Round(s.stretch*1000) / 1000,
	}
}

// Size agreement (SameSize): the strong matches (score ≥ sizeStrong) set
// the glyph's size on a page, their median scale; matches more than
// sizeTolerance times larger or smaller are dropped.
const (
	sizeStrong    = 0.9
	sizeTolerance = 1.2
)

// SizeOf returns the size the matches (of one glyph, on one page) settle
// on: the median scale of those scoring at least sizeStrong, and how many
// such strong matches there are (0: no size, scale 0).
func SizeOf(ms []Match) (scale float64, strong int) {
	var logs []float64
	for _, m := range ms {
		if m.Score >= sizeStrong && m.Scale > 0 {
			logs = append(logs, math.Log(m.Scale))
		}
	}
	if len(logs) == 0 {
		return 0, 0
	}
	sort.Float64s(logs)
	mid := logs[len(logs)/2]
	if len(logs)%2 == 0 {
		mid = (logs[len(logs)/2-1] + mid) / 2
	}
	return math.Exp(mid), len(logs)
}

// SizeTolerance is how many times larger or smaller than the size its
// strong matches settle on (SizeOf) a match of a glyph SameSize keeps.
const SizeTolerance = sizeTolerance

// SameSize keeps the matches (of one glyph, on one page) whose scale is
// within sizeTolerance of the median scale of those scoring at least
// sizeStrong (SizeOf), in their order; with no strong match it keeps
// them all. Where one glyph is drawn at one size on a page (a legend's
// symbol on a plan), a match at another size is a look-alike: a circle of
// another symbol, a rectangle of a wall. A search does not apply it
// itself: a sheet may hold a glyph at two sizes (an enlarged plan beside
// the main one).
func SameSize(ms []Match) []Match {
	size, n := SizeOf(ms)
	if n == 0 {
		return ms
	}
	mid := math.Log(size)
	out := ms[:0:0]
	for _, m := range ms {
		if m.Scale > 0 && math.Abs(math.Log(m.Scale)-mid) <= math.Log(sizeTolerance) {
			out = append(out, m)
		}
	}
	return out
}

// suppress keeps the best of matches that overlap by more than a third of
// their union (the same instance reached from two places), best first.
func suppress(ms []Match) []Match {
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Score > ms[j].Score })
	var out []Match
	for _, m := range ms {
		keep := true
		for _, o := range out {
			if m.Box.IoU(o.Box) > 1.0/3 {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, m)
		}
	}
	return out
}
