package lambdaimage

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Assemble copies what the stage's COPY instructions copy into dir, a
// folder standing for the image's root: each source is found on this
// machine by local(stage, src), stage being the COPY's --from; a folder's
// contents go into the destination, as Docker copies them; a file into a
// destination ending in "/" keeps its name. Symbolic links are copied as
// links, files keep their modes. The base image's own files are not
// written: the caller lays them out first.
func Assemble(s Stage, dir string, local func(stage, src string) (string, error)) error {
	copies, err := s.Copies()
	if err != nil {
		return err
	}
	for _, c := range copies {
		for _, src := range c.Src {
			from, err := local(c.From, src)
			if err != nil {
				return fmt.Errorf("line %d: %w", c.Line, err)
			}
			fi, err := os.Lstat(from)
			if err != nil {
				return fmt.Errorf("line %d: COPY %s: %w", c.Line, src, err)
			}
			dst := filepath.Join(dir, filepath.FromSlash(c.Dst))
			if !fi.IsDir() && strings.HasSuffix(c.Dst, "/") {
				dst = filepath.Join(dst, filepath.Base(from))
			}
			if err := copyTree(from, dst); err != nil {
				return fmt.Errorf("line %d: COPY %s %s: %w", c.Line, src, c.Dst, err)
			}
		}
	}
	return nil
}

// copyTree copies src (a file, link or folder) to dst.
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			os.Remove(to)
			return os.Symlink(t, to)
		case fi.IsDir():
			return os.MkdirAll(to, 0o755)
		case fi.Mode().IsRegular():
			return copyFile(p, to, fi.Mode().Perm())
		}
		return fmt.Errorf("%s: not a file, folder or link", p)
	})
}

func copyFile(src, dst string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
