package job_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"blueprint/internal/boltstore"
	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/docfiles"
	"blueprint/internal/document"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/imagefile"
	"blueprint/internal/job"
	"blueprint/internal/localblob"
)

// lazyPDF is the multi-page drawing of these tests: page 1 is what the
// document pass of kindsEngine takes for a schedule.
func lazyPDF() []byte {
	return documenttest.PDF(
		documenttest.Page{MediaBox: "[0 0 300 200]", Content: "1 0 0 rg 36 36 72 72 re f"},
		documenttest.Page{MediaBox: "[0 0 144 144]", Content: "0 g 0 0 72 72 re f"},
		documenttest.Page{MediaBox: "[0 0 500 500]", CropBox: "[0 0 216 360]", Rotate: 90, Content: "0 0 1 rg 2 w 10 10 m 200 300 l S"},
	)
}

// kindsEngine is a document engine whose document pass takes the pages for
// kinds, and whose page engine reports one socket outlet per page it is
// given, except on pages not counted (as detect.DocumentEngine promises);
// it records the pages it was given.
type kindsEngine struct {
	kinds    []string
	mu       sync.Mutex
	detected []int
}

func (k *kindsEngine) Detect(_ context.Context, p detect.Page) ([]detect.Detection, error) {
	k.mu.Lock()
	k.detected = append(k.detected, p.Index)
	k.mu.Unlock()
	if p.Raster == nil || p.Raster.Bounds().Dx() != p.Width {
		return nil, fmt.Errorf("page %d: no raster of its size", p.Index)
	}
	if !detect.Counted(k.kinds[p.Index]) {
		return nil, nil
	}
	return []detect.Detection{{Class: "socket_outlet", Confidence: 0.9, Box: detect.Box{X: float64(p.Index), Y: 1, W: 10, H: 10}, Source: detect.Source{VectorMatching: true}}}, nil
}

func (k *kindsEngine) Prepare(context.Context, detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	return k, detect.DocumentInfo{Kinds: k.kinds}, nil
}

// countingFiles is the service's file reader with each PagePNG counted by
// page, and an optional hook run inside it before the page renders.
type countingFiles struct {
	job.Files
	mu      sync.Mutex
	renders map[int]int
	during  func(page int)
}

func (c *countingFiles) Open(ctx context.Context, data []byte, mime string) (job.OpenFile, error) {
	f, err := c.Files.Open(ctx, data, mime)
	if err != nil {
		return nil, err
	}
	return &countingFile{OpenFile: f, c: c}, nil
}

func (c *countingFiles) rendered(page int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.renders[page]
}

type countingFile struct {
	job.OpenFile
	c *countingFiles
}

func (f *countingFile) PagePNG(ctx context.Context, i int) ([]byte, error) {
	f.c.mu.Lock()
	f.c.renders[i]++
	during := f.c.during
	f.c.mu.Unlock()
	if during != nil {
		during(i)
	}
	return f.OpenFile.PagePNG(ctx, i)
}

// missCounter counts the reads of one blob key that found nothing.
type missCounter struct {
	job.Blobs
	key    string
	misses atomic.Int32
}

func (m *missCounter) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := m.Blobs.Get(ctx, key)
	if key == m.key && errors.Is(err, job.ErrNotFound) {
		m.misses.Add(1)
	}
	return rc, err
}

// testClock is a clock the test moves.
type testClock struct{ now atomic.Int64 }

func (c *testClock) Now() time.Time { return time.Unix(0, c.now.Load()).UTC() }

// lazyEnv is a Service over a real store, blobs and file reader.
type lazyEnv struct {
	svc    *job.Service
	store  *boltstore.Store
	blobs  *localblob.Store
	misses *missCounter
	files  *countingFiles
	eng    *kindsEngine
	clock  *testClock
}

func newLazyEnv(t *testing.T, lazy bool, kinds []string) *lazyEnv {
	t.Helper()
	parts := newServiceParts(t)
	e := &lazyEnv{store: parts.store, blobs: parts.blobs, misses: &missCounter{Blobs: parts.blobs},
		files: &countingFiles{Files: docfiles.New(0, 0), renders: map[int]int{}},
		eng:   &kindsEngine{kinds: kinds}, clock: &testClock{}}
	e.clock.now.Store(time.Now().UnixNano())
	cfg := parts.cfg
	cfg.Blobs, cfg.Files, cfg.Engine, cfg.Clock = e.misses, e.files, e.eng, e.clock
	cfg.WebhookSecret = func(string) ([]byte, bool) { return nil, false }
	cfg.LazyPageImages = lazy
	var err error
	e.svc, err = job.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// process stores data as a started job's upload, processes the job and
// checks that it is done; it returns the job.
func (e *lazyEnv) process(t *testing.T, id string, data []byte, mime string) *job.Job {
	t.Helper()
	ctx := context.Background()
	key := job.UploadVersionKey(id, "1")
	if _, err := e.blobs.Put(ctx, key, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	cat, _ := catalog.Load("")
	if err := e.store.CreateJob(ctx, &job.Job{ID: id, Owner: "owner", Status: job.Queued, FileName: "a", MimeType: mime,
		Size: int64(len(data)), Models: cat.Models(), CreatedAt: now, UploadExpiresAt: now.Add(time.Hour), QueuedAt: &now,
		Upload: &job.Upload{Size: int64(len(data)), StoredAt: now, BlobKey: key, Generation: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Process(ctx, id); err != nil {
		t.Fatal(err)
	}
	j, err := e.store.GetJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != job.Done {
		t.Fatalf("job %s: %s %+v", id, j.Status, j.Error)
	}
	return j
}

func (e *lazyEnv) stored(t *testing.T, key string) ([]byte, bool) {
	t.Helper()
	rc, err := e.blobs.Get(context.Background(), key)
	if errors.Is(err, job.ErrNotFound) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b, true
}

// pageImage reads a page image through the service, as GET image_url does.
func (e *lazyEnv) pageImage(ctx context.Context, id string, page int) ([]byte, int64, error) {
	img, err := e.svc.PageImage(ctx, id, page)
	if err != nil {
		return nil, 0, err
	}
	defer img.Close()
	b, err := io.ReadAll(img)
	return b, img.Size, err
}

// detections returns the stored detections of each page of a done job.
func (e *lazyEnv) detections(t *testing.T, id string, pages int) [][]any {
	t.Helper()
	out := make([][]any, pages)
	for i := range pages {
		d, err := e.svc.PageDetections(context.Background(), job.Caller{KeyID: "owner"}, id, i, job.PageOptions{Limit: job.MaxPageLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range d.Detections {
			out[i] = append(out[i], fmt.Sprint(v.Class, v.Confidence, v.BBoxPx, v.BBoxNorm, v.Source))
		}
	}
	return out
}

// decode decodes a PNG to 8-bit NRGBA pixels.
func decode(t *testing.T, b []byte) *image.NRGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewNRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			out.Set(x, y, color.NRGBAModel.Convert(img.At(x, y)))
		}
	}
	return out
}

// encodedPage is the page PNG as processing with page images encodes it:
// document.Page's raster through imagefile.EncodePNG.
func encodedPage(t *testing.T, data []byte, mime string, page int) []byte {
	t.Helper()
	ctx := context.Background()
	doc, err := document.Open(ctx, data, mime, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	p, err := doc.Page(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	b, err := imagefile.EncodePNG(p.Raster)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLazyPageImages: with LazyPageImages a multi-page job is done with no
// page image stored and the page the document pass does not count never
// detected; the first read of each page image renders it, stores it and
// gives the pixels alongside encoding gives; the next read streams the
// stored PNG without rendering; the detections are those of a job that
// encodes its pages alongside.
func TestLazyPageImages(t *testing.T) {
	ctx := context.Background()
	kinds := []string{detect.KindFloorPlan, detect.KindSchedule, detect.KindFloorPlan}
	data := lazyPDF()
	lazy := newLazyEnv(t, true, kinds)
	j := lazy.process(t, "lazy", data, job.MimePDF)
	if len(j.Pages) != 3 {
		t.Fatalf("pages %+v", j.Pages)
	}
	wantSizes := [][2]int{{833, 556}, {400, 400}, {1000, 600}}
	for i, p := range j.Pages {
		if p.Index != i || p.Width != wantSizes[i][0] || p.Height != wantSizes[i][1] || p.Kind != kinds[i] {
			t.Errorf("page %d recorded as %+v", i, p)
		}
		if _, ok := lazy.stored(t, job.ImageKey(j.ID, i)); ok {
			t.Errorf("page %d: an image stored by processing", i)
		}
	}
	if fmt.Sprint(lazy.eng.detected) != "[0 2]" {
		t.Errorf("pages detected %v, want [0 2]: the schedule is neither rendered nor detected", lazy.eng.detected)
	}

	eager := newLazyEnv(t, false, kinds)
	eager.process(t, "eager", data, job.MimePDF)
	if got, want := lazy.detections(t, "lazy", 3), eager.detections(t, "eager", 3); !reflect.DeepEqual(got, want) {
		t.Errorf("detections %v, alongside encoding gives %v", got, want)
	}

	for i := range j.Pages {
		got, size, err := lazy.pageImage(ctx, j.ID, i)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		storedPNG, ok := lazy.stored(t, job.ImageKey(j.ID, i))
		if !ok || !bytes.Equal(got, storedPNG) || size != int64(len(got)) {
			t.Fatalf("page %d: served %d bytes (size %d), stored %d (%v)", i, len(got), size, len(storedPNG), ok)
		}
		eagerPNG, ok := eager.stored(t, job.ImageKey("eager", i))
		if !ok {
			t.Fatalf("page %d: alongside encoding stored no image", i)
		}
		want := decode(t, encodedPage(t, data, job.MimePDF, i))
		if g := decode(t, got); !reflect.DeepEqual(g, want) || !reflect.DeepEqual(g, decode(t, eagerPNG)) {
			t.Errorf("page %d: the lazy PNG decodes to other pixels than the alongside-encoded one", i)
		}
		if n := lazy.files.rendered(i); n != 1 {
			t.Errorf("page %d rendered %d times on its first read", i, n)
		}
		again, _, err := lazy.pageImage(ctx, j.ID, i)
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("page %d, second read: %v, %d bytes", i, err, len(again))
		}
		if n := lazy.files.rendered(i); n != 1 {
			t.Errorf("page %d rendered again on its second read (%d renders)", i, n)
		}
	}
	if _, _, err := lazy.pageImage(ctx, j.ID, 3); job.ErrorCode(err) != job.CodeNotFound {
		t.Errorf("page past the end: %v, want not_found", err)
	}
	if _, _, err := eager.pageImage(ctx, "eager", 3); job.ErrorCode(err) != job.CodeNotFound {
		t.Errorf("page past the end, alongside: %v, want not_found", err)
	}
	// Without LazyPageImages a missing image stays missing.
	if err := eager.blobs.Delete(ctx, job.ImageKey("eager", 1)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := eager.pageImage(ctx, "eager", 1); job.ErrorCode(err) != job.CodeNotFound || eager.files.rendered(1) != 0 {
		t.Errorf("missing image, alongside: %v after %d renders, want not_found and none", err, eager.files.rendered(1))
	}
}

// TestLazyPageImageOfAnImage: an image upload's page is rendered lazily
// too, to the PNG alongside encoding gives.
func TestLazyPageImageOfAnImage(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 90, 60))
	for i := range img.Pix {
		img.Pix[i] = byte(i*13 + i/7)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	e := newLazyEnv(t, true, []string{detect.KindImage})
	j := e.process(t, "img", buf.Bytes(), job.MimePNG)
	if _, ok := e.stored(t, job.ImageKey(j.ID, 0)); ok {
		t.Fatal("an image stored by processing")
	}
	got, _, err := e.pageImage(context.Background(), j.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(decode(t, got), decode(t, encodedPage(t, buf.Bytes(), job.MimePNG, 0))) {
		t.Error("the lazy PNG of an image decodes to other pixels than the alongside-encoded one")
	}
}

// TestLazyPageImageConcurrentFirstReads: two first reads of one page at
// once both get the image, rendered once.
func TestLazyPageImageConcurrentFirstReads(t *testing.T) {
	e := newLazyEnv(t, true, []string{detect.KindFloorPlan, detect.KindSchedule, detect.KindFloorPlan})
	j := e.process(t, "conc", lazyPDF(), job.MimePDF)
	e.misses.key = job.ImageKey(j.ID, 2)
	// The render waits until both reads have missed the stored image (the
	// first misses twice: before it renders and when it starts), and a
	// little more, so the second is waiting for it, not rendering.
	release := make(chan struct{})
	go func() {
		for e.misses.misses.Load() < 3 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		close(release)
	}()
	e.files.during = func(int) { <-release }
	var wg sync.WaitGroup
	got := make([][]byte, 2)
	errs := make([]error, 2)
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[k], _, errs[k] = e.pageImage(context.Background(), j.ID, 2)
		}()
	}
	wg.Wait()
	for k := range 2 {
		if errs[k] != nil || len(got[k]) == 0 || !bytes.Equal(got[k], got[0]) {
			t.Fatalf("read %d: %v, %d bytes", k, errs[k], len(got[k]))
		}
	}
	if n := e.files.rendered(2); n != 1 {
		t.Errorf("rendered %d times for two first reads at once", n)
	}
	// A waiting read whose own request goes away stops waiting.
	e.files.during = func(int) { time.Sleep(200 * time.Millisecond) }
	e.misses.key = job.ImageKey(j.ID, 0)
	e.misses.misses.Store(0)
	done := make(chan error, 1)
	go func() { _, _, err := e.pageImage(context.Background(), j.ID, 0); done <- err }()
	for e.misses.misses.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := e.pageImage(ctx, j.ID, 0); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a read given up while waiting: %v, want its deadline", err)
	}
	if err := <-done; err != nil {
		t.Errorf("the rendering read: %v", err)
	}
}

// TestLazyPageImageExpiresMeanwhile: a job that expires while its page
// image renders keeps no image: the read is a 404 and the PNG stored
// after the expiry's purge is deleted.
func TestLazyPageImageExpiresMeanwhile(t *testing.T) {
	ctx := context.Background()
	e := newLazyEnv(t, true, []string{detect.KindFloorPlan, detect.KindSchedule, detect.KindFloorPlan})
	j := e.process(t, "expiring", lazyPDF(), job.MimePDF)
	e.files.during = func(int) {
		e.clock.now.Add(int64(job.DefaultRetention + time.Hour))
		if err := e.svc.Sweep(ctx); err != nil {
			t.Error(err)
		}
	}
	_, _, err := e.pageImage(ctx, j.ID, 0)
	if job.ErrorCode(err) != job.CodeNotFound {
		t.Fatalf("read while the job expired: %v, want not_found", err)
	}
	if cur, err := e.store.GetJob(ctx, j.ID); err != nil || cur.Status != job.Expired {
		t.Fatalf("job after the sweep: %v %v", cur, err)
	}
	if _, ok := e.stored(t, job.ImageKey(j.ID, 0)); ok {
		t.Error("the page image outlived its job's expiry")
	}
	if e.files.rendered(0) != 1 {
		t.Errorf("%d renders, want the one that raced", e.files.rendered(0))
	}
}
