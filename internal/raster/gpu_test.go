package raster

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/raster/rastertest"
)

// The CUDA build's tests: ONNX Runtime is loaded once per process, so
// the CUDA build runs in a child (this test binary again, TestGPUBuildChild)
// and the CPU build here.
const (
	// envGPULib names the CUDA build; unset, the one make ort-gpu-layer
	// puts under layers/onnxruntime-gpu/lib.
	envGPULib = "BLUEPRINT_ONNXRUNTIME_GPU_LIB"
	// envGPUChild, set, makes TestGPUBuildChild run and write its
	// detections to the file it names.
	envGPUChild = "RASTER_GPU_CHILD"
	// envGPUProvider is the child's provider: auto (the default) or cuda.
	envGPUProvider = "RASTER_GPU_PROVIDER"
	// gpuTolerance is how far the CUDA build's confidences and box
	// coordinates (pixels) may be from the CPU build's (issue 50).
	gpuTolerance = 1e-3
)

// gpuLibrary returns the CUDA build's libonnxruntime.so, or skips.
func gpuLibrary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(envGPULib); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", envGPULib, err)
		}
		return p
	}
	m, _ := filepath.Glob("../../layers/onnxruntime-gpu/lib/libonnxruntime.so.*")
	if len(m) == 0 {
		t.Skipf("the CUDA build of ONNX Runtime is not fetched (make ort-gpu-layer) and %s not set", envGPULib)
	}
	p, err := filepath.Abs(m[len(m)-1])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// gpuRun is what the child reports.
type gpuRun struct {
	Provider Provider  `json:"provider"`
	Reason   string    `json:"reason"`
	Pages    []gpuPage `json:"pages"`
}

type gpuPage struct {
	File       string             `json:"file"`
	Detections []detect.Detection `json:"detections"`
	Seconds    float64            `json:"seconds"`
}

// detectFixtures runs d on the committed scan fixtures.
func detectFixtures(t *testing.T, d *Detector) []gpuPage {
	t.Helper()
	files, _ := filepath.Glob("../../testdata/synth/scan-*.json")
	if len(files) == 0 {
		t.Fatal("no scan fixtures")
	}
	var out []gpuPage
	for _, js := range files {
		var secs float64
		dets, _, ok := runSheet(t, js, func(p detect.Page, _ []truthSymbol) ([]detect.Detection, error) {
			start := time.Now()
			dets, err := d.Detect(context.Background(), p)
			secs = time.Since(start).Seconds()
			return dets, err
		})
		if ok {
			out = append(out, gpuPage{File: filepath.Base(js), Detections: dets, Seconds: secs})
		}
	}
	return out
}

// TestGPUBuildChild is the child of TestGPUBuildDetections: it opens the
// detector on the CUDA build and writes the fixtures' detections. With
// auto on a machine without a GPU it is made to see one, so that the
// CUDA provider is tried, fails (no driver, no device) and falls back to
// the CUDA build's CPU provider: the path an endpoint whose CUDA does
// not start takes.
func TestGPUBuildChild(t *testing.T) {
	out := os.Getenv(envGPUChild)
	if out == "" {
		t.Skip(envGPUChild + " not set: run by TestGPUBuildDetections")
	}
	p, err := ParseProvider(os.Getenv(envGPUProvider))
	if err != nil || p == ProviderCPU {
		p = ProviderAuto
	}
	if p == ProviderAuto && !HasGPU() {
		old := hasGPU
		t.Cleanup(func() { hasGPU = old })
		hasGPU = func() bool { return true }
	}
	d, err := New(Config{Library: rastertest.Library(t), GPULibrary: gpuLibrary(t), Provider: p,
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	run := gpuRun{Provider: d.Provider(), Reason: d.ProviderReason(), Pages: detectFixtures(t, d)}
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestGPUBuildDetections: the CUDA build (onnxruntime-gpu) finds on the
// fixture scans what the CPU build finds, confidences and boxes within
// 1e-3. Without a GPU (here) its CUDA provider fails to start and the
// detector falls back to that build's CPU provider, logging why; on a
// machine with a GPU, RASTER_GPU_PROVIDER=cuda requires the CUDA
// provider (make gpu-check). Skipped unless the CUDA build is fetched.
func TestGPUBuildDetections(t *testing.T) {
	gpuLib := gpuLibrary(t)
	want := cpuFixtureRun(t)
	out := filepath.Join(t.TempDir(), "gpu.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestGPUBuildChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envGPUChild+"="+out, envGPULib+"="+gpuLib,
		"LD_LIBRARY_PATH="+strings.TrimSuffix(filepath.Dir(gpuLib)+":"+os.Getenv("LD_LIBRARY_PATH"), ":"))
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, b)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "level=WARN") {
			t.Logf("child: %s", line)
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got gpuRun
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	t.Logf("CUDA build: provider %s (%s)", got.Provider, got.Reason)
	if p, _ := ParseProvider(os.Getenv(envGPUProvider)); p == ProviderCUDA && got.Provider != ProviderCUDA {
		t.Fatalf("provider %s, want cuda", got.Provider)
	}
	if !HasGPU() && (got.Provider != ProviderCPU || !strings.Contains(got.Reason, "did not start")) {
		t.Errorf("without a GPU: provider %s (%s), want a fallback to cpu saying why", got.Provider, got.Reason)
	}
	if len(got.Pages) != len(want) {
		t.Fatalf("%d pages, want %d", len(got.Pages), len(want))
	}
	var worst float64
	for i, w := range want {
		g := got.Pages[i]
		t.Logf("%s: %d detections; %.2f s on the CPU build, %.2f s on the CUDA build's %s provider", w.File, len(w.Detections), w.Seconds, g.Seconds, got.Provider)
		if len(g.Detections) != len(w.Detections) {
			t.Errorf("%s: %d detections, the CPU build %d", w.File, len(g.Detections), len(w.Detections))
			continue
		}
		sortDetections(w.Detections)
		sortDetections(g.Detections)
		for j, a := range w.Detections {
			b := g.Detections[j]
			d := max(math.Abs(a.Confidence-b.Confidence), math.Abs(a.Box.X-b.Box.X), math.Abs(a.Box.Y-b.Box.Y),
				math.Abs(a.Box.W-b.Box.W), math.Abs(a.Box.H-b.Box.H))
			worst = max(worst, d)
			if a.Class != b.Class || d > gpuTolerance {
				t.Errorf("%s: detection %d: %s %.4f %+v, the CPU build %s %.4f %+v", w.File, j, b.Class, b.Confidence, b.Box, a.Class, a.Confidence, a.Box)
			}
		}
	}
	t.Logf("largest difference from the CPU build: %g (confidence or pixels; tolerance %g)", worst, gpuTolerance)
}

// cpuFixtureRun runs the CPU build on the fixtures in this process.
func cpuFixtureRun(t *testing.T) []gpuPage {
	d := newDetector(t)
	return detectFixtures(t, d)
}

// sortDetections orders detections by class, then position.
func sortDetections(ds []detect.Detection) {
	sort.Slice(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Class != b.Class {
			return a.Class < b.Class
		}
		if a.Box.X != b.Box.X {
			return a.Box.X < b.Box.X
		}
		return a.Box.Y < b.Box.Y
	})
}
