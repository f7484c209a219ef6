package job

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"blueprint/internal/detect"
)

// Review decisions, as on the wire (review.decision of a detection).
const (
	DecisionAccepted = "accepted"
	DecisionRejected = "rejected"
	DecisionAdded    = "added"
)

// MaxAddDetections is the most detections one request may add to a page.
const MaxAddDetections = 500

// MaxAddedPerPage and MaxAddedPerJob cap the detections reviewers add to
// one page and to one job; those later rejected still count, as they stay
// stored. A request that would pass either is refused whole (422,
// details field and limit). The densest sheets the service has read hold
// about 1 000 symbols a page (docs/accuracy.md), and a reviewer adds only
// what the detector missed: 5 000 on a page is five such sheets drawn again
// by hand, 20 000 a job twenty. They keep what one key can make the
// service store, and what every read of a page decodes, bounded (issue
// 47: 60 000 additions on one page took each write to 2-3 s).
const (
	MaxAddedPerPage = 5000
	MaxAddedPerJob  = 20000
)

// MinAddedBoxPx is the smallest width and height, in pixels of the page
// (raster pixels at detect.RenderDPI, an image's own pixels), of a box a
// reviewer adds: a narrower or lower box holds no symbol at any
// resolution the service reads.
const MinAddedBoxPx = 2

// maxReviewWriteAttempts bounds the retries of a review write that lost a
// race with another review of the same page.
const maxReviewWriteAttempts = 50

// Review is a reviewer's word on one detection of a page: a detector's
// detection accepted, rejected or given another class, or a detection the
// reviewer added (Box set).
type Review struct {
	DetectionID string `json:"detection_id"`
	// Decision is accepted or rejected, "" when none (only a class given,
	// or a decision withdrawn); an added detection's is added or rejected.
	Decision string `json:"decision,omitempty"`
	// Class is the reviewer's class, "" to keep the detector's.
	Class string `json:"class,omitempty"`
	// Box is the box of an added detection, in raster pixels; nil for a
	// review of a detector's detection.
	Box *detect.Box `json:"box,omitempty"`
	At  time.Time   `json:"at"`
}

// PageReviews are the reviews of one page of a done job, stored apart from
// the job record and from the page's results (which stay as processing
// wrote them) and applied when the page is read.
type PageReviews struct {
	JobID   string   `json:"job_id"`
	Page    int      `json:"page"`
	Reviews []Review `json:"reviews"`
	// Version increases by one on every successful
	// Store.UpdatePageReviews; 0 is reviews not stored yet.
	Version int64 `json:"version"`
	// Added counts the page's stored reviews of added detections (Box
	// set), however few reviews were read.
	Added int `json:"-"`
}

// PageReviewsUpdate is one write to the reviews of a page
// (Store.UpdatePageReviews): reviews to store, replacing those of the same
// detection, and detections whose reviews go.
type PageReviewsUpdate struct {
	JobID string
	Page  int
	// Version is the version the update was made from (0: none stored).
	Version int64
	Put     []Review
	Delete  []string
}

// Apply makes to pr in memory what Store.UpdatePageReviews makes of the
// stored reviews when u.Version matches (a store that keeps a page's
// reviews as one record uses it), setting Version and Added.
func (pr *PageReviews) Apply(u PageReviewsUpdate) {
	find := pr.find
	if len(u.Put) > 8 { // an index, rather than a scan of the page a review
		at := make(map[string]int, len(pr.Reviews)+len(u.Put))
		for i, r := range pr.Reviews {
			at[r.DetectionID] = i
		}
		find = func(id string) int {
			if i, ok := at[id]; ok {
				return i
			}
			at[id] = len(pr.Reviews) // appended next
			return -1
		}
	}
	for _, r := range u.Put {
		if i := find(r.DetectionID); i >= 0 {
			pr.Reviews[i] = r
		} else {
			pr.Reviews = append(pr.Reviews, r)
		}
	}
	for _, id := range u.Delete {
		if i := pr.find(id); i >= 0 {
			pr.Reviews = slices.Delete(pr.Reviews, i, i+1)
		}
	}
	pr.Version = u.Version + 1
	pr.CountAdded()
}

// CountAdded sets Added from Reviews, for a store that reads them all.
func (pr *PageReviews) CountAdded() {
	pr.Added = 0
	for _, r := range pr.Reviews {
		if r.Box != nil {
			pr.Added++
		}
	}
}

func (pr *PageReviews) find(id string) int {
	if pr == nil {
		return -1
	}
	return slices.IndexFunc(pr.Reviews, func(r Review) bool { return r.DetectionID == id })
}

// reviewed returns the page with its reviews applied: the reviewers'
// classes and decisions on its detections, then the detections they added
// in the order they were added. A detection whose class a reviewer changed
// keeps its legend row only when the row names the new class, and is
// otherwise counted for the first row that does (as is an added one).
func (sp storedPage) reviewed(pr *PageReviews, legend []LegendRow) storedPage {
	if pr == nil || len(pr.Reviews) == 0 {
		return sp
	}
	byID := make(map[string]Review, len(pr.Reviews))
	added := 0
	for _, r := range pr.Reviews {
		if r.Box != nil {
			added++
			continue
		}
		byID[r.DetectionID] = r
	}
	out := storedPage{Detections: make([]storedDetection, 0, len(sp.Detections)+added), Unclassed: sp.Unclassed}
	for _, d := range sp.Detections {
		if r, ok := byID[d.ID]; ok {
			d = applyReview(d, r, legend)
		}
		out.Detections = append(out.Detections, d)
	}
	for _, r := range pr.Reviews {
		if r.Box != nil {
			out.Detections = append(out.Detections, applyReview(storedDetection{ID: r.DetectionID, Confidence: 1, Box: *r.Box}, r, legend))
		}
	}
	return out
}

func applyReview(d storedDetection, r Review, legend []LegendRow) storedDetection {
	d.Reviewed, d.Decision = true, r.Decision
	if r.Class != "" && r.Class != d.Class {
		d.Class = r.Class
		d.LegendRow = legendRowOf(legend, d.LegendRow, r.Class)
	}
	return d
}

// legendRowOf is the legend row (1-based, 0 for none) a detection of class
// counts for: its own row when that names class, else the first that does.
func legendRowOf(legend []LegendRow, row int, class string) int {
	if row > 0 && row <= len(legend) && legend[row-1].Class == class {
		return row
	}
	for i, r := range legend {
		if r.Class == class {
			return i + 1
		}
	}
	return 0
}

// pageReviews returns the stored reviews of a page of j, nil when it has
// none; the result is shared and must not be modified. It reads the
// page's version and decodes the reviews only when the cache does not
// hold that version.
func (s *Service) pageReviews(ctx context.Context, j *Job, page int) (*PageReviews, error) {
	if !slices.Contains(j.ReviewedPages, page) {
		return nil, nil
	}
	key := reviewCacheKey(j.ID, page)
	head, err := s.cfg.Store.GetPageReviews(ctx, j.ID, page, []string{})
	if errors.Is(err, ErrNotFound) {
		return nil, nil // listed by a review that did not get to store it
	}
	if err != nil {
		return nil, fmt.Errorf("load reviews of page %d: %w", page, err)
	}
	if pr, ok := s.reviews.get(key); ok && pr.Version == head.Version {
		return pr, nil
	}
	pr, err := s.cfg.Store.GetPageReviews(ctx, j.ID, page, nil)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load reviews of page %d: %w", page, err)
	}
	s.reviews.put(key, pr)
	return pr, nil
}

// reviewsWritten brings the cached reviews of a page up to date after u
// was stored as version v: the entry of u.Version gets u applied (on a
// copy: entries are shared), any other goes.
func (s *Service) reviewsWritten(u PageReviewsUpdate, v int64) {
	key := reviewCacheKey(u.JobID, u.Page)
	old, ok := s.reviews.get(key)
	if !ok {
		return
	}
	if old.Version != u.Version || v != u.Version+1 {
		s.reviews.drop(key)
		return
	}
	pr := *old
	pr.Reviews = slices.Clone(old.Reviews)
	pr.Apply(u)
	s.reviews.put(key, &pr)
}

// reviewedPage is a page's detections with its reviews applied.
func (s *Service) reviewedPage(ctx context.Context, j *Job, page int) (storedPage, error) {
	sp, err := s.loadPage(ctx, j.ID, page)
	if err != nil {
		return sp, err
	}
	pr, err := s.pageReviews(ctx, j, page)
	if err != nil {
		return sp, err
	}
	return sp.reviewed(pr, j.Legend).withheld(j.withholding(page)), nil
}

// withholding is what a done job withholds from its take-off until a
// reviewer accepts it: the matches of its flooded legend rows
// (Job.Withheld), and the detections no legend row found, of a class no
// legend row names, below the floor real drawings showed such guesses
// earn (detect.Withheld).
type withholding struct {
	rows  []int           // flooded legend rows, 1-based
	named map[string]bool // the classes the job's legend rows name
	// textRead: the page's text was read from its text layer (no
	// text_not_read or text_read_by_ocr warning).
	textRead bool
}

// withholding is j's on page.
func (j *Job) withholding(page int) withholding {
	w := withholding{rows: j.Withheld, named: j.namedClasses(), textRead: true}
	for _, s := range j.Warnings {
		if (s.Code == detect.WarnTextNotRead || s.Code == detect.WarnTextByOCR) && s.Page == page {
			w.textRead = false
		}
	}
	return w
}

// namedClasses are the classes the job's legend rows name: a detection of
// one of them stands on the drawing's own word.
func (j *Job) namedClasses() map[string]bool {
	named := make(map[string]bool, len(j.Legend))
	for _, r := range j.Legend {
		if r.Class != "" {
			named[r.Class] = true
		}
	}
	return named
}

// Reasons a detection is withheld (storedDetection.Withheld), as the
// warning codes that say so.
const (
	withheldFlood       = detect.WarnFlood
	withheldCatalogOnly = detect.WarnCatalogOnly
	withheldOffScale    = detect.WarnOffScale
)

// withheld marks the detections w withholds. A detection a reviewer
// changed keeps its class as the reviewer gave it: a person's word names
// it, so it is not withheld as a guess (a flooded row's stays withheld
// until accepted).
func (sp storedPage) withheld(w withholding) storedPage {
	out := storedPage{Detections: slices.Clone(sp.Detections), Unclassed: slices.Clone(sp.Unclassed)}
	for _, ds := range [][]storedDetection{out.Detections, out.Unclassed} {
		for i := range ds {
			d := &ds[i]
			switch {
			case d.LegendRow > 0 && slices.Contains(w.rows, d.LegendRow):
				d.Withheld = withheldFlood
			case !d.Reviewed && detect.Withheld(detect.Detection{Class: d.Class, Confidence: d.Confidence, Source: d.Source, LegendRow: d.LegendRow}, w.named, w.textRead):
				d.Withheld = withheldCatalogOnly
			case !d.Reviewed && d.OffScale:
				d.Withheld = withheldOffScale
			default:
				d.Withheld = ""
			}
		}
	}
	return out
}

// reviewSummary counts the decisions of j's reviews.
func (s *Service) reviewSummary(ctx context.Context, j *Job) (ReviewSummary, error) {
	sum := ReviewSummary{ReviewedAt: timestampPtr(j.ReviewedAt)}
	for _, page := range j.ReviewedPages {
		pr, err := s.pageReviews(ctx, j, page)
		if err != nil {
			return sum, internal("load reviews", err)
		}
		if pr == nil {
			continue
		}
		for _, r := range pr.Reviews {
			switch r.Decision {
			case DecisionAccepted:
				sum.Accepted++
			case DecisionRejected:
				sum.Rejected++
			case DecisionAdded:
				sum.Added++
			}
		}
	}
	return sum, nil
}

// reviewable loads a job the caller owns for a review of one of its pages:
// only a done job can be reviewed (409 otherwise: there is nothing to
// review yet, or nothing any more), and only a page it has (404).
func (s *Service) reviewable(ctx context.Context, c Caller, jobID string, page int) (*Job, Page, error) {
	j, err := s.owned(ctx, c, jobID)
	if err != nil {
		return nil, Page{}, err
	}
	if j.Status != Done {
		return nil, Page{}, Errorf(CodeConflict, "%s", notDone(j, "only a done job can be reviewed"))
	}
	for _, p := range j.Pages {
		if p.Index == page {
			return j, p, nil
		}
	}
	return nil, Page{}, Errorf(CodeNotFound, "page %d not found; the job has %s", page, pagesOf(len(j.Pages)))
}

// reviewChange is what a review request makes of the reviews of a page:
// reviews to store and detections whose reviews go; added counts the
// reviews of added detections it stores that were not stored before.
type reviewChange struct {
	put   []Review
	del   []string
	added int
}

// writeReviews reads the stored reviews of the detections ids of a page,
// has fn work out the change from them and stores it conditionally,
// retrying when another review of the page won a race. fn returning
// errNoChange stores nothing. Only those reviews are read and written, so
// a review costs the same on a page of ten reviews as on one of ten
// thousand. The job records the page as reviewed (and the time, and the
// detections added to it, refused past MaxAddedPerJob) before its reviews
// are stored: a crash in between leaves a listed page without those
// reviews, which reads as none, and additions counted that were not made,
// which only brings the job's cap nearer.
func (s *Service) writeReviews(ctx context.Context, j *Job, page int, ids []string, fn func(pr *PageReviews) (reviewChange, error)) (*PageReviews, error) {
	marked := false
	for attempt := 1; ; attempt++ {
		pr, err := s.cfg.Store.GetPageReviews(ctx, j.ID, page, ids)
		if errors.Is(err, ErrNotFound) {
			pr, err = &PageReviews{JobID: j.ID, Page: page}, nil
		}
		if err != nil {
			return nil, internal("load reviews", err)
		}
		ch, err := fn(pr)
		if errors.Is(err, errNoChange) {
			return pr, nil
		} else if err != nil {
			return nil, err
		}
		if !marked {
			_, err := s.update(ctx, j.ID, func(j *Job) error {
				if j.Status != Done {
					return Errorf(CodeConflict, "job is %s; only a done job can be reviewed", j.Status)
				}
				if ch.added > 0 && j.AddedDetections+ch.added > MaxAddedPerJob {
					return addedCapError(MaxAddedPerJob, j.AddedDetections, ch.added, "job")
				}
				j.AddedDetections += ch.added
				if !slices.Contains(j.ReviewedPages, page) {
					j.ReviewedPages = append(j.ReviewedPages, page)
				}
				now := s.now()
				j.ReviewedAt = &now
				return nil
			})
			var ae *Error
			if errors.As(err, &ae) {
				return nil, ae
			}
			if err != nil {
				return nil, internal("record the review", err)
			}
			marked = true
		}
		u := PageReviewsUpdate{JobID: j.ID, Page: page, Version: pr.Version, Put: ch.put, Delete: ch.del}
		v, err := s.cfg.Store.UpdatePageReviews(ctx, u)
		if err == nil {
			s.reviewsWritten(u, v)
		}
		if errors.Is(err, ErrVersionConflict) && attempt < maxReviewWriteAttempts {
			continue
		}
		if errors.Is(err, ErrPageReviewsFull) {
			return nil, &Error{Code: CodeUnprocessable, Err: err,
				Message: fmt.Sprintf("page %d holds as many reviews as this deployment stores for a page; nothing was changed", page),
				Details: map[string]any{"field": "detections", "limit_of": "page_storage"}}
		}
		if err != nil {
			return nil, internal("store reviews", err)
		}
		added := pr.Added + ch.added // the page's, not just of the reviews read
		pr.Apply(PageReviewsUpdate{Version: v - 1, Put: ch.put, Delete: ch.del})
		pr.Added = added
		return pr, nil
	}
}

// addedCapError is the 422 of an addition of n detections that would
// take the had detections added to a page or job past limit.
func addedCapError(limit, had, n int, of string) *Error {
	return &Error{Code: CodeUnprocessable,
		Message: fmt.Sprintf("a %s holds at most %d added detections (rejected ones included); it has %d, and these %d would pass that", of, limit, had, n),
		Details: map[string]any{"field": "detections", "limit": limit, "limit_of": of, "added": had}}
}

// NewDetection is one detection a reviewer adds: a catalog class and a box
// in fractions of the page.
type NewDetection struct {
	Class    *string  `json:"class"`
	BBoxNorm *BoxView `json:"bbox_norm"`
}

// AddDetectionsRequest is the body of POST .../detections: one detection,
// or several under "detections".
type AddDetectionsRequest struct {
	NewDetection
	Detections *[]NewDetection `json:"detections"`
}

// addition is a validated NewDetection; its JSON is what Idempotency-Key
// compares.
type addition struct {
	Class string     `json:"class"`
	Box   detect.Box `json:"box"`
}

func (s *Service) validateAdd(r AddDetectionsRequest, p Page) ([]addition, error) {
	one := r.Class != nil || r.BBoxNorm != nil
	var items []NewDetection
	switch {
	case one && r.Detections != nil:
		return nil, invalidField("detections", "give either class and bbox_norm or detections, not both")
	case one:
		items = []NewDetection{r.NewDetection}
	case r.Detections != nil:
		items = *r.Detections
	default:
		return nil, invalidField("detections", "class and bbox_norm, or detections, are required")
	}
	if len(items) == 0 || len(items) > MaxAddDetections {
		return nil, &Error{Code: CodeUnprocessable, Message: fmt.Sprintf("detections must hold 1 to %d detections", MaxAddDetections),
			Details: map[string]any{"field": "detections", "max_items": MaxAddDetections}}
	}
	out := make([]addition, 0, len(items))
	for i, it := range items {
		field := func(name string) string {
			if one {
				return name
			}
			return "detections[" + strconv.Itoa(i) + "]." + name
		}
		if err := s.checkClass(it.Class, field("class")); err != nil {
			return nil, err
		}
		b := it.BBoxNorm
		if b == nil {
			return nil, invalidField(field("bbox_norm"), "%s is required", field("bbox_norm"))
		}
		if !validNormBox(*b) {
			return nil, invalidField(field("bbox_norm"), "%s must lie within the page: x, y, width and height are fractions from 0 to 1, width and height above 0, x+width and y+height at most 1", field("bbox_norm"))
		}
		w, h := float64(p.Width), float64(p.Height)
		// (1-1e-9): a box given as MinAddedBoxPx/width may round below it.
		if b.Width*w < MinAddedBoxPx*(1-1e-9) || b.Height*h < MinAddedBoxPx*(1-1e-9) {
			return nil, &Error{Code: CodeUnprocessable,
				Message: fmt.Sprintf("%s is %.3g × %.3g pixels of the page (%d × %d); an added detection is at least %d pixels wide and high",
					field("bbox_norm"), b.Width*w, b.Height*h, p.Width, p.Height, MinAddedBoxPx),
				Details: map[string]any{"field": field("bbox_norm"), "min_px": MinAddedBoxPx}}
		}
		out = append(out, addition{Class: *it.Class, Box: detect.Box{X: b.X * w, Y: b.Y * h, W: b.Width * w, H: b.Height * h}})
	}
	return out, nil
}

func validNormBox(b BoxView) bool {
	for _, v := range []float64{b.X, b.Y, b.Width, b.Height} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return b.X >= 0 && b.Y >= 0 && b.Width > 0 && b.Height > 0 && b.X+b.Width <= 1 && b.Y+b.Height <= 1
}

// checkClass is nil when class names a symbol of the catalog.
func (s *Service) checkClass(class *string, field string) error {
	if class == nil || *class == "" {
		return invalidField(field, "%s is required", field)
	}
	if _, ok := s.cfg.Catalog.Meta(*class); !ok {
		return invalidField(field, "unknown class %q; GET /v1/symbols lists the classes", *class)
	}
	return nil
}

// addIdempotencyKey is the stored key of an Idempotency-Key sent with an
// addition to a job: a key of its own, apart from the keys of inits.
func addIdempotencyKey(jobID, key string) string {
	return "detections " + jobID + " " + key
}

// AddDetections adds the reviewer's detections to a page of a done job and
// returns them (review.decision added, confidence 1, no source). With a
// non-empty idempotencyKey a repeat of the same request returns the same
// detections and replayed=true, and adds nothing; the same key with a
// different request is 422.
func (s *Service) AddDetections(ctx context.Context, c Caller, jobID string, page int, r AddDetectionsRequest, idempotencyKey, lang string) (out *AddedDetections, replayed bool, err error) {
	if len(idempotencyKey) > MaxIdempotencyKeyLen {
		return nil, false, &Error{Code: CodeUnprocessable, Message: fmt.Sprintf("Idempotency-Key is longer than %d characters", MaxIdempotencyKeyLen),
			Details: map[string]any{"header": "Idempotency-Key"}}
	}
	j, p, err := s.reviewable(ctx, c, jobID, page)
	if err != nil {
		return nil, false, err
	}
	adds, err := s.validateAdd(r, p)
	if err != nil {
		return nil, false, err
	}
	ids := make([]string, len(adds))
	if idempotencyKey == "" {
		for i := range ids {
			ids[i] = uuid.NewString()
		}
	} else {
		body, err := json.Marshal(struct {
			Page int        `json:"page"`
			Adds []addition `json:"adds"`
		}{page, adds})
		if err != nil {
			return nil, false, internal("hash request", err)
		}
		sum := sha256.Sum256(body)
		now := s.now()
		rec := IdempotencyRecord{Owner: c.KeyID, Key: addIdempotencyKey(jobID, idempotencyKey), RequestHash: hex.EncodeToString(sum[:]),
			JobID: jobID, ExpiresAt: now.Add(IdempotencyTTL)}
		prev, err := s.cfg.Store.PutIdempotency(ctx, rec, now)
		if err != nil {
			if !errors.Is(err, ErrExists) || prev == nil {
				return nil, false, internal("store idempotency key", err)
			}
			if prev.RequestHash != rec.RequestHash {
				return nil, false, &Error{Code: CodeUnprocessable, Message: "Idempotency-Key was already used with a different request body",
					Details: map[string]any{"header": "Idempotency-Key"}}
			}
			replayed = true
		}
		// The IDs follow from the key, so a repeat (also one after a crash
		// between the key and the reviews being stored) finds, or
		// completes, what the first request added.
		for i := range ids {
			ids[i] = uuid.NewSHA1(uuid.NameSpaceOID, []byte(c.KeyID+"\x00"+rec.Key+"\x00"+strconv.Itoa(i))).String()
		}
	}
	now := s.now()
	pr, err := s.writeReviews(ctx, j, page, ids, func(pr *PageReviews) (reviewChange, error) {
		var ch reviewChange
		for i, a := range adds {
			if pr.find(ids[i]) >= 0 {
				continue
			}
			box := a.Box
			ch.put = append(ch.put, Review{DetectionID: ids[i], Decision: DecisionAdded, Class: a.Class, Box: &box, At: now})
		}
		if len(ch.put) == 0 {
			return ch, errNoChange
		}
		if pr.Added+len(ch.put) > MaxAddedPerPage {
			return ch, addedCapError(MaxAddedPerPage, pr.Added, len(ch.put), "page")
		}
		ch.added = len(ch.put)
		return ch, nil
	})
	if err != nil {
		return nil, false, err
	}
	syms := s.symbolViews(lang)
	out = &AddedDetections{Detections: make([]DetectionView, 0, len(ids))}
	for _, id := range ids {
		if i := pr.find(id); i >= 0 {
			r := pr.Reviews[i]
			d := applyReview(storedDetection{ID: r.DetectionID, Confidence: 1, Box: *r.Box}, r, j.Legend)
			out.Detections = append(out.Detections, s.detectionView(d, p, syms))
		}
	}
	return out, replayed, nil
}

// ReviewRequest is the body of PATCH .../detections/{detection_id}.
// Decision is raw to tell an absent decision (keep it) from null (withdraw
// it).
type ReviewRequest struct {
	Decision json.RawMessage `json:"decision"`
	Class    *string         `json:"class"`
}

// ReviewDetection records a reviewer's decision (accepted, rejected, or
// null to withdraw one) and/or class on a detection of a page of a done job
// and returns the detection as it now reads. A decision left out is kept;
// so is a class left out. On an added detection, accepted and null leave
// it added, rejected removes it from the counts.
func (s *Service) ReviewDetection(ctx context.Context, c Caller, jobID string, page int, detectionID string, r ReviewRequest, lang string) (*DetectionView, error) {
	j, p, err := s.reviewable(ctx, c, jobID, page)
	if err != nil {
		return nil, err
	}
	setDecision := len(r.Decision) > 0
	var decision string
	if setDecision && string(r.Decision) != "null" {
		if err := json.Unmarshal(r.Decision, &decision); err != nil || (decision != DecisionAccepted && decision != DecisionRejected) {
			return nil, &Error{Code: CodeUnprocessable, Message: "decision must be \"accepted\", \"rejected\" or null",
				Details: map[string]any{"field": "decision", "accepted": []any{DecisionAccepted, DecisionRejected, nil}}}
		}
	}
	if r.Class != nil {
		if err := s.checkClass(r.Class, "class"); err != nil {
			return nil, err
		}
	}
	if !setDecision && r.Class == nil {
		return nil, invalidField("decision", "decision or class is required")
	}
	sp, err := s.loadPage(ctx, jobID, page)
	if err != nil {
		return nil, internal("load results", err)
	}
	detected := slices.IndexFunc(sp.Detections, func(d storedDetection) bool { return d.ID == detectionID })
	now := s.now()
	pr, err := s.writeReviews(ctx, j, page, []string{detectionID}, func(pr *PageReviews) (reviewChange, error) {
		var ch reviewChange
		i := pr.find(detectionID)
		var rv Review
		if i >= 0 {
			rv = pr.Reviews[i]
		} else if detected < 0 {
			return ch, Errorf(CodeNotFound, "detection %q not found on page %d", detectionID, page)
		} else {
			rv = Review{DetectionID: detectionID}
		}
		before := rv
		added := rv.Box != nil
		if setDecision {
			rv.Decision = decision
			if added && decision != DecisionRejected {
				rv.Decision = DecisionAdded
			}
		}
		if r.Class != nil {
			rv.Class = *r.Class
			if !added && sp.Detections[detected].Class == *r.Class {
				rv.Class = "" // the detector's own class
			}
		}
		isNew := i < 0
		empty := !added && rv.Decision == "" && rv.Class == ""
		switch {
		case isNew && empty:
			return ch, errNoChange
		case !isNew && rv.Decision == before.Decision && rv.Class == before.Class:
			return ch, errNoChange
		case empty:
			ch.del = []string{detectionID} // nothing left of the review
		default:
			rv.At = now
			ch.put = []Review{rv}
		}
		return ch, nil
	})
	if err != nil {
		return nil, err
	}
	var d storedDetection
	if detected >= 0 {
		d = sp.Detections[detected]
	}
	if i := pr.find(detectionID); i >= 0 {
		rv := pr.Reviews[i]
		if rv.Box != nil {
			d = storedDetection{ID: rv.DetectionID, Confidence: 1, Box: *rv.Box}
		}
		d = applyReview(d, rv, j.Legend)
	} else if detected < 0 {
		return nil, internal("review detection", fmt.Errorf("detection %s vanished from page %d", detectionID, page))
	}
	v := s.detectionView(d, p, s.symbolViews(lang))
	return &v, nil
}

// deleteReviews removes the stored reviews of the given pages of a job.
func (s *Service) deleteReviews(ctx context.Context, jobID string, pages []int) error {
	for _, page := range pages {
		if err := s.cfg.Store.DeletePageReviews(ctx, jobID, page); err != nil {
			return fmt.Errorf("delete reviews of job %s: %w", jobID, err)
		}
	}
	return nil
}
