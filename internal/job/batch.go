package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"blueprint/internal/detect"
)

// DefaultBatchPages is the page budget of one processing run: a document
// of more pages is processed in batches of this many pages (Begin,
// ProcessBatch, MergeBatches), each of which must finish well inside the
// processing Lambda's 15 minutes.
//
// Measured with PIPELINE_PAGETIME=1 go test -run TestPageTime -v
// ./internal/pipeline/ (the production engine with the raster detector,
// PNG encoding, as the Lambda runs it; 2-core sandbox at a load average
// of 13 to 21, so CPU time is the figure that holds): the slowest page is
// the generated clip-heavy A1 export (synth KIND=heavy: 1.5 million
// hatching strokes in 40 000 clips) at 10.1 s of CPU, then a dense A0
// plan at 2.3–2.5 s, the real 30×42 in fire-alarm sheets at 1.0–1.1 s.
// 20 such pages are 202 s of CPU: with cores half again as slow as
// these, a batch still ends within a third of the 900 s.
const DefaultBatchPages = 20

// Batch is one batch of a large document's pages: First ≤ page < End.
type Batch struct {
	First int `json:"first"`
	End   int `json:"end"`
}

// Batches splits n pages into batches of at most size pages, in page
// order (none for n ≤ 0; one page a batch for size < 1).
func Batches(n, size int) []Batch {
	size = max(size, 1)
	var out []Batch
	for first := 0; first < n; first += size {
		out = append(out, Batch{First: first, End: min(first+size, n)})
	}
	return out
}

// PagesOptions configure OpenFile.RunPages.
type PagesOptions struct {
	// RunOptions as for Run; Engine is the one the document pass
	// returned, and Document is not called.
	RunOptions
	// First and End bound the pages: First ≤ i < End.
	First, End int
	// Kinds are the document pass's page kinds (every page's), nil
	// without one.
	Kinds []string
}

// ResumableEngine is a document engine whose document pass can be saved
// by one process and resumed by another: a large document's pass runs
// once (Begin) and its batches match their pages against the templates it
// made (ProcessBatch). *engine.Engine implements it. A DocumentEngine
// that does not is prepared again in every batch, with the same result.
type ResumableEngine interface {
	detect.DocumentEngine
	// PrepareSaved is Prepare, also returning the pass as bytes.
	PrepareSaved(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, []byte, error)
	// Resume returns what Prepare returned for the document whose pass
	// PrepareSaved saved as state.
	Resume(ctx context.Context, state []byte) (detect.Engine, detect.DocumentInfo, error)
}

// batchPlan is what Begin learned of a document processed in batches, for
// its batches and its merge (blob PlanKey).
type batchPlan struct {
	Batches []Batch     `json:"batches"`
	Kinds   []string    `json:"kinds,omitempty"`
	Legend  []LegendRow `json:"legend,omitempty"`
	// Warnings are the document pass's (detect.DocumentInfo.Warnings).
	Warnings []Warning `json:"warnings,omitempty"`
	// OffPlan are the document pass's (detect.DocumentInfo.OffPlan).
	OffPlan []OffPlanRegion `json:"off_plan,omitempty"`
	// EngineState is the engine's saved document pass (ResumableEngine).
	EngineState []byte `json:"engine_state,omitempty"`
	// Prepare: the engine is a detect.DocumentEngine that cannot save its
	// pass, so each batch makes it again.
	Prepare bool `json:"prepare,omitempty"`
}

// batchResult is what one batch found (blob BatchKey): its pages in
// order, each with the detections of the job's models as the engine
// returned them (KeepStored applies to the whole document at the merge).
type batchResult struct {
	Pages []batchPage `json:"pages"`
}

type batchPage struct {
	Page       Page               `json:"page"`
	Detections []detect.Detection `json:"detections"`
}

// PlanKey and BatchKey are the blob keys of a batched job's plan and of
// one batch's results.
func PlanKey(jobID string) string { return JobPrefix(jobID) + "batches/plan.json" }
func BatchKey(jobID string, b Batch) string {
	return JobPrefix(jobID) + "batches/" + itoa(b.First) + "-" + itoa(b.End) + ".json"
}

// errJobLeft tells a batch that its job is no longer processing (failed
// by another batch or the flow, or done): it stops without failing.
var errJobLeft = errors.New("the job is no longer processing")

// maxPlanBytes bounds the plan read back (legend glyphs of every page).
const maxPlanBytes = 64 << 20

func (s *Service) batchPages() int {
	if s.cfg.BatchPages > 0 {
		return s.cfg.BatchPages
	}
	return DefaultBatchPages
}

// planBatches makes the document pass of a job whose document is
// processed in batches with the document engine de (documentEngine; nil:
// none), saves it with the batches (PlanKey) and returns them; refWarns
// join the pass's warnings.
func (s *Service) planBatches(ctx context.Context, j *Job, doc OpenFile, de detect.DocumentEngine, refWarns []Warning) ([]Batch, error) {
	plan := batchPlan{Batches: Batches(doc.NumPages(), s.batchPages())}
	charges := &drawingCharges{admission: s.cfg.Admission}
	defer charges.release()
	var info detect.DocumentInfo
	var err error
	switch e := de.(type) {
	case ResumableEngine:
		_, info, plan.EngineState, err = e.PrepareSaved(ctx, doc.Drawings(charges.charge))
	case detect.DocumentEngine:
		_, info, err = e.Prepare(ctx, doc.Drawings(charges.charge))
		plan.Prepare = true
	}
	if err != nil {
		var inv *InvalidFile
		if errors.As(err, &inv) {
			return nil, pageFailure(0, err)
		}
		return nil, documentPassFailure(err)
	}
	plan.Kinds = info.Kinds
	found := findingsOf(info)
	plan.Legend, plan.Warnings, plan.OffPlan = found.Legend, append(found.Warnings, refWarns...), found.OffPlan
	b, err := json.Marshal(plan)
	if err != nil {
		return nil, fmt.Errorf("encode the batch plan of job %s: %w", j.ID, err)
	}
	if err := s.putBlob(ctx, PlanKey(j.ID), b); err != nil {
		return nil, &failure{msg: "the document's batch plan could not be stored (a service-side error)", err: err}
	}
	// The batches may wait for processing slots: the sweep counts the
	// job's stall from here (Recover).
	if _, err := s.update(ctx, j.ID, func(j *Job) error {
		now := s.now()
		j.BatchProgressAt = &now
		return nil
	}); err != nil {
		return nil, err
	}
	return plan.Batches, nil
}

func (s *Service) readPlan(ctx context.Context, jobID string) (*batchPlan, error) {
	b, err := s.readBlob(ctx, PlanKey(jobID), maxPlanBytes)
	if err != nil {
		return nil, fmt.Errorf("read the batch plan of job %s: %w", jobID, err)
	}
	var p batchPlan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("decode the batch plan of job %s: %w", jobID, err)
	}
	return &p, nil
}

// ProcessBatch processes one batch of the pages of a job that Begin
// planned in batches: it renders and detects them with the engine the
// document pass prepared, stores each page's PNG unless
// Config.LazyPageImages, counts them in pages_done, and stores what it
// found for MergeBatches. It is idempotent: a batch run again overwrites
// its results and sets its own count in pages_done again. A job that is
// no longer processing is left alone (a batch that is running stops at
// its next page). A page that cannot be processed fails the job with the
// message one run gives, and ProcessBatch returns nil; it returns an
// error when the batch could not run (storage, the context), for the
// flow to retry it or fail the job.
func (s *Service) ProcessBatch(ctx context.Context, jobID string, b Batch) error {
	j, err := s.cfg.Store.GetJob(ctx, jobID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("batch %d-%d of job %s: %w", b.First, b.End-1, jobID, err)
	}
	if j.Status != Processing {
		return nil
	}
	plan, err := s.readPlan(ctx, jobID)
	if err != nil {
		return err
	}
	if !slices.Contains(plan.Batches, b) {
		return fmt.Errorf("batch %d-%d of job %s: not a batch of the job's plan", b.First, b.End-1, jobID)
	}
	res, err := s.runBatch(ctx, j, plan, b)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return fmt.Errorf("batch %d-%d of job %s: interrupted: %w", b.First, b.End-1, jobID, ctx.Err())
	case errors.Is(err, errJobLeft):
		return nil
	default:
		var f *failure
		if errors.As(err, &f) {
			return s.failProcessing(ctx, jobID, err)
		}
		return fmt.Errorf("batch %d-%d of job %s: %w", b.First, b.End-1, jobID, err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode batch %d-%d of job %s: %w", b.First, b.End-1, jobID, err)
	}
	if err := s.putBlob(ctx, BatchKey(jobID, b), data); err != nil {
		return fmt.Errorf("store batch %d-%d of job %s: %w", b.First, b.End-1, jobID, err)
	}
	if err := s.batchProgress(ctx, jobID, b, b.End-b.First, b.First, b.End); err != nil && !errors.Is(err, errJobLeft) {
		return fmt.Errorf("batch %d-%d of job %s: %w", b.First, b.End-1, jobID, err)
	}
	s.log.Info("batch done", "job_id", jobID, "first_page", b.First, "pages", b.End-b.First)
	return nil
}

// runBatch renders and detects the pages of batch b.
func (s *Service) runBatch(ctx context.Context, j *Job, plan *batchPlan, b Batch) (*batchResult, error) {
	doc, release, err := s.openUpload(ctx, j)
	if err != nil {
		return nil, err
	}
	defer release()
	defer doc.Close()
	if n := doc.NumPages(); b.End > n {
		return nil, &failure{msg: "the stored file no longer matches the document pass (a service-side error)",
			err: fmt.Errorf("the file has %d pages, the batch ends at page %d", n, b.End-1)}
	}
	charges := &drawingCharges{admission: s.cfg.Admission}
	defer charges.release()
	eng, err := s.batchEngine(ctx, plan, doc, charges.charge)
	if err != nil {
		var inv *InvalidFile
		if errors.As(err, &inv) {
			return nil, pageFailure(0, err)
		}
		return nil, documentPassFailure(err)
	}
	res := &batchResult{Pages: make([]batchPage, 0, b.End-b.First)}
	each := func(r PageResult) error {
		if !s.cfg.LazyPageImages {
			if err := s.putBlob(ctx, ImageKey(j.ID, r.Index), r.PNG); err != nil {
				return &stepError{step: "storing the page image", err: err}
			}
		}
		res.Pages = append(res.Pages, batchPage{Page: Page{Index: r.Index, Width: r.Width, Height: r.Height, Kind: r.Kind}, Detections: s.ofModels(j, r.Detections)})
		return nil
	}
	progress := func(page, done int) error {
		err := s.batchProgress(ctx, j.ID, b, done, page, page+1)
		if err != nil && !errors.Is(err, errJobLeft) {
			return &stepError{step: "recording progress", err: err}
		}
		return err
	}
	opt := PagesOptions{
		RunOptions: RunOptions{Engine: stepEngine{eng}, KeepPNG: !s.cfg.LazyPageImages, Charge: charges.charge, Progress: progress},
		First:      b.First, End: b.End, Kinds: plan.Kinds,
	}
	if err := doc.RunPages(ctx, opt, each); err != nil {
		if errors.Is(err, errJobLeft) {
			return nil, err
		}
		return nil, pageFailure(b.First+len(res.Pages), err)
	}
	return res, nil
}

// batchEngine is the engine for a batch's pages: the saved document pass
// resumed, the document pass made again, or the configured engine where
// there is none.
func (s *Service) batchEngine(ctx context.Context, plan *batchPlan, doc OpenFile, charge func(int64)) (detect.Engine, error) {
	switch {
	case plan.EngineState != nil:
		re, ok := s.cfg.Engine.(ResumableEngine)
		if !ok {
			return nil, errors.New("the plan has a saved document pass and the engine cannot resume one")
		}
		eng, _, err := re.Resume(ctx, plan.EngineState)
		return eng, err
	case plan.Prepare:
		de, ok := s.cfg.Engine.(detect.DocumentEngine)
		if !ok {
			return nil, errors.New("the plan asks for a document pass and the engine makes none")
		}
		eng, _, err := de.Prepare(ctx, doc.Drawings(charge))
		return eng, err
	}
	return s.cfg.Engine, nil
}

// batchProgress records that batch b of a job has finished done pages
// (BatchPagesDone, PagesDone), among them pages first to end-1
// (PagesFinished). errJobLeft when the job is no longer processing.
func (s *Service) batchProgress(ctx context.Context, jobID string, b Batch, done, first, end int) error {
	_, err := s.update(ctx, jobID, func(j *Job) error {
		if j.Status != Processing {
			return errJobLeft
		}
		known := true
		for i := first; i < end; i++ {
			known = known && j.PagesFinished.Has(i)
		}
		if j.BatchPagesDone[b.First] >= done && known {
			return errNoChange
		}
		if j.BatchPagesDone == nil {
			j.BatchPagesDone = map[int]int{}
		}
		j.PagesFinished = j.PagesFinished.AddRange(first, end)
		j.BatchPagesDone[b.First] = max(j.BatchPagesDone[b.First], done)
		sum := 0
		for _, n := range j.BatchPagesDone {
			sum += n
		}
		now := s.now()
		j.PagesDone, j.BatchProgressAt = &sum, &now
		return nil
	})
	return err
}

// failProcessing ends a processing job failed with perr's message.
func (s *Service) failProcessing(ctx context.Context, jobID string, perr error) error {
	_, err := s.update(ctx, jobID, func(j *Job) error {
		if j.Status != Processing {
			return errNoChange
		}
		s.finish(j, perr, nil, findings{})
		return nil
	})
	if err != nil {
		return fmt.Errorf("fail job %s: %w", jobID, err)
	}
	s.log.Warn("job failed", "job_id", jobID, "err", perr)
	return nil
}

// MergeBatches finishes a job processed in batches once every batch has
// run: it reads the batches' results, keeps the detections
// detect.KeepStored keeps of the whole document and stores them per page,
// and records the job done with its pages and legend rows — exactly what
// one run records. A batch without results fails the job, saying which
// pages; nothing is recorded done until every page's detections are
// stored. A job that is no longer processing (failed, or already merged)
// is left alone, so a repeated merge is harmless.
func (s *Service) MergeBatches(ctx context.Context, jobID string) error {
	j, err := s.cfg.Store.GetJob(ctx, jobID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("merge job %s: %w", jobID, err)
	}
	if j.Status != Processing {
		return nil
	}
	plan, err := s.readPlan(ctx, jobID)
	if err != nil {
		return err
	}
	var pages []Page
	var dets [][]detect.Detection
	for _, b := range plan.Batches {
		data, err := s.readBlob(ctx, BatchKey(jobID, b), MaxUploadBytes*4)
		if errors.Is(err, ErrNotFound) {
			return s.failProcessing(ctx, jobID, &failure{msg: fmt.Sprintf("the pages with page_index %d to %d were not processed (a service-side error)", b.First, b.End-1), err: err})
		}
		if err != nil {
			return fmt.Errorf("merge job %s: read batch %d-%d: %w", jobID, b.First, b.End-1, err)
		}
		var res batchResult
		if err := json.Unmarshal(data, &res); err != nil {
			return fmt.Errorf("merge job %s: decode batch %d-%d: %w", jobID, b.First, b.End-1, err)
		}
		for k, p := range res.Pages {
			if p.Page.Index != b.First+k {
				return fmt.Errorf("merge job %s: batch %d-%d holds page %d in place of %d", jobID, b.First, b.End-1, p.Page.Index, b.First+k)
			}
			pages = append(pages, p.Page)
			dets = append(dets, p.Detections)
		}
		if len(res.Pages) != b.End-b.First {
			return fmt.Errorf("merge job %s: batch %d-%d holds %d pages", jobID, b.First, b.End-1, len(res.Pages))
		}
	}
	detect.MarkOffScale(dets, rowKeys(plan.Legend))
	if err := s.storeResults(ctx, jobID, pages, dets); err != nil {
		var f *failure
		if errors.As(err, &f) {
			return s.failProcessing(ctx, jobID, err)
		}
		return fmt.Errorf("merge job %s: %w", jobID, err)
	}
	_, err = s.update(ctx, jobID, func(j *Job) error {
		if j.Status != Processing {
			return errNoChange
		}
		found := findings{Legend: plan.Legend, Warnings: plan.Warnings, OffPlan: plan.OffPlan}
		found.withholdFloods(pages, dets, s.filter(j, nil))
		s.finish(j, nil, pages, found)
		j.BatchPagesDone = nil
		return nil
	})
	if err != nil {
		return fmt.Errorf("finish job %s: %w", jobID, err)
	}
	s.log.Info("job done", "job_id", jobID, "pages", len(pages), "batches", len(plan.Batches))
	return nil
}

// runBatches processes a job's batches one after another and merges them
// (Process), within Config.JobTimeout counted from the job's start. A
// batch that could not run fails the job, as a failed run does.
func (s *Service) runBatches(ctx context.Context, jobID string, batches []Batch) error {
	pctx, cancel := ctx, context.CancelFunc(func() {})
	if s.cfg.JobTimeout > 0 {
		j, err := s.cfg.Store.GetJob(ctx, jobID)
		if err != nil {
			return fmt.Errorf("process job %s: %w", jobID, err)
		}
		start := s.now()
		if j.StartedAt != nil {
			start = *j.StartedAt
		}
		// The service's clock says how much of the limit is left.
		pctx, cancel = context.WithDeadline(ctx, time.Now().Add(start.Add(s.cfg.JobTimeout).Sub(s.now())))
	}
	defer cancel()
	var err error
	for _, b := range batches {
		if err = s.ProcessBatch(pctx, jobID, b); err != nil {
			break
		}
	}
	if err == nil {
		err = s.MergeBatches(pctx, jobID)
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		if errors.Is(ctx.Err(), context.Canceled) {
			s.releaseAttempt(ctx, jobID)
		}
		return fmt.Errorf("process job %s: interrupted: %w", jobID, ctx.Err())
	case errors.Is(pctx.Err(), context.DeadlineExceeded):
		return s.failProcessing(ctx, jobID, s.timeoutFailure(err))
	}
	return s.failProcessing(ctx, jobID, err)
}
