package search

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"sort"

	"blueprint/internal/darkness"
	"blueprint/internal/detect"
	"blueprint/internal/glyphsearch"
)

// Near misses on image pages: the poses scoring from ImageNearMissFloor up
// to glyphsearch's match floor (glyphsearch.DefaultMinScore, or
// Options.MinScore), with a reason from the pose's two likeness shares
// and its size against the page's good matches.
const (
	// ImageNearMissFloor is the least score of a near miss on an image
	// page: 0.1 under glyphsearch's default floor of 0.82.
	ImageNearMissFloor = 0.72
	// ImageSizeTolerance: a pose more than this many times larger or
	// smaller than the box's drawing, or a near miss than the median of
	// the page's matches scoring 0.9 or more, is a near miss
	// ReasonOtherSize (glyphsearch.SameSize's tolerance). Measured on the
	// real sets' 200-DPI renders and ev_charging_us_e003.png, one search
	// per class: of the glyph search's matches within 1.2 times the
	// exemplar's size 203 were right and 50 wrong, beyond it 8 right and
	// 282 wrong (parts of larger symbols, letters).
	ImageSizeTolerance = 1.2
	// ImagePageSizeVotes is the least number of matches scoring
	// ImagePageSizeScore or more on a page other than the exemplar's whose
	// median size, rather than the exemplar's, is that page's size of the
	// symbol: a plan drawn at another scale draws its symbols smaller or
	// larger. A look-alike (a luminaire searched for with a spotlight, the
	// same rings without the cross) scores 0.9 at most.
	ImagePageSizeVotes = 3
	ImagePageSizeScore = 0.95
)

// Images is the ImageSearcher of page images: package glyphsearch's search
// for the ink inside the box, at any angle, mirrored, 0.7–1.5× (its
// defaults unless Options says otherwise), from places whose rings are
// ImageRingFloor like the box's. A pose more than ImageSizeTolerance times
// larger or smaller than the box's drawing is a near miss
// (ReasonOtherSize): a drawing draws each symbol at one size. It is safe
// for concurrent use.
type Images struct {
	Options glyphsearch.Options
	// Darkness searches an exemplar drawn in colour by its darkness, as
	// one in black, among the page's black and gray drawing too; by
	// default only the page's coloured ink is read (darkness.ColouredInk),
	// and a match there needs glyphsearch.ColouredExplained.
	Darkness bool
	// PageSize lets each page other than the query's take as its
	// symbol's size the median of its strong matches
	// (ImagePageSizeVotes): the pages of one document, a plan and its
	// enlarged part drawn at another scale. Off, every page keeps the
	// exemplar's size (a glyph cut from another drawing at the page's
	// size).
	PageSize bool
	// Crop says the query is a crop cut tight round its glyph (a drawn
	// glyph lent by a reference job): its colour is told from all its ink
	// (coloured), not also from the ink lying wholly inside the box, which
	// in a crop is the glyph's inner detail.
	Crop bool
}

// ImageRingFloor is the least ring likeness of a place the search looks
// at more closely (glyphsearch.Options.RingFloor; the glyph search's own
// default, 0.66, is set for legend glyphs searched on their plans). The
// size rule takes out most of what the lower floor lets in: on the real
// renders recall 0.701 -> 0.734 at precision 0.786 -> 0.789 (three-phase
// sockets 28 -> 38 of 63, a pair of them touching disturbs their rings),
// a fifth more time a search; 0.55 found nothing more.
const ImageRingFloor = 0.6

// ImageRingMaxRadius bounds the ring stage's largest radius of a glyph
// searched stretched (glyphsearch.Options.RingMaxRadius; the glyph
// search's own 48 px is set for legend glyphs read on their plans, which
// lose detail coarser).
const ImageRingMaxRadius = 32

// options is s.Options with ImageRingFloor and ImageRingMaxRadius where
// it sets none.
func (s Images) options() glyphsearch.Options {
	o := s.Options
	if o.RingFloor <= 0 {
		o.RingFloor = ImageRingFloor
	}
	if o.RingMaxRadius <= 0 {
		o.RingMaxRadius = ImageRingMaxRadius
	}
	return o
}

var _ ImageSearcher = Images{}

// ImageRegion is a box (pixels) on a page image.
type ImageRegion struct {
	Image image.Image
	Box   detect.Box
}

// Search finds the ink inside box on query on each of pages. A page that is
// query itself (the same image value) is read once. A box holding no ink
// gives ErrEmptyRegion, one holding far more than a symbol
// (glyphsearch.ErrTooLarge) ErrRegionTooLarge.
func (s Images) Search(ctx context.Context, query image.Image, box detect.Box, pages []image.Image) ([][]Match, error) {
	q, err := s.Prepare(ctx, query, box, nil)
	if err != nil {
		return nil, err
	}
	out := make([][]Match, len(pages))
	for i, img := range pages {
		r, err := q.Find(ctx, img)
		if err != nil {
			return nil, fmt.Errorf("search: page image %d: %w", i, err)
		}
		out[i] = r.Matches
	}
	return out, nil
}

// ImageQuery is a prepared image search: the exemplar's template and the
// templates of the look-alikes excluded.
type ImageQuery struct {
	opt     glyphsearch.Options
	query   image.Image
	qp      *glyphsearch.Page
	t       *glyphsearch.Template
	exclude []*glyphsearch.Template
	// reach, when positive, is how far coloured ink encloses the black ink
	// kept beside it: the exemplar is drawn in colour, and each page is
	// searched in its coloured ink (darkness.ColouredInk).
	reach int
	// pageSize: Images.PageSize.
	pageSize bool
}

// page reads img for the search: its coloured ink where the exemplar is
// drawn in colour, its darkness otherwise.
func (q *ImageQuery) page(ctx context.Context, img image.Image) (*glyphsearch.Page, error) {
	if q.reach > 0 {
		return glyphsearch.NewPage(ctx, darkness.ColouredInk(img, q.reach))
	}
	return glyphsearch.NewPage(ctx, img)
}

// Prepare cuts the ink inside box on query into the exemplar's template,
// and the ink inside each of exclude into a look-alike's; an excluded
// region that cannot be cut is an *ExcludeError.
func (s Images) Prepare(ctx context.Context, query image.Image, box detect.Box, exclude []ImageRegion) (*ImageQuery, error) {
	q := &ImageQuery{opt: s.options(), query: query, pageSize: s.PageSize}
	// coloured holds the box's pixels at once: a box larger than any
	// exemplar, which the template refuses below, is not read for it.
	small := box.W <= glyphsearch.MaxExemplarSide && box.H <= glyphsearch.MaxExemplarSide
	if !s.Darkness && small && coloured(query, boxRect(query, box), !s.Crop) {
		// a symbol's black parts lie within it: its box's larger side
		q.reach = int(math.Ceil(max(box.W, box.H)))
	}
	qp, err := q.page(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("search: page image: %w", err)
	}
	t, err := imageTemplate(qp, query, box)
	if err != nil {
		return nil, err
	}
	q.qp, q.t = qp, t
	read := []*glyphsearch.Page{qp}
	imgs := []image.Image{query}
	for i, x := range exclude {
		var xp *glyphsearch.Page
		for k, img := range imgs {
			if img == x.Image {
				xp = read[k]
			}
		}
		if xp == nil {
			if xp, err = q.page(ctx, x.Image); err != nil {
				return nil, fmt.Errorf("search: page image of exclude[%d]: %w", i, err)
			}
			read, imgs = append(read, xp), append(imgs, x.Image)
		}
		xt, err := imageTemplate(xp, x.Image, x.Box)
		if errors.Is(err, ErrEmptyRegion) || errors.Is(err, ErrRegionTooLarge) {
			return nil, &ExcludeError{Index: i, Err: err}
		}
		if err != nil {
			return nil, err
		}
		q.exclude = append(q.exclude, xt)
	}
	return q, nil
}

// boxRect is box on img as whole pixels within img's bounds.
func boxRect(img image.Image, box detect.Box) image.Rectangle {
	return box.Pixels().Add(img.Bounds().Min).Intersect(img.Bounds())
}

func imageTemplate(p *glyphsearch.Page, img image.Image, box detect.Box) (*glyphsearch.Template, error) {
	t, err := p.Template(boxRect(img, box))
	if errors.Is(err, glyphsearch.ErrNoGlyph) {
		return nil, ErrEmptyRegion
	}
	if errors.Is(err, glyphsearch.ErrTooLarge) {
		return nil, ErrRegionTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("search: exemplar: %w", err)
	}
	return t, nil
}

// Find searches img (query itself, the same image value, is read once)
// for the exemplar: its matches and its near misses, best first, less
// those that fit an excluded look-alike's template at least as well (its
// glyphsearch score there at least the exemplar's).
func (q *ImageQuery) Find(ctx context.Context, img image.Image) (Result, error) {
	out := Result{Matches: []Match{}, NearMisses: []NearMiss{}}
	p := q.qp
	if img != q.query {
		var err error
		if p, err = q.page(ctx, img); err != nil {
			return out, err
		}
	}
	opt := q.opt
	if opt.NearMissScore <= 0 {
		opt.NearMissScore = ImageNearMissFloor
	}
	ms, err := p.Search(ctx, q.t, opt)
	if err != nil {
		return out, err
	}
	var looks []glyphsearch.Match
	if len(q.exclude) > 0 && len(ms) > 0 {
		xopt := q.opt
		xopt.MinScore, xopt.NearMissScore = ImageNearMissFloor, 0
		xs, err := p.SearchAll(ctx, q.exclude, xopt)
		if err != nil {
			return out, err
		}
		for _, x := range xs {
			looks = append(looks, x...)
		}
	}
	strongSize, strong := medianLogScale(ms, 0.9)
	// The exemplar's page draws the symbol at the exemplar's size; another
	// page, drawn at its own scale, at the size of its good matches.
	ref := 0.0
	if q.pageSize && img != q.query {
		if size, votes := medianLogScale(ms, ImagePageSizeScore); votes >= ImagePageSizeVotes {
			ref = size
		}
	}
	o := img.Bounds().Min
	for _, m := range ms {
		if likeLookAlike(m, looks) {
			continue
		}
		b := m.Box
		b.X, b.Y = b.X-float64(o.X), b.Y-float64(o.Y)
		// A drawing draws a symbol at one size: a pose of another size is
		// another thing (part of a larger symbol, a letter) however well
		// its ink fits. Its proportion may differ (a linear fitting drawn
		// to its length).
		otherSize := m.Scale > 0 && math.Abs(math.Log(m.Scale)-ref) > math.Log(ImageSizeTolerance)
		// Searched in coloured ink, a pose whose box holds coloured ink
		// the exemplar does not explain is another symbol drawn round
		// it (a luminaire's ring in a floodlight's two).
		extra := q.reach > 0 && m.Explained < glyphsearch.ColouredExplained
		if !m.NearMiss && !otherSize && !extra {
			out.Matches = append(out.Matches, Match{Box: b, Score: round3(m.Score)})
			continue
		}
		reason := ReasonExtraStroke
		switch {
		case otherSize, strong > 0 && m.Scale > 0 && math.Abs(math.Log(m.Scale)-strongSize) > math.Log(ImageSizeTolerance):
			reason = ReasonOtherSize
		case m.Found < m.Explained:
			reason = ReasonMissingStroke
		}
		out.NearMisses = append(out.NearMisses, NearMiss{Box: b, Score: round3(m.Score), Reason: reason})
	}
	return out, nil
}

// medianLogScale returns the median log scale (of an even count the upper
// one) of the matches of ms, near misses left out, scoring at least
// score, and how many there are (0: none, median 0).
func medianLogScale(ms []glyphsearch.Match, score float64) (float64, int) {
	var logs []float64
	for _, m := range ms {
		if !m.NearMiss && m.Score >= score && m.Scale > 0 {
			logs = append(logs, math.Log(m.Scale))
		}
	}
	if len(logs) == 0 {
		return 0, 0
	}
	sort.Float64s(logs)
	return logs[len(logs)/2], len(logs)
}

// likeLookAlike reports whether one of looks (matches of excluded
// templates) is at m's instance with a score at least m's.
func likeLookAlike(m glyphsearch.Match, looks []glyphsearch.Match) bool {
	for _, x := range looks {
		if x.Score >= m.Score && sameInstance(m.Box, x.Box) {
			return true
		}
	}
	return false
}
