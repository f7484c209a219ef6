package job

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/turns"
	"blueprint/internal/webhook"
)

// Limits of the contract (docs/decisions.md), each named once.
const (
	// MaxUploadBytes is the largest upload: init's size limit and the
	// upload descriptor's max_bytes.
	MaxUploadBytes = 52428800
	// DefaultUploadTTL is the lifetime of an upload URL.
	DefaultUploadTTL = time.Hour
	// SignedGetTTL is the lifetime of signed image and icon URLs.
	SignedGetTTL = time.Hour
	// DefaultRetention is how long finished jobs keep their results.
	DefaultRetention = 30 * 24 * time.Hour
	// IdempotencyTTL is how long an Idempotency-Key is remembered.
	IdempotencyTTL = 24 * time.Hour
	// MaxIdempotencyKeyLen is the longest accepted Idempotency-Key.
	MaxIdempotencyKeyLen = 255
	// DefaultPageLimit and MaxPageLimit bound the per-page detections page.
	DefaultPageLimit = 500
	MaxPageLimit     = 2000
	// MaxProcessingAttempts is how many times a job is started processing
	// before one more interrupted attempt (a crash, a kill) fails it: a
	// job that was being processed when the process died is run once
	// more (the death may have been a deploy or the host's), and fails if
	// it is found interrupted again.
	MaxProcessingAttempts = 2
)

// Expiry reasons on the wire.
const (
	ReasonUploadNotReceived = "upload_not_received"
	ReasonRetentionElapsed  = "retention_elapsed"
)

// CanonicalMime maps the accepted spellings of a mime type to one:
// image/jpg is image/jpeg. Parameters and case are dropped.
func CanonicalMime(m string) string {
	if mt, _, err := mime.ParseMediaType(m); err == nil {
		m = mt
	}
	m = strings.ToLower(strings.TrimSpace(m))
	if m == MimeJPGAlias {
		return MimeJPEG
	}
	return m
}

// Links builds the absolute URLs the responses carry. The HTTP layer
// implements it from the public base URL and the URL signer.
type Links interface {
	// UploadURL is the signed PUT URL of j's upload, valid until
	// j.UploadExpiresAt. Signing the same job again gives the same URL.
	UploadURL(ctx context.Context, j *Job) (string, error)
	// JobURL is the poll URL of a job.
	JobURL(jobID string) string
	// DetectionsURL is the per-page detections endpoint.
	DetectionsURL(jobID string, page int) string
	// PageImageURL is a signed GET URL of a page's PNG, valid until expires.
	PageImageURL(ctx context.Context, jobID string, page int, expires time.Time) (string, error)
	// IconURL is the icon endpoint of a symbol class.
	IconURL(class string) string
}

// Admission admits document work within a memory budget
// (*budget.Gate implements it).
type Admission interface {
	// Acquire waits until work holding about bytes may run, and returns
	// the function that ends it; it fails only when ctx ends first.
	Acquire(ctx context.Context, bytes int64) (release func(), err error)
	// Charge adds bytes that admitted work turned out to hold (a page's
	// drawing as it is read), at once, and returns the function that gives
	// them back.
	Charge(bytes int64) (release func())
}

// SearchTurns admits searches key by key (*turns.Queue implements it).
type SearchTurns interface {
	// Acquire waits for a turn of key's search and returns the function
	// that ends it; it fails at once with turns.ErrBusy when the key has
	// its share of searches running and waiting, or when ctx ends first.
	Acquire(ctx context.Context, key string) (release func(), err error)
}

// noAdmission admits everything at once.
type noAdmission struct{}

func (noAdmission) Acquire(context.Context, int64) (func(), error) { return func() {}, nil }
func (noAdmission) Charge(int64) func()                            { return func() {} }

// Caller is the authenticated partner making a request.
type Caller struct {
	KeyID string
	// JobID, when set, limits the caller to that one job: a review
	// credential (the exchange of a review link) reads, reviews, searches
	// and exports its job and nothing else. Another job is not found, as
	// another key's job is; listing, creating and starting jobs are
	// forbidden (ErrReviewOnly).
	JobID string
}

// Scoped reports whether the caller is limited to one job.
func (c Caller) Scoped() bool { return c.JobID != "" }

// ReviewOnly is the 403 forbidden of a request a review credential may
// not make: it grants one job's review, not the key.
func ReviewOnly(what string) *Error {
	return &Error{Code: CodeForbidden,
		Message: what + " needs the API key: a review link's credential grants the review of one job only",
		Details: map[string]any{"reason": "review_credential"}}
}

// Config wires a Service.
type Config struct {
	Store Store
	Blobs Blobs
	// Flow moves started jobs on; Start and Recover need it, and a
	// program that calls neither may leave it nil.
	Flow    Flow
	Clock   Clock // nil: SystemClock
	Catalog *catalog.Catalog
	// Files reads uploaded files; Engine detects symbols on their pages.
	// Start needs Files, Process both; a program that does neither (the
	// webhook and sweep Lambdas) leaves them nil and so does
	// not link the document reader.
	Files  Files
	Engine detect.Engine
	// Direct is set when partners upload straight to the blob store
	// (S3 presigned PUTs): start then reads the object there instead of
	// one the service stored itself. Nil in local mode.
	Direct DirectUploads
	Links  Links
	// Guard checks callback URLs at init and dials webhooks.
	Guard webhook.Guard
	// WebhookRetries is the schedule of the retries of a refused webhook;
	// the zero value is webhook.RetrySchedule, which production uses. A
	// test that cannot move the service's clock (one that waits on Step
	// Functions' Wait states, say) can set a shorter one.
	WebhookRetries webhook.Schedule
	// WebhookSecret returns the webhook signing secret of an API key ID.
	WebhookSecret func(keyID string) ([]byte, bool)
	// Admission bounds the documents checked (Start), processed (Process)
	// and rendered for a lazy page image (PageImage) at once and the
	// memory they hold, as estimated by Files; nil bounds nothing.
	Admission Admission
	// LazyPageImages stores no page PNGs while processing, so a job is
	// done sooner and its uncounted pages are not rendered at all: a
	// page's image is rendered from the stored upload on its first GET
	// (PageImage), stored, and served from storage afterwards. The local
	// server turns it on. The AWS deployment leaves it off: its image_url
	// is a presigned S3 GET, which only names an object that must already
	// exist, so its pages' PNGs are produced alongside detection.
	LazyPageImages bool
	// JobTimeout bounds one processing attempt of a job: past it the job
	// ends failed, saying so (0: no limit of its own; the AWS deployment
	// has the processing function's timeout).
	JobTimeout time.Duration
	// SearchBudget is how long one search may take, from the request's
	// arrival (waiting for its turn included), before it answers with the
	// pages it finished (SearchResult.Complete false). 0:
	// DefaultSearchBudget.
	SearchBudget time.Duration
	// Searches gives searches their turns, apart from the document slots
	// of Admission: a search never holds a slot that a start check or a
	// job waits for (it charges its memory to Admission without waiting).
	// nil: a turns.Queue of DefaultSearchSlots, one search of a key at
	// once and DefaultSearchWaiting more waiting.
	Searches SearchTurns
	// BatchPages is the most pages processed in one go: a document of
	// more is processed in batches of this many pages after one document
	// pass (Begin, ProcessBatch, MergeBatches). 0: DefaultBatchPages.
	BatchPages int
	// BuildID names the build that runs the service (buildid.Current):
	// what a job derives and keeps for later jobs (a reference job's cut
	// glyphs, ReferenceCutKey) is stored under it and read only by the
	// same build. "": nothing derived is kept; every job derives it again.
	BuildID string

	UploadTTL time.Duration // 0: DefaultUploadTTL
	Retention time.Duration // 0: DefaultRetention
	Logger    *slog.Logger  // nil: slog.Default()
}

// Service is the job domain: every operation of the partner API on jobs,
// the processing the runner calls, webhook delivery and expiry. It is safe
// for concurrent use; all state lives in the Store and Blobs (in memory it
// keeps only a cache of decoded results and the lazy page images being
// rendered).
type Service struct {
	cfg     Config
	clock   Clock
	log     *slog.Logger
	webhook *http.Client
	pages   *pageCache   // decoded results of done jobs' pages
	reviews *reviewCache // decoded reviews of pages, checked against the store's version
	renders renders      // lazy page images being rendered (Config.LazyPageImages)
}

// NewService checks cfg and returns a Service.
func NewService(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Blobs == nil || cfg.Catalog == nil || cfg.Links == nil || cfg.WebhookSecret == nil {
		return nil, errors.New("job: NewService: Store, Blobs, Catalog, Links and WebhookSecret are required")
	}
	if cfg.UploadTTL <= 0 {
		cfg.UploadTTL = DefaultUploadTTL
	}
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.Admission == nil {
		cfg.Admission = noAdmission{}
	}
	if cfg.Searches == nil {
		cfg.Searches = turns.New(DefaultSearchSlots, 1, DefaultSearchWaiting)
	}
	if cfg.WebhookRetries == (webhook.Schedule{}) {
		cfg.WebhookRetries = webhook.RetrySchedule
	}
	if err := cfg.WebhookRetries.Check(); err != nil {
		return nil, fmt.Errorf("job: NewService: %w", err)
	}
	s := &Service{cfg: cfg, clock: cfg.Clock, log: cfg.Logger, pages: newPageCache(maxCachedDetections),
		reviews: newReviewCache(maxCachedReviews)}
	if s.clock == nil {
		s.clock = SystemClock{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.webhook = cfg.Guard.Client(webhook.AttemptTimeout)
	return s, nil
}

func (s *Service) now() time.Time { return s.clock.Now().UTC() }

// errJobNotFound is the one answer for a job that does not exist or that
// belongs to another key: the contract says 404, never 403.
func errJobNotFound(id string) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf("job %q not found", id)}
}

// owned loads a job the caller owns. A job owned by another key is
// reported exactly like a missing one.
func (s *Service) owned(ctx context.Context, c Caller, id string) (*Job, error) {
	j, err := s.cfg.Store.GetJob(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, errJobNotFound(id)
	}
	if err != nil {
		return nil, internal("load job", err)
	}
	if j.Owner != c.KeyID || (c.Scoped() && j.ID != c.JobID) {
		return nil, errJobNotFound(id)
	}
	return j, nil
}

// errNoChange tells update that fn decided not to write.
var errNoChange = errors.New("no change")

// update applies fn to the freshly loaded job and writes it conditionally,
// retrying on a version conflict. fn returning errNoChange skips the write
// and update returns the job and nil; other errors are returned as they are.
func (s *Service) update(ctx context.Context, id string, fn func(j *Job) error) (*Job, error) {
	for attempt := 0; ; attempt++ {
		j, err := s.cfg.Store.GetJob(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("load job %s: %w", id, err)
		}
		if err := fn(j); errors.Is(err, errNoChange) {
			return j, nil
		} else if err != nil {
			return j, err
		}
		err = s.cfg.Store.UpdateJob(ctx, j)
		if errors.Is(err, ErrVersionConflict) && attempt < 50 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("update job %s: %w", id, err)
		}
		return j, nil
	}
}

// ---- init ----

// InitRequest is the body of POST /v1/jobs/init as decoded. Pointers tell
// absent fields from zero values.
type InitRequest struct {
	FileName    *string   `json:"file_name"`
	MimeType    *string   `json:"mime_type"`
	Size        *int64    `json:"size"`
	Models      *[]string `json:"models"`
	Confidence  *float64  `json:"confidence"`
	ExternalRef *string   `json:"external_ref"`
	CallbackURL *string   `json:"callback_url"`
	// StartOnUpload asks for the job to start when its upload arrives
	// (additive; see StartUploaded).
	StartOnUpload *bool `json:"start_on_upload"`
	// ReferenceJobs are done jobs of the caller's key whose legends join
	// this job's (additive; see checkReferences).
	ReferenceJobs *[]string `json:"reference_jobs"`
}

// normalised is the validated init request with defaults applied; its JSON
// is what Idempotency-Key compares.
type normalised struct {
	FileName    string   `json:"file_name"`
	MimeType    string   `json:"mime_type"`
	Size        int64    `json:"size"`
	Models      []string `json:"models"`
	Confidence  *float64 `json:"confidence"`
	ExternalRef *string  `json:"external_ref"`
	CallbackURL string   `json:"callback_url"`
	// omitempty: a request without start_on_upload hashes as it did
	// before the field existed, so stored Idempotency-Keys still match.
	StartOnUpload bool `json:"start_on_upload,omitempty"`
	// omitempty, as StartOnUpload.
	ReferenceJobs []string `json:"reference_jobs,omitempty"`
}

func (s *Service) validateInit(ctx context.Context, c Caller, r InitRequest) (normalised, error) {
	var n normalised
	if r.FileName == nil || strings.TrimSpace(*r.FileName) == "" {
		return n, invalidField("file_name", "file_name is required")
	}
	if len(*r.FileName) > 1024 {
		return n, invalidField("file_name", "file_name is longer than 1024 bytes")
	}
	n.FileName = *r.FileName
	if r.MimeType == nil || *r.MimeType == "" {
		return n, invalidField("mime_type", "mime_type is required")
	}
	if accepted := AcceptedMimes(); !slices.Contains(accepted, *r.MimeType) {
		return n, &Error{Code: CodeUnprocessable, Message: fmt.Sprintf("unsupported mime_type %q; accepted: %s", *r.MimeType, strings.Join(accepted, ", ")),
			Details: map[string]any{"field": "mime_type", "accepted": accepted}}
	}
	n.MimeType = *r.MimeType
	if r.Size == nil {
		return n, invalidField("size", "size is required")
	}
	if *r.Size < 1 || *r.Size > MaxUploadBytes {
		return n, &Error{Code: CodeUnprocessable, Message: fmt.Sprintf("size must be between 1 and %d bytes", MaxUploadBytes),
			Details: map[string]any{"field": "size", "max_bytes": MaxUploadBytes}}
	}
	n.Size = *r.Size
	models := s.cfg.Catalog.Models()
	if r.Models == nil {
		n.Models = append([]string(nil), models...)
	} else {
		if len(*r.Models) == 0 {
			return n, invalidField("models", "models must not be empty; omit it for all models")
		}
		for _, m := range *r.Models {
			if !slices.Contains(models, m) {
				return n, &Error{Code: CodeUnprocessable, Message: fmt.Sprintf("unknown model %q; models: %s", m, strings.Join(models, ", ")),
					Details: map[string]any{"field": "models", "accepted": models}}
			}
			if !slices.Contains(n.Models, m) {
				n.Models = append(n.Models, m)
			}
		}
	}
	slices.Sort(n.Models)
	if r.Confidence != nil {
		if !(*r.Confidence >= 0 && *r.Confidence <= 1) {
			return n, invalidField("confidence", "confidence must be a number from 0 to 1")
		}
		c := *r.Confidence
		n.Confidence = &c
	}
	n.ExternalRef = r.ExternalRef
	if r.CallbackURL != nil && *r.CallbackURL != "" {
		if err := s.cfg.Guard.CheckURL(ctx, *r.CallbackURL); err != nil {
			var ue *webhook.URLError
			if errors.As(err, &ue) {
				return n, &Error{Code: CodeUnprocessable, Message: "callback_url refused: " + ue.Message,
					Details: map[string]any{"field": "callback_url", "reason": ue.Reason}}
			}
			return n, &Error{Code: CodeUnprocessable, Message: "callback_url refused", Details: map[string]any{"field": "callback_url"}, Err: err}
		}
		n.CallbackURL = *r.CallbackURL
	}
	if r.StartOnUpload != nil {
		n.StartOnUpload = *r.StartOnUpload
	}
	if r.ReferenceJobs != nil {
		refs, err := s.checkReferences(ctx, c, *r.ReferenceJobs)
		if err != nil {
			return n, err
		}
		n.ReferenceJobs = refs
	}
	return n, nil
}

// Init creates a job awaiting its upload. With a non-empty idempotencyKey a
// repeat of the same request by the same key returns the job created first
// and replayed=true; the same key with a different request is 422. Two
// concurrent requests with one key create one job.
func (s *Service) Init(ctx context.Context, c Caller, r InitRequest, idempotencyKey string) (created *Created, replayed bool, err error) {
	if c.Scoped() {
		return nil, false, ReviewOnly("creating a job")
	}
	if len(idempotencyKey) > MaxIdempotencyKeyLen {
		return nil, false, &Error{Code: CodeUnprocessable, Message: fmt.Sprintf("Idempotency-Key is longer than %d characters", MaxIdempotencyKeyLen),
			Details: map[string]any{"header": "Idempotency-Key"}}
	}
	n, err := s.validateInit(ctx, c, r)
	if err != nil {
		return nil, false, err
	}
	now := s.now()
	j := &Job{
		ID:              uuid.NewString(),
		Owner:           c.KeyID,
		Status:          AwaitingUpload,
		FileName:        n.FileName,
		MimeType:        n.MimeType,
		Size:            n.Size,
		Models:          n.Models,
		Confidence:      n.Confidence,
		ExternalRef:     n.ExternalRef,
		CallbackURL:     n.CallbackURL,
		StartOnUpload:   n.StartOnUpload,
		ReferenceJobs:   n.ReferenceJobs,
		CreatedAt:       now,
		UploadExpiresAt: now.Add(s.cfg.UploadTTL),
	}
	if err := s.cfg.Store.CreateJob(ctx, j); err != nil {
		return nil, false, internal("create job", err)
	}
	if idempotencyKey == "" {
		created, err = s.created(ctx, j)
		return created, false, err
	}
	body, err := json.Marshal(n)
	if err != nil {
		return nil, false, internal("hash request", err)
	}
	sum := sha256.Sum256(body)
	rec := IdempotencyRecord{Owner: c.KeyID, Key: idempotencyKey, RequestHash: hex.EncodeToString(sum[:]), JobID: j.ID, ExpiresAt: now.Add(IdempotencyTTL)}
	prev, err := s.cfg.Store.PutIdempotency(ctx, rec, now)
	if err == nil {
		created, err = s.created(ctx, j)
		return created, false, err
	}
	// The job created above is not the answer: remove it.
	if derr := s.cfg.Store.DeleteJob(ctx, j.ID); derr != nil {
		s.log.Warn("delete job of a lost idempotency race", "job_id", j.ID, "err", derr)
	}
	if !errors.Is(err, ErrExists) || prev == nil {
		return nil, false, internal("store idempotency key", err)
	}
	if prev.RequestHash != rec.RequestHash {
		return nil, false, &Error{Code: CodeUnprocessable, Message: "Idempotency-Key was already used with a different request body",
			Details: map[string]any{"header": "Idempotency-Key"}}
	}
	first, err := s.cfg.Store.GetJob(ctx, prev.JobID)
	if errors.Is(err, ErrNotFound) {
		return nil, false, &Error{Code: CodeConflict, Message: "the job created with this Idempotency-Key no longer exists"}
	}
	if err != nil {
		return nil, false, internal("load idempotent job", err)
	}
	created, err = s.created(ctx, first)
	return created, err == nil, err
}

func (s *Service) uploadDescriptor(ctx context.Context, j *Job) (UploadDescriptor, error) {
	u, err := s.cfg.Links.UploadURL(ctx, j)
	if err != nil {
		return UploadDescriptor{}, internal("sign the upload URL", err)
	}
	return UploadDescriptor{
		Method:      http.MethodPut,
		URL:         u,
		ContentType: j.MimeType,
		MaxBytes:    MaxUploadBytes,
		ExpiresAt:   Timestamp(j.UploadExpiresAt),
	}, nil
}

// created is the init response of j, as it was at creation: a replay
// returns the same body.
func (s *Service) created(ctx context.Context, j *Job) (*Created, error) {
	up, err := s.uploadDescriptor(ctx, j)
	if err != nil {
		return nil, err
	}
	return &Created{JobID: j.ID, Status: AwaitingUpload, ExternalRef: j.ExternalRef, Upload: up, ReferenceJobs: j.ReferenceJobs}, nil
}

// ---- upload ----

var (
	errTooLarge = errors.New("upload larger than declared")
	errShort    = errors.New("upload shorter than declared")
)

// bodyError is a failure to read the client's body (as opposed to a
// failure to store it).
type bodyError struct{ err error }

func (e *bodyError) Error() string { return "read upload body: " + e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

// sizedReader passes through exactly want bytes: more is errTooLarge (after
// reading one byte too many, so reading stops), fewer is errShort at EOF.
// Either error makes Blobs.Put keep nothing.
type sizedReader struct {
	r    io.Reader
	want int64
	n    int64
	h    io.Writer
}

func (s *sizedReader) Read(p []byte) (int, error) {
	if int64(len(p)) > s.want-s.n+1 {
		p = p[:s.want-s.n+1]
	}
	k, err := s.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = &bodyError{err}
	}
	s.n += int64(k)
	if s.n > s.want {
		return 0, errTooLarge
	}
	s.h.Write(p[:k])
	if errors.Is(err, io.EOF) && s.n < s.want {
		return k, errShort
	}
	return k, err
}

// Upload stores the body of the signed PUT for jobID (the signature was
// checked by the caller). contentLength is -1 when unknown. A second upload
// before start replaces the first. A job created with start_on_upload is
// then started as the start call would (StartUploaded); the answer's status
// says whether it was.
func (s *Service) Upload(ctx context.Context, jobID, contentType string, contentLength int64, body io.Reader) (*Uploaded, error) {
	j, err := s.cfg.Store.GetJob(ctx, jobID)
	if errors.Is(err, ErrNotFound) {
		return nil, Errorf(CodeForbidden, "upload URL is not valid")
	}
	if err != nil {
		return nil, internal("load job", err)
	}
	now := s.now()
	if j.Status == Expired || now.After(j.UploadExpiresAt) {
		return nil, Errorf(CodeForbidden, "upload URL has expired")
	}
	if j.Status != AwaitingUpload {
		return nil, Errorf(CodeConflict, "job is %s; its file can no longer be replaced", j.Status)
	}
	if CanonicalMime(contentType) != CanonicalMime(j.MimeType) {
		return nil, &Error{Code: CodeUnsupportedMediaType, Message: fmt.Sprintf("Content-Type must be %s, the job's mime_type", j.MimeType),
			Details: map[string]any{"expected": j.MimeType, "received": contentType}}
	}
	if contentLength > j.Size || contentLength > MaxUploadBytes {
		return nil, &Error{Code: CodePayloadTooLarge, Message: fmt.Sprintf("body of %d bytes exceeds the declared size of %d bytes", contentLength, j.Size),
			Details: map[string]any{"declared_size": j.Size, "max_bytes": j.Size}}
	}
	h := sha256.New()
	key := UploadVersionKey(jobID, uuid.NewString())
	sr := &sizedReader{r: body, want: j.Size, h: h}
	n, err := s.cfg.Blobs.Put(ctx, key, sr)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, &Error{Code: CodePayloadTooLarge, Message: fmt.Sprintf("body exceeds the declared size of %d bytes; nothing was stored", j.Size),
			Details: map[string]any{"declared_size": j.Size, "max_bytes": j.Size}}
	case errors.Is(err, errShort):
		return nil, &Error{Code: CodeUnprocessable, Message: fmt.Sprintf("body has %d bytes, fewer than the declared size of %d; nothing was stored", sr.n, j.Size),
			Details: map[string]any{"declared_size": j.Size, "received": sr.n}}
	case errors.As(err, new(*bodyError)) || (err != nil && ctx.Err() != nil):
		return nil, &Error{Code: CodeUnprocessable, Message: "upload body could not be read; nothing was stored", Err: err}
	case err != nil:
		return nil, internal("store upload", err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	var old string
	_, err = s.update(ctx, jobID, func(j *Job) error {
		if j.Status != AwaitingUpload {
			return Errorf(CodeConflict, "job is %s; its file can no longer be replaced", j.Status)
		}
		gen := 1
		old = ""
		if j.Upload != nil {
			gen = j.Upload.Generation + 1
			old = j.Upload.BlobKey
		}
		j.Upload = &Upload{Size: n, SHA256: sum, StoredAt: s.now(), BlobKey: key, Generation: gen}
		j.StartError = nil
		return nil
	})
	if err != nil {
		if derr := s.cfg.Blobs.Delete(context.WithoutCancel(ctx), key); derr != nil {
			s.log.Warn("delete unused upload", "job_id", jobID, "err", derr)
		}
		var ae *Error
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, internal("record upload", err)
	}
	if old != "" {
		if err := s.cfg.Blobs.Delete(ctx, old); err != nil {
			s.log.Warn("delete replaced upload", "job_id", jobID, "err", err)
		}
	}
	status := AwaitingUpload
	if j.StartOnUpload {
		started, err := s.StartUploaded(ctx, jobID)
		if err != nil {
			// The file is stored; the job stays awaiting_upload and the
			// start call can still start it.
			s.log.Error("start on upload", "job_id", jobID, "err", err)
		}
		if started {
			status = Queued
		}
	}
	return &Uploaded{JobID: jobID, Status: status, Size: n, SHA256: sum}, nil
}

// ---- start ----

func (s *Service) readBlob(ctx context.Context, key string, max int64) ([]byte, error) {
	rc, err := s.cfg.Blobs.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, max))
}

// maxStartRounds bounds how often Start checks a file again because a new
// PUT replaced it meanwhile; each round may read and validate 50 MB.
const maxStartRounds = 3

// errUploadChanged tells Start that a PUT replaced the file while it was
// being checked: check again.
var errUploadChanged = errors.New("the upload changed while start was checking it")

// Start checks the uploaded file and queues the job. The file must be what
// mime_type claims and open within the limits; otherwise the job stays
// awaiting_upload, the 422 names the reason in details, and the job
// records the refusal (Job.StartError, the poll's start_error).
//
// In local mode the file is the one the last signed PUT stored. With
// direct uploads (Config.Direct) it is the object at UploadKey now: start
// copies it, if it is still the object it looked at, to a key of its own
// that no upload URL can write, checks that copy, and processing reads
// that copy. A PUT racing with start therefore never changes the bytes
// that were checked.
func (s *Service) Start(ctx context.Context, c Caller, jobID string) (*Started, error) {
	if c.Scoped() {
		return nil, ReviewOnly("starting a job")
	}
	return s.start(ctx, jobID, func() (*Job, error) { return s.owned(ctx, c, jobID) })
}

// canStart reports whether the service can check and queue jobs.
func (s *Service) canStart() error {
	if s.cfg.Files == nil || s.cfg.Flow == nil {
		return internal("start", errors.New("this service was built without a file reader or a flow (Config.Files, Config.Flow)"))
	}
	return nil
}

// start is Start with load reading the job (and answering 404 where the
// caller may not see it): the one start check and transition of both the
// start call and StartUploaded.
func (s *Service) start(ctx context.Context, jobID string, load func() (*Job, error)) (*Started, error) {
	if err := s.canStart(); err != nil {
		return nil, err
	}
	for round := 1; ; round++ {
		j, err := load()
		if err != nil {
			return nil, err
		}
		if j.Status != AwaitingUpload {
			return nil, Errorf(CodeConflict, "job is %s; it can be started only once, while awaiting_upload", j.Status)
		}
		up, inv, err := s.checkUpload(ctx, j)
		if errors.Is(err, errUploadChanged) {
			if round >= maxStartRounds {
				return nil, Errorf(CodeConflict, "the upload kept changing while start was checking it; start again once the upload has finished")
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		var replaced string
		j, err = s.update(ctx, jobID, func(j *Job) error {
			replaced = ""
			if j.Status != AwaitingUpload {
				return errUploadChanged // another start won: answered in the next round
			}
			if s.cfg.Direct == nil && (j.Upload == nil || j.Upload.BlobKey != up.BlobKey) {
				return errUploadChanged // a new PUT raced us: check again
			}
			if j.Upload != nil && j.Upload.BlobKey != up.BlobKey {
				replaced = j.Upload.BlobKey
			}
			if inv != nil {
				if j.Upload != nil && j.Upload.BlobKey == up.BlobKey && j.Upload.Invalid && j.StartError != nil {
					return errNoChange
				}
				j.Upload = &up
				j.StartError = refusal(inv, s.now())
				return nil
			}
			j.Status = Queued
			now := s.now()
			j.QueuedAt = &now
			j.Upload = &up
			j.StartError = nil
			return nil
		})
		if errors.Is(err, errUploadChanged) {
			s.dropPinned(ctx, jobID, up.BlobKey)
			if round >= maxStartRounds {
				return nil, Errorf(CodeConflict, "the upload kept changing while start was checking it; start again once the upload has finished")
			}
			continue
		}
		if err != nil {
			s.dropPinned(ctx, jobID, up.BlobKey)
			return nil, internal("queue job", err)
		}
		s.dropPinned(ctx, jobID, replaced)
		if inv != nil {
			r := refusal(inv, time.Time{})
			return nil, &Error{Code: CodeUnprocessable, Message: r.Message, Details: r.Details}
		}
		if err := s.cfg.Flow.Enqueue(ctx, j.ID); err != nil {
			// The job is recorded as queued; the runner's scan (local) or the
			// sweep's recovery (AWS) hands it to the flow again.
			s.log.Warn("enqueue job", "job_id", j.ID, "err", err)
		}
		return &Started{JobID: j.ID, Status: Queued, PollURL: s.cfg.Links.JobURL(j.ID)}, nil
	}
}

// checkUpload reads and checks the file start is about to queue. It
// returns the upload record to store (Invalid set when the file is
// refused) and the refusal, errUploadChanged when a PUT replaced the file
// meanwhile, or another error (a 4xx *Error, or a service-side failure).
//
// It waits first for the admission gate (Config.Admission) to admit the
// memory Files says checking a file of the declared size holds, and holds
// it until the check ends.
func (s *Service) checkUpload(ctx context.Context, j *Job) (Upload, *InvalidFile, error) {
	var up Upload
	if s.cfg.Direct == nil && j.Upload == nil {
		return up, nil, errNoUpload()
	}
	release, err := s.cfg.Admission.Acquire(ctx, s.cfg.Files.CheckBytes(CanonicalMime(j.MimeType), j.Size))
	if err != nil {
		return up, nil, internal("wait to check the upload", err)
	}
	defer release()
	if s.cfg.Direct != nil {
		pinned, err := s.pinDirectUpload(ctx, j)
		if err != nil {
			return up, nil, err
		}
		up = pinned
	} else {
		up = *j.Upload
	}
	data, err := s.readBlob(ctx, up.BlobKey, MaxUploadBytes+1)
	if err != nil {
		if s.cfg.Direct != nil {
			s.dropPinned(ctx, j.ID, up.BlobKey)
		}
		return up, nil, internal("read upload", err)
	}
	if s.cfg.Direct != nil {
		sum := sha256.Sum256(data)
		up.SHA256 = hex.EncodeToString(sum[:])
		up.Size = int64(len(data))
	}
	var verr error
	if int64(len(data)) != j.Size {
		verr = &InvalidFile{Reason: ReasonSizeMismatch, Message: fmt.Sprintf("the stored file has %d bytes, not the declared %d", len(data), j.Size),
			Details: map[string]any{"declared_size": j.Size, "size": len(data)}}
	} else {
		verr = s.cfg.Files.Check(ctx, data, CanonicalMime(j.MimeType))
	}
	var inv *InvalidFile
	if verr != nil && !errors.As(verr, &inv) {
		if s.cfg.Direct != nil {
			s.dropPinned(ctx, j.ID, up.BlobKey)
		}
		return up, nil, internal("validate upload", verr)
	}
	up.Invalid = inv != nil
	return up, inv, nil
}

func errNoUpload() *Error {
	return &Error{Code: CodeUnprocessable, Message: "no file has been uploaded; PUT it to the upload URL first",
		Details: map[string]any{"reason": "no_upload"}}
}

// dropPinned deletes a copy start made of a direct upload that is no
// longer the job's file. Local-mode keys and the upload key itself are
// left alone: they are another mechanism's to replace.
func (s *Service) dropPinned(ctx context.Context, jobID, key string) {
	if s.cfg.Direct == nil || key == "" || key == UploadKey(jobID) {
		return
	}
	if err := s.cfg.Blobs.Delete(context.WithoutCancel(ctx), key); err != nil {
		s.log.Warn("delete unused copy of an upload", "job_id", jobID, "key", key, "err", err)
	}
}
