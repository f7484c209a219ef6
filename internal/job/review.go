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
	// Version increases by one on every successful Store.PutPageReviews;
	// 0 is reviews not stored yet.
	Version int64 `json:"version"`
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
// none.
func (s *Service) pageReviews(ctx context.Context, j *Job, page int) (*PageReviews, error) {
	if !slices.Contains(j.ReviewedPages, page) {
		return nil, nil
	}
	pr, err := s.cfg.Store.GetPageReviews(ctx, j.ID, page)
	if errors.Is(err, ErrNotFound) {
		return nil, nil // listed by a review that did not get to store it
	}
	if err != nil {
		return nil, fmt.Errorf("load reviews of page %d: %w", page, err)
	}
	return pr, nil
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
	return sp.reviewed(pr, j.Legend), nil
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

// writeReviews applies fn to the freshly loaded reviews of a page and
// stores them conditionally, retrying when another review of the page won
// a race. fn returning errNoChange stores nothing. The job records the page
// as reviewed (and the time) before its reviews are stored: a crash in
// between leaves a listed page without reviews, which reads as none.
func (s *Service) writeReviews(ctx context.Context, j *Job, page int, fn func(pr *PageReviews) error) (*PageReviews, error) {
	marked := false
	for attempt := 1; ; attempt++ {
		pr, err := s.cfg.Store.GetPageReviews(ctx, j.ID, page)
		if errors.Is(err, ErrNotFound) {
			pr, err = &PageReviews{JobID: j.ID, Page: page}, nil
		}
		if err != nil {
			return nil, internal("load reviews", err)
		}
		if err := fn(pr); errors.Is(err, errNoChange) {
			return pr, nil
		} else if err != nil {
			return nil, err
		}
		if !marked {
			_, err := s.update(ctx, j.ID, func(j *Job) error {
				if j.Status != Done {
					return Errorf(CodeConflict, "job is %s; only a done job can be reviewed", j.Status)
				}
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
		err = s.cfg.Store.PutPageReviews(ctx, pr)
		if errors.Is(err, ErrVersionConflict) && attempt < maxReviewWriteAttempts {
			continue
		}
		if err != nil {
			return nil, internal("store reviews", err)
		}
		return pr, nil
	}
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
	pr, err := s.writeReviews(ctx, j, page, func(pr *PageReviews) error {
		changed := false
		for i, a := range adds {
			if pr.find(ids[i]) >= 0 {
				continue
			}
			box := a.Box
			pr.Reviews = append(pr.Reviews, Review{DetectionID: ids[i], Decision: DecisionAdded, Class: a.Class, Box: &box, At: now})
			changed = true
		}
		if !changed {
			return errNoChange
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	sp, err := s.loadPage(ctx, jobID, page)
	if err != nil {
		return nil, false, internal("load results", err)
	}
	all := sp.reviewed(pr, j.Legend)
	syms := s.symbolViews(lang)
	out = &AddedDetections{Detections: make([]DetectionView, 0, len(ids))}
	for _, id := range ids {
		for _, d := range all.Detections {
			if d.ID == id {
				out.Detections = append(out.Detections, s.detectionView(d, p, syms))
				break
			}
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
	pr, err := s.writeReviews(ctx, j, page, func(pr *PageReviews) error {
		i := pr.find(detectionID)
		if i < 0 {
			if detected < 0 {
				return Errorf(CodeNotFound, "detection %q not found on page %d", detectionID, page)
			}
			pr.Reviews = append(pr.Reviews, Review{DetectionID: detectionID})
			i = len(pr.Reviews) - 1
		}
		rv := &pr.Reviews[i]
		before := *rv
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
		isNew := before.At.IsZero()
		empty := !added && rv.Decision == "" && rv.Class == ""
		switch {
		case isNew && empty:
			pr.Reviews = slices.Delete(pr.Reviews, i, i+1)
			return errNoChange
		case !isNew && rv.Decision == before.Decision && rv.Class == before.Class:
			return errNoChange
		case empty:
			pr.Reviews = slices.Delete(pr.Reviews, i, i+1) // nothing left of the review
		default:
			rv.At = now
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, d := range sp.reviewed(pr, j.Legend).Detections {
		if d.ID == detectionID {
			v := s.detectionView(d, p, s.symbolViews(lang))
			return &v, nil
		}
	}
	return nil, internal("review detection", fmt.Errorf("detection %s vanished from page %d", detectionID, page))
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
