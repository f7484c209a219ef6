package jobtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"blueprint/internal/job"
)

// RunBlobsConformance checks every promise of job.Blobs against stores made
// by newBlobs. Each call of newBlobs must return a new, empty store whose
// cleanup is registered on the t it was given. Subtests run in parallel.
func RunBlobsConformance(t *testing.T, newBlobs func(t *testing.T) job.Blobs) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, b job.Blobs)
	}{
		{"PutGetRoundTrip", blobsRoundTrip},
		{"EmptyBlob", blobsEmpty},
		{"GetMissing", blobsGetMissing},
		{"PutReplaces", blobsPutReplaces},
		{"FailedReaderStoresNothing", blobsFailedReader},
		{"CanceledContextStoresNothing", blobsCanceled},
		{"ReplaceIsAtomicForReaders", blobsAtomicReplace},
		{"Delete", blobsDelete},
		{"DeletePrefix", blobsDeletePrefix},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newBlobs(t))
		})
	}
}

// randomBytes returns n reproducible pseudo-random bytes.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func mustPut(t *testing.T, b job.Blobs, key string, data []byte) {
	t.Helper()
	n, err := b.Put(context.Background(), key, bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
	if n != int64(len(data)) {
		t.Fatalf("Put(%s) = %d bytes, want %d", key, n, len(data))
	}
}

// read returns the blob's bytes, or the error of Get or of reading.
func read(b job.Blobs, key string) ([]byte, error) {
	rc, err := b.Get(context.Background(), key)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	return data, err
}

func mustRead(t *testing.T, b job.Blobs, key string) []byte {
	t.Helper()
	data, err := read(b, key)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return data
}

func wantBlob(t *testing.T, b job.Blobs, key string, want []byte) {
	t.Helper()
	if got := mustRead(t, b, key); !bytes.Equal(got, want) {
		t.Errorf("%s holds %d bytes, want %d (%q... want %q...)", key, len(got), len(want), head(got), head(want))
	}
}

func wantMissing(t *testing.T, b job.Blobs, key string) {
	t.Helper()
	if data, err := read(b, key); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("read %s = %d bytes, %v; want ErrNotFound", key, len(data), err)
	}
}

func head(b []byte) []byte { return b[:min(len(b), 8)] }

func blobsRoundTrip(t *testing.T, b job.Blobs) {
	up := randomBytes(1, 300<<10)
	res := []byte(`{"detections":[]}`)
	mustPut(t, b, job.UploadKey("job_1"), up)
	mustPut(t, b, job.ResultKey("job_1", 0), res)
	mustPut(t, b, job.ImageKey("job_1", 0), randomBytes(2, 1000))
	wantBlob(t, b, job.UploadKey("job_1"), up)
	wantBlob(t, b, job.ResultKey("job_1", 0), res)
	wantBlob(t, b, job.ImageKey("job_1", 0), randomBytes(2, 1000))
}

func blobsEmpty(t *testing.T, b job.Blobs) {
	mustPut(t, b, job.ResultKey("job_e", 3), nil)
	if got := mustRead(t, b, job.ResultKey("job_e", 3)); len(got) != 0 {
		t.Errorf("empty blob reads %d bytes", len(got))
	}
}

func blobsGetMissing(t *testing.T, b job.Blobs) {
	wantMissing(t, b, job.UploadKey("job_none"))
	mustPut(t, b, job.ResultKey("job_m", 0), []byte("x"))
	// Neither a key's prefix nor a longer key exists as a blob.
	wantMissing(t, b, "jobs/job_m/pages")
	wantMissing(t, b, job.ResultKey("job_m", 0)+"/more")
	wantMissing(t, b, job.ResultKey("job_m", 1))
}

func blobsPutReplaces(t *testing.T, b job.Blobs) {
	key := job.UploadKey("job_r")
	mustPut(t, b, key, randomBytes(3, 200<<10))
	short := []byte("%PDF-1.7 short")
	mustPut(t, b, key, short)
	wantBlob(t, b, key, short)
}

// failingReader yields n bytes of data and then fails.
type failingReader struct {
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	k := min(len(p), f.n)
	for i := range p[:k] {
		p[i] = 'z'
	}
	f.n -= k
	return k, nil
}

func blobsFailedReader(t *testing.T, b job.Blobs) {
	boom := errors.New("connection reset by partner")
	old := randomBytes(4, 10<<10)
	key := job.UploadKey("job_f")
	mustPut(t, b, key, old)

	n, err := b.Put(context.Background(), key, &failingReader{n: 100 << 10, err: boom})
	if err == nil {
		t.Fatalf("Put with a failing reader succeeded (%d bytes)", n)
	}
	wantBlob(t, b, key, old)

	fresh := job.UploadKey("job_f2")
	if _, err := b.Put(context.Background(), fresh, &failingReader{n: 10, err: boom}); err == nil {
		t.Fatal("Put with a failing reader succeeded")
	}
	wantMissing(t, b, fresh)
}

// cancelingReader cancels its context after the first read.
type cancelingReader struct {
	r      io.Reader
	cancel context.CancelFunc
	reads  int
}

func (c *cancelingReader) Read(p []byte) (int, error) {
	c.reads++
	if c.reads == 2 {
		c.cancel()
	}
	return c.r.Read(p[:min(len(p), 4096)])
}

func blobsCanceled(t *testing.T, b job.Blobs) {
	old := []byte("old bytes")
	key := job.UploadKey("job_c")
	mustPut(t, b, key, old)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Put(ctx, key, bytes.NewReader([]byte("new"))); !errors.Is(err, context.Canceled) {
		t.Errorf("Put(canceled): err = %v, want context.Canceled", err)
	}
	wantBlob(t, b, key, old)
	if _, err := b.Put(ctx, job.UploadKey("job_c2"), bytes.NewReader([]byte("new"))); err == nil {
		t.Error("Put(canceled) of a new key succeeded")
	}
	wantMissing(t, b, job.UploadKey("job_c2"))

	// Canceled while copying.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	r := &cancelingReader{r: bytes.NewReader(randomBytes(5, 1<<20)), cancel: cancel}
	if _, err := b.Put(ctx, key, r); err == nil {
		t.Error("Put canceled mid-copy succeeded")
	}
	wantBlob(t, b, key, old)
}

// blobsAtomicReplace replaces a blob over and over while readers read it:
// every read must see one whole version.
func blobsAtomicReplace(t *testing.T, b job.Blobs) {
	const size, puts, readers = 128 << 10, 20, 2
	key := job.ImageKey("job_a", 0)
	versions := [][]byte{bytes.Repeat([]byte{'a'}, size), bytes.Repeat([]byte{'b'}, size)}
	mustPut(t, b, key, versions[0])

	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, readers+1)
	for range readers {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				data, err := read(b, key)
				if err != nil {
					errs <- err
					return
				}
				if !slices.ContainsFunc(versions, func(v []byte) bool { return bytes.Equal(v, data) }) {
					errs <- fmt.Errorf("a reader saw a mix or a partial blob of %d bytes", len(data))
					return
				}
			}
		})
	}
	for i := range puts {
		if _, err := b.Put(context.Background(), key, bytes.NewReader(versions[(i+1)%2])); err != nil {
			errs <- err
			break
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func blobsDelete(t *testing.T, b job.Blobs) {
	ctx := context.Background()
	key := job.UploadKey("job_d")
	mustPut(t, b, key, []byte("x"))
	mustPut(t, b, job.ResultKey("job_d", 0), []byte("y"))
	if err := b.Delete(ctx, key); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	wantMissing(t, b, key)
	wantBlob(t, b, job.ResultKey("job_d", 0), []byte("y"))
	if err := b.Delete(ctx, key); err != nil {
		t.Errorf("second Delete: %v, want nil", err)
	}
	if err := b.Delete(ctx, job.UploadKey("job_never")); err != nil {
		t.Errorf("Delete(never stored): %v, want nil", err)
	}
	// The key can be stored again.
	mustPut(t, b, key, []byte("again"))
	wantBlob(t, b, key, []byte("again"))
}

func blobsDeletePrefix(t *testing.T, b job.Blobs) {
	ctx := context.Background()
	gone := []string{
		job.UploadKey("job_a"), job.ResultKey("job_a", 0), job.ImageKey("job_a", 0),
		job.ResultKey("job_a", 10), job.ImageKey("job_a", 10),
	}
	kept := []string{job.UploadKey("job_ab"), job.ResultKey("job_ab", 0), job.UploadKey("job_b"), "jobs/job_a-archive"}
	for _, k := range append(slices.Clone(gone), kept...) {
		mustPut(t, b, k, []byte(k))
	}
	if err := b.DeletePrefix(ctx, job.JobPrefix("job_a")); err != nil {
		t.Fatalf("DeletePrefix: %v", err)
	}
	for _, k := range gone {
		wantMissing(t, b, k)
	}
	for _, k := range kept {
		wantBlob(t, b, k, []byte(k))
	}
	if err := b.DeletePrefix(ctx, job.JobPrefix("job_a")); err != nil {
		t.Errorf("second DeletePrefix: %v, want nil", err)
	}
	if err := b.DeletePrefix(ctx, job.JobPrefix("job_never")); err != nil {
		t.Errorf("DeletePrefix(nothing there): %v, want nil", err)
	}
	// A prefix that is not a whole path segment.
	if err := b.DeletePrefix(ctx, "jobs/job_a"); err != nil {
		t.Fatalf("DeletePrefix(jobs/job_a): %v", err)
	}
	for _, k := range kept[:2] {
		wantMissing(t, b, k)
	}
	wantMissing(t, b, "jobs/job_a-archive")
	wantBlob(t, b, job.UploadKey("job_b"), []byte(job.UploadKey("job_b")))
	// Keys under a deleted prefix can be stored again.
	mustPut(t, b, job.ResultKey("job_a", 0), []byte("back"))
	wantBlob(t, b, job.ResultKey("job_a", 0), []byte("back"))
}
