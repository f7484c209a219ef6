package job

import (
	"math"
	"time"

	"blueprint/internal/detect"
)

// The wire shapes of the partner API. Field names are the contract's;
// nullable fields are pointers without omitempty so that they appear as
// null.

// UploadDescriptor tells the client where and how to PUT the file.
type UploadDescriptor struct {
	Method      string `json:"method"`
	URL         string `json:"url"`
	ContentType string `json:"content_type"`
	MaxBytes    int64  `json:"max_bytes"`
	ExpiresAt   string `json:"expires_at"`
}

// Created is the 201 response of init.
type Created struct {
	JobID       string           `json:"job_id"`
	Status      State            `json:"status"`
	ExternalRef *string          `json:"external_ref"`
	Upload      UploadDescriptor `json:"upload"`
	// ReferenceJobs is additive: init's reference_jobs, absent when none.
	ReferenceJobs []string `json:"reference_jobs,omitempty"`
}

// Uploaded is the 200 response of the signed upload PUT.
type Uploaded struct {
	JobID  string `json:"job_id"`
	Status State  `json:"status"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Started is the 202 response of start.
type Started struct {
	JobID   string `json:"job_id"`
	Status  State  `json:"status"`
	PollURL string `json:"poll_url"`
}

// AwaitingView is the poll response of an awaiting_upload job.
type AwaitingView struct {
	JobID       string           `json:"job_id"`
	Status      State            `json:"status"`
	ExternalRef *string          `json:"external_ref"`
	CreatedAt   string           `json:"created_at"`
	FileName    string           `json:"file_name"`
	Uploaded    bool             `json:"uploaded"`
	Upload      UploadDescriptor `json:"upload"`
	// StartOnUpload and StartError are additive: whether an upload starts
	// the job, and why the last start check refused the stored file (null
	// when none did, or a new upload has replaced that file).
	StartOnUpload bool            `json:"start_on_upload"`
	StartError    *StartErrorView `json:"start_error"`
	// ReferenceJobs is additive: init's reference_jobs, absent when none.
	ReferenceJobs []string `json:"reference_jobs,omitempty"`
}

// RunningView is the poll response of a queued or processing job.
type RunningView struct {
	JobID       string  `json:"job_id"`
	Status      State   `json:"status"`
	ExternalRef *string `json:"external_ref"`
	CreatedAt   string  `json:"created_at"`
	StartedAt   *string `json:"started_at"`
	FileName    *string `json:"file_name"`
	PagesTotal  *int    `json:"pages_total"`
	PagesDone   *int    `json:"pages_done"`
	// StartOnUpload is additive: init's start_on_upload.
	StartOnUpload bool `json:"start_on_upload"`
	// PagesFinished is additive: the indexes of the pages finished so
	// far, in increasing order (pages finish out of order), while the job
	// processes; null while it is queued, and for a job whose progress
	// was counted before the service kept which pages were done.
	PagesFinished []int `json:"pages_finished"`
	// ReferenceJobs is additive: init's reference_jobs, absent when none.
	ReferenceJobs []string `json:"reference_jobs,omitempty"`
}

// Thresholds are a model's inference thresholds.
type Thresholds struct {
	Confidence  float64 `json:"confidence"`
	SingleClass float64 `json:"single_class"`
}

// SymbolCount is one row of the take-off by symbol.
type SymbolCount struct {
	Class        string  `json:"class"`
	DisplayName  *string `json:"display_name"`
	Talo2010Code *string `json:"talo2010_code"`
	Category     *string `json:"category"`
	Count        int     `json:"count"`
}

// Summary is the quantity take-off of a job.
type Summary struct {
	TotalDetections int            `json:"total_detections"`
	BySymbol        []SymbolCount  `json:"by_symbol"`
	ByCategory      map[string]int `json:"by_category"`
}

// BoxView is a box on the wire.
type BoxView struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// SourceView says which methods produced a detection.
type SourceView struct {
	Detector       bool `json:"detector"`
	VectorMatching bool `json:"vector_matching"`
	// Tag (additive): a schedule code written beside the symbol on the
	// plan named it.
	Tag bool `json:"tag"`
}

// SymbolView is the catalog description of a symbol class on the wire: an
// item of the symbol catalog (GET /v1/symbols) and the class fields of
// every detection. Fields the catalog does not know are null.
type SymbolView struct {
	Class          string  `json:"class"`
	DisplayName    *string `json:"display_name"`
	Category       *string `json:"category"`
	SymbolCategory *string `json:"symbol_category"`
	Color          *string `json:"color"`
	Talo2010Code   *string `json:"talo2010_code"`
	IconURL        *string `json:"icon_url"`
}

// DetectionView is one detection on the wire: its id, its class described
// by SymbolView, then confidence, boxes and source.
type DetectionView struct {
	ID string `json:"id"`
	SymbolView
	Confidence float64    `json:"confidence"`
	BBoxNorm   BoxView    `json:"bbox_norm"`
	BBoxPx     BoxView    `json:"bbox_px"`
	Source     SourceView `json:"source"`
	// Review is the reviewer's decision, absent on a detection nobody
	// reviewed.
	Review *ReviewView `json:"review,omitempty"`
	// Withheld, on a detection listed with review=all that the take-off
	// does not count until a reviewer accepts it, says why: "flood" (its
	// legend row matched far more places than the sheet can hold),
	// "catalog_only" (a guess of the catalog's glyphs or the raster
	// detector at a class no legend row of the job names, below the
	// confidence such guesses reach on real drawings) or "off_scale" (a
	// match of a legend row at under a third or over three times the size
	// of the row's other matches: a look-alike in a logo, a hatch or a
	// larger symbol); absent otherwise.
	Withheld *string `json:"withheld,omitempty"`
}

// ReviewView is a detection's review on the wire: decision is accepted,
// rejected or added (null once a decision was withdrawn); confidence is
// null for a person's decision.
type ReviewView struct {
	Decision   *string  `json:"decision"`
	Confidence *float64 `json:"confidence"`
}

// ReviewSummary counts a done job's review decisions: detections accepted,
// rejected and added by a reviewer, and when the last review was made
// (null before any).
type ReviewSummary struct {
	Accepted   int     `json:"accepted"`
	Rejected   int     `json:"rejected"`
	Added      int     `json:"added"`
	ReviewedAt *string `json:"reviewed_at"`
}

// AddedDetections is the 201 response of adding detections.
type AddedDetections struct {
	Detections []DetectionView `json:"detections"`
}

// PageView is one page of a done job.
type PageView struct {
	PageIndex      int              `json:"page_index"`
	WidthPx        int              `json:"width_px"`
	HeightPx       int              `json:"height_px"`
	RenderDPI      int              `json:"render_dpi"`
	DetectionCount int              `json:"detection_count"`
	DetectionsURL  string           `json:"detections_url"`
	ImageURL       *string          `json:"image_url"`
	Detections     *[]DetectionView `json:"detections,omitempty"`
	// Kind is what the page was taken for: floor_plan, legend, schedule,
	// riser, single_line or image (absent for jobs processed before
	// pages had kinds).
	Kind string `json:"kind,omitempty"`
}

// LegendView is one row of a legend found in the document, with the
// detections its glyph found under the active confidence filter.
type LegendView struct {
	PageIndex       int     `json:"page_index"`
	Description     string  `json:"description"`
	Class           *string `json:"class"`
	PrintedQuantity *int    `json:"printed_quantity"`
	// PartNumber is the row's cell under a part-number head, Tag the
	// words printed beside its glyph (a candela rating, a circuit code);
	// null where the row prints none.
	PartNumber *string `json:"part_number"`
	Tag        *string `json:"tag"`
	// Detected counts what the row's glyph found, rows of no class
	// included (their finds are counted here only), and the devices its
	// code's tags named (a schedule row's finds are all tagged).
	Detected int `json:"detected"`
	// Code (additive) is the product code a schedule row gives, which
	// the plans write beside its devices; null for a legend row. Source
	// (additive) is "legend" (a glyph and its description) or "schedule"
	// (a code, its description and quantity).
	Code   *string `json:"code"`
	Source string  `json:"source"`
	// Tagged (additive) counts the row's detections named by a tag on the
	// plan (of Detected). Agreement (additive) says which of the row's
	// witnesses agree: detected, tagged (a schedule row's, or a row with
	// tagged finds) and printed_quantity (where printed); see Agreement.
	Tagged    int    `json:"tagged"`
	Agreement string `json:"agreement"`
	// GlyphBBoxNorm is additive: the box of the row's glyph on its page
	// (page_index), as fractions of that page's width and height,
	// top-left origin; null where the row has no glyph box.
	GlyphBBoxNorm *BoxView `json:"glyph_bbox_norm"`
	// RepeatOf is additive: where the row repeats one on an earlier page
	// (the same description, class, tag and part number: one legend
	// drawn on several sheets), the index in the legend of the first of
	// them; null for a row that repeats none. Each copy's printed
	// quantity and detected are its own sheet's.
	RepeatOf *int `json:"repeat_of"`
	// ReferenceJob is additive: the reference job (reference_jobs) the
	// row comes from, its page_index a page of that job; absent for the
	// rows of this job's own document.
	ReferenceJob string `json:"reference_job,omitempty"`
}

// WarningView is one warning of a done job: a code (detect.Warn…), the
// page it concerns (null: the whole document) and what it means, in words.
type WarningView struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	PageIndex *int   `json:"page_index"`
}

// DoneView is the poll response (and webhook payload) of a done job.
type DoneView struct {
	JobID               string                `json:"job_id"`
	Status              State                 `json:"status"`
	ExternalRef         *string               `json:"external_ref"`
	CompletedAt         *string               `json:"completed_at"`
	FileName            *string               `json:"file_name"`
	PageCount           int                   `json:"page_count"`
	PagesWithDetections int                   `json:"pages_with_detections"`
	ConfidenceMode      string                `json:"confidence_mode"`
	InferenceThresholds map[string]Thresholds `json:"inference_thresholds"`
	Summary             Summary               `json:"summary"`
	Pages               []PageView            `json:"pages"`
	// Legend lists the legend rows read from the document (empty when it
	// has none): what each row's description names, its printed quantity
	// and how many detections its glyph found, to check one against the
	// other.
	Legend []LegendView `json:"legend"`
	// Review counts the reviewers' decisions on the job's detections.
	Review ReviewSummary `json:"review"`
	// Warnings (additive) say what the take-off cannot stand behind:
	// pages whose text was not read, pages counted without a legend,
	// classes found only by the catalog glyphs or the detector, legend
	// rows that matched far more than they print. Empty when none.
	Warnings []WarningView `json:"warnings"`
	// ReferenceJobs is additive: init's reference_jobs (the jobs whose
	// legends joined this one's), absent when none.
	ReferenceJobs []string `json:"reference_jobs,omitempty"`
}

// FailureView is the error object of a failed job.
type FailureView struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// FailedView is the poll response (and webhook payload) of a failed job.
type FailedView struct {
	JobID       string      `json:"job_id"`
	Status      State       `json:"status"`
	ExternalRef *string     `json:"external_ref"`
	CompletedAt string      `json:"completed_at"`
	Error       FailureView `json:"error"`
}

// ExpiredView is the poll response of an expired job.
type ExpiredView struct {
	JobID        string  `json:"job_id"`
	Status       State   `json:"status"`
	ExternalRef  *string `json:"external_ref"`
	CreatedAt    string  `json:"created_at"`
	ExpiredAt    string  `json:"expired_at"`
	ExpiryReason string  `json:"expiry_reason"`
}

// PageDetections is the response of the per-page detections endpoint.
type PageDetections struct {
	PageIndex      int             `json:"page_index"`
	WidthPx        int             `json:"width_px"`
	HeightPx       int             `json:"height_px"`
	RenderDPI      int             `json:"render_dpi"`
	ConfidenceMode string          `json:"confidence_mode"`
	Total          int             `json:"total"`
	Limit          int             `json:"limit"`
	Offset         int             `json:"offset"`
	Next           *int            `json:"next"`
	Detections     []DetectionView `json:"detections"`
}

// Timestamp formats t as RFC 3339 in UTC, the form of every wire timestamp.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func timestampPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Timestamp(*t)
	return &s
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// storedDetection is one detection as kept in a page's result blob.
type storedDetection struct {
	ID         string        `json:"id"`
	Class      string        `json:"class"`
	Confidence float64       `json:"confidence"`
	Box        detect.Box    `json:"box"`
	Source     detect.Source `json:"source"`
	// LegendRow is the 1-based index into Job.Legend of the row whose
	// glyph found it, 0 when none did.
	LegendRow int `json:"legend_row,omitempty"`
	// OffScale: far off the size of its legend row's other matches
	// (detect.MarkOffScale); withheld (withheldOffScale).
	OffScale bool `json:"off_scale,omitempty"`

	// Reviewed and Decision are a review applied at read time (see
	// storedPage.reviewed), never stored in the result blob.
	Reviewed bool   `json:"-"`
	Decision string `json:"-"`
	// Withheld says why it is withheld, "" when it is not: its legend
	// row is a flood (withheldFlood), it is a guess of the catalog's
	// glyphs or the raster detector at a class no legend row names
	// (withheldCatalogOnly), or it is far off the size of its row's other
	// matches (withheldOffScale); applied at read time (storedPage.withheld):
	// not counted unless a reviewer accepts it, listed with the rejected
	// (review=all) for review.
	Withheld string `json:"-"`
}

// storedPage is the content of a page's result blob.
type storedPage struct {
	Detections []storedDetection `json:"detections"`
	// Unclassed are the matches of legend rows that name no class: never
	// symbols, counted only under their rows (legend[].detected) by the
	// same filter as detections of a class the catalog does not know.
	Unclassed []storedDetection `json:"unclassed,omitempty"`
}

// visible returns the page's detections that pass the read-time filter f,
// in stored order: what the poll counts and the per-page endpoint lists.
// A reviewed page (storedPage.reviewed) keeps what a reviewer accepted or
// added whatever its confidence, and drops what a reviewer rejected, and
// the unreviewed matches of a flooded legend row (withheld), unless
// withRejected.
func (sp storedPage) visible(f detect.Filter) []storedDetection {
	return sp.filtered(f, false)
}

func (sp storedPage) filtered(f detect.Filter, withRejected bool) []storedDetection {
	kept := make([]storedDetection, 0, len(sp.Detections))
	for _, d := range sp.Detections {
		var keep bool
		switch {
		case d.Decision == DecisionRejected:
			keep = withRejected
		case d.Decision == DecisionAccepted || d.Decision == DecisionAdded:
			keep = true
		case d.Withheld != "":
			keep = withRejected && f.Keep(detect.Detection{Class: d.Class, Confidence: d.Confidence})
		default:
			keep = f.Keep(detect.Detection{Class: d.Class, Confidence: d.Confidence})
		}
		if keep {
			kept = append(kept, d)
		}
	}
	return kept
}

// Numbers on the wire are rounded to what they can mean (issue 47:
// 2513.4475708007812): a pixel box to 0.1 px of the 200-DPI raster, a box
// in fractions of the page to 6 decimals (0.1 px of an A0 page at 200 DPI
// is 1e-5 of its width), confidences and search scores to 4 decimals.
// They stay JSON numbers. Stored results keep full precision; only views
// round.
const (
	pxDecimals    = 1
	normDecimals  = 6
	scoreDecimals = 4
)

// roundTo rounds x to n decimals, half away from zero.
func roundTo(x float64, n int) float64 {
	p := math.Pow10(n)
	return math.Round(x*p) / p
}

// floorTo rounds x down to n decimals, so that a rounded confidence
// passes a floor of n decimals or fewer exactly when the stored one does.
func floorTo(x float64, n int) float64 {
	p := math.Pow10(n)
	return math.Floor(x*p+1e-9) / p
}

// pxBoxView is b, in raster pixels, on the wire.
func pxBoxView(b detect.Box) BoxView {
	return BoxView{X: roundTo(b.X, pxDecimals), Y: roundTo(b.Y, pxDecimals), Width: roundTo(b.W, pxDecimals), Height: roundTo(b.H, pxDecimals)}
}

// normBoxView is b, in raster pixels of a w × h page, as fractions of the
// page on the wire; rounding never takes it past the page's right or
// bottom edge.
func normBoxView(b detect.Box, w, h float64) BoxView {
	v := BoxView{X: roundTo(b.X/w, normDecimals), Y: roundTo(b.Y/h, normDecimals), Width: roundTo(b.W/w, normDecimals), Height: roundTo(b.H/h, normDecimals)}
	if v.X+v.Width > 1 && v.X <= 1 {
		v.Width = floorTo(1-v.X, normDecimals)
	}
	if v.Y+v.Height > 1 && v.Y <= 1 {
		v.Height = floorTo(1-v.Y, normDecimals)
	}
	return v
}

// confidenceView is a detection's confidence on the wire.
func confidenceView(c float64) float64 { return floorTo(c, scoreDecimals) }
