package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"blueprint/internal/apitest"
	"blueprint/internal/boltstore"
	"blueprint/internal/detect"
	"blueprint/internal/job"
	"blueprint/internal/runner"
	"blueprint/internal/webhook"
)

// blockingEngine reports each call on started and then blocks until its
// context ends, like a long page interrupted by a shutdown.
func blockingEngine(started chan<- struct{}) detect.Engine {
	return detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
}

// TestRestartMidProcessing stops the service while a job is processing,
// reopens the same data directory and checks that the job finishes and its
// webhook is delivered exactly once.
func TestRestartMidProcessing(t *testing.T) {
	dir := t.TempDir()
	sink := newSink(t)
	started := make(chan struct{}, 1)
	e1 := startEnv(t, dir, options{runner: runnerOpts(), engine: blockingEngine(started)})
	data := pdfDoc([2]int{144, 72}, [2]int{144, 72})
	created := e1.initJob(keyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(data), "callback_url": sink.URL})
	id := created["job_id"].(string)
	if r := e1.upload(created, data, "application/pdf"); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if r := e1.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 202 {
		t.Fatal(r.Status)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("processing did not start")
	}
	m := e1.waitStatus(keyA, id, "processing")
	if m["started_at"] == nil || m["pages_total"] != 2.0 || m["pages_done"] != 0.0 {
		t.Fatalf("processing view: %v", m)
	}
	e1.stop()

	e2 := startEnv(t, dir, options{runner: runnerOpts(), engine: scriptedEngine()})
	done := e2.waitStatus(keyA, id, "done")
	if done["summary"].(map[string]any)["total_detections"] != 5.0 {
		t.Fatalf("after restart: %v", done["summary"])
	}
	d := sink.Next(t)
	if err := webhook.Verify([]byte(secretA), d.Header.Get(webhook.SignatureHeader), d.Body, time.Now()); err != nil {
		t.Fatal(err)
	}
	select {
	case extra := <-sink.Got:
		t.Fatalf("second delivery: %s", extra.Header.Get(webhook.EventIDHeader))
	case <-time.After(300 * time.Millisecond):
	}
}

// TestWebhookSurvivesRestart fails the first delivery, restarts the
// service, and checks that the retry, when due, carries the same event id
// (TestWebhookScheduleSurvivesRestart checks the schedule across restarts).
func TestWebhookSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	clock := apitest.NewClock(time.Now().UTC())
	sink := newSink(t, 500)
	e1 := startEnv(t, dir, options{runner: runnerOpts(), engine: scriptedEngine(), clock: clock})
	id := doneJob(t, e1, keyA, map[string]any{"callback_url": sink.URL})
	first := sink.Next(t)
	if first.Status != 500 {
		t.Fatalf("first status %d", first.Status)
	}
	e1.stop()
	e2 := startEnv(t, dir, options{runner: runnerOpts(), engine: scriptedEngine(), clock: clock})
	// The first retry is due within its jitter range (at once when the
	// shutdown interrupted the recording of the first attempt).
	_, hi := webhook.RetrySchedule.Bounds(1)
	clock.Advance(hi)
	second := sink.Next(t)
	if second.Status != 200 || second.Header.Get(webhook.EventIDHeader) != first.Header.Get(webhook.EventIDHeader) {
		t.Fatalf("retry: %d, event ids %q vs %q", second.Status, second.Header.Get(webhook.EventIDHeader), first.Header.Get(webhook.EventIDHeader))
	}
	// The first attempt is recorded unless the shutdown interrupted it.
	waitDelivery(t, e2, id, func(d *job.Delivery) bool { return d.DeliveredAt != nil && d.Attempts >= 1 })
}

// TestWebhookGivesUp counts 1 + MaxRetries attempts against a receiver
// that always fails, each retry after a wait within its jitter range, and
// none after the last.
func TestWebhookGivesUp(t *testing.T) {
	clock := apitest.NewClock(time.Now().UTC())
	sink := newSink(t, 500, 500, 500, 500, 500, 500, 500, 500, 500)
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: scriptedEngine(), clock: clock})
	id := doneJob(t, e, keyA, map[string]any{"callback_url": sink.URL})
	var ids []string
	for i := range 1 + webhook.MaxRetries {
		d := sink.Next(t)
		ids = append(ids, d.Header.Get(webhook.EventIDHeader))
		if i < webhook.MaxRetries {
			advanceToRetry(t, e, clock, id, i+1)
		}
	}
	waitDelivery(t, e, id, func(d *job.Delivery) bool { return d.GaveUpAt != nil })
	clock.Advance(2 * webhook.RetrySchedule[webhook.MaxRetries-1])
	select {
	case <-sink.Got:
		t.Fatal("delivery after the last retry")
	case <-time.After(300 * time.Millisecond):
	}
	for _, x := range ids {
		if x != ids[0] {
			t.Fatalf("event id changed: %v", ids)
		}
	}
	j, _ := e.app.store.GetJob(context.Background(), id)
	if j.Webhook.GaveUpAt == nil || j.Webhook.Attempts != 1+webhook.MaxRetries {
		t.Fatalf("delivery record: %+v", j.Webhook)
	}
}

// TestExpiryEndsPendingWebhook checks that a job expiring while its
// webhook still waits for a retry gives the delivery up: the retry would
// otherwise send the expired record as a job.done event.
func TestExpiryEndsPendingWebhook(t *testing.T) {
	clock := apitest.NewClock(time.Now().UTC())
	sink := newSink(t, 500, 500)
	// No polling: after the first attempt only the explicit calls below
	// deliver.
	opt := runner.Options{Poll: time.Hour, SweepEvery: time.Hour}
	e := startEnv(t, t.TempDir(), options{runner: opt, engine: scriptedEngine(), clock: clock})
	ctx := context.Background()
	id := doneJob(t, e, keyA, map[string]any{"callback_url": sink.URL})
	if d := sink.Next(t); d.Status != 500 {
		t.Fatalf("first attempt answered %d", d.Status)
	}
	waitDelivery(t, e, id, func(d *job.Delivery) bool { return d.Attempts == 1 })

	clock.Advance(job.DefaultRetention + time.Minute)
	if err := e.app.service.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.app.service.DeliverWebhook(ctx, id); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-sink.Got:
		t.Fatalf("delivery after expiry: %s", d.Body)
	case <-time.After(300 * time.Millisecond):
	}
	j, err := e.app.store.GetJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != job.Expired || j.Webhook == nil || j.Webhook.GaveUpAt == nil || j.Webhook.Pending() {
		t.Fatalf("expired job's delivery record: %s %+v", j.Status, j.Webhook)
	}
}

// TestFailedJob checks the failed shape on poll and in the webhook.
func TestFailedJob(t *testing.T) {
	sink := newSink(t)
	broken := detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		return nil, errors.New("model file missing")
	})
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: broken})
	data := pngImage(30, 20)
	created := e.initJob(keyA, map[string]any{"file_name": "a.png", "mime_type": "image/png", "size": len(data), "callback_url": sink.URL})
	id := created["job_id"].(string)
	e.upload(created, data, "image/png")
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 202 {
		t.Fatal(r.Status)
	}
	m := e.waitStatus(keyA, id, "failed")
	errObj := m["error"].(map[string]any)
	msg, _ := errObj["message"].(string)
	if errObj["code"] != "processing_failed" || !strings.Contains(msg, "symbol detection failed on the page with page_index 0") || strings.Contains(msg, "model file") || m["completed_at"] == nil {
		t.Fatalf("failed view: %v", m)
	}
	d := sink.Next(t)
	if err := e.api.Spec.ValidateWebhook("job.failed", d.Header, d.Body); err != nil {
		t.Fatalf("failed webhook does not match the OpenAPI document: %v", err)
	}
	var p map[string]any
	if err := json.Unmarshal(d.Body, &p); err != nil || p["status"] != "failed" || d.Header.Get(webhook.EventTypeHeader) != "job.failed" {
		t.Fatalf("failed webhook: %s %v", d.Body, d.Header)
	}
	if r := e.do("GET", "/v1/jobs/"+id+"/pages/0/detections", keyA, nil, nil); r.Status != 404 {
		t.Fatalf("detections of a failed job: %d", r.Status)
	}
}

// TestExpiry walks the expiry rules with a fake clock.
func TestExpiry(t *testing.T) {
	clock := apitest.NewClock(time.Now().UTC())
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: scriptedEngine(), clock: clock})
	ctx := context.Background()
	done := doneJob(t, e, keyA, nil)
	pages := e.do("GET", "/v1/jobs/"+done, keyA, nil, nil).JSON(t)["pages"].([]any)
	img := pages[0].(map[string]any)["image_url"].(string)
	noUpload := e.initJob(keyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": 10})["job_id"].(string)
	data := pdfDoc([2]int{100, 100})
	uploaded := e.initJob(keyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": len(data)})
	e.upload(uploaded, data, "application/pdf")
	upID := uploaded["job_id"].(string)

	clock.Advance(job.DefaultUploadTTL + time.Minute)
	if err := e.app.service.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	m := e.do("GET", "/v1/jobs/"+noUpload, keyA, nil, nil).JSON(t)
	if m["status"] != "expired" || m["expiry_reason"] != "upload_not_received" || m["expired_at"] == nil {
		t.Fatalf("no upload: %v", m)
	}
	if r := e.do("POST", "/v1/jobs/"+noUpload+"/start", keyA, nil, nil); r.Status != 409 {
		t.Fatalf("start expired: %d", r.Status)
	}
	if m := e.do("GET", "/v1/jobs/"+upID, keyA, nil, nil).JSON(t); m["status"] != "awaiting_upload" {
		t.Fatalf("an unchecked upload expired early: %v", m["status"])
	}
	if m := e.do("GET", "/v1/jobs/"+done, keyA, nil, nil).JSON(t); m["status"] != "done" {
		t.Fatalf("done job expired early: %v", m["status"])
	}

	clock.Advance(job.DefaultRetention)
	if err := e.app.service.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	m = e.do("GET", "/v1/jobs/"+done, keyA, nil, nil).JSON(t)
	if m["status"] != "expired" || m["expiry_reason"] != "retention_elapsed" {
		t.Fatalf("done past retention: %v", m)
	}
	if r := e.do("GET", "/v1/jobs/"+done+"/pages/0/detections", keyA, nil, nil); r.Status != 404 {
		t.Fatalf("detections after purge: %d", r.Status)
	}
	if r := e.do("GET", img, "", nil, nil); r.Status != 403 && r.Status != 404 {
		t.Fatalf("image after purge: %d", r.Status)
	}
	if _, err := e.app.service.PageImage(ctx, done, 0); job.ErrorCode(err) != job.CodeNotFound {
		t.Fatalf("image blob after purge: %v", err)
	}
	if m := e.do("GET", "/v1/jobs/"+upID, keyA, nil, nil).JSON(t); m["status"] != "expired" {
		t.Fatalf("never-started upload past retention: %v", m["status"])
	}

	clock.Advance(job.DefaultRetention + time.Minute)
	if err := e.app.service.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", "/v1/jobs/"+done, keyA, nil, nil); r.Status != 404 {
		t.Fatalf("expired record after a second retention: %d", r.Status)
	}
}

// waitDelivery waits until the job's delivery record satisfies ok.
func waitDelivery(t *testing.T, e *testEnv, id string, ok func(*job.Delivery) bool) {
	t.Helper()
	var j *job.Job
	waitFor(t, 10*time.Second, 5*time.Millisecond, func() bool {
		var err error
		if j, err = e.app.store.GetJob(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		return j.Webhook != nil && ok(j.Webhook)
	}, func() string { return fmt.Sprintf("delivery record: %+v", j.Webhook) })
}

// startBlockedJob starts a service over dir whose engine blocks until the
// service stops, creates and starts a PNG job, and waits until processing
// has begun. It returns the service and the job id.
func startBlockedJob(t *testing.T, dir string) (*testEnv, string) {
	t.Helper()
	started := make(chan struct{}, 1)
	e := startEnv(t, dir, options{runner: runnerOpts(), engine: blockingEngine(started)})
	data := pngImage(20, 20)
	created := e.initJob(keyA, map[string]any{"file_name": "a.png", "mime_type": "image/png", "size": len(data)})
	id := created["job_id"].(string)
	e.upload(created, data, "image/png")
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 202 {
		t.Fatal(r.Status)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("processing did not start")
	}
	return e, id
}

// TestPoisonJobFails: a job found processing after MaxProcessingAttempts
// starts that each ended with the process dying is failed instead of
// retried. The test writes what such crashes leave behind (the job still
// processing, every attempt counted) into the store between two runs.
func TestPoisonJobFails(t *testing.T) {
	dir := t.TempDir()
	e, id := startBlockedJob(t, dir)
	e.stop()
	store, err := boltstore.Open(filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	j, err := store.GetJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != job.Processing {
		t.Fatalf("after the stop the job is %s, want processing", j.Status)
	}
	j.ProcessingAttempts = job.MaxProcessingAttempts
	if err := store.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	e = startEnv(t, dir, options{runner: runnerOpts(), engine: scriptedEngine()})
	m := e.waitStatus(keyA, id, "failed", "done")
	msg, _ := m["error"].(map[string]any)["message"].(string)
	if m["status"] != "failed" || !strings.Contains(msg, fmt.Sprintf("interrupted %d times", job.MaxProcessingAttempts)) {
		t.Fatalf("poison job: %v", m)
	}
}

// TestGracefulStopsAreNotCrashes: stopping the service cleanly while a job
// is processing (a deploy, Ctrl-C) gives the attempt back, so more graceful
// restarts than MaxProcessingAttempts still let the job finish.
func TestGracefulStopsAreNotCrashes(t *testing.T) {
	dir := t.TempDir()
	e, id := startBlockedJob(t, dir)
	e.stop()
	for i := 0; i < job.MaxProcessingAttempts; i++ {
		started := make(chan struct{}, 1)
		e = startEnv(t, dir, options{runner: runnerOpts(), engine: blockingEngine(started)})
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatalf("restart %d did not resume processing", i+1)
		}
		e.stop()
	}
	e = startEnv(t, dir, options{runner: runnerOpts(), engine: scriptedEngine()})
	if m := e.waitStatus(keyA, id, "failed", "done"); m["status"] != "done" {
		t.Fatalf("after %d graceful restarts: %v", job.MaxProcessingAttempts+1, m)
	}
}

// TestDamageFoundWhileProcessing: an image whose header and chunks are
// whole but whose compressed pixels are damaged passes the header-only
// start check; the damage shows when it is decoded, and the job ends
// failed with processing_failed, never done.
func TestDamageFoundWhileProcessing(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	data := pngImage(300, 200)
	// Overwrite the middle of the IDAT data and fix its checksum, so the
	// chunk structure stays valid and only the inflated pixels break.
	i := bytes.Index(data, []byte("IDAT"))
	n := int(binary.BigEndian.Uint32(data[i-4:]))
	for k := i + 4 + n/3; k < i+4+2*n/3; k++ {
		data[k] ^= 0x5a
	}
	binary.BigEndian.PutUint32(data[i+4+n:], crc32.ChecksumIEEE(data[i:i+4+n]))
	created := e.initJob(keyA, map[string]any{"file_name": "a.png", "mime_type": "image/png", "size": len(data)})
	id := created["job_id"].(string)
	e.upload(created, data, "image/png")
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	m := e.waitStatus(keyA, id, "done", "failed")
	errObj, _ := m["error"].(map[string]any)
	if m["status"] != "failed" || errObj["code"] != "processing_failed" || !strings.Contains(errObj["message"].(string), "damaged") {
		t.Fatalf("job with damaged pixels: %v", m)
	}
}
