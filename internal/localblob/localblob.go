// Package localblob is the embedded job.Blobs: every blob is one file under
// a root directory, its key being the slash-separated path below the root.
// Writes go to a temporary file in the target directory, are fsynced and
// renamed over the target, so a reader sees the old or the new bytes and a
// crash never leaves a half-written blob.
package localblob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"blueprint/internal/job"
)

// notDirErr is what the OS reports when a key's parent is a file, which
// means the key cannot exist.
const notDirErr = syscall.ENOTDIR

// tempPrefix starts the names of in-flight temporary files. Keys may not
// have a path segment starting with "." so they never collide with one.
const tempPrefix = ".tmp-"

// ErrInvalidKey is wrapped by errors for keys (and prefixes) that are empty
// where a key is needed, absolute, contain "." or ".." or empty segments,
// segments starting with ".", backslashes or NUL bytes.
var ErrInvalidKey = errors.New("invalid blob key")

// Store is a job.Blobs on local disk. It is safe for concurrent use.
type Store struct {
	root string // absolute, cleaned
}

var _ job.Blobs = (*Store)(nil)

// New returns a store rooted at dir, creating the directory if needed.
func New(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("localblob: root %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("localblob: create root %s: %w", abs, err)
	}
	return &Store{root: abs}, nil
}

// Put stores r's bytes under key, atomically replacing any earlier value,
// and returns the number of bytes stored. If reading r fails or ctx ends
// before the copy completes, nothing is stored and the earlier value stays.
func (s *Store) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	path, err := s.path(key)
	if err != nil {
		return 0, fmt.Errorf("localblob: put: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("localblob: put %s: %w", key, err)
	}
	dir := filepath.Dir(path)
	tmp, err := s.createTemp(dir)
	if err != nil {
		return 0, fmt.Errorf("localblob: put %s: %w", key, err)
	}
	n, err := writeTemp(ctx, tmp, r)
	if err != nil {
		_ = os.Remove(tmp.Name())
		return 0, fmt.Errorf("localblob: put %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return 0, fmt.Errorf("localblob: put %s: %w", key, err)
	}
	if err := syncDir(dir); err != nil {
		return 0, fmt.Errorf("localblob: put %s: %w", key, err)
	}
	return n, nil
}

// createTemp creates a temporary file in dir, creating dir first. A
// concurrent Delete may remove a directory on the way while it is empty,
// during MkdirAll or before CreateTemp; then it tries again. Once the
// temporary file exists its directory is not empty and stays.
func (s *Store) createTemp(dir string) (*os.File, error) {
	var err error
	for range 10 {
		err = os.MkdirAll(dir, 0o700)
		if err == nil {
			var f *os.File
			f, err = os.CreateTemp(dir, tempPrefix+"*")
			if err == nil {
				return f, nil
			}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return nil, err
}

// writeTemp copies r into f, fsyncs and closes f.
func writeTemp(ctx context.Context, f *os.File, r io.Reader) (int64, error) {
	n, err := io.Copy(f, ctxReader{ctx: ctx, r: r})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// ctxReader stops a copy once its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Get opens the blob stored under key. The error wraps job.ErrNotFound if
// there is none. The caller closes the reader; a concurrent Put does not
// change what an open reader returns.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	path, err := s.path(key)
	if err != nil {
		return nil, fmt.Errorf("localblob: get: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("localblob: get %s: %w", key, err)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, notDirErr) {
		return nil, fmt.Errorf("localblob: get %s: %w", key, job.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("localblob: get %s: %w", key, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("localblob: get %s: %w", key, err)
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("localblob: get %s: %w", key, job.ErrNotFound)
	}
	return f, nil
}

// Delete removes the blob under key, and the directories it leaves empty.
// Deleting an absent blob succeeds.
func (s *Store) Delete(ctx context.Context, key string) error {
	path, err := s.path(key)
	if err != nil {
		return fmt.Errorf("localblob: delete: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("localblob: delete %s: %w", key, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, notDirErr) {
		return fmt.Errorf("localblob: delete %s: %w", key, err)
	}
	s.pruneDirs(filepath.Dir(path))
	return nil
}

// DeletePrefix removes every blob whose key starts with prefix (a plain
// string prefix: "jobs/a" also removes "jobs/ab/x"), and the directories it
// leaves empty. The empty prefix removes everything.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) error {
	if err := checkPrefix(prefix); err != nil {
		return fmt.Errorf("localblob: delete prefix: %w", err)
	}
	dirPart, namePart := "", prefix
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dirPart, namePart = prefix[:i], prefix[i+1:]
	}
	dir := filepath.Join(s.root, filepath.FromSlash(dirPart))
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, notDirErr) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("localblob: delete prefix %s: %w", prefix, err)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("localblob: delete prefix %s: %w", prefix, err)
		}
		if !strings.HasPrefix(e.Name(), namePart) || strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("localblob: delete prefix %s: %w", prefix, err)
		}
	}
	s.pruneDirs(dir)
	return nil
}

// RemoveStaleTemp removes the temporary files of Puts that a crashed process
// left behind: those last modified more than olderThan before now. It
// returns how many it removed. Puts in flight keep writing to their files,
// so an olderThan well above the longest upload time leaves them alone.
func (s *Store) RemoveStaleTemp(ctx context.Context, now time.Time, olderThan time.Duration) (int, error) {
	n := 0
	err := filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed by a concurrent Delete
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), tempPrefix) {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // its Put finished
		}
		if err != nil {
			return err
		}
		if now.Sub(info.ModTime()) <= olderThan {
			return nil
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		n++
		s.pruneDirs(filepath.Dir(path))
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("localblob: remove stale temporary files: %w", err)
	}
	return n, nil
}

// pruneDirs removes dir and its parents while they are empty, stopping at
// the root. Failing to remove one (not empty, or gone) just stops it.
func (s *Store) pruneDirs(dir string) {
	for dir != s.root && strings.HasPrefix(dir, s.root+string(filepath.Separator)) {
		if err := os.Remove(dir); err != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// path maps a valid key to its file path under the root.
func (s *Store) path(key string) (string, error) {
	if key == "" || strings.HasSuffix(key, "/") {
		return "", fmt.Errorf("%w %q: empty or ends with a slash", ErrInvalidKey, key)
	}
	if err := checkPrefix(key); err != nil {
		return "", err
	}
	return filepath.Join(s.root, filepath.FromSlash(key)), nil
}

// checkPrefix accepts keys and key prefixes that stay below the root: the
// segments before the last may not be empty, "." or "..", and no segment may
// start with "." or hold a backslash or NUL.
func checkPrefix(p string) error {
	if strings.ContainsAny(p, "\\\x00") {
		return fmt.Errorf("%w %q: backslash or NUL", ErrInvalidKey, p)
	}
	if strings.HasPrefix(p, "/") {
		return fmt.Errorf("%w %q: absolute", ErrInvalidKey, p)
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		if seg == "" && !last {
			return fmt.Errorf("%w %q: empty segment", ErrInvalidKey, p)
		}
		if strings.HasPrefix(seg, ".") {
			return fmt.Errorf("%w %q: segment %q starts with a dot", ErrInvalidKey, p, seg)
		}
	}
	return nil
}
