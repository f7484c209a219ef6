// Package dataset reads labelled drawings: a directory of sheets, each a
// PDF, PNG, JPEG or WebP with a JSON ground-truth file beside it. The synthetic
// generator writes this format and hand-labelled real drawings use it too
// (docs/evaluation.md shows an example). Boxes are in pixels of what the
// service reports: the 200-DPI raster for PDF pages, native pixels for
// images.
package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"blueprint/internal/detect"
	"blueprint/internal/eval"
)

// Box is a rectangle as written in ground truth: top-left corner and size.
type Box struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Symbol is one labelled instance. BBoxPx wins when both boxes are given;
// hand labels may give only BBoxNorm (fractions of the page).
type Symbol struct {
	Class    string  `json:"class"`
	BBoxPx   *Box    `json:"bbox_px,omitempty"`
	BBoxNorm *Box    `json:"bbox_norm,omitempty"`
	Rotation float64 `json:"rotation"`
	Mirrored bool    `json:"mirrored"`
	Scale    float64 `json:"scale,omitempty"`
	Clipped  bool    `json:"clipped"`
	// Case names the generated case the symbol stands for (for example
	// "elongated" or "nested"), so evaluation can report precision and
	// recall per case; empty for ordinary symbols and real drawings.
	Case string `json:"case,omitempty"`
}

// Page is the ground truth of one page. A page the file does not list is
// unlabelled and not scored; a listed page with no symbols is a negative.
type Page struct {
	PageIndex int      `json:"page_index"`
	WidthPx   int      `json:"width_px"`
	HeightPx  int      `json:"height_px"`
	Symbols   []Symbol `json:"symbols"`
	// Cases lists the generated cases drawn on the page (see
	// Symbol.Case); a detection on such a page that matches no truth
	// counts against each of them.
	Cases []string `json:"cases,omitempty"`
}

// Sheet is one labelled drawing file.
type Sheet struct {
	File   string `json:"file"` // the drawing's name, relative to the JSON's directory
	Kind   string `json:"kind,omitempty"`
	Seed   uint64 `json:"seed,omitempty"` // cmd/synth seeds are uint64
	Paper  string `json:"paper,omitempty"`
	Scale  string `json:"scale,omitempty"`
	Legend bool   `json:"legend,omitempty"`
	DPI    int    `json:"dpi,omitempty"`
	Pages  []Page `json:"pages"`

	// Path is the drawing's path on disk, Label the ground truth's; both
	// set by Read.
	Path  string `json:"-"`
	Label string `json:"-"`
}

// ErrNotSheet marks a JSON file that is not sheet ground truth (no "file"
// or no "pages"): Load skips such files.
var ErrNotSheet = errors.New("not a sheet ground-truth file")

// Read parses one ground-truth file and checks it: the drawing exists
// beside it, page indexes are unique and non-negative, every symbol has a
// class and a finite, non-negative box. Files that are JSON but not ground
// truth give an error wrapping ErrNotSheet.
func Read(path string) (Sheet, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Sheet{}, fmt.Errorf("read ground truth: %w", err)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return Sheet{}, fmt.Errorf("%s: malformed JSON at byte %d: %w", path, syn.Offset, err)
		}
		// Valid JSON but not an object (a list, a number): not ours.
		return Sheet{}, fmt.Errorf("%s: %w", path, ErrNotSheet)
	}
	if _, ok := probe["file"]; !ok {
		return Sheet{}, fmt.Errorf("%s: no \"file\": %w", path, ErrNotSheet)
	}
	if _, ok := probe["pages"]; !ok {
		return Sheet{}, fmt.Errorf("%s: no \"pages\": %w", path, ErrNotSheet)
	}
	var s Sheet
	if err := json.Unmarshal(raw, &s); err != nil {
		return Sheet{}, fmt.Errorf("%s: decode ground truth: %w", path, err)
	}
	if s.File == "" || !filepath.IsLocal(s.File) {
		return Sheet{}, fmt.Errorf("%s: \"file\" %q must name a file beside the JSON", path, s.File)
	}
	s.Label = path
	s.Path = filepath.Join(filepath.Dir(path), s.File)
	if st, err := os.Stat(s.Path); err != nil {
		return Sheet{}, fmt.Errorf("%s: drawing: %w", path, err)
	} else if !st.Mode().IsRegular() {
		return Sheet{}, fmt.Errorf("%s: drawing %s is not a regular file", path, s.Path)
	}
	seen := map[int]bool{}
	for i, p := range s.Pages {
		if p.PageIndex < 0 || seen[p.PageIndex] {
			return Sheet{}, fmt.Errorf("%s: pages[%d]: page_index %d is negative or repeated", path, i, p.PageIndex)
		}
		seen[p.PageIndex] = true
		for j, sym := range p.Symbols {
			if err := sym.check(); err != nil {
				return Sheet{}, fmt.Errorf("%s: page %d symbol %d: %w", path, p.PageIndex, j, err)
			}
		}
	}
	return s, nil
}

func (s Symbol) check() error {
	if strings.TrimSpace(s.Class) == "" {
		return errors.New("no class")
	}
	b := s.BBoxPx
	if b == nil {
		b = s.BBoxNorm
	}
	if b == nil {
		return fmt.Errorf("%s: neither bbox_px nor bbox_norm", s.Class)
	}
	for _, v := range []float64{b.X, b.Y, b.Width, b.Height} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: box %+v is not finite", s.Class, *b)
		}
	}
	if b.Width < 0 || b.Height < 0 {
		return fmt.Errorf("%s: box %+v has a negative size", s.Class, *b)
	}
	return nil
}

// Load reads every ground-truth file under dir (recursively, in path
// order). JSON files that are not ground truth are returned in skipped; any
// other problem (unreadable directory, malformed JSON, a missing drawing, a
// bad box) is an error. A directory with no sheets is an error too.
func Load(dir string) (sheets []Sheet, skipped []string, err error) {
	var paths []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".json") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read dataset %s: %w", dir, err)
	}
	slices.Sort(paths)
	for _, p := range paths {
		s, err := Read(p)
		if errors.Is(err, ErrNotSheet) {
			skipped = append(skipped, p)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		sheets = append(sheets, s)
	}
	if len(sheets) == 0 {
		return nil, skipped, fmt.Errorf("dataset %s: no sheet ground truth found (%d other JSON files)", dir, len(skipped))
	}
	return sheets, skipped, nil
}

// Objects returns the page's ground truth as boxes in the pixels of a page
// width × height (the raster the service reports). bbox_norm is scaled by
// the page size when bbox_px is absent. When the file states a page size
// that differs from the real one by more than a pixel its boxes are in some
// other frame, and Objects fails rather than score them.
func (p Page) Objects(width, height int) ([]eval.Object, error) {
	if (p.WidthPx != 0 || p.HeightPx != 0) && (abs(p.WidthPx-width) > 1 || abs(p.HeightPx-height) > 1) {
		return nil, fmt.Errorf("page %d: ground truth is %dx%d px but the page renders at %dx%d px", p.PageIndex, p.WidthPx, p.HeightPx, width, height)
	}
	out := make([]eval.Object, 0, len(p.Symbols))
	for _, s := range p.Symbols {
		var b detect.Box
		if s.BBoxPx != nil {
			b = detect.Box{X: s.BBoxPx.X, Y: s.BBoxPx.Y, W: s.BBoxPx.Width, H: s.BBoxPx.Height}
		} else {
			n := s.BBoxNorm
			w, h := float64(width), float64(height)
			b = detect.Box{X: n.X * w, Y: n.Y * h, W: n.Width * w, H: n.Height * h}
		}
		out = append(out, eval.Object{Class: s.Class, Box: b, Case: s.Case})
	}
	return out, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
