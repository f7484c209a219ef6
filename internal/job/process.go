package job

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"blueprint/internal/detect"
	"blueprint/internal/webhook"
)

// Process runs a queued job to done or failed: it renders every page (with
// Config.LazyPageImages, every page the document pass counts), detects
// symbols, stores each page's detections and, unless
// Config.LazyPageImages, its PNG, and schedules the webhook. A document of
// more pages than Config.BatchPages is processed in page batches, here one
// after another (Begin, ProcessBatch, MergeBatches), with the results one
// run gives. It is idempotent: a job found processing (a crash or restart
// interrupted it) is processed again from the start, overwriting its
// results; a job in any other state than queued or processing is left
// alone. When ctx is cancelled the job stays processing for the next run.
func (s *Service) Process(ctx context.Context, jobID string) error {
	batches, err := s.Begin(ctx, jobID)
	if err != nil || len(batches) == 0 {
		return err
	}
	return s.runBatches(ctx, jobID, batches)
}

// Begin starts processing a queued job. A document of at most
// Config.BatchPages pages is processed to done or failed here, as Process
// describes, and Begin returns no batches. A larger one gets its document
// pass (legends, page kinds, the engine's templates, saved for the
// batches) and Begin returns the page batches that ProcessBatch is to
// process, in any order or at once, before MergeBatches finishes the job.
// Its failures are recorded on the job as Process records them.
func (s *Service) Begin(ctx context.Context, jobID string) ([]Batch, error) {
	gaveUp := false
	j, err := s.update(ctx, jobID, func(j *Job) error {
		switch j.Status {
		case Queued:
			now := s.now()
			j.Status = Processing
			j.StartedAt = &now
			j.PagesTotal, j.PagesDone, j.PagesFinished = nil, nil, nil
			j.ProcessingAttempts = 1
			return nil
		case Processing:
			if j.ProcessingAttempts >= MaxProcessingAttempts {
				// Every earlier attempt ended with the process dying: do not
				// let one file take the service down in a loop.
				gaveUp = true
				s.finish(j, &failure{msg: fmt.Sprintf("processing was interrupted %d times; the file may exhaust the service's memory or time limits", j.ProcessingAttempts),
					err: errors.New("too many interrupted attempts")}, nil, findings{})
				return nil
			}
			j.ProcessingAttempts++
			return nil
		}
		return errSkip
	})
	if errors.Is(err, errSkip) || errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("process job %s: %w", jobID, err)
	}
	if gaveUp {
		s.log.Error("job failed after repeated interrupted attempts", "job_id", jobID, "attempts", j.ProcessingAttempts)
		return nil, nil
	}
	s.log.Info("processing job", "job_id", jobID, "file_name", j.FileName, "attempt", j.ProcessingAttempts)
	pctx, cancel := ctx, context.CancelFunc(func() {})
	if s.cfg.JobTimeout > 0 {
		pctx, cancel = context.WithTimeout(ctx, s.cfg.JobTimeout)
	}
	pages, found, batches, perr := s.run(pctx, j)
	cancel()
	if perr != nil && ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded) {
		perr = s.timeoutFailure(perr)
	}
	if perr != nil && ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			s.releaseAttempt(ctx, jobID)
		}
		return nil, fmt.Errorf("process job %s: interrupted: %w", jobID, ctx.Err())
	}
	if perr == nil && len(batches) > 0 {
		s.log.Info("processing job in page batches", "job_id", jobID, "batches", len(batches))
		return batches, nil
	}
	_, err = s.update(ctx, jobID, func(j *Job) error {
		if j.Status != Processing {
			return errSkip
		}
		s.finish(j, perr, pages, found)
		return nil
	})
	if errors.Is(err, errSkip) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("finish job %s: %w", jobID, err)
	}
	if perr != nil {
		s.log.Warn("job failed", "job_id", jobID, "err", perr)
	} else {
		s.log.Info("job done", "job_id", jobID, "pages", len(pages))
	}
	return nil, nil
}

// timeoutFailure is the failure of a job stopped by Config.JobTimeout.
func (s *Service) timeoutFailure(err error) error {
	return &failure{msg: fmt.Sprintf("processing took longer than the service's limit of %s per job; split the file into several jobs or simplify its drawings", s.cfg.JobTimeout), err: err}
}

// releaseTimeout bounds the write that gives back an attempt at shutdown.
const releaseTimeout = 5 * time.Second

// releaseAttempt gives back the processing attempt of a job whose work was
// cancelled by a graceful shutdown: the attempt did not crash, so routine
// restarts and deploys must not count towards MaxProcessingAttempts. A
// deadline (a Lambda timeout, say) is not released: a file that cannot be
// processed in time would otherwise be retried forever.
func (s *Service) releaseAttempt(ctx context.Context, jobID string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	_, err := s.update(ctx, jobID, func(j *Job) error {
		if j.Status != Processing || j.ProcessingAttempts == 0 {
			return errSkip
		}
		j.ProcessingAttempts--
		return nil
	})
	if err != nil && !errors.Is(err, errSkip) {
		s.log.Warn("could not give back the processing attempt of an interrupted job", "job_id", jobID, "err", err)
	}
}

// finish moves a processing job to done (perr nil) or failed and schedules
// its webhook event.
func (s *Service) finish(j *Job, perr error, pages []Page, found findings) {
	now := s.now()
	j.CompletedAt = &now
	j.PagesFinished = nil // progress is over: the pages are the record
	ev := webhook.EventDone
	if perr != nil {
		j.Status = Failed
		j.Error = &Failure{Code: CodeProcessingFailed, Message: failureMessage(perr)}
		j.Pages, j.Legend, j.Warnings, j.Withheld, j.OffPlan = nil, nil, nil, nil, nil
		ev = webhook.EventFailed
	} else {
		j.Status = Done
		j.Pages, j.Legend, j.Warnings, j.Withheld, j.OffPlan = pages, found.Legend, found.Warnings, found.Withheld, found.OffPlan
		n := len(pages)
		j.PagesTotal, j.PagesDone = &n, &n
	}
	if j.CallbackURL != "" {
		j.Webhook = &Delivery{EventID: "evt_" + uuid.NewString(), EventType: ev, NextAttemptAt: now}
	}
}

// errSkip tells Process that the job is not its to change.
var errSkip = errors.New("job not in a processable state")

// failure is a processing error with a message for the partner; the
// wrapped error (logged, not shown) has the details.
type failure struct {
	msg string
	err error
}

func (f *failure) Error() string { return f.msg + ": " + f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// stepError marks an error of one step of a page (detection or storing)
// so that the page's failure can be described.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// failureMessage is the partner-facing message of a processing failure.
func failureMessage(err error) string {
	const advice = " Upload the file again as a new job, or contact support quoting the job_id."
	var f *failure
	if errors.As(err, &f) {
		return f.msg + "." + advice
	}
	return "processing failed on the service side." + advice
}

// pageFailure describes a failure of page i.
func pageFailure(i int, err error) error {
	var inv *InvalidFile
	var step *stepError
	var unread *detect.UnreadableError
	switch {
	case errors.As(err, &inv):
		if at, ok := inv.Details["page_index"].(int); ok {
			i = at // the document pass reads every page before the first result
		}
		return &failure{msg: fmt.Sprintf("the page with page_index %d cannot be processed: %s", i, inv.Message), err: err}
	case errors.As(err, &unread):
		return &failure{msg: fmt.Sprintf("the page with page_index %d cannot be processed: %s", i, unread.Reason), err: err}
	case errors.As(err, &step):
		return &failure{msg: fmt.Sprintf("%s failed on the page with page_index %d (a service-side error)", step.step, i), err: err}
	default:
		return &failure{msg: fmt.Sprintf("the page with page_index %d could not be rendered; it may be damaged or use a PDF feature the renderer does not support", i), err: err}
	}
}

// openUpload opens the job's uploaded file for processing within the
// memory budget (Config.Admission): it waits for the memory of opening the
// file, then, once its pages are known, for that of its largest page. The
// caller closes the file, then calls release.
func (s *Service) openUpload(ctx context.Context, j *Job) (doc OpenFile, release func(), err error) {
	if s.cfg.Files == nil || s.cfg.Engine == nil {
		return nil, nil, &failure{msg: "the service is not set up to process files (a service-side error)", err: errors.New("Config.Files or Config.Engine is nil")}
	}
	if j.Upload == nil {
		return nil, nil, &failure{msg: "the job has no uploaded file", err: errors.New("no upload")}
	}
	data, err := s.readBlob(ctx, j.Upload.BlobKey, MaxUploadBytes+1)
	if err != nil {
		return nil, nil, &failure{msg: "the uploaded file could not be read from storage (a service-side error)", err: err}
	}
	held := s.cfg.Files.OpenBytes(data, CanonicalMime(j.MimeType))
	release, err = s.cfg.Admission.Acquire(ctx, held)
	if err != nil {
		return nil, nil, err
	}
	doc, err = s.cfg.Files.Open(ctx, data, CanonicalMime(j.MimeType))
	if err != nil {
		release()
		var inv *InvalidFile
		if errors.As(err, &inv) {
			return nil, nil, &failure{msg: "the file could not be opened: " + inv.Message, err: err}
		}
		return nil, nil, &failure{msg: "the file could not be opened; it may be damaged or of an unsupported kind", err: err}
	}
	if need := doc.PeakBytes(); need > held {
		release()
		if release, err = s.cfg.Admission.Acquire(ctx, need); err != nil {
			doc.Close()
			return nil, nil, err
		}
	}
	return doc, release, nil
}

// run does the work of Begin and returns the pages and legend rows to
// record, or for a document of more than Config.BatchPages pages the
// batches to process.
// findings is what the document pass found that a done job keeps: its
// legend rows, and the warnings of what it could not read.
type findings struct {
	Legend   []LegendRow     `json:"legend,omitempty"`
	Warnings []Warning       `json:"warnings,omitempty"`
	Withheld []int           `json:"withheld,omitempty"`
	OffPlan  []OffPlanRegion `json:"off_plan,omitempty"`
}

// findingsOf converts the document pass's findings.
func findingsOf(info detect.DocumentInfo) findings {
	var f findings
	for _, r := range info.Legend {
		f.Legend = append(f.Legend, legendRowOfInfo(r))
	}
	for _, w := range info.Warnings {
		f.Warnings = append(f.Warnings, warningOf(w))
	}
	for _, r := range info.OffPlan {
		f.OffPlan = append(f.OffPlan, OffPlanRegion{PageIndex: r.Page, Box: r.Box})
	}
	return f
}

func (s *Service) run(ctx context.Context, j *Job) ([]Page, findings, []Batch, error) {
	// The references are cut before the job's own file is opened: each
	// opens its job's file within the memory admission, one at a time.
	de, refWarns, err := s.documentEngine(ctx, j)
	if err != nil {
		return nil, findings{}, nil, &failure{msg: "the legends of the reference jobs could not be read (a service-side error)", err: err}
	}
	doc, release, err := s.openUpload(ctx, j)
	if err != nil {
		return nil, findings{}, nil, err
	}
	defer release()
	defer doc.Close()
	total := doc.NumPages()
	if _, err := s.update(ctx, j.ID, func(j *Job) error {
		zero := 0
		j.PagesTotal, j.PagesDone = &total, &zero
		j.BatchPagesDone, j.PagesFinished = nil, nil
		return nil
	}); err != nil {
		return nil, findings{}, nil, err
	}
	if total > s.batchPages() {
		batches, err := s.planBatches(ctx, j, doc, de, refWarns)
		return nil, findings{}, batches, err
	}
	var pages []Page
	var dets [][]detect.Detection
	// progress records pages_done and the page finished (PagesFinished)
	// when the count grows: told by the reader as each page finishes, in
	// any order (RunOptions.Progress), and by each as results arrive in
	// page order, for readers that do not tell. Either way each page is
	// told once with a count that grows, so one write records each page.
	reported := 0
	progress := func(page, done int) error {
		if done <= reported {
			return nil
		}
		reported = done
		_, err := s.update(ctx, j.ID, func(j *Job) error {
			grew := j.PagesDone == nil || *j.PagesDone < done
			if !grew && j.PagesFinished.Has(page) {
				return errNoChange
			}
			if grew {
				j.PagesDone = &done
			}
			j.PagesFinished = j.PagesFinished.Add(page)
			return nil
		})
		if err != nil {
			return &stepError{step: "recording progress", err: err}
		}
		return nil
	}
	each := func(r PageResult) error {
		if !s.cfg.LazyPageImages {
			if err := s.putBlob(ctx, ImageKey(j.ID, r.Index), r.PNG); err != nil {
				return &stepError{step: "storing the page image", err: err}
			}
		}
		pages = append(pages, Page{Index: r.Index, Width: r.Width, Height: r.Height, Kind: r.Kind})
		dets = append(dets, s.ofModels(j, r.Detections))
		return progress(r.Index, len(pages))
	}
	var found findings
	var eng detect.Engine = stepEngine{s.cfg.Engine}
	if de != nil {
		eng = stepDocEngine{stepEngine{de}, de}
	}
	charges := &drawingCharges{admission: s.cfg.Admission}
	defer charges.release()
	opt := RunOptions{Engine: eng, KeepPNG: !s.cfg.LazyPageImages, Charge: charges.charge, Progress: progress, Document: func(info detect.DocumentInfo) error {
		found = findingsOf(info)
		found.Warnings = append(found.Warnings, refWarns...)
		return nil
	}}
	if err := doc.Run(ctx, opt, each); err != nil {
		var step *stepError
		var inv *InvalidFile
		if errors.As(err, &step) && step.step == stepDocument && !errors.As(err, &inv) {
			return nil, findings{}, nil, documentPassFailure(err)
		}
		return nil, findings{}, nil, pageFailure(len(pages), err)
	}
	detect.MarkOffScale(dets, rowKeys(found.Legend))
	if err := s.storeResults(ctx, j.ID, pages, dets); err != nil {
		return nil, findings{}, nil, err
	}
	found.withholdFloods(pages, dets, s.filter(j, nil))
	return pages, found, nil, nil
}

// documentPassFailure is the failure of a document pass that failed on
// the service's side (not the file's).
func documentPassFailure(err error) error {
	return &failure{msg: "reading the document's legends and page kinds failed (a service-side error)", err: err}
}

// storeResults stores the detections of a job's pages, found[i] those of
// pages[i] (every page of the document, in page order): the ones
// detect.KeepStored keeps of the whole document, each with a new id.
func (s *Service) storeResults(ctx context.Context, jobID string, pages []Page, found [][]detect.Detection) error {
	kept := detect.KeepStored(found)
	for i, p := range pages {
		sp := storedPage{Detections: make([]storedDetection, 0, len(kept[i]))}
		for _, d := range kept[i] {
			sd := storedDetection{ID: uuid.NewString(), Class: d.Class, Confidence: d.Confidence, Box: d.Box, Source: d.Source, LegendRow: d.LegendRow, OffScale: d.OffScale}
			if d.Class == "" {
				// A legend row of no class: counted under its row only.
				sp.Unclassed = append(sp.Unclassed, sd)
				continue
			}
			sp.Detections = append(sp.Detections, sd)
		}
		b, err := json.Marshal(sp)
		if err != nil {
			return fmt.Errorf("encode detections of page %d: %w", p.Index, err)
		}
		if err := s.putBlob(ctx, ResultKey(jobID, p.Index), b); err != nil {
			return pageFailure(p.Index, &stepError{step: "storing the detections", err: err})
		}
	}
	return nil
}

// drawingCharges charges a job's page drawings to its memory budget as
// they grow: the most one page's drawing held so far (the pipeline reads
// one page's drawing at a time beside the page it renders, whose own
// drawing the admission's estimate covers).
type drawingCharges struct {
	admission Admission
	mu        sync.Mutex
	held      int64
	undo      []func()
}

func (c *drawingCharges) charge(held int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if held > c.held {
		c.undo = append(c.undo, c.admission.Charge(held-c.held))
		c.held = held
	}
}

func (c *drawingCharges) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range c.undo {
		u()
	}
	c.undo, c.held = nil, 0
}

// stepDocument names the document pass in failures.
const stepDocument = "the document pass"

// stepEngine marks detection errors as the symbol detection step.
type stepEngine struct{ e detect.Engine }

func (s stepEngine) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	ds, err := s.e.Detect(ctx, p)
	if err != nil {
		return nil, &stepError{step: "symbol detection", err: err}
	}
	return ds, nil
}

// stepDocEngine keeps a document engine's document pass, marking its
// errors and those of the engine it returns.
type stepDocEngine struct {
	stepEngine
	de detect.DocumentEngine
}

func (s stepDocEngine) Prepare(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	e, info, err := s.de.Prepare(ctx, doc)
	if err != nil {
		return nil, info, &stepError{step: stepDocument, err: err}
	}
	return stepEngine{e}, info, nil
}

// ofModels keeps the detections of classes that belong to the job's models.
func (s *Service) ofModels(j *Job, ds []detect.Detection) []detect.Detection {
	out := make([]detect.Detection, 0, len(ds))
	for _, d := range ds {
		model, ok := s.cfg.Catalog.Model(d.Class)
		if (ok && slices.Contains(j.Models, model)) || (d.Class == "" && d.LegendRow > 0) {
			out = append(out, d)
		}
	}
	return out
}

// legendRowOfInfo is the stored form of a legend row the document pass
// read.
func warningOf(w detect.Warning) Warning {
	return Warning{Code: w.Code, Page: w.Page, Message: w.Message}
}

func legendRowOfInfo(r detect.LegendRow) LegendRow {
	return LegendRow{PageIndex: r.PageIndex, Description: r.Description, Class: r.Class, Quantity: r.Quantity, PartNumber: r.PartNumber, Tag: r.Tag, GlyphBox: r.GlyphBox, Code: r.Code, Source: r.Source, ReferenceJob: r.ReferenceJob}
}

func (s *Service) putBlob(ctx context.Context, key string, data []byte) error {
	_, err := s.cfg.Blobs.Put(ctx, key, bytes.NewReader(data))
	return err
}

// DeliverWebhook makes one delivery attempt of a job's pending webhook if it
// is due, and records the outcome: delivered; refused, with the next
// attempt due after the wait of Config.WebhookRetries for that retry,
// counted from now; or given up after webhook.MaxRetries retries. The event
// id stays the same on every attempt. The due time is kept in the job
// record, so a restarted service resumes the schedule where it stood.
func (s *Service) DeliverWebhook(ctx context.Context, jobID string) error {
	j, err := s.cfg.Store.GetJob(ctx, jobID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deliver webhook of job %s: %w", jobID, err)
	}
	d := j.Webhook
	now := s.now()
	if !d.Pending() || d.NextAttemptAt.After(now) {
		return nil
	}
	sendErr := s.sendEvent(ctx, j, now)
	if sendErr != nil && ctx.Err() != nil {
		return fmt.Errorf("deliver webhook of job %s: interrupted: %w", jobID, ctx.Err())
	}
	_, err = s.update(ctx, jobID, func(j *Job) error {
		if j.Webhook == nil || j.Webhook.EventID != d.EventID || !j.Webhook.Pending() {
			return errNoChange
		}
		w := j.Webhook
		w.Attempts++
		at := s.now()
		if sendErr == nil {
			w.DeliveredAt = &at
			w.LastError = ""
			return nil
		}
		w.LastError = sendErr.Error()
		if w.Attempts > webhook.MaxRetries {
			w.GaveUpAt = &at
			return nil
		}
		// Attempts failed so far = the number of the retry to schedule.
		w.NextAttemptAt = at.Add(s.cfg.WebhookRetries.Wait(w.Attempts))
		return nil
	})
	if err != nil {
		return fmt.Errorf("record webhook attempt of job %s: %w", jobID, err)
	}
	if sendErr != nil {
		s.log.Warn("webhook attempt failed", "job_id", jobID, "event_id", d.EventID, "attempt", d.Attempts+1, "err", sendErr)
	} else {
		s.log.Info("webhook delivered", "job_id", jobID, "event_id", d.EventID, "attempt", d.Attempts+1)
	}
	return nil
}

// sendEvent makes one delivery attempt of j's pending event, signed at now,
// and returns its failure. A payload that cannot be built (the results blob
// missing or corrupt) fails the attempt like a refused delivery: it is
// recorded and retried on the schedule, and given up after webhook.MaxRetries
// retries, instead of being retried on every poll until the job expires.
func (s *Service) sendEvent(ctx context.Context, j *Job, now time.Time) error {
	secret, ok := s.cfg.WebhookSecret(j.Owner)
	if !ok {
		return errors.New("the job's API key is no longer configured")
	}
	payload, err := s.view(ctx, j, ReadOptions{})
	if err != nil {
		return fmt.Errorf("the event payload could not be built, nothing was sent: %w", err)
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("the event payload could not be encoded, nothing was sent: %w", err)
	}
	ev := webhook.Event{ID: j.Webhook.EventID, Type: j.Webhook.EventType, Body: body}
	return webhook.Send(ctx, s.webhook, j.CallbackURL, secret, ev, now)
}

// Sweep applies the expiry rules of docs/decisions.md: awaiting_upload jobs
// whose upload URL ran out with no usable upload, and finished jobs past
// the retention period, become expired and lose their files (and a webhook
// still waiting for a retry is given up); expired jobs
// past the retention period once more are deleted.
func (s *Service) Sweep(ctx context.Context) error {
	now := s.now()
	ret := s.cfg.Retention
	expire := func(id string, reasonOf func(j *Job) string) error {
		purge := false
		var reviewed []int
		_, err := s.update(ctx, id, func(j *Job) error {
			reviewed = j.ReviewedPages
			reason := reasonOf(j)
			if reason == "" {
				return errNoChange
			}
			j.Status = Expired
			j.ExpiredAt = &now
			j.ExpiryReason = reason
			j.Upload, j.Pages, j.PagesTotal, j.PagesDone = nil, nil, nil, nil
			if j.Webhook.Pending() {
				// Its payload is gone with the results: a retry would
				// send the expired record as the event.
				j.Webhook.GaveUpAt = &now
				j.Webhook.LastError = "the job expired before the event was delivered"
			}
			purge = true
			return nil
		})
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if purge {
			if err := s.cfg.Blobs.DeletePrefix(ctx, JobPrefix(id)); err != nil {
				return fmt.Errorf("purge job %s: %w", id, err)
			}
			if err := s.deleteReviews(ctx, id, reviewed); err != nil {
				return fmt.Errorf("purge job %s: %w", id, err)
			}
		}
		return nil
	}
	rules := []struct {
		state  State
		reason func(j *Job) string
	}{
		{AwaitingUpload, func(j *Job) string {
			if now.After(j.UploadExpiresAt) && (j.Upload == nil || j.Upload.Invalid) {
				return ReasonUploadNotReceived
			}
			if now.After(j.CreatedAt.Add(ret)) { // stored but never started
				return ReasonUploadNotReceived
			}
			return ""
		}},
		{Done, finishedReason(now, ret)},
		{Failed, finishedReason(now, ret)},
	}
	var errs []error
	for _, r := range rules {
		ids, err := s.cfg.Store.ListJobs(ctx, r.state, 0)
		if err != nil {
			return fmt.Errorf("sweep: list %s jobs: %w", r.state, err)
		}
		for _, id := range ids {
			// The reason is decided on the fresh record inside the update.
			err := expire(id, func(j *Job) string {
				if j.Status != r.state {
					return ""
				}
				return r.reason(j)
			})
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	ids, err := s.cfg.Store.ListJobs(ctx, Expired, 0)
	if err != nil {
		return fmt.Errorf("sweep: list expired jobs: %w", err)
	}
	for _, id := range ids {
		j, err := s.cfg.Store.GetJob(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue // deleted since the listing
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("sweep: load expired job %s: %w", id, err))
			continue
		}
		if j.ExpiredAt != nil && now.After(j.ExpiredAt.Add(ret)) {
			if err := s.deleteReviews(ctx, id, j.ReviewedPages); err != nil {
				errs = append(errs, fmt.Errorf("sweep: %w", err))
				continue
			}
			if err := s.cfg.Store.DeleteJob(ctx, id); err != nil {
				errs = append(errs, fmt.Errorf("sweep: delete expired job %s: %w", id, err))
			}
		}
	}
	return errors.Join(errs...)
}

func finishedReason(now time.Time, ret time.Duration) func(j *Job) string {
	return func(j *Job) string {
		if j.CompletedAt != nil && now.After(j.CompletedAt.Add(ret)) {
			return ReasonRetentionElapsed
		}
		return ""
	}
}
