package vector

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// Verification and acceptance parameters.
const (
	// minCoverage is the least fraction of a template's geometry (text
	// characters included) that page geometry must explain for a match.
	minCoverage = 0.8
	// tolBasePx and tolRel set how far (pixels) page geometry may lie
	// from a transformed template sample: tolBasePx + tolRel × the
	// symbol's drawn size in pixels per glyph millimetre.
	tolBasePx = 1.0
	tolRel    = 0.06
	// maxTurnSin is the sine of the largest angle between a sample's
	// tangent and the page geometry covering it.
	maxTurnSin = 0.42 // 25°
	// textCentreTol is how far, in cap heights, the centre of a glyph
	// text's characters may lie from where the glyph puts it.
	textCentreTol = 0.8
	// wholeCoverage: a pose covering this much of its template is a
	// whole find (no other pose of it is needed there).
	wholeCoverage = 0.995
	// maxOffPage is the largest fraction of a template's geometry that
	// may lie beyond the sheet edge (symbols clipped by the sheet).
	maxOffPage = 0.5
	// extensionPenalty is taken off coverage for each open template end
	// that page geometry runs on past.
	extensionPenalty = 0.04
	// endpointTolPx: segment ends closer than this meet at a corner.
	endpointTolPx = 0.75
	// maxEndsNear: a segment end with more than this many ends in the
	// cells around it (a hub where hatching or a repeated XObject draws
	// the same point over and over) forms no corners: no symbol's corner
	// is drawn that way, and pairing every end there with every other
	// would hold memory quadratic in their number.
	maxEndsNear = 32
	// A pose whose first quickChecks samples on the page (spread over
	// the whole template: spreadOrder) miss quickMisses or more is
	// rejected there, without checking the rest. A pose that covers
	// minCoverage misses about a fifth of any spread-out sample set: on
	// the real drawings no pose that passed missed more than 5 of its
	// first 16, while the poses that fail miss about half and took some
	// 54 samples each to reach the whole-template bound (docs/vector.md).
	quickChecks = 16
	quickMisses = 8
	// boundSlack keeps a pose that the lines' penalties leave at the
	// minCoverage bound to within rounding from being rejected before
	// its samples are walked: it is settled as it always was, at the end.
	boundSlack = 1e-9
	// ownLineSlack is how far, as a fraction of a template line's
	// length, the page segment drawing it may end short of or past the
	// line's ends: a block drawn a hair otherwise than its legend (a
	// wire or a wall is longer by far).
	ownLineSlack = 0.05
)

// Match is one symbol instance found on a page.
type Match struct {
	Class      string
	Box        detect.Box // raster pixels, clipped to the page
	Confidence float64
	Coverage   float64 // fraction of the template explained, 0..1
	Placement  glyph.Placement
	// Legend is set on a glyph shown in a legend table (a column of
	// different symbols, each with its description to the right): a key
	// to the drawing, not an instance.
	Legend bool
	// Row is the matched template's Row.
	Row int
	// Flooded: the template is a legend row's (Row > 0) and was found in
	// more than FloodFinds places of the page (or verified in more than
	// FloodPoses poses), so the matcher stopped looking for it there: its
	// matches are some of a flood, not a count.
	Flooded bool
}

// FloodFinds is in how many places of one page a legend row's template
// may be found whole (a pose at wholeCoverage where it was not found
// whole before) before the matcher stops looking for it there
// (Match.Flooded): more than a plan draws of one device, as the job's
// flood rule has it. The count is of places, not of every verified pose:
// a plain glyph verifies partly in many places it is not (one row on a
// real sheet 1 100 poses for 59 matches), and those say nothing of a
// flood.
const FloodFinds = detect.MaxPerPage

// FloodPoses is how many poses of a legend row's template may verify on
// one page, whole or in part, before the matcher stops looking for it
// there as it does past FloodFinds. On the real sets a row that is no
// flood verifies at most 1 497 poses (the US fire-alarm set), and the
// generated legend sets' densest page (579 of one device) fewer than
// 4 000; building2's "Television Socket" row, a stem and a bar, verified
// 13 924 on its way to 563 whole finds.
const FloodPoses = 4000

// Matcher finds its templates on pages. It is immutable after NewMatcher
// and safe for concurrent use.
type Matcher struct {
	tpls []*prepared
	// cornered: some template is looked for from page corners (a
	// corner anchor, a stretched glyph), which a page's index then
	// finds; a search for a circle or a lone line skips them.
	cornered bool
	// fittings bound the rectangles the tube fittings' stretched search
	// looks at (tubes.go); zero where no template is one.
	fittings fittingBounds
}

// NewMatcher prepares templates for matching.
func NewMatcher(tpls []Template) (*Matcher, error) {
	m := &Matcher{}
	for _, t := range tpls {
		p, err := prepare(t)
		if err != nil {
			return nil, err
		}
		m.addTemplate(p)
	}
	m.findNested()
	// A tube fitting's other tube counts (tubes.go) are searched as
	// templates of their own, after the nesting of the legend's glyphs,
	// which their base template stands for.
	for i, t := range tpls {
		base := m.tpls[i]
		for _, v := range tubeVariants(t) {
			p, err := prepare(v)
			if err != nil {
				return nil, err
			}
			p.variant, p.nested = true, base.nested
			m.addTemplate(p)
		}
	}
	return m, nil
}

// addTemplate adds prepared template p to the matcher.
func (mt *Matcher) addTemplate(p *prepared) {
	mt.tpls = append(mt.tpls, p)
	mt.cornered = mt.cornered || p.kind == anchorCorner || p.stretch != nil
	if b, ok := fittingBoundsOf(p); ok {
		mt.fittings = mt.fittings.union(b)
	}
}

// Subset returns a matcher of the templates of mt that keep accepts (by
// the Template's Class and Row), prepared once: they are mt's own.
func (mt *Matcher) Subset(keep func(class string, row int) bool) *Matcher {
	out := &Matcher{}
	for _, p := range mt.tpls {
		if keep(p.class, p.row) {
			out.addTemplate(p)
		}
	}
	return out
}

// hypothesis is a candidate pose of a template.
type hypothesis struct {
	t  *prepared
	pl glyph.Placement
}

type scored struct {
	hypothesis
	cov      float64
	explains float64 // explained geometry, mm at the page's size
	box      detect.Box
}

// priorityBoost is how much more geometry a match of a template with
// priority 1 counts as explaining when overlapping matches are ranked: a
// drawing's own legend glyph wins over a catalog glyph that explains
// about as much there, not over one that explains clearly more (a
// symbol that contains the legend glyph's shape).
const priorityBoost = 0.15

// rank orders overlapping matches: explained geometry times confidence,
// boosted by the template's priority for good matches (a weak find of a
// preferred template must not hide a strong one of another).
func (s scored) rank() float64 {
	r := s.explains * rankWeight(s.cov)
	if s.t.priority > 0 && rankWeight(s.cov) >= 0.5 { // covers OperatingCoverage
		r *= 1 + priorityBoost*float64(s.t.priority)
	}
	return r
}

// verify scores a pose: the fraction of template samples (and text
// characters) that page geometry explains. It stops early once the pose
// cannot reach minCoverage.
func (ix *pageIndex) verify(h hypothesis) (scored, bool) {
	return ix.verifyAbove(h, minCoverage)
}

// verifyAbove is verify for a caller that takes the pose only where its
// coverage exceeds above (refine, against the best pose so far): the walk
// stops once the pose cannot, and such a pose is reported as failing. A
// pose that can is scored exactly as verify scores it.
func (ix *pageIndex) verifyAbove(h hypothesis, above float64) (scored, bool) {
	ix.verified.Add(1)
	floor := math.Max(minCoverage, above)
	t := h.t
	m := h.pl.Matrix(PixelsPerMM)
	k := h.pl.Scale * PixelsPerMM
	tol := tolBasePx + tolRel*k
	total := t.lenMM + t.textMM
	allowMiss := (1 - minCoverage) * total
	step := t.lenMM / float64(len(t.samples))
	lin := glyph.Affine{A: m.A, B: m.B, C: m.C, D: m.D}
	missed, off := 0.0, 0.0
	textFound := 0.0       // glyph mm of text found
	checked, early := 0, 0 // samples checked on the page; of those, missed among the first quickChecks
	onPage := func(p glyph.Point) bool {
		return p.X >= -tol && p.Y >= -tol && p.X <= ix.pg.Width+tol && p.Y <= ix.pg.Height+tol
	}
	// Template lines covered only by longer page lines (a wire, a wall, a
	// dashed line) rather than by a segment of their own: CAD draws each
	// symbol line as its own segment.
	//
	// Each template line needs a page segment of its own: two template
	// lines closer than the tolerance (the twin stems of a double socket)
	// are not both found in one page segment (a single socket's stem).
	//
	// They are looked at before the samples: a pose that turns a glyph
	// looking alike at many angles (a speaker's disc of thin spans, each
	// a line) covers most samples at any angle, and only its lines tell
	// the angle; where their penalties alone put the pose under the
	// floor (minCoverage, or verifyAbove's) it is rejected without the
	// samples' walk, and they lower the misses the walk allows.
	unowned := 0 // template lines without a page segment of their own
	var own []int32
	for i, l := range t.lines {
		a, b := m.Apply(l[0]), m.Apply(l[1])
		if !onPage(a) || !onPage(b) {
			continue
		}
		// The page segment may end a little short of or past the
		// template line's ends (ownLineSlack), or where its optional
		// stubs start (known to within the stub margin).
		slack := ownLineSlack * math.Hypot(b.X-a.X, b.Y-a.Y)
		if t.inner[i] != l {
			slack = math.Max(slack, 2*stubMarginMM*k)
		}
		if t.overrun != nil {
			slack = math.Max(slack, t.overrun[i]*k)
		}
		if c, ok := ix.ownSegment(own, a, b, m.Apply(t.inner[i][0]), m.Apply(t.inner[i][1]), tol, slack); ok {
			own = append(own, c)
		} else if unowned++; 1-float64(unowned)*extensionPenalty < floor-boundSlack {
			return scored{}, false
		}
	}
	// cov is at most 1 - missed/total less the lines' penalties (off only
	// raises missed's share).
	allowMiss = math.Min(allowMiss, (1-floor-float64(unowned)*extensionPenalty+boundSlack)*total)
	for _, s := range t.samples {
		p := m.Apply(s.P)
		if !onPage(p) {
			// Cut off by the sheet edge: neither seen nor missed.
			off += step
			if off > maxOffPage*t.lenMM {
				return scored{}, false
			}
			continue
		}
		d := lin.Apply(s.T)
		n := math.Sqrt(d.X*d.X + d.Y*d.Y) // not Hypot: no overflow to guard against here, and this loop is hot
		d = glyph.Point{X: d.X / n, Y: d.Y / n}
		checked++
		switch {
		case ix.covered(p, d, tol, needOf(t, s.Fill)):
		case s.Opt:
			// A stub the page does not draw: neither seen nor missed.
			off += step
		default:
			missed += step
			if missed > allowMiss {
				return scored{}, false
			}
			if checked <= quickChecks {
				early++
			}
		}
		if checked == quickChecks && early >= quickMisses {
			return scored{}, false
		}
	}
	for _, tx := range t.texts {
		if !onPage(m.Apply(glyph.Point{X: tx.at.X, Y: tx.at.Y - tx.size/2})) {
			off += tx.charMM() * float64(tx.n)
			continue
		}
		miss := ix.missingChars(tx, m, k)
		missed += tx.charMM() * float64(miss)
		textFound += tx.charMM() * float64(tx.n-miss)
		if missed > allowMiss {
			return scored{}, false
		}
	}
	cov := 1 - missed/(total-off)
	// A page arc running on past a template arc's end: the pose explains
	// only part of a larger circle.
	for _, e := range t.arcEnds {
		d := lin.Apply(e.T)
		n := math.Hypot(d.X, d.Y)
		d = glyph.Point{X: d.X / n, Y: d.Y / n}
		q := m.Apply(e.P)
		probe := glyph.Point{X: q.X + (2*tol+1)*d.X, Y: q.Y + (2*tol+1)*d.Y}
		if onPage(probe) && ix.arcContinues(probe, d, m.Apply(e.C), e.R*k, tol) {
			cov -= extensionPenalty
		}
	}
	for range unowned {
		cov -= extensionPenalty
	}
	if cov < minCoverage {
		return scored{}, false
	}
	// What the pose explains, for ranking overlapping matches: drawn
	// geometry in full, text found near it at a quarter weight (a label
	// beside a symbol may read like a glyph's text). It is measured at the
	// size the pose draws it: a legend glyph drawn twice the plan's size
	// explains no more of a plan symbol than the plan draws.
	geomMM := total - missed - off - textFound
	return scored{hypothesis: h, cov: cov, explains: (geomMM + textFound/4) * h.pl.Scale}, true
}

// missingChars counts the characters of a template text that the page does
// not show where the pose puts them.
func (ix *pageIndex) missingChars(tx tplText, m glyph.Affine, k float64) int {
	centre := m.Apply(glyph.Point{X: tx.at.X, Y: tx.at.Y - tx.size/2})
	radius := (textWidthMM(tx.text, tx.size)/2 + 0.6*tx.size) * k
	capPx := tx.size * k
	missing, found := 0, 0
	var sum glyph.Point
	used := map[int32]bool{}
	for _, r := range tx.text {
		if r == ' ' {
			continue
		}
		want := string(r)
		// The nearest unused character of that letter: a label beside
		// the symbol may repeat the glyph's letters.
		best, bestD := int32(-1), math.Inf(1)
		ix.charsWithin(centre, radius, func(i int32) bool {
			c := ix.pg.Chars[i]
			if used[i] || c.Text != want {
				return true
			}
			// Em size vs cap height: fonts put caps at 0.65–0.75 em.
			if ratio := c.Size * capPerEm / capPx; ratio < 0.75 || ratio > 1.35 {
				return true
			}
			if d := math.Hypot((c.Min.X+c.Max.X)/2-centre.X, (c.Min.Y+c.Max.Y)/2-centre.Y); d < bestD {
				best, bestD = i, d
			}
			return true
		})
		if best < 0 {
			missing++
			continue
		}
		c := ix.pg.Chars[best]
		used[best] = true
		found++
		sum.X += (c.Min.X + c.Max.X) / 2
		sum.Y += (c.Min.Y + c.Max.Y) / 2
	}
	// The text found must be centred where the glyph puts it, whatever
	// its direction: a label beside the symbol that happens to read the
	// same is off centre.
	if found > 1 {
		c := glyph.Point{X: sum.X / float64(found), Y: sum.Y / float64(found)}
		if math.Hypot(c.X-centre.X, c.Y-centre.Y) > textCentreTol*tx.size*k+tolBasePx {
			return missing + found
		}
	}
	return missing
}

func (ix *pageIndex) charsWithin(p glyph.Point, radius float64, fn func(i int32) bool) {
	r := glyph.Point{X: radius, Y: radius}
	ix.chars.inBox(glyph.Point{X: p.X - r.X, Y: p.Y - r.Y}, glyph.Point{X: p.X + r.X, Y: p.Y + r.Y}, func(i int32) bool {
		c := ix.pg.Chars[i]
		m := glyph.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}
		if math.Hypot(m.X-p.X, m.Y-p.Y) > radius {
			return true
		}
		return fn(i)
	})
}

// Match finds the matcher's templates on one page.
func (mt *Matcher) Match(ctx context.Context, pg *drawing.Page) ([]Match, error) {
	ms, _, err := mt.match(ctx, pg)
	return ms, err
}

// match is Match, also returning the page index (for its counters). The
// templates are shared out to one goroutine per core; each template's poses
// are tried as before (its own seen and done sets: their keys hold the
// template), and the poses found are gathered in template order, so the
// result is the one of a single goroutine.
func (mt *Matcher) match(ctx context.Context, pg *drawing.Page) ([]Match, *pageIndex, error) {
	ix := newPageIndex(pg)
	if mt.cornered {
		ix.hashCorners() // built before the goroutines share the index
	}
	if mt.fittings.maxGap > 0 {
		ix.hashFittingCorners(mt.fittings)
	}
	perTpl := make([][]scored, len(mt.tpls))
	flooded := make([]bool, len(mt.tpls))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(mt.tpls))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1)) - 1
				if n >= len(mt.tpls) || ctx.Err() != nil {
					return
				}
				perTpl[n], flooded[n] = ix.matchTemplate(ctx, mt.tpls[n])
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("vector: match: %w", err)
	}
	var found []scored
	stopped := map[*prepared]bool{}
	for n, f := range perTpl {
		found = append(found, f...)
		if flooded[n] {
			stopped[mt.tpls[n]] = true
		}
	}
	ms, err := mt.finish(ctx, ix, found, stopped)
	if err != nil {
		return nil, nil, err
	}
	return ms, ix, nil
}

// poseCheckEvery is how many poses matchTemplate verifies between looks
// at its context.
const poseCheckEvery = 256

// matchTemplate tries the poses of one template's anchors on the page and
// returns those that verify. Once ctx ends it verifies no more poses (a
// plain glyph on a real sheet has hundreds of thousands) and returns what
// it found; the caller reports ctx's error.
//
// The poses are tried one after another: where the template was found
// whole, other poses there are not verified (done), and a circle's
// search starts from the poses found whole before. The poses of corners,
// lines and stretches do not depend on what was found, so they are
// taken in batches whose verifications run on every core (verifyAhead)
// and are then tried in order with those verifications: the result is
// the sequential one, and a template that floods a sheet with poses is
// no longer one core's work while the other waits. A legend row's
// template stops once found in more than FloodFinds places (flooded).
func (ix *pageIndex) matchTemplate(ctx context.Context, t *prepared) (found []scored, flooded bool) {
	seen := map[hypKey]bool{}
	// done marks where the template was already found whole: other poses
	// of it there (symmetries, other anchors of the same instance) need
	// no verification.
	done := map[int64]bool{}
	isDone := func(c cell) bool {
		for dy := int32(-1); dy <= 1; dy++ {
			for dx := int32(-1); dx <= 1; dx++ {
				if done[c.near(dx, dy)] {
					return true
				}
			}
		}
		return false
	}
	inScale := func(h hypothesis) bool { return h.pl.Scale >= h.t.minScale && h.pl.Scale <= h.t.maxScale }
	tried, stopped := 0, false
	places := 0 // where the template was found whole (done cells marked)
	// tryWith verifies a pose (of key k, in cell c), or takes its
	// verification v where v is not nil, and returns its coverage (1
	// where the template was already found whole there, 0 where the pose
	// fails).
	tryWith := func(h hypothesis, k hypKey, c cell, v *verification) float64 {
		if stopped || !inScale(h) {
			return 0
		}
		if tried++; tried%poseCheckEvery == 0 && ctx.Err() != nil {
			stopped = true
			return 0
		}
		if isDone(c) {
			return 1
		}
		if seen[k] {
			return 0
		}
		seen[k] = true
		if v == nil {
			r := ix.verifyRefined(h)
			v = &r
		}
		if !v.ok {
			return 0
		}
		found = append(found, v.s)
		if t.row > 0 && len(found) > FloodPoses {
			stopped, flooded = true, true
		}
		if v.s.cov >= wholeCoverage {
			done[c.near(0, 0)] = true
			if places++; t.row > 0 && places > FloodFinds {
				stopped, flooded = true, true
			}
		}
		return v.s.cov
	}
	try := func(h hypothesis) float64 { return tryWith(h, keyOf(h), cellOf(h), nil) }
	// batch holds poses not tried yet (corners, lines, stretches).
	type pending struct {
		h hypothesis
		k hypKey
		c cell
	}
	var batch []pending
	var hs []hypothesis
	var need []int
	keys := map[hypKey]bool{}
	// flush verifies the batch ahead and tries its poses in order,
	// writing their coverages into covs where covs is not nil.
	flush := func(covs []float64) {
		if stopped {
			batch = batch[:0]
			return
		}
		// Verified ahead: the poses that, as things stand, are to be
		// verified (their key's first in the batch). A find earlier in
		// the batch may yet spare some of them: that work is lost, and
		// the batch is small so that little is.
		hs, need = hs[:0], need[:0]
		clear(keys)
		for j, b := range batch {
			hs = append(hs, b.h)
			if !seen[b.k] && !keys[b.k] && !isDone(b.c) {
				keys[b.k] = true
				need = append(need, j)
			}
		}
		vs := ix.verifyAhead(ctx, hs, need)
		for j, b := range batch {
			c := tryWith(b.h, b.k, b.c, vs[j])
			if covs != nil {
				covs[j] = c
			}
		}
		batch = batch[:0]
	}
	poses := 0
	collect := func(h hypothesis) {
		if !inScale(h) {
			return // tried, it is 0 without a look
		}
		if poses++; poses <= soloPoses {
			try(h)
			return
		}
		if batch = append(batch, pending{h, keyOf(h), cellOf(h)}); len(batch) == poseBatch {
			flush(nil)
		}
	}
	// tryAll tries poses in order and returns their coverages: one after
	// another while the template has few poses, else in batches verified
	// ahead, as collect takes them.
	tryAll := func(hs []hypothesis) []float64 {
		covs := make([]float64, len(hs))
		for at := 0; at < len(hs); at += poseBatch {
			part := hs[at:min(len(hs), at+poseBatch)]
			if poses += len(part); poses <= soloPoses {
				for j, h := range part {
					covs[at+j] = try(h)
				}
				continue
			}
			for _, h := range part {
				batch = append(batch, pending{h, keyOf(h), cellOf(h)})
			}
			flush(covs[at : at+len(part)])
		}
		return covs
	}
	switch t.kind {
	case anchorCircle:
		ix.circleHypotheses(t, try, tryAll)
	case anchorCorner:
		ix.cornerHypotheses(t, collect)
	default:
		ix.segmentHypotheses(t, collect)
	}
	if t.stretch != nil {
		ix.stretchHypotheses(t, func(h hypothesis) float64 { collect(h); return 0 })
	}
	flush(nil)
	return found, flooded
}

// refineFrom is the least coverage of a pose that refine tries to
// improve: one that already covers nearly all of its template.
const refineFrom = 0.95

// refineSteps are refine's step sizes, coarse to fine: degrees, relative
// scale, pixels.
var refineSteps = [...]struct{ rot, scale, px float64 }{{4, 0.04, 1}, {2, 0.02, 0.5}, {1, 0.01, 0.25}}

// maxRefine bounds the poses refine verifies for one match.
const maxRefine = 48

// refine improves a pose that covers most but not all of its template by
// small steps of angle, scale and position about the template's centre:
// a symbol inserted at an odd angle or scale gets its pose from keypoints
// a few degrees or per cent off (a filled glyph's triangulated fill moves
// them), and the verification's tolerance is tighter than that. Each step
// is kept when the coverage grows; the pose's mirror is kept.
func (ix *pageIndex) refine(s scored) scored {
	t := s.t
	var ctr glyph.Point
	for _, p := range t.hull {
		ctr.X += p.X / float64(len(t.hull))
		ctr.Y += p.Y / float64(len(t.hull))
	}
	best := s
	at := s.pl.Matrix(PixelsPerMM).Apply(ctr)
	rot, scale := s.pl.Rotation, s.pl.Scale
	tries := 0
	for _, st := range refineSteps {
		for improved := true; improved && tries < maxRefine; {
			improved = false
			for _, d := range [...][4]float64{
				{st.rot, 0, 0, 0}, {-st.rot, 0, 0, 0}, {0, st.scale, 0, 0}, {0, -st.scale, 0, 0},
				{0, 0, st.px, 0}, {0, 0, -st.px, 0}, {0, 0, 0, st.px}, {0, 0, 0, -st.px},
			} {
				r, sc, p := rot+d[0], scale*(1+d[1]), glyph.Point{X: at.X + d[2], Y: at.Y + d[3]}
				if sc < t.minScale || sc > t.maxScale || tries >= maxRefine {
					continue
				}
				tries++
				c, ok := ix.verifyAbove(hypothesis{t, placeFor(ctr, p, r, sc, s.pl.Mirrored)}, best.cov)
				if ok && c.cov > best.cov {
					best, rot, scale, at, improved = c, r, sc, p, true
				}
			}
		}
	}
	return best
}
