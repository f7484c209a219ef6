package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const sheetJSON = `{"file": "sheet-00001.png", "kind": "raster", "seed": 42, "paper": "A4", "scale": "1:50",
 "legend": false, "dpi": 150, "extra_field": "ignored",
 "pages": [{"page_index": 0, "width_px": 400, "height_px": 200,
   "symbols": [
     {"class": "luminaire", "bbox_px": {"x": 10, "y": 20, "width": 30, "height": 40},
      "bbox_norm": {"x": 0.025, "y": 0.1, "width": 0.075, "height": 0.2}, "rotation": 30, "mirrored": false, "scale": 1.2, "clipped": false},
     {"class": "sounder", "bbox_norm": {"x": 0.5, "y": 0.5, "width": 0.1, "height": 0.1}, "case": "boq"}], "cases": ["boq"]}]}`

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "sheet-00001.png", "not read here")
	write(t, dir, "sheet-00001.json", sheetJSON)
	write(t, dir, "manifest.json", `{"sheets": 1, "seed": 42}`)
	write(t, dir, "list.json", `[1, 2]`)
	write(t, dir, "sub/b.pdf", "%PDF")
	write(t, dir, "sub/b.json", `{"file": "b.pdf", "pages": [{"page_index": 1, "symbols": []}]}`)

	sheets, skipped, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sheets) != 2 || len(skipped) != 2 {
		t.Fatalf("sheets %d skipped %v", len(sheets), skipped)
	}
	s := sheets[0]
	if s.File != "sheet-00001.png" || s.Kind != "raster" || s.DPI != 150 || s.Path != filepath.Join(dir, "sheet-00001.png") {
		t.Fatalf("sheet %+v", s)
	}
	objs, err := s.Pages[0].Objects(400, 200)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || objs[0].Box.X != 10 || objs[0].Box.H != 40 || objs[1].Class != "sounder" || objs[1].Box.X != 200 || objs[1].Box.W != 40 || objs[1].Box.H != 20 ||
		objs[0].Case != "" || objs[1].Case != "boq" || len(s.Pages[0].Cases) != 1 {
		t.Fatalf("objects %+v", objs)
	}
	// One pixel of rounding is tolerated; more means another frame.
	if _, err := s.Pages[0].Objects(401, 200); err != nil {
		t.Fatalf("off by one: %v", err)
	}
	if _, err := s.Pages[0].Objects(800, 400); err == nil || !strings.Contains(err.Error(), "renders at 800x400") {
		t.Fatalf("size mismatch: %v", err)
	}
	if sheets[1].Pages[0].PageIndex != 1 || len(sheets[1].Pages[0].Symbols) != 0 {
		t.Fatalf("negative page %+v", sheets[1])
	}
}

func TestReadErrors(t *testing.T) {
	cases := map[string]string{
		"malformed":      `{"file": "a.png", "pages": [`,
		"missing file":   `{"file": "nothere.png", "pages": []}`,
		"escaping file":  `{"file": "../a.png", "pages": []}`,
		"no class":       `{"file": "a.png", "pages": [{"page_index": 0, "symbols": [{"bbox_px": {"x":0,"y":0,"width":1,"height":1}}]}]}`,
		"no box":         `{"file": "a.png", "pages": [{"page_index": 0, "symbols": [{"class": "fan"}]}]}`,
		"negative size":  `{"file": "a.png", "pages": [{"page_index": 0, "symbols": [{"class": "fan", "bbox_px": {"x":0,"y":0,"width":-1,"height":1}}]}]}`,
		"repeated page":  `{"file": "a.png", "pages": [{"page_index": 0, "symbols": []}, {"page_index": 0, "symbols": []}]}`,
		"negative page":  `{"file": "a.png", "pages": [{"page_index": -1, "symbols": []}]}`,
		"wrong type":     `{"file": "a.png", "pages": {"page_index": 0}}`,
		"box not number": `{"file": "a.png", "pages": [{"page_index": 0, "symbols": [{"class": "fan", "bbox_px": {"x":"a","y":0,"width":1,"height":1}}]}]}`,
	}
	for name, body := range cases {
		dir := t.TempDir()
		write(t, dir, "a.png", "x")
		write(t, dir, "a.json", body)
		if _, err := Read(filepath.Join(dir, "a.json")); err == nil || errors.Is(err, ErrNotSheet) {
			t.Errorf("%s: got %v, want a hard error", name, err)
		}
		if _, _, err := Load(dir); err == nil {
			t.Errorf("%s: Load accepted it", name)
		}
	}
}

func TestLoadEmptyAndMissing(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "manifest.json", `{"n": 0}`)
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "no sheet") {
		t.Fatalf("empty dataset: %v", err)
	}
	if _, _, err := Load(filepath.Join(dir, "absent")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing dir: %v", err)
	}
}

// TestReadLargeSeed: every seed cmd/synth accepts (a uint64) reads back.
func TestReadLargeSeed(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "s.pdf", "%PDF")
	write(t, dir, "s.json", `{"file": "s.pdf", "seed": 18446744073709551615, "pages": []}`)
	s, err := Read(filepath.Join(dir, "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Seed != 1<<64-1 {
		t.Fatalf("seed %d", s.Seed)
	}
}
