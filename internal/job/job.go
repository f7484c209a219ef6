// Package job is the domain of the service: jobs, their states and
// transitions, results and the quantity take-off. It depends only on the
// small interfaces declared here (Store, Blobs, Flow, Clock) and on
// detect.Engine; adapters for the embedded and AWS backends implement them.
package job

import (
	"time"

	"blueprint/internal/detect"
)

// State is a job's lifecycle state.
type State string

// Job states, as on the wire.
const (
	AwaitingUpload State = "awaiting_upload"
	Queued         State = "queued"
	Processing     State = "processing"
	Done           State = "done"
	Failed         State = "failed"
	Expired        State = "expired"
)

// Job is the stored record of one job. It is serialised as JSON by store
// adapters; field names are stable storage names, not the wire format.
type Job struct {
	ID     string `json:"id"`
	Owner  string `json:"owner"` // ID of the owning API key (never the key itself)
	Status State  `json:"status"`

	FileName    string   `json:"file_name"`
	MimeType    string   `json:"mime_type"`
	Size        int64    `json:"size"` // declared on init
	Models      []string `json:"models"`
	Confidence  *float64 `json:"confidence,omitempty"` // job default flat threshold
	ExternalRef *string  `json:"external_ref,omitempty"`
	CallbackURL string   `json:"callback_url,omitempty"`
	// StartOnUpload: a recorded upload starts the job (StartUploaded).
	StartOnUpload bool `json:"start_on_upload,omitempty"`
	// ReferenceJobs are done jobs of the same key whose legends and
	// reviewed detections join this job's templates (init's
	// reference_jobs, in the order given; see references.go).
	ReferenceJobs []string `json:"reference_jobs,omitempty"`
	// StartError is why the last start check refused the stored file;
	// nil once a new upload is recorded or the job is queued.
	StartError *StartError `json:"start_error,omitempty"`

	CreatedAt       time.Time  `json:"created_at"`
	UploadExpiresAt time.Time  `json:"upload_expires_at"`
	QueuedAt        *time.Time `json:"queued_at,omitempty"` // when start queued it
	StartedAt       *time.Time `json:"started_at,omitempty"`
	CompletedAt     *time.Time `json:"completed_at,omitempty"`
	ExpiredAt       *time.Time `json:"expired_at,omitempty"`
	ExpiryReason    string     `json:"expiry_reason,omitempty"`

	Upload     *Upload `json:"upload,omitempty"`      // the stored file, once PUT
	PagesTotal *int    `json:"pages_total,omitempty"` // known once processing has opened the file
	PagesDone  *int    `json:"pages_done,omitempty"`
	// BatchPagesDone counts, for a job processed in page batches, the
	// pages each batch has finished, by the batch's first page; PagesDone
	// is their sum. A batch run twice sets its own count again, so
	// duplicates never count a page twice. BatchProgressAt is the time of
	// the last count: the sweep fails a batched job only once it stops
	// making progress (Recover).
	BatchPagesDone  map[int]int `json:"batch_pages_done,omitempty"`
	BatchProgressAt *time.Time  `json:"batch_progress_at,omitempty"`
	// PagesFinished is which pages are finished while the job processes
	// (pages finish out of order, batches in parallel); nil before the
	// first and for jobs whose progress was counted before it was kept.
	// It is dropped once the job is done.
	PagesFinished PageSet `json:"pages_finished,omitempty"`
	// ProcessingAttempts counts starts of processing that did not end
	// cleanly (a graceful shutdown gives its attempt back); a job found
	// processing after MaxProcessingAttempts such starts has crashed the
	// worker each time and is failed instead of retried.
	ProcessingAttempts int    `json:"processing_attempts,omitempty"`
	Pages              []Page `json:"pages,omitempty"` // filled as pages finish
	// Legend holds the rows of the legends the document pass found (see
	// LegendRow); their detections carry the row's number.
	Legend []LegendRow `json:"legend,omitempty"`
	// Warnings are what the document pass could not read (text drawn as
	// outlines, legends on images off); the poll adds those it works out
	// from the detections (Service.warnings).
	Warnings []Warning `json:"warnings,omitempty"`
	// Withheld are the legend rows (1-based, as storedDetection's
	// LegendRow) whose matches were a flood (floodedRows): not counted
	// until a reviewer accepts them.
	Withheld []int `json:"withheld,omitempty"`
	// OffPlan are the places where the document pass found a page draws
	// no installed device (detect.DocumentInfo.OffPlan): its legend and
	// schedule tables and its title block. Search leaves matches there out.
	OffPlan []OffPlanRegion `json:"off_plan,omitempty"`
	Error   *Failure        `json:"error,omitempty"` // set when Failed

	Webhook *Delivery `json:"webhook,omitempty"` // pending or finished webhook delivery

	// ReviewedPages lists the pages whose reviews are stored (see
	// PageReviews), in the order they were first reviewed; ReviewedAt is
	// the time of the last review.
	ReviewedPages []int      `json:"reviewed_pages,omitempty"`
	ReviewedAt    *time.Time `json:"reviewed_at,omitempty"`
	// AddedDetections counts the detections reviewers added to the job's
	// pages, rejected ones included (capped at MaxAddedPerJob); it may
	// count a few whose write failed. Jobs reviewed before it existed
	// count from 0.
	AddedDetections int `json:"added_detections,omitempty"`

	// Version increases by one on every successful Store.UpdateJob; updates
	// are conditional on it (optimistic concurrency).
	Version int64 `json:"version"`
}

// Upload describes the file stored by the signed PUT.
type Upload struct {
	Size       int64     `json:"size"`
	SHA256     string    `json:"sha256"`         // known once the service has read the file
	ETag       string    `json:"etag,omitempty"` // the blob store's entity tag (direct uploads)
	StoredAt   time.Time `json:"stored_at"`
	Invalid    bool      `json:"invalid,omitempty"` // start found it unusable
	BlobKey    string    `json:"blob_key"`
	Generation int       `json:"generation"` // increases with every replacing PUT
}

// Page is the stored result summary of one processed page. Its detections
// are stored as a blob (see ResultKey).
type Page struct {
	Index  int    `json:"index"`
	Width  int    `json:"width"`          // raster pixels at RenderDPI (images: native pixels)
	Height int    `json:"height"`         // raster pixels
	Kind   string `json:"kind,omitempty"` // what the document pass took the page for (detect.Kind…)
}

// LegendRow is one legend row found in a job's document.
type LegendRow struct {
	PageIndex   int    `json:"page_index"`
	Description string `json:"description"`
	Class       string `json:"class,omitempty"` // "" when it names no catalog class
	Quantity    *int   `json:"quantity,omitempty"`
	PartNumber  string `json:"part_number,omitempty"` // as printed, "" when none
	Tag         string `json:"tag,omitempty"`         // the words beside the glyph, "" when none
	// Code is a schedule row's product code, "" for a legend row; Source
	// is "legend" or "schedule" ("" for jobs processed before schedules
	// were read: a legend row).
	Code   string `json:"code,omitempty"`
	Source string `json:"source,omitempty"`
	// GlyphBox is the glyph's extent on the row's page in raster pixels
	// (detect.LegendRow.GlyphBox); nil when the row has none, and for
	// jobs processed before it was kept.
	GlyphBox *detect.Box `json:"glyph_box,omitempty"`
	// ReferenceJob is the job whose legend or review the row comes from
	// (detect.LegendRow.ReferenceJob), "" for a row of this job's own
	// document: PageIndex is then a page of that job.
	ReferenceJob string `json:"reference_job,omitempty"`
}

// OffPlanRegion is a stored detect.Region: a box (raster pixels) on page
// PageIndex where nothing drawn is an installed device.
type OffPlanRegion struct {
	PageIndex int        `json:"page_index"`
	Box       detect.Box `json:"box"`
}

// Warning is a stored warning of a done job (detect.Warning): Page -1
// concerns the whole document.
type Warning struct {
	Code    string `json:"code"`
	Page    int    `json:"page"`
	Message string `json:"message"`
}

// Failure is the error reported by a failed job.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Delivery is the state of a job's webhook event.
type Delivery struct {
	EventID       string     `json:"event_id"`
	EventType     string     `json:"event_type"` // job.done or job.failed
	Attempts      int        `json:"attempts"`
	NextAttemptAt time.Time  `json:"next_attempt_at"`
	DeliveredAt   *time.Time `json:"delivered_at,omitempty"`
	GaveUpAt      *time.Time `json:"gave_up_at,omitempty"`
	LastError     string     `json:"last_error,omitempty"`
}

// Pending reports whether the delivery still has attempts to make.
func (d *Delivery) Pending() bool {
	return d != nil && d.DeliveredAt == nil && d.GaveUpAt == nil
}

// IdempotencyRecord remembers which job an Idempotency-Key created.
type IdempotencyRecord struct {
	Owner       string    `json:"owner"`        // API key ID
	Key         string    `json:"key"`          // the Idempotency-Key header value
	RequestHash string    `json:"request_hash"` // hash of the normalised init request
	JobID       string    `json:"job_id"`
	ExpiresAt   time.Time `json:"expires_at"`
}

// Blob keys of a job's files. Every key of a job starts with JobPrefix.
func JobPrefix(jobID string) string { return "jobs/" + jobID + "/" }
func UploadKey(jobID string) string { return JobPrefix(jobID) + "upload" }

// UploadVersionKey is the key of one uploaded version of a job's file. Each
// PUT writes a new version and the job record points at the current one
// (Upload.BlobKey), so a PUT that loses a race with start never replaces
// the bytes that start validated.
func UploadVersionKey(jobID, version string) string {
	return JobPrefix(jobID) + "uploads/" + version
}
func ResultKey(jobID string, page int) string {
	return JobPrefix(jobID) + "pages/" + itoa(page) + ".json"
}
func ImageKey(jobID string, page int) string {
	return JobPrefix(jobID) + "pages/" + itoa(page) + ".png"
}

// ReferenceCutKey is where the glyphs job jobID lends to later jobs as a
// reference are kept once cut (Service.cutReference): sum names what was
// cut (the build and the rows and glyphs lent), so a review that changes
// what the job lends, or a new build, cuts again. They go with the job's
// other files.
func ReferenceCutKey(jobID, sum string) string {
	return JobPrefix(jobID) + "reference-cuts/" + sum
}
