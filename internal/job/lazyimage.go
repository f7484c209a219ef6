package job

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// renders tracks the lazy page images being rendered (Config.LazyPageImages),
// by blob key, so that concurrent first views of one page render it once.
// The zero value is ready for use.
type renders struct {
	mu       sync.Mutex
	inFlight map[string]*render
}

// render is one page image being rendered. err and abandoned are set
// before done is closed.
type render struct {
	done      chan struct{}
	err       error
	abandoned bool // it failed because the request rendering it went away
}

// join returns the render of key in flight, or starts one: then leader is
// true and the caller must finish it.
func (g *renders) join(key string) (r *render, leader bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r := g.inFlight[key]; r != nil {
		return r, false
	}
	if g.inFlight == nil {
		g.inFlight = map[string]*render{}
	}
	r = &render{done: make(chan struct{})}
	g.inFlight[key] = r
	return r, true
}

// finish ends the render of key with err and wakes those waiting for it.
func (g *renders) finish(key string, r *render, err error, abandoned bool) {
	g.mu.Lock()
	delete(g.inFlight, key)
	g.mu.Unlock()
	r.err, r.abandoned = err, abandoned
	close(r.done)
}

// renderPageImage makes sure the PNG of page of the done job j is stored
// at ImageKey, rendering it from the upload when it is not. Concurrent
// calls for one page render it once: the others wait for that render (and
// take it over when its request went away before it finished). Errors are
// *Error values of the contract: not_found when the job stopped being done
// meanwhile, internal_error for a failure to read, render or store.
func (s *Service) renderPageImage(ctx context.Context, j *Job, page int) error {
	key := ImageKey(j.ID, page)
	for {
		r, leader := s.renders.join(key)
		if leader {
			return s.leadRender(ctx, key, r, j, page)
		}
		select {
		case <-r.done:
		case <-ctx.Done():
			return internal("wait for the page image", ctx.Err())
		}
		if r.err == nil || !r.abandoned {
			return r.err
		}
	}
}

// leadRender runs the render r of key and finishes it, however it ends.
func (s *Service) leadRender(ctx context.Context, key string, r *render, j *Job, page int) (err error) {
	defer func() { s.renders.finish(key, r, err, err != nil && ctx.Err() != nil) }()
	return s.storePageImage(ctx, j, page)
}

// storePageImage renders page of j from its upload and stores the PNG at
// ImageKey, unless it is stored already (a render that just finished).
// The render holds the memory admission of processing the document
// (Files.OpenBytes, then the open file's PeakBytes), so first views at
// once stay within the budget. Once stored, the job is read again: if it
// is gone or no longer done (expiry purges its files), the PNG is deleted
// so that nothing outlives the job.
func (s *Service) storePageImage(ctx context.Context, j *Job, page int) error {
	key := ImageKey(j.ID, page)
	if rc, err := s.cfg.Blobs.Get(ctx, key); err == nil {
		_ = rc.Close()
		return nil
	}
	if s.cfg.Files == nil {
		return internal("render page image", errors.New("Config.Files is nil"))
	}
	if j.Upload == nil {
		return internal("render page image", errors.New("the job has no stored upload"))
	}
	start := time.Now()
	data, err := s.readBlob(ctx, j.Upload.BlobKey, MaxUploadBytes+1)
	if errors.Is(err, ErrNotFound) {
		return Errorf(CodeNotFound, "page image not found") // purged by expiry meanwhile
	}
	if err != nil {
		return internal("read the upload for a page image", err)
	}
	mime := CanonicalMime(j.MimeType)
	held := s.cfg.Files.OpenBytes(data, mime)
	release, err := s.cfg.Admission.Acquire(ctx, held)
	if err != nil {
		return internal("wait for memory to render a page image", err)
	}
	defer func() { release() }()
	f, err := s.cfg.Files.Open(ctx, data, mime)
	if err != nil {
		return internal("open the upload for a page image", err)
	}
	defer f.Close()
	if need := f.PeakBytes(); need > held {
		release()
		if release, err = s.cfg.Admission.Acquire(ctx, need); err != nil {
			release = func() {}
			return internal("wait for memory to render a page image", err)
		}
	}
	png, err := f.PagePNG(ctx, page)
	if err != nil {
		return internal(fmt.Sprintf("render page %d image", page), err)
	}
	release()
	release = func() {}
	// The render is done: store it even if the request goes away now, for
	// the next view.
	sctx := context.WithoutCancel(ctx)
	if err := s.putBlob(sctx, key, png); err != nil {
		return internal("store page image", err)
	}
	cur, err := s.cfg.Store.GetJob(sctx, j.ID)
	if err != nil || cur.Status != Done {
		if derr := s.cfg.Blobs.Delete(sctx, key); derr != nil {
			s.log.Warn("could not delete the page image of a job no longer done", "job_id", j.ID, "page_index", page, "err", derr)
		}
		if err == nil || errors.Is(err, ErrNotFound) {
			return Errorf(CodeNotFound, "page image not found")
		}
		return internal("load job", err)
	}
	s.log.Info("page image rendered", "job_id", j.ID, "page_index", page, "bytes", len(png), "seconds", time.Since(start).Seconds())
	return nil
}
