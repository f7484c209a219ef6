package localblob

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"blueprint/internal/job"
	"blueprint/internal/job/jobtest"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBlobsConformance(t *testing.T) {
	jobtest.RunBlobsConformance(t, func(t *testing.T) job.Blobs { return newStore(t) })
}

func TestRefusesKeysOutsideTheRoot(t *testing.T) {
	parent := t.TempDir()
	s, err := New(filepath.Join(parent, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bad := []string{
		"", "/", "/etc/passwd", "../escape", "jobs/../../escape", "jobs/..", "..",
		"jobs/./upload", "./upload", "jobs//upload", "jobs/upload/", `jobs\..\..\escape`,
		"jobs/a\x00b", "jobs/.tmp-123", ".hidden",
	}
	for _, key := range bad {
		if _, err := s.Put(ctx, key, strings.NewReader("x")); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Put(%q): err = %v, want ErrInvalidKey", key, err)
		}
		if _, err := s.Get(ctx, key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Get(%q): err = %v, want ErrInvalidKey", key, err)
		}
		if err := s.Delete(ctx, key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Delete(%q): err = %v, want ErrInvalidKey", key, err)
		}
	}
	for _, prefix := range []string{"/", "/etc", "../", "jobs/../..", `jobs\`, "jobs//", "..", "jobs/.."} {
		if err := s.DeletePrefix(ctx, prefix); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("DeletePrefix(%q): err = %v, want ErrInvalidKey", prefix, err)
		}
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "blobs" {
		t.Errorf("refused keys wrote beside the root: %v", entries)
	}
	if err := s.DeletePrefix(ctx, ""); err != nil {
		t.Errorf("DeletePrefix(\"\"): %v", err)
	}
	if _, err := os.Stat(filepath.Join(parent, "blobs")); err != nil {
		t.Errorf("DeletePrefix(\"\") removed the root: %v", err)
	}
}

// files lists the regular files under dir, relative and slash-separated.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir {
			rel, _ := filepath.Rel(dir, path)
			if d.IsDir() {
				rel += "/"
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFailedPutLeavesNoTempFile(t *testing.T) {
	dir := t.TempDir()
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Put(ctx, job.UploadKey("j"), strings.NewReader("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	_, err = s.Put(ctx, job.UploadKey("j"), io.MultiReader(strings.NewReader("partial"), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Errorf("Put with a failing reader: err = %v, want it to wrap the reader's error", err)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"jobs/", "jobs/j/", "jobs/j/upload"}) {
		t.Errorf("files after a failed Put = %v", got)
	}
}

func TestDeleteRemovesEmptyDirectories(t *testing.T) {
	dir := t.TempDir()
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, k := range []string{job.UploadKey("a"), job.ResultKey("a", 0), job.UploadKey("b")} {
		if _, err := s.Put(ctx, k, strings.NewReader(k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, job.ResultKey("a", 0)); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"jobs/", "jobs/a/", "jobs/a/upload", "jobs/b/", "jobs/b/upload"}) {
		t.Errorf("after Delete: %v", got)
	}
	if err := s.DeletePrefix(ctx, job.JobPrefix("a")); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"jobs/", "jobs/b/", "jobs/b/upload"}) {
		t.Errorf("after DeletePrefix(a): %v", got)
	}
	if err := s.Delete(ctx, job.UploadKey("b")); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); len(got) != 0 {
		t.Errorf("after deleting everything: %v", got)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("root removed: %v", err)
	}
}

// TestPutRacesDelete stores and deletes blobs of one job directory at once:
// a Put must never fail because a Delete pruned its directory.
func TestPutRacesDelete(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for w := range 2 {
		wg.Go(func() {
			for i := range 100 {
				key := job.ResultKey("race", w*1000+i)
				if _, err := s.Put(ctx, key, strings.NewReader("x")); err != nil {
					errs <- err
					return
				}
				if err := s.Delete(ctx, key); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestRemoveStaleTemp(t *testing.T) {
	dir := t.TempDir()
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Put(ctx, job.UploadKey("a"), strings.NewReader("kept")); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	stale := filepath.Join(dir, "jobs", "b", "pages", tempPrefix+"123")
	fresh := filepath.Join(dir, "jobs", "a", tempPrefix+"456")
	for _, p := range []string{stale, fresh} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(stale, now.Add(-2*time.Hour), now.Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	n, err := s.RemoveStaleTemp(ctx, now, time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("RemoveStaleTemp = %d, %v; want 1", n, err)
	}
	want := []string{"jobs/", "jobs/a/", "jobs/a/" + tempPrefix + "456", "jobs/a/upload"}
	if got := files(t, dir); !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
}
