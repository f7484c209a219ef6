package job

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"blueprint/internal/detect"
)

// ReadOptions are the read-time choices of a poll.
type ReadOptions struct {
	// Confidence, when set, is a flat floor replacing the job's default.
	Confidence *float64
	// IncludeDetections inlines each page's detections.
	IncludeDetections bool
	// Lang selects display names ("fi": Finnish, else English).
	Lang string
}

// filter returns the active read-time filter: the query's flat floor, else
// the job's, else the catalog's per-class defaults.
func (s *Service) filter(j *Job, override *float64) detect.Filter {
	if override != nil {
		return detect.Filter{Flat: override}
	}
	if j.Confidence != nil {
		return detect.Filter{Flat: j.Confidence}
	}
	return detect.DefaultFilter(s.cfg.Catalog.Threshold)
}

// Get returns the poll view of a job in its current state: one of
// *AwaitingView, *RunningView, *DoneView, *FailedView or *ExpiredView.
func (s *Service) Get(ctx context.Context, c Caller, jobID string, o ReadOptions) (any, error) {
	j, err := s.owned(ctx, c, jobID)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, j, o)
}

func (s *Service) view(ctx context.Context, j *Job, o ReadOptions) (any, error) {
	switch j.Status {
	case AwaitingUpload:
		up, err := s.uploadDescriptor(ctx, j)
		if err != nil {
			return nil, err
		}
		return &AwaitingView{JobID: j.ID, Status: j.Status, ExternalRef: j.ExternalRef, CreatedAt: Timestamp(j.CreatedAt),
			FileName: j.FileName, Uploaded: j.Upload != nil, Upload: up,
			StartOnUpload: j.StartOnUpload, StartError: startErrorView(j.StartError), ReferenceJobs: j.ReferenceJobs}, nil
	case Queued, Processing:
		v := &RunningView{JobID: j.ID, Status: j.Status, ExternalRef: j.ExternalRef, CreatedAt: Timestamp(j.CreatedAt),
			StartedAt: timestampPtr(j.StartedAt), FileName: strPtr(j.FileName), StartOnUpload: j.StartOnUpload, ReferenceJobs: j.ReferenceJobs}
		if j.Status == Processing {
			v.PagesTotal, v.PagesDone = j.PagesTotal, j.PagesDone
			if j.PagesFinished != nil || (j.PagesDone != nil && *j.PagesDone == 0) {
				v.PagesFinished = j.PagesFinished.Pages()
			}
		}
		return v, nil
	case Done:
		return s.doneView(ctx, j, o)
	case Failed:
		v := &FailedView{JobID: j.ID, Status: j.Status, ExternalRef: j.ExternalRef, Error: FailureView{Code: CodeProcessingFailed, Message: "processing failed"}}
		if j.CompletedAt != nil {
			v.CompletedAt = Timestamp(*j.CompletedAt)
		}
		if j.Error != nil {
			v.Error = FailureView{Code: j.Error.Code, Message: j.Error.Message}
		}
		return v, nil
	case Expired:
		v := &ExpiredView{JobID: j.ID, Status: j.Status, ExternalRef: j.ExternalRef, CreatedAt: Timestamp(j.CreatedAt), ExpiryReason: j.ExpiryReason}
		if j.ExpiredAt != nil {
			v.ExpiredAt = Timestamp(*j.ExpiredAt)
		}
		return v, nil
	}
	return nil, internal("view job", fmt.Errorf("unknown state %q", j.Status))
}

// loadPage returns the stored detections of a page of a done job (the
// only callers), from the Service's cache of decoded pages when it is
// there; the result is shared and must not be modified.
func (s *Service) loadPage(ctx context.Context, jobID string, page int) (storedPage, error) {
	key := ResultKey(jobID, page)
	if sp, ok := s.pages.get(key); ok {
		return sp, nil
	}
	var sp storedPage
	data, err := s.readBlob(ctx, key, 1<<30)
	if err != nil {
		return sp, fmt.Errorf("read detections of page %d: %w", page, err)
	}
	if err := json.Unmarshal(data, &sp); err != nil {
		return sp, fmt.Errorf("decode detections of page %d: %w", page, err)
	}
	s.pages.put(key, sp)
	return sp, nil
}

// Symbol describes class as the symbol catalog and detections show it, with
// display names in lang ("fi": Finnish, else English). A class the catalog
// does not know has only its Class set.
func (s *Service) Symbol(class, lang string) SymbolView {
	v := SymbolView{Class: class}
	if sym, ok := s.cfg.Catalog.Meta(class); ok {
		v.DisplayName = strPtr(s.cfg.Catalog.DisplayName(class, lang))
		v.Category = strPtr(sym.Category)
		v.SymbolCategory = strPtr(sym.SymbolCategory)
		v.Color = strPtr(sym.Color)
		v.Talo2010Code = sym.Talo2010Code
		v.IconURL = strPtr(s.cfg.Links.IconURL(class))
	}
	return v
}

// symbolViews memoises Symbol for one response: the detections of one
// class share one SymbolView (its fields are read-only), instead of
// allocating its strings again for each of thousands of detections.
type symbolViews struct {
	s    *Service
	lang string
	m    map[string]SymbolView
}

func (s *Service) symbolViews(lang string) *symbolViews {
	return &symbolViews{s: s, lang: lang, m: map[string]SymbolView{}}
}

func (v *symbolViews) of(class string) SymbolView {
	sv, ok := v.m[class]
	if !ok {
		sv = v.s.Symbol(class, v.lang)
		v.m[class] = sv
	}
	return sv
}

func (s *Service) detectionView(d storedDetection, p Page, syms *symbolViews) DetectionView {
	v := DetectionView{
		ID: d.ID, SymbolView: syms.of(d.Class), Confidence: confidenceView(d.Confidence),
		BBoxPx: pxBoxView(d.Box),
		Source: SourceView{Detector: d.Source.Detector, VectorMatching: d.Source.VectorMatching, Tag: d.Source.Tag},
	}
	if d.Reviewed {
		v.Review = &ReviewView{Decision: strPtr(d.Decision)}
	}
	if d.Decision == "" {
		v.Withheld = strPtr(d.Withheld)
	}
	if p.Width > 0 && p.Height > 0 {
		w, h := float64(p.Width), float64(p.Height)
		v.BBoxNorm = normBoxView(d.Box, w, h)
	}
	return v
}

func (s *Service) thresholds(j *Job) map[string]Thresholds {
	out := map[string]Thresholds{}
	for _, m := range j.Models {
		out[m] = Thresholds{Confidence: detect.StoredFloor, SingleClass: detect.SingleClassFloor}
	}
	return out
}

func (s *Service) doneView(ctx context.Context, j *Job, o ReadOptions) (*DoneView, error) {
	f := s.filter(j, o.Confidence)
	v := &DoneView{
		JobID: j.ID, Status: j.Status, ExternalRef: j.ExternalRef, CompletedAt: timestampPtr(j.CompletedAt),
		FileName: strPtr(j.FileName), PageCount: len(j.Pages), ConfidenceMode: f.Mode(),
		InferenceThresholds: s.thresholds(j), Pages: []PageView{}, Legend: make([]LegendView, len(j.Legend)),
		ReferenceJobs: j.ReferenceJobs,
	}
	reps := Repeats(j.Legend)
	for i, r := range j.Legend {
		v.Legend[i] = LegendView{PageIndex: r.PageIndex, Description: r.Description, Class: strPtr(r.Class), PrintedQuantity: r.Quantity,
			PartNumber: strPtr(r.PartNumber), Tag: strPtr(r.Tag), GlyphBBoxNorm: glyphBoxNorm(r, j.Pages), Code: strPtr(r.Code), Source: r.source(), ReferenceJob: r.ReferenceJob}
		if reps[i] >= 0 {
			v.Legend[i].RepeatOf = &reps[i]
		}
	}
	counts := map[string]int{}
	syms := s.symbolViews(o.Lang)
	expires := s.now().Add(SignedGetTTL)
	ws := newWarnings(j)
	err := s.eachPage(ctx, j, f, func(p Page, ds pageDetections) error {
		ws.page(p, ds.kept, ds.withheld)
		kept := ds.kept
		countRows(v.Legend, ds.unclassed, func(l *LegendView, d storedDetection) { l.Detected, l.Tagged = l.Detected+1, l.Tagged+tagged(d) })
		pv := PageView{PageIndex: p.Index, WidthPx: p.Width, HeightPx: p.Height, RenderDPI: detect.RenderDPI,
			DetectionsURL: s.cfg.Links.DetectionsURL(j.ID, p.Index), Kind: p.Kind}
		img, err := s.cfg.Links.PageImageURL(ctx, j.ID, p.Index, expires)
		if err != nil {
			return internal("sign the page image URL", err)
		}
		pv.ImageURL = &img
		pv.DetectionCount = len(kept)
		for _, d := range kept {
			counts[d.Class]++
			if d.LegendRow > 0 && d.LegendRow <= len(v.Legend) {
				v.Legend[d.LegendRow-1].Detected++
				v.Legend[d.LegendRow-1].Tagged += tagged(d)
			}
		}
		if o.IncludeDetections {
			inline := make([]DetectionView, 0, len(kept))
			for _, d := range kept {
				inline = append(inline, s.detectionView(d, p, syms))
			}
			pv.Detections = &inline
		}
		if pv.DetectionCount > 0 {
			v.PagesWithDetections++
		}
		v.Pages = append(v.Pages, pv)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range v.Legend {
		l := &v.Legend[i]
		l.Agreement = Agreement(l.Detected, l.Tagged, l.PrintedQuantity, l.Source == SourceSchedule)
	}
	v.Summary = s.summary(counts, o.Lang)
	v.Warnings = ws.views()
	if v.Review, err = s.reviewSummary(ctx, j); err != nil {
		return nil, err
	}
	return v, nil
}

// pageDetections are a page's detections, reviews applied, under a read
// filter: those counted (kept), those withheld from the take-off until a
// reviewer accepts them (withheld: no reviewer decided on them), and the
// finds of legend rows of no class, counted under their rows only
// (unclassed).
type pageDetections struct {
	kept, withheld, unclassed []storedDetection
}

// eachPage calls fn with every page of a done job, in order, and the
// page's detections that pass f, and stops at fn's first error.
func (s *Service) eachPage(ctx context.Context, j *Job, f detect.Filter, fn func(p Page, ds pageDetections) error) error {
	for _, p := range j.Pages {
		sp, err := s.reviewedPage(ctx, j, p.Index)
		if err != nil {
			return internal("load results", err)
		}
		ds := pageDetections{kept: sp.visible(f), unclassed: storedPage{Detections: sp.Unclassed}.visible(f)}
		for _, d := range append(sp.filtered(f, true), storedPage{Detections: sp.Unclassed}.filtered(f, true)...) {
			if d.Withheld != "" && d.Decision == "" {
				ds.withheld = append(ds.withheld, d)
			}
		}
		if err := fn(p, ds); err != nil {
			return err
		}
	}
	return nil
}

// countRows calls add with the legend row of each of ds that has one:
// how the finds of rows of no class are counted.
func countRows[R any](rows []R, ds []storedDetection, add func(*R, storedDetection)) {
	for _, d := range ds {
		if d.LegendRow > 0 && d.LegendRow <= len(rows) {
			add(&rows[d.LegendRow-1], d)
		}
	}
}

// summary is the take-off of counts (class -> detections): rows by
// symbol, most counted first (ties by class), and totals by category.
// The poll's summary and every export are built by it, so they agree.
func (s *Service) summary(counts map[string]int, lang string) Summary {
	sum := Summary{BySymbol: make([]SymbolCount, 0, len(counts)), ByCategory: map[string]int{}}
	for class, n := range counts {
		sym := s.Symbol(class, lang)
		sum.BySymbol = append(sum.BySymbol, SymbolCount{Class: class, DisplayName: sym.DisplayName,
			Talo2010Code: sym.Talo2010Code, Category: sym.Category, Count: n})
		if sym.Category != nil {
			sum.ByCategory[*sym.Category] += n
		}
		sum.TotalDetections += n
	}
	sort.Slice(sum.BySymbol, func(a, b int) bool {
		x, y := sum.BySymbol[a], sum.BySymbol[b]
		if x.Count != y.Count {
			return x.Count > y.Count
		}
		return x.Class < y.Class
	})
	return sum
}

// PageOptions are the query of the per-page detections endpoint, already
// checked for range by the caller (see InvalidParameter).
type PageOptions struct {
	Confidence *float64
	Limit      int // 0: DefaultPageLimit
	Offset     int
	Lang       string
	// WithRejected lists the detections reviewers rejected too
	// (?review=all).
	WithRejected bool
}

// PageDetections returns one page of a done job's detections under the
// active filter. A job that is not done has no pages: 404.
func (s *Service) PageDetections(ctx context.Context, c Caller, jobID string, page int, o PageOptions) (*PageDetections, error) {
	j, err := s.owned(ctx, c, jobID)
	if err != nil {
		return nil, err
	}
	if j.Status != Done {
		return nil, &Error{Code: CodeNotFound, Message: notDone(j, "pages exist once it is done")}
	}
	var p *Page
	for i := range j.Pages {
		if j.Pages[i].Index == page {
			p = &j.Pages[i]
		}
	}
	if p == nil {
		return nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("page %d not found; the job has %s", page, pagesOf(len(j.Pages)))}
	}
	if o.Limit <= 0 {
		o.Limit = DefaultPageLimit
	}
	sp, err := s.reviewedPage(ctx, j, page)
	if err != nil {
		return nil, internal("load results", err)
	}
	f := s.filter(j, o.Confidence)
	kept := sp.filtered(f, o.WithRejected)
	out := &PageDetections{PageIndex: p.Index, WidthPx: p.Width, HeightPx: p.Height, RenderDPI: detect.RenderDPI,
		ConfidenceMode: f.Mode(), Total: len(kept), Limit: o.Limit, Offset: o.Offset, Detections: []DetectionView{}}
	// The window [start, end) of kept, computed without o.Offset+o.Limit,
	// which overflows for offsets near MaxInt.
	start, end := min(o.Offset, len(kept)), len(kept)
	if o.Limit < end-start {
		end = start + o.Limit
	}
	syms := s.symbolViews(o.Lang)
	out.Detections = make([]DetectionView, 0, end-start)
	for _, d := range kept[start:end] {
		out.Detections = append(out.Detections, s.detectionView(d, *p, syms))
	}
	if end < len(kept) {
		out.Next = &end
	}
	return out, nil
}

// pngSignatureHead is how every stored page image starts ("\x89PNG"), the
// check PageImage makes before handing the stream out.
const pngSignatureHead = "\x89PNG"

// PageImageStream is a stored page PNG opened for reading. The caller must
// Close it. Size is its length in bytes, or -1 when the blob store does not
// tell it cheaply.
type PageImageStream struct {
	io.ReadCloser
	Size int64
}

// sizer is implemented by blob readers that know their length without
// reading (an *os.File).
type sizer interface {
	Stat() (fs.FileInfo, error)
}

// PageImage opens the stored PNG of a page of a done job for streaming; it
// reads only the first bytes, to check that the blob is a PNG, so every
// failure (404, 500) is known before the caller writes anything. It does
// not check ownership: the caller checked the signed URL.
//
// With Config.LazyPageImages a page whose PNG is not stored yet is
// rendered from the job's upload first (renderPageImage: once for
// concurrent first views, within the memory admission), stored, and then
// streamed from storage like any other.
func (s *Service) PageImage(ctx context.Context, jobID string, page int) (*PageImageStream, error) {
	j, err := s.cfg.Store.GetJob(ctx, jobID)
	if errors.Is(err, ErrNotFound) {
		return nil, errJobNotFound(jobID)
	}
	if err != nil {
		return nil, internal("load job", err)
	}
	if j.Status != Done {
		return nil, Errorf(CodeNotFound, "page image not found")
	}
	rc, err := s.cfg.Blobs.Get(ctx, ImageKey(jobID, page))
	if errors.Is(err, ErrNotFound) && s.cfg.LazyPageImages && page >= 0 && page < len(j.Pages) {
		if err := s.renderPageImage(ctx, j, page); err != nil {
			return nil, err
		}
		rc, err = s.cfg.Blobs.Get(ctx, ImageKey(jobID, page))
	}
	if errors.Is(err, ErrNotFound) {
		return nil, Errorf(CodeNotFound, "page image not found")
	}
	if err != nil {
		return nil, internal("open page image", err)
	}
	size := int64(-1)
	if st, ok := rc.(sizer); ok {
		if fi, err := st.Stat(); err == nil {
			size = fi.Size()
		}
	}
	head := make([]byte, len(pngSignatureHead))
	if _, err := io.ReadFull(rc, head); err != nil || string(head) != pngSignatureHead {
		_ = rc.Close()
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("stored page image is not a PNG")
		}
		return nil, internal("read page image", err)
	}
	return &PageImageStream{ReadCloser: readCloser{Reader: io.MultiReader(bytes.NewReader(head), rc), Closer: rc}, Size: size}, nil
}

// readCloser joins a reader with the closer of the stream it reads from.
type readCloser struct {
	io.Reader
	io.Closer
}

// Repeats returns, for each of rows, the index of the first row it
// repeats, -1 for none: a row repeats an earlier row of the same
// description (words compared without regard to case and spacing),
// class, tag and part number drawn on another page, where no row of its
// own page repeats that one already (one legend drawn on several sheets;
// two like rows of one table stay two rows). Rows of reference jobs
// (ReferenceJob) neither repeat nor are repeated: their pages are another
// document's.
func Repeats(rows []LegendRow) []int {
	type key struct{ desc, class, tag, part string }
	norm := func(s string) string { return strings.ToUpper(strings.Join(strings.Fields(s), " ")) }
	out := make([]int, len(rows))
	first := map[key]int{}
	pages := map[int]map[int]bool{} // per first row: the pages drawing it
	for i, r := range rows {
		out[i] = -1
		if r.ReferenceJob != "" {
			continue
		}
		k := key{norm(r.Description), r.Class, norm(r.Tag), norm(r.PartNumber)}
		f, ok := first[k]
		if !ok {
			first[k] = i
			pages[i] = map[int]bool{r.PageIndex: true}
			continue
		}
		if !pages[f][r.PageIndex] {
			out[i] = f
			pages[f][r.PageIndex] = true
		}
	}
	return out
}

// glyphBoxNorm is the box of legend row r's glyph as fractions of its
// page's size, nil when the row has no glyph box or its page is not among
// pages.
func glyphBoxNorm(r LegendRow, pages []Page) *BoxView {
	if r.GlyphBox == nil {
		return nil
	}
	for _, p := range pages {
		if p.Index != r.PageIndex {
			continue
		}
		if p.Width <= 0 || p.Height <= 0 {
			return nil
		}
		w, h := float64(p.Width), float64(p.Height)
		b := normBoxView(*r.GlyphBox, w, h)
		return &b
	}
	return nil
}
