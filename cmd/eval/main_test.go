package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunWritesReport(t *testing.T) {
	dir := t.TempDir()
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 300, 200))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.png"), img.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	gt := `{"file": "s.png", "kind": "raster", "pages": [{"page_index": 0, "width_px": 300, "height_px": 200,
	  "symbols": [{"class": "fan", "bbox_px": {"x": 10, "y": 10, "width": 30, "height": 30}}]}]}`
	if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(gt), 0o644); err != nil {
		t.Fatal(err)
	}
	reportPath := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	findingsPath := filepath.Join(t.TempDir(), "f.jsonl")
	if err := run(context.Background(), []string{"-data", dir, "-report", reportPath, "-findings", findingsPath}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	raw, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Overall  map[string]any            `json:"overall"`
		PerClass map[string]map[string]any `json:"per_class"`
		Timing   map[string]any            `json:"timing"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("report is not JSON: %v", err)
	}
	if rep.PerClass["fan"]["gt"] != 1.0 || rep.Timing["pages"] != 1.0 {
		t.Fatalf("report %s", raw)
	}
	// The blank page hides the fan from any engine: one false negative.
	f, err := os.ReadFile(findingsPath)
	if err != nil {
		t.Fatal(err)
	}
	if fp, fn := rep.Overall["fp"].(float64), rep.Overall["fn"].(float64); strings.Count(string(f), "\n") != int(fp+fn) || !strings.Contains(string(f), `"kind":"fn","class":"fan"`) {
		t.Fatalf("findings %s for overall %v", f, rep.Overall)
	}
	if !strings.Contains(stdout.String(), "OVERALL (micro)") || !strings.Contains(stdout.String(), "fan") || !strings.Contains(stderr.String(), "[1/1] s.png") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}

func TestRunUsageAndDataErrors(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{nil, {"-data"}, {"-data", "x", "extra"}, {"-data", "x", "-confidence", "2"}, {"-nope"}} {
		if err := run(context.Background(), args, &out, &out); !errors.Is(err, errUsage) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
	err := run(context.Background(), []string{"-data", filepath.Join(t.TempDir(), "absent")}, &out, &out)
	if err == nil || errors.Is(err, errUsage) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing dataset: %v", err)
	}
}
