package job_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"blueprint/internal/job"
)

// checkFiles is a job.Files whose check refuses data starting with "bad"
// and counts its checks; the other methods are not used by start.
type checkFiles struct {
	job.Files
	checks atomic.Int32
}

func (f *checkFiles) Check(_ context.Context, data []byte, _ string) error {
	f.checks.Add(1)
	if bytes.HasPrefix(data, []byte("bad")) {
		return &job.InvalidFile{Reason: "corrupt", Message: "not a PDF", Details: map[string]any{"page_index": 0}}
	}
	return nil
}
func (f *checkFiles) CheckBytes(string, int64) int64 { return 0 }

type countFlow struct{ n atomic.Int32 }

func (f *countFlow) Enqueue(context.Context, string) error { f.n.Add(1); return nil }

type startEnv struct {
	svc   *job.Service
	files *checkFiles
	flow  *countFlow
	// recorder shares svc's store and blobs but can start nothing: its
	// uploads are recorded and left awaiting_upload.
	recorder *job.Service
}

func newStartEnv(t *testing.T) *startEnv {
	t.Helper()
	parts := newServiceParts(t)
	e := &startEnv{files: &checkFiles{}, flow: &countFlow{}}
	parts.cfg.WebhookSecret = func(string) ([]byte, bool) { return []byte("whsec_test"), true }
	cfg := parts.cfg
	cfg.Files, cfg.Flow = e.files, e.flow
	var err error
	if e.svc, err = job.NewService(cfg); err != nil {
		t.Fatal(err)
	}
	if e.recorder, err = job.NewService(parts.cfg); err != nil {
		t.Fatal(err)
	}
	return e
}

var owner = job.Caller{KeyID: "k1"}

func (e *startEnv) init(t *testing.T, startOnUpload *bool, size int64, key string) (*job.Created, bool, error) {
	t.Helper()
	name, mime := "a.pdf", "application/pdf"
	return e.svc.Init(context.Background(), owner, job.InitRequest{FileName: &name, MimeType: &mime, Size: &size, StartOnUpload: startOnUpload}, key)
}

func (e *startEnv) awaiting(t *testing.T, id string) *job.AwaitingView {
	t.Helper()
	v, err := e.svc.Get(context.Background(), owner, id, job.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, ok := v.(*job.AwaitingView)
	if !ok {
		t.Fatalf("poll is %T, want awaiting_upload", v)
	}
	return a
}

func wantCode(t *testing.T, err error, code job.Code) *job.Error {
	t.Helper()
	var ae *job.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("err = %v, want %s", err, code)
	}
	return ae
}

func TestStartOnUpload(t *testing.T) {
	ctx := context.Background()
	yes := true
	e := newStartEnv(t)
	good := []byte("%PDF-good")
	c, _, err := e.init(t, &yes, int64(len(good)), "")
	if err != nil {
		t.Fatal(err)
	}
	if a := e.awaiting(t, c.JobID); !a.StartOnUpload || a.StartError != nil || a.Uploaded {
		t.Fatalf("awaiting poll: %+v", a)
	}
	up, err := e.svc.Upload(ctx, c.JobID, "application/pdf", int64(len(good)), bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if up.Status != job.Queued {
		t.Fatalf("upload answered status %s, want queued", up.Status)
	}
	// The event repeats: nothing more happens.
	for range 3 {
		if started, err := e.svc.StartUploaded(ctx, c.JobID); err != nil || started {
			t.Fatalf("repeated StartUploaded = %v, %v; want false, nil", started, err)
		}
	}
	if n := e.flow.n.Load(); n != 1 {
		t.Fatalf("enqueued %d times, want 1", n)
	}
	// The start call answers as a repeated start does.
	_, err = e.svc.Start(ctx, owner, c.JobID)
	wantCode(t, err, job.CodeConflict)
	// So does a repeated PUT.
	_, err = e.svc.Upload(ctx, c.JobID, "application/pdf", int64(len(good)), bytes.NewReader(good))
	wantCode(t, err, job.CodeConflict)
	v, err := e.svc.Get(ctx, owner, c.JobID, job.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := v.(*job.RunningView); !ok || r.Status != job.Queued || !r.StartOnUpload {
		t.Fatalf("poll after upload: %#v", v)
	}
}

func TestStartOnUploadRefusedFile(t *testing.T) {
	ctx := context.Background()
	yes := true
	e := newStartEnv(t)
	bad := []byte("bad-file!")
	c, _, err := e.init(t, &yes, int64(len(bad)), "")
	if err != nil {
		t.Fatal(err)
	}
	up, err := e.svc.Upload(ctx, c.JobID, "application/pdf", int64(len(bad)), bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if up.Status != job.AwaitingUpload {
		t.Fatalf("upload of a bad file answered status %s", up.Status)
	}
	a := e.awaiting(t, c.JobID)
	if !a.Uploaded || a.StartError == nil || a.StartError.Code != string(job.CodeUnprocessable) || a.StartError.Details["reason"] != "corrupt" {
		t.Fatalf("awaiting poll after a refused file: %+v (start_error %+v)", a, a.StartError)
	}
	// Repeated events check the refused file no more.
	checks := e.files.checks.Load()
	for range 3 {
		if started, err := e.svc.StartUploaded(ctx, c.JobID); err != nil || started {
			t.Fatalf("StartUploaded = %v, %v", started, err)
		}
	}
	if got := e.files.checks.Load(); got != checks {
		t.Fatalf("the refused file was checked %d more times", got-checks)
	}
	// The start call gives the same refusal as its 422.
	_, err = e.svc.Start(ctx, owner, c.JobID)
	if ae := wantCode(t, err, job.CodeUnprocessable); ae.Details["reason"] != "corrupt" || ae.Message != a.StartError.Message {
		t.Fatalf("start: %+v, poll had %+v", ae, a.StartError)
	}
	// A new, good upload clears the refusal and starts the job.
	good := []byte("%PDF-fine")
	up, err = e.svc.Upload(ctx, c.JobID, "application/pdf", int64(len(good)), bytes.NewReader(good))
	if err != nil || up.Status != job.Queued {
		t.Fatalf("second upload: %+v, %v", up, err)
	}
	if n := e.flow.n.Load(); n != 1 {
		t.Fatalf("enqueued %d times, want 1", n)
	}
}

func TestStartOnUploadOffAndRaces(t *testing.T) {
	ctx := context.Background()
	e := newStartEnv(t)
	data := []byte("%PDF-data")
	no := false
	for _, sou := range []*bool{nil, &no} {
		c, _, err := e.init(t, sou, int64(len(data)), "")
		if err != nil {
			t.Fatal(err)
		}
		up, err := e.svc.Upload(ctx, c.JobID, "application/pdf", int64(len(data)), bytes.NewReader(data))
		if err != nil || up.Status != job.AwaitingUpload {
			t.Fatalf("upload without start_on_upload: %+v, %v", up, err)
		}
		if started, err := e.svc.StartUploaded(ctx, c.JobID); started || err != nil {
			t.Fatalf("StartUploaded without start_on_upload = %v, %v", started, err)
		}
		if a := e.awaiting(t, c.JobID); a.StartOnUpload {
			t.Fatal("start_on_upload shown true")
		}
	}
	if n := e.flow.n.Load(); n != 0 {
		t.Fatalf("enqueued %d jobs without start_on_upload", n)
	}

	// Events racing each other and the start call queue the job once.
	yes := true
	c, _, err := e.init(t, &yes, int64(len(data)), "")
	if err != nil {
		t.Fatal(err)
	}
	// Record the file through a service that cannot start it, then race.
	if up, err := e.recorder.Upload(ctx, c.JobID, "application/pdf", int64(len(data)), bytes.NewReader(data)); err != nil || up.Status != job.AwaitingUpload {
		t.Fatalf("recorded upload: %+v, %v", up, err)
	}
	var wg sync.WaitGroup
	var started, accepted atomic.Int32
	for range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if ok, err := e.svc.StartUploaded(ctx, c.JobID); err != nil {
				t.Error(err)
			} else if ok {
				started.Add(1)
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := e.svc.Start(ctx, owner, c.JobID); err == nil {
				accepted.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := e.flow.n.Load(); n != 1 || started.Load()+accepted.Load() != 1 {
		t.Fatalf("enqueued %d, starts reported %d+%d; want exactly one", n, started.Load(), accepted.Load())
	}
}

func TestStartOnUploadInit(t *testing.T) {
	e := newStartEnv(t)
	yes, no := true, false
	first, _, err := e.init(t, nil, 10, "key-a")
	if err != nil {
		t.Fatal(err)
	}
	// Absent and false are the same request.
	again, replayed, err := e.init(t, &no, 10, "key-a")
	if err != nil || !replayed || again.JobID != first.JobID {
		t.Fatalf("replay with start_on_upload false: %v %v %v", again, replayed, err)
	}
	// true is another request.
	_, _, err = e.init(t, &yes, 10, "key-a")
	if ae := wantCode(t, err, job.CodeUnprocessable); ae.Details["header"] != "Idempotency-Key" {
		t.Fatalf("different start_on_upload under one key: %+v", ae)
	}
}
