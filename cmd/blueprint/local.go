package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"blueprint/internal/boltstore"
	"blueprint/internal/buildid"
	"blueprint/internal/docfiles"
	"blueprint/internal/document"
	"blueprint/internal/job"
	"blueprint/internal/localblob"
)

// cliKeyID owns the jobs of a command run (they live only in its
// temporary directory).
const cliKeyID = "blueprint-cli"

// localService takes files through the job service in this process,
// exactly as a job of the API goes: init, upload, start (the start
// check), processing (package docfiles: document reader, pipeline and
// engine), then the poll's view and the take-off under a read filter. Only
// the transport differs: no HTTP, no runner, no URLs. Its store and blobs
// live in a temporary directory that Close removes.
type localService struct {
	r     *reader
	dir   string
	store *boltstore.Store
	svc   *job.Service
	// onProgress, while a file is processed, is told its pages done and
	// total each time they change.
	onProgress func(done, total int)
	// refs are the jobs every later job counts with (init's
	// reference_jobs): the --legend drawing's.
	refs []string
}

// newLocalService builds the job service over a new temporary directory
// with r's document limits, catalog and engine.
func newLocalService(r *reader) (_ *localService, err error) {
	dir, err := os.MkdirTemp("", "blueprint-")
	if err != nil {
		return nil, fmt.Errorf("create a working directory: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	blobs, err := localblob.New(filepath.Join(dir, "blobs"))
	if err != nil {
		return nil, fmt.Errorf("open blobs: %w", err)
	}
	store, err := boltstore.Open(filepath.Join(dir, "blueprint.db"))
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	l := &localService{r: r, dir: dir, store: store}
	l.svc, err = job.NewService(job.Config{
		Store: progressStore{Store: store, l: l}, Blobs: blobs, Flow: noFlow{}, Catalog: r.cat,
		Files: docfiles.ForConfig(r.cfg), Engine: r.eng, Links: noLinks{},
		WebhookSecret:  func(string) ([]byte, bool) { return nil, false },
		LazyPageImages: true,              // as blueprintd: no page is rendered for an image nobody views
		BuildID:        buildid.Current(), // each FILE of --legend lends the legend job's cut to the next
		Logger:         slog.New(slog.DiscardHandler),
	})
	if err != nil {
		store.Close()
		return nil, err
	}
	return l, nil
}

// Close closes the store and removes the working directory.
func (l *localService) Close() error {
	err := l.store.Close()
	return errors.Join(err, os.RemoveAll(l.dir))
}

// result is one file's take-off: the poll's view of its done job and the
// take-off the exports write, both under the same read options.
type result struct {
	File    string
	JobID   string
	Done    *job.DoneView
	Takeoff *job.Takeoff
}

// takeoff processes data (the file name, for messages and the take-off)
// as one job and returns its take-off under opt. progress, when not nil,
// is told the pages done and total as they change. A file the service
// refuses or fails gives the service's message.
func (l *localService) takeoff(ctx context.Context, name string, data []byte, opt job.ReadOptions, progress func(done, total int)) (*result, error) {
	mime, err := mimeOf(name, data)
	if err != nil {
		return nil, err
	}
	c := job.Caller{KeyID: cliKeyID}
	base, size := filepath.Base(name), int64(len(data))
	req := job.InitRequest{FileName: &base, MimeType: &mime, Size: &size}
	if len(l.refs) > 0 {
		refs := l.refs
		req.ReferenceJobs = &refs
	}
	created, _, err := l.svc.Init(ctx, c, req, "")
	if err != nil {
		return nil, l.refusal(err)
	}
	id := created.JobID
	if _, err := l.svc.Upload(ctx, id, mime, size, bytes.NewReader(data)); err != nil {
		return nil, l.refusal(err)
	}
	if _, err := l.svc.Start(ctx, c, id); err != nil {
		return nil, l.refusal(err)
	}
	l.onProgress = progress
	err = l.svc.Process(ctx, id)
	l.onProgress = nil
	if err != nil {
		return nil, err
	}
	v, err := l.svc.Get(ctx, c, id, opt)
	if err != nil {
		return nil, l.refusal(err)
	}
	switch v := v.(type) {
	case *job.DoneView:
		t, err := l.svc.Takeoff(ctx, c, id, opt)
		if err != nil {
			return nil, l.refusal(err)
		}
		return &result{File: name, JobID: id, Done: v, Takeoff: t}, nil
	case *job.FailedView:
		// The service's message, less its advice to partners.
		msg, _, _ := strings.Cut(v.Error.Message, " Upload the file again as a new job")
		return nil, errors.New(l.r.say(strings.TrimSuffix(msg, ".")))
	default:
		return nil, fmt.Errorf("the job ended %T, not done", v)
	}
}

// refusal is the message of an error of the service: a partner's
// message for a refusal, in the command line's words, the whole chain for
// an internal error.
func (l *localService) refusal(err error) error {
	var je *job.Error
	if errors.As(err, &je) && je.Code != job.CodeInternal {
		return errors.New(l.r.say(je.Message))
	}
	return err
}

// mimeOf names the type of a file by its first bytes, as the service's
// start check tells them apart: a file of none of the four types is
// refused here, in the command line's words, rather than as a job whose
// declared type its content does not match.
func mimeOf(name string, data []byte) (string, error) {
	if m := document.Sniff(data); m != "" {
		return m, nil
	}
	ext := strings.ToLower(filepath.Ext(name))
	switch ext {
	case ".pdf", ".png", ".jpg", ".jpeg", ".webp":
		return "", fmt.Errorf("not a PDF, PNG, JPEG or WebP file: its name ends in %s but its content is none of these (a damaged or renamed file?)", ext)
	}
	return "", errors.New("not a PDF, PNG, JPEG or WebP file")
}

// checkFile refuses, before anything is loaded, a file that cannot be
// read: missing, a directory, empty, larger than the service takes (the
// API's upload limit, 50 MB), or not a PDF, PNG, JPEG or WebP file.
func checkFile(name string) error {
	fi, err := os.Stat(name)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return pe.Err // the command's message names the file
	case err != nil:
		return err
	case fi.IsDir():
		return errors.New("is a directory, not a file")
	case fi.Size() == 0:
		return errors.New("the file is empty")
	case fi.Size() > job.MaxUploadBytes:
		return fmt.Errorf("the file is %d bytes; at most %d (50 MB) are read, as by the service", fi.Size(), job.MaxUploadBytes)
	}
	f, err := os.Open(name)
	if errors.As(err, &pe) {
		return pe.Err
	}
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 2048) // the start check finds %PDF- within the first 1024 bytes
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	_, err = mimeOf(name, head[:n])
	return err
}

// progressStore tells the localService's onProgress the pages of the job
// being processed each time its record changes.
type progressStore struct {
	job.Store
	l *localService
}

func (s progressStore) UpdateJob(ctx context.Context, j *job.Job) error {
	err := s.Store.UpdateJob(ctx, j)
	if err == nil && s.l.onProgress != nil && j.PagesTotal != nil && j.PagesDone != nil {
		s.l.onProgress(*j.PagesDone, *j.PagesTotal)
	}
	return err
}

// noFlow queues nothing: takeoff processes each job itself, at once.
type noFlow struct{}

func (noFlow) Enqueue(context.Context, string) error { return nil }

// noLinks is the job service's Links where nothing is served: every URL is
// empty.
type noLinks struct{}

func (noLinks) UploadURL(context.Context, *job.Job) (string, error) { return "", nil }
func (noLinks) JobURL(string) string                                { return "" }
func (noLinks) DetectionsURL(string, int) string                    { return "" }
func (noLinks) IconURL(string) string                               { return "" }
func (noLinks) PageImageURL(context.Context, string, int, time.Time) (string, error) {
	return "", nil
}
