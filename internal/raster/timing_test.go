package raster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"blueprint/internal/raster/rastertest"
)

// TestDevTiming times Detect per page by paper size over a generated raster
// set (make bench-raster; skipped unless RASTER_TIMING_DATA names one).
// RASTER_DEV_MODEL swaps in another ONNX file of the same metadata (the
// int8 variant, say).
func TestDevTiming(t *testing.T) {
	dir := os.Getenv("RASTER_TIMING_DATA")
	if dir == "" {
		t.Skip("RASTER_TIMING_DATA not set")
	}
	// RASTER_GPU_PROVIDER=cuda times the CUDA build's CUDA provider
	// instead (BLUEPRINT_ONNXRUNTIME_GPU_LIB, its folder on
	// LD_LIBRARY_PATH: make gpu-check).
	cfg := Config{Library: rastertest.Library(t)}
	if p, err := ParseProvider(os.Getenv(envGPUProvider)); err != nil {
		t.Fatal(err)
	} else if p != ProviderCPU {
		cfg.GPULibrary, cfg.Provider = gpuLibrary(t), p
	}
	d, err := NewWithModel(cfg, devModel(t))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	t.Logf("execution provider %s (%s)", d.Provider(), d.ProviderReason())
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	type agg struct {
		n              int
		secs, cpu, mpx float64
		tiles, skipped int
	}
	by := map[string]*agg{}
	all := &agg{}
	for _, js := range files {
		raw, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var truth struct{ File, Paper string }
		if err := json.Unmarshal(raw, &truth); err != nil || truth.File == "" {
			continue
		}
		page, closeDoc := openPage(t, filepath.Join(dir, truth.File))
		g := luma(page.Raster)
		xs, _, _ := positions(g.w, d.meta.Tile, d.meta.Overlap)
		ys, _, _ := positions(g.h, d.meta.Tile, d.meta.Overlap)
		inked, _, _ := d.tiles(g)
		start, cpu0 := time.Now(), cpuSeconds(t)
		if _, err := d.Detect(context.Background(), page); err != nil {
			t.Fatal(err)
		}
		secs, cpu := time.Since(start).Seconds(), cpuSeconds(t)-cpu0
		closeDoc()
		for _, a := range []*agg{all, by[truth.Paper]} {
			if a == nil {
				a = &agg{}
				by[truth.Paper] = a
			}
			a.n++
			a.secs += secs
			a.cpu += cpu
			a.mpx += float64(page.Width*page.Height) / 1e6
			a.tiles += len(xs) * len(ys)
			a.skipped += len(xs)*len(ys) - len(inked)
		}
	}
	papers := []string{"A4", "A3", "A2", "A1", "A0"}
	for _, p := range append(papers, "all") {
		a := by[p]
		if p == "all" {
			a = all
		}
		if a == nil || a.n == 0 {
			continue
		}
		t.Logf("%-3s %3d pages: detect %.2f s/page mean wall, %.2f CPU-s/page, %.1f Mpx/page, %d tiles of which %.0f%% blank (skipped)",
			p, a.n, a.secs/float64(a.n), a.cpu/float64(a.n), a.mpx/float64(a.n), a.tiles, 100*float64(a.skipped)/float64(max(a.tiles, 1)))
	}
}

// cpuSeconds is the user and system CPU time of this process so far (ONNX
// Runtime's threads included): on a shared machine it says what a page
// costs when wall time says how busy the neighbours were.
func cpuSeconds(t *testing.T) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// devModel returns the embedded model, with the detector network replaced
// by the ONNX file RASTER_DEV_MODEL names and the classifier by the one
// RASTER_DEV_CLASSIFIER names (their checksums taken from the files).
func devModel(t *testing.T) Model {
	m, err := EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("RASTER_DEV_MODEL"); p != "" {
		if m.Detector, err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(m.Detector)
		m.Meta.SHA256 = hex.EncodeToString(sum[:])
	}
	if p := os.Getenv("RASTER_DEV_CLASSIFIER"); p != "" && m.Meta.Classifier != nil {
		if m.Classifier, err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(m.Classifier)
		c := *m.Meta.Classifier
		c.SHA256 = hex.EncodeToString(sum[:])
		m.Meta.Classifier = &c
	}
	return m
}
