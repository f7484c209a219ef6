package job

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"sort"
	"strconv"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/search"
	"blueprint/internal/turns"
)

// SearchMatchIoU is the least intersection over union at which a match of a
// search is the job's existing detection (its detection_id).
const SearchMatchIoU = 0.5

// PageDrawings is an open file that reads a page's drawing without
// rendering it (package docfiles' files do). Search needs it: a Files
// whose open files lack it cannot search.
type PageDrawings interface {
	// Drawing returns page i's drawing, nil for an image.
	Drawing(ctx context.Context, i int) (*drawing.Page, error)
}

// PageImages is an open file that renders a page without encoding it
// (package docfiles' files do); the search on image pages reads page
// images through it, or decodes PagePNG where a file lacks it.
type PageImages interface {
	// PageImage returns page i as PagePNG renders it.
	PageImage(ctx context.Context, i int) (image.Image, error)
}

// SearchRequest is the body of POST /v1/jobs/{job_id}/search as decoded:
// the box to search for (bbox_norm, fractions of page page_index) and the
// pages to search (nil: every counted page).
type SearchRequest struct {
	PageIndex *int     `json:"page_index"`
	BBoxNorm  *BoxView `json:"bbox_norm"`
	Pages     *[]int   `json:"pages"`
	// Exclude are boxes around look-alikes ("not like that"), at most
	// MaxSearchExcludes: a match or near miss that fits one of them at
	// least as well as it fits the box is left out.
	Exclude *[]SearchExclude `json:"exclude"`
	// AnyColour takes matches drawn in any colour (search.Options): on a
	// sheet whose colours mark zones or circuits rather than devices.
	// Default false: a symbol drawn in another colour than the box's is
	// another device (a near miss "another_colour"). On image pages a box
	// drawn in colour is searched among the coloured ink by default, by
	// darkness (black included) with it (search.Images.Darkness).
	AnyColour *bool `json:"any_colour"`
}

// SearchExclude is a box around a look-alike, on a page of the job.
type SearchExclude struct {
	PageIndex *int     `json:"page_index"`
	BBoxNorm  *BoxView `json:"bbox_norm"`
}

// MaxSearchExcludes is the most look-alikes a search takes in exclude:
// each is one more template matched on every page searched.
const MaxSearchExcludes = 10

// MaxSearchNearMisses is the most near misses a search answers with, the
// best of them: a list a reviewer reads through, not a second take-off.
const MaxSearchNearMisses = 25

// SearchNearMiss is a candidate a search looked at and did not take: it
// scored under the match floor, down to the near-miss floor (vector pages
// search.NearMissFloor, image pages search.ImageNearMissFloor), or has
// the shape but another colour (reason another_colour) or another code
// beside it (another_tag).
type SearchNearMiss struct {
	PageIndex int     `json:"page_index"`
	BBoxNorm  BoxView `json:"bbox_norm"`
	BBoxPx    BoxView `json:"bbox_px"`
	Score     float64 `json:"score"`
	// Reason is what keeps it from being a match: one of the
	// search.Reason constants.
	Reason string `json:"reason"`
	// DetectionID is the job's detection the near miss overlaps, as a
	// match's.
	DetectionID *string `json:"detection_id"`
}

// SearchMatch is one instance a search found.
type SearchMatch struct {
	PageIndex int     `json:"page_index"`
	BBoxNorm  BoxView `json:"bbox_norm"`
	BBoxPx    BoxView `json:"bbox_px"`
	// Score is the fraction of the box's drawing the page explains at the
	// match, 0 to 1.
	Score float64 `json:"score"`
	// DetectionID is the job's detection the match overlaps (IoU at least
	// SearchMatchIoU), null when it overlaps none.
	DetectionID *string `json:"detection_id"`
}

// DefaultSearchBudget is how long a search takes at most, from its
// request's arrival (waiting for its turn and reading the upload
// included), before it answers with the pages it finished: under API
// Gateway's 29 s, with room for writing the answer and for the work in
// hand when the budget runs out to stop. A long document is searched in
// several requests, each naming the pages the last one did not reach.
const DefaultSearchBudget = 20 * time.Second

// Searches' share of the service (Config.Searches): DefaultSearchSlots
// searches run at once, one of a key at a time, and DefaultSearchWaiting
// more of a key wait for their turn; a key's search past that is refused
// at once (429, searchesBusyReason). Two slots and one a key: a key alone
// always finds a slot beside any other key's search, and a search keeps
// the machine's cores busy enough that more at once would only slow each.
const (
	DefaultSearchSlots   = 2
	DefaultSearchWaiting = 2
)

// searchesBusyReason is details.reason of a search refused or timed out
// waiting for its turn.
const searchesBusyReason = "searches_busy"

// searchRetrySeconds is the Retry-After of a search refused for its turn:
// about one search's time.
const searchRetrySeconds = 5

// SearchResult is the 200 response of a search: every match, page by page
// in the order the pages were asked for, best first within a page.
type SearchResult struct {
	Matches []SearchMatch `json:"matches"`
	Total   int           `json:"total"`
	// Complete is false when the search ran out of its time
	// (Config.SearchBudget) before every page asked for was searched.
	Complete bool `json:"complete"`
	// PagesNotSearched are the pages asked for that were not searched, in
	// the order asked (empty when Complete): ask again with them as
	// "pages" to go on.
	PagesNotSearched []int `json:"pages_not_searched"`
	// NearMisses are the candidates that fell short on the pages
	// searched, best first, at most MaxSearchNearMisses.
	NearMisses []SearchNearMiss `json:"near_misses"`
}

func (s *Service) searchBudget() time.Duration {
	if s.cfg.SearchBudget > 0 {
		return s.cfg.SearchBudget
	}
	return DefaultSearchBudget
}

// Search finds every instance of what a box on one page of a done job holds
// ("find more like this"), on the pages asked for. The job must be the
// caller's (not_found otherwise) and done (conflict otherwise); page_index
// must be one of its pages and bbox_norm a box of some area on it (clipped
// to the page: a symbol at the sheet's edge), pages (when given) its pages,
// each once (unprocessable otherwise, naming the field). On a page drawn as
// vectors the drawing inside the box is cut into a template and matched
// (package search); a box on an image page (an image upload, a scanned PDF
// page) is searched for on the rendered page images of the pages asked for
// (search.Images). A box holding no drawing, or far more than one symbol,
// is unprocessable. A match on a legend row's glyph (a key, not an
// instance) is left out. Each match carries the id of the job's detection
// it overlaps, among those the page lists by default.
func (s *Service) Search(ctx context.Context, c Caller, jobID string, r SearchRequest) (*SearchResult, error) {
	// The budget runs from the request's arrival: waiting for a turn and
	// reading the upload spend it too.
	arrived := time.Now()
	j, err := s.owned(ctx, c, jobID)
	if err != nil {
		return nil, err
	}
	if j.Status != Done {
		return nil, Errorf(CodeConflict, "%s", notDone(j, "only a done job can be searched"))
	}
	q, box, pages, err := s.validateSearch(j, r)
	if err != nil {
		return nil, err
	}
	exclude, err := validateExclude(j, r.Exclude)
	if err != nil {
		return nil, err
	}
	found, err := s.searchFile(ctx, c, j, arrived, q.Index, box, pages, search.Options{Exclude: exclude, AnyColour: r.AnyColour != nil && *r.AnyColour})
	if err != nil {
		return nil, err
	}
	// The detections each page lists by default, read once a page.
	filter := s.filter(j, nil)
	visible := map[int][]storedDetection{}
	detections := func(page int) ([]storedDetection, error) {
		if dets, ok := visible[page]; ok {
			return dets, nil
		}
		sp, err := s.reviewedPage(ctx, j, page)
		if err != nil {
			return nil, internal("load detections", err)
		}
		visible[page] = sp.visible(filter)
		return visible[page], nil
	}
	// What the take-off found at the exemplar: matches on symbols of
	// another class's code are near misses (search.SplitByTag), and near
	// misses for colour on symbols of its class are matches
	// (search.JoinSameClass).
	qdets, err := detections(q.Index)
	if err != nil {
		return nil, err
	}
	ex, onSymbol := search.ExemplarLabel(box, labels(j.Legend, qdets))
	out := &SearchResult{Matches: []SearchMatch{}, Complete: true, PagesNotSearched: []int{}, NearMisses: []SearchNearMiss{}}
	searched := map[int]bool{}
	for _, pm := range found {
		searched[pm.Page] = true
	}
	for _, p := range pages {
		if !searched[p] {
			out.PagesNotSearched = append(out.PagesNotSearched, p)
			out.Complete = false
		}
	}
	for _, pm := range found {
		p := s.pageOf(j, pm.Page)
		var dets []storedDetection
		if len(pm.Matches)+len(pm.NearMisses) > 0 {
			if dets, err = detections(pm.Page); err != nil {
				return nil, err
			}
			ls := labels(j.Legend, dets)
			search.SplitByTag(&pm, ex, onSymbol, ls)
			search.JoinSameClass(&pm, ex, onSymbol, ls)
		}
		w, h := float64(p.Width), float64(p.Height)
		overlapping := func(b detect.Box) *string {
			var id *string
			best := SearchMatchIoU
			for i := range dets {
				if v := dets[i].Box.IoU(b); v >= best {
					id, best = &dets[i].ID, v
				}
			}
			return id
		}
		for _, m := range pm.Matches {
			if OffPlan(j.Legend, j.OffPlan, pm.Page, m.Box) {
				continue
			}
			out.Matches = append(out.Matches, SearchMatch{PageIndex: pm.Page, Score: roundTo(m.Score, scoreDecimals),
				BBoxPx: pxBoxView(m.Box), BBoxNorm: normBoxView(m.Box, w, h), DetectionID: overlapping(m.Box)})
		}
		for _, n := range pm.NearMisses {
			if OffPlan(j.Legend, j.OffPlan, pm.Page, n.Box) {
				continue
			}
			out.NearMisses = append(out.NearMisses, SearchNearMiss{PageIndex: pm.Page, Score: roundTo(n.Score, scoreDecimals),
				Reason: n.Reason, BBoxPx: pxBoxView(n.Box), BBoxNorm: normBoxView(n.Box, w, h), DetectionID: overlapping(n.Box)})
		}
	}
	out.Total = len(out.Matches)
	rankNearMisses(out.NearMisses)
	if len(out.NearMisses) > MaxSearchNearMisses {
		out.NearMisses = out.NearMisses[:MaxSearchNearMisses]
	}
	return out, nil
}

// rankNearMisses orders near misses best first, those of another size
// (search.ReasonOtherSize) after all others: a drawing draws a symbol at
// one size, and a pose at another, however well it scores, is mostly part
// of a larger symbol or a letter. On the real renders' image searches
// (building2, one per class) the 25 listed held 17 of the sheet's
// instances ranked by score alone, 21 so.
func rankNearMisses(ns []SearchNearMiss) {
	sort.SliceStable(ns, func(a, b int) bool {
		oa, ob := ns[a].Reason == search.ReasonOtherSize, ns[b].Reason == search.ReasonOtherSize
		if oa != ob {
			return ob
		}
		return ns[a].Score > ns[b].Score
	})
}

// labels are dets as search.Label: each detection's box and class, and
// the code of its legend row where a tag named it (a schedule row's).
func labels(legend []LegendRow, dets []storedDetection) []search.Label {
	out := make([]search.Label, 0, len(dets))
	for _, d := range dets {
		l := search.Label{Box: d.Box, Class: d.Class}
		if d.Source.Tag && d.LegendRow > 0 && d.LegendRow <= len(legend) {
			l.Code = legend[d.LegendRow-1].Code
			l.OnTag = !d.Source.VectorMatching && !d.Source.Detector
		}
		out = append(out, l)
	}
	return out
}

// validateExclude checks a search's exclude against the done job j and
// returns its boxes in raster pixels of their pages: at most
// MaxSearchExcludes, each on a page of the job, each a box that overlaps
// its page (clipped to it) and is no larger than a searched box may be.
func validateExclude(j *Job, ex *[]SearchExclude) ([]search.Region, error) {
	if ex == nil {
		return nil, nil
	}
	if len(*ex) > MaxSearchExcludes {
		return nil, &Error{Code: CodeUnprocessable,
			Message: fmt.Sprintf("exclude lists %d boxes, more than %d: keep the look-alikes that matter", len(*ex), MaxSearchExcludes),
			Details: map[string]any{"field": "exclude", "max": MaxSearchExcludes}}
	}
	byIndex := map[int]Page{}
	for _, p := range j.Pages {
		byIndex[p.Index] = p
	}
	out := make([]search.Region, 0, len(*ex))
	for i, x := range *ex {
		field := "exclude[" + strconv.Itoa(i) + "]"
		if x.PageIndex == nil {
			return nil, invalidField(field+".page_index", "%s.page_index is required", field)
		}
		p, ok := byIndex[*x.PageIndex]
		if !ok {
			return nil, &Error{Code: CodeUnprocessable,
				Message: fmt.Sprintf("%s.page_index %d is not a page of the job; it has %s", field, *x.PageIndex, pagesOf(len(j.Pages))),
				Details: map[string]any{"field": field + ".page_index", "page_count": len(j.Pages)}}
		}
		if x.BBoxNorm == nil {
			return nil, invalidField(field+".bbox_norm", "%s.bbox_norm is required", field)
		}
		b, ok := clipNormBox(*x.BBoxNorm)
		if !ok {
			return nil, invalidField(field+".bbox_norm", "%s.bbox_norm must overlap the page: x, y, width and height are fractions of the page, width and height above 0", field)
		}
		w, h := float64(p.Width), float64(p.Height)
		box := detect.Box{X: b.X * w, Y: b.Y * h, W: b.Width * w, H: b.Height * h}
		if box.W > search.MaxBoxSide || box.H > search.MaxBoxSide {
			return nil, invalidField(field+".bbox_norm", "%s.bbox_norm is %.0f × %.0f pixels of the page, more than %d a side: draw the box around a single look-alike", field, box.W, box.H, search.MaxBoxSide)
		}
		out = append(out, search.Region{Page: p.Index, Box: box})
	}
	return out, nil
}

// pageOf returns page i of the done job j (validateSearch checked it is
// there).
func (s *Service) pageOf(j *Job, i int) Page {
	for _, p := range j.Pages {
		if p.Index == i {
			return p
		}
	}
	return Page{Index: i}
}

// validateSearch checks a search request against the done job j and
// returns the page of the box, the box in raster pixels, and the pages to
// search in the order given (default: every counted page, in page order).
func (s *Service) validateSearch(j *Job, r SearchRequest) (Page, detect.Box, []int, error) {
	if r.PageIndex == nil {
		return Page{}, detect.Box{}, nil, invalidField("page_index", "page_index is required")
	}
	byIndex := map[int]Page{}
	for _, p := range j.Pages {
		byIndex[p.Index] = p
	}
	q, ok := byIndex[*r.PageIndex]
	if !ok {
		return Page{}, detect.Box{}, nil, &Error{Code: CodeUnprocessable,
			Message: fmt.Sprintf("page_index %d is not a page of the job; it has %s", *r.PageIndex, pagesOf(len(j.Pages))),
			Details: map[string]any{"field": "page_index", "page_count": len(j.Pages)}}
	}
	if r.BBoxNorm == nil {
		return Page{}, detect.Box{}, nil, invalidField("bbox_norm", "bbox_norm is required")
	}
	b, ok := clipNormBox(*r.BBoxNorm)
	if !ok {
		return Page{}, detect.Box{}, nil, invalidField("bbox_norm", "bbox_norm must overlap the page: x, y, width and height are fractions of the page, width and height above 0; the part past the page's edge is left out")
	}
	w, h := float64(q.Width), float64(q.Height)
	box := detect.Box{X: b.X * w, Y: b.Y * h, W: b.Width * w, H: b.Height * h}
	if box.W > search.MaxBoxSide || box.H > search.MaxBoxSide {
		return Page{}, detect.Box{}, nil, invalidField("bbox_norm", "bbox_norm is %.0f × %.0f pixels of the page, more than %d a side: far more than one symbol; draw the box around a single symbol", box.W, box.H, search.MaxBoxSide)
	}
	var pages []int
	if r.Pages == nil {
		for _, p := range j.Pages {
			if detect.Counted(p.Kind) {
				pages = append(pages, p.Index)
			}
		}
		sort.Ints(pages)
		return q, box, pages, nil
	}
	if len(*r.Pages) == 0 {
		return Page{}, detect.Box{}, nil, invalidField("pages", "pages must list at least one page; omit it to search every counted page")
	}
	seen := map[int]bool{}
	for i, p := range *r.Pages {
		field := "pages[" + strconv.Itoa(i) + "]"
		if _, ok := byIndex[p]; !ok {
			return Page{}, detect.Box{}, nil, &Error{Code: CodeUnprocessable,
				Message: fmt.Sprintf("%s: %d is not a page of the job; it has %s", field, p, pagesOf(len(j.Pages))),
				Details: map[string]any{"field": field, "page_count": len(j.Pages)}}
		}
		if seen[p] {
			return Page{}, detect.Box{}, nil, invalidField(field, "%s: page %d is listed twice", field, p)
		}
		seen[p] = true
		pages = append(pages, p)
	}
	return q, box, pages, nil
}

// clipNormBox clips b (fractions of a page) to the page, as a box drawn
// round a symbol at the sheet's edge reaches past it; ok is false when no
// part of b of any size lies on the page, or b holds a NaN or an infinity.
func clipNormBox(b BoxView) (BoxView, bool) {
	for _, v := range []float64{b.X, b.Y, b.Width, b.Height} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return BoxView{}, false
		}
	}
	if b.Width <= 0 || b.Height <= 0 {
		return BoxView{}, false
	}
	x0, y0 := max(b.X, 0), max(b.Y, 0)
	x1, y1 := min(b.X+b.Width, 1), min(b.Y+b.Height, 1)
	if x1-x0 <= 0 || y1-y0 <= 0 {
		return BoxView{}, false
	}
	return BoxView{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}, true
}

// inLegend reports whether box (raster pixels of page) is a legend row's
// glyph: its centre lies in the glyph box of one of the rows read on that
// page, grown by half its size. A key to the drawing is not an instance,
// so a search never offers it.
func inLegend(rows []LegendRow, page int, box detect.Box) bool {
	cx, cy := box.X+box.W/2, box.Y+box.H/2
	for _, r := range rows {
		if r.PageIndex != page || r.GlyphBox == nil {
			continue
		}
		g := r.GlyphBox
		if cx >= g.X-g.W/2 && cx <= g.X+g.W*1.5 && cy >= g.Y-g.H/2 && cy <= g.Y+g.H*1.5 {
			return true
		}
	}
	return false
}

// searchFile takes a turn of the caller's searches (Config.Searches),
// opens the job's stored upload, charging its memory to the budget, and
// searches its pages (search.InDocumentWith, with opt) until the search budget, counted
// from arrived, runs out.
func (s *Service) searchFile(ctx context.Context, c Caller, j *Job, arrived time.Time, query int, box detect.Box, pages []int, opt search.Options) ([]search.PageMatches, error) {
	exclude := opt.Exclude
	if s.cfg.Files == nil {
		return nil, internal("search", errors.New("Config.Files is nil"))
	}
	if j.Upload == nil {
		return nil, internal("search", errors.New("the job has no stored upload"))
	}
	// Past the deadline the search answers with the pages it finished;
	// the caller's own cancellation (the client gone) still ends it as an
	// error.
	sctx, cancel := context.WithDeadline(ctx, arrived.Add(s.searchBudget()))
	defer cancel()
	start := time.Now()
	end, err := s.cfg.Searches.Acquire(sctx, c.KeyID)
	switch {
	case errors.Is(err, turns.ErrBusy):
		return nil, errSearchesBusy("this key already has a search running and %d waiting; retry when one has answered", DefaultSearchWaiting)
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("wait for a search turn: %w", ctx.Err())
	case err != nil:
		return nil, errSearchesBusy("the service is busy with other keys' searches; retry in %d s", searchRetrySeconds)
	}
	defer end()
	data, err := s.readBlob(sctx, j.Upload.BlobKey, MaxUploadBytes+1)
	if errors.Is(err, ErrNotFound) {
		return nil, errJobNotFound(j.ID) // purged by expiry meanwhile
	}
	if err != nil && sctx.Err() != nil {
		return s.searchOutOfTime(ctx, j, nil, pages)
	}
	if err != nil {
		return nil, internal("read the upload for a search", err)
	}
	mime := CanonicalMime(j.MimeType)
	// A search charges its memory without waiting for a document slot:
	// it never holds a slot a start check or a job waits for, and while
	// it holds its memory new document work waits instead.
	held := max(s.cfg.Files.OpenBytes(data, mime), 0)
	release := s.cfg.Admission.Charge(held)
	defer func() { release() }()
	f, err := s.cfg.Files.Open(sctx, data, mime)
	if err != nil && sctx.Err() != nil {
		return s.searchOutOfTime(ctx, j, nil, pages)
	}
	if err != nil {
		return nil, internal("open the upload for a search", err)
	}
	defer f.Close()
	pd, ok := f.(PageDrawings)
	if !ok && mime == MimePDF {
		return nil, internal("search", errors.New("the open file reads no page drawings"))
	}
	if need := f.PeakBytes(); need > held {
		more := s.cfg.Admission.Charge(need - held)
		first := release
		release = func() { more(); first() }
	}
	var found []search.PageMatches
	if mime == MimePDF {
		found, err = search.InDocumentWith(sctx, drawings{f: f, pd: pd}, query, box, pages, opt)
	} else {
		err = search.ErrImagePage
	}
	if errors.Is(err, search.ErrImagePage) {
		found, err = searchImages(sctx, f, query, box, pages, exclude, opt.AnyColour)
	}
	if err != nil && sctx.Err() != nil {
		return s.searchOutOfTime(ctx, j, found, pages)
	}
	var xe *search.ExcludeError
	if errors.As(err, &xe) {
		field := "exclude[" + strconv.Itoa(xe.Index) + "]"
		switch {
		case errors.Is(xe.Err, search.ErrEmptyRegion):
			return nil, invalidField(field+".bbox_norm", "%s.bbox_norm holds no drawing: draw the box around the look-alike", field)
		case errors.Is(xe.Err, search.ErrRegionTooLarge):
			return nil, invalidField(field+".bbox_norm", "%s.bbox_norm holds more drawing than one symbol: draw the box around a single look-alike", field)
		case errors.Is(xe.Err, search.ErrImagePage):
			return nil, invalidField(field+".page_index", "%s.page_index is an image page and the box searched for is on a page drawn as vectors: exclude look-alikes from vector pages", field)
		}
	}
	switch {
	case errors.Is(err, search.ErrEmptyRegion):
		return nil, invalidField("bbox_norm", "bbox_norm holds no drawing to search for: draw the box around a symbol")
	case errors.Is(err, search.ErrRegionTooLarge):
		return nil, invalidField("bbox_norm", "bbox_norm holds more drawing than one symbol: draw the box around a single symbol")
	case err != nil:
		return nil, internal("search", err)
	}
	n := 0
	for _, pm := range found {
		n += len(pm.Matches)
	}
	s.log.Info("search", "job_id", j.ID, "page_index", query, "pages", len(pages), "matches", n, "seconds", time.Since(start).Seconds())
	return found, nil
}

// searchOutOfTime is the end of a search whose budget ran out: the pages
// it finished (found), or the caller's cancellation as an error when the
// client has gone.
func (s *Service) searchOutOfTime(ctx context.Context, j *Job, found []search.PageMatches, pages []int) ([]search.PageMatches, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	s.log.Info("search out of time", "job_id", j.ID, "pages_searched", len(found), "pages", len(pages), "budget_seconds", s.searchBudget().Seconds())
	return found, nil
}

// errSearchesBusy is the 429 of a search that found no turn.
func errSearchesBusy(format string, args ...any) *Error {
	return &Error{Code: CodeRateLimited, Message: fmt.Sprintf(format, args...),
		Details: map[string]any{"reason": searchesBusyReason, "retry_after_seconds": searchRetrySeconds}}
}

// drawings is an open file as detect.Drawings.
type drawings struct {
	f  OpenFile
	pd PageDrawings
}

func (d drawings) NumPages() int { return d.f.NumPages() }

func (d drawings) Drawing(ctx context.Context, i int) (*drawing.Page, error) {
	return d.pd.Drawing(ctx, i)
}

// searchImages searches the rendered images of pages for the ink inside
// box on page query (search.Images), one page image at a time besides the
// query's. On an error it returns the pages searched before it.
//
// The look-alikes of exclude are cut from their pages' images too. With
// anyColour an exemplar drawn in colour is searched by its darkness, black
// drawing included (search.Images.Darkness), as one in black always is.
func searchImages(ctx context.Context, f OpenFile, query int, box detect.Box, pages []int, exclude []search.Region, anyColour bool) ([]search.PageMatches, error) {
	render := func(i int) (image.Image, error) {
		if pi, ok := f.(PageImages); ok {
			return pi.PageImage(ctx, i)
		}
		data, err := f.PagePNG(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("render page %d: %w", i, err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("decode page %d: %w", i, err)
		}
		return img, nil
	}
	q, err := render(query)
	if err != nil {
		return nil, err
	}
	rendered := map[int]image.Image{query: q}
	xs := make([]search.ImageRegion, len(exclude))
	for i, x := range exclude {
		img, ok := rendered[x.Page]
		if !ok {
			if img, err = render(x.Page); err != nil {
				return nil, err
			}
			rendered[x.Page] = img
		}
		xs[i] = search.ImageRegion{Image: img, Box: x.Box}
	}
	imgs := search.Images{Darkness: anyColour, PageSize: true}
	sq, err := imgs.Prepare(ctx, q, box, xs)
	if err != nil {
		return nil, err
	}
	clear(rendered) // the templates are cut: the other pages' images may go
	out := make([]search.PageMatches, 0, len(pages))
	for _, p := range pages {
		img := q
		if p != query {
			if img, err = render(p); err != nil {
				return out, err
			}
		}
		r, err := sq.Find(ctx, img)
		if err != nil {
			return out, err
		}
		out = append(out, search.PageMatches{Page: p, Matches: r.Matches, NearMisses: r.NearMisses})
	}
	return out, nil
}
