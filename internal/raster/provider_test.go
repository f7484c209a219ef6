package raster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"blueprint/internal/raster/rastertest"
)

func TestParseProvider(t *testing.T) {
	for in, want := range map[string]Provider{"": ProviderCPU, "cpu": ProviderCPU, " CUDA ": ProviderCUDA, "Auto": ProviderAuto} {
		if got, err := ParseProvider(in); err != nil || got != want {
			t.Errorf("ParseProvider(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseProvider("gpu"); err == nil {
		t.Error("ParseProvider(gpu) did not fail")
	}
}

// TestChooseProvider: the CPU build unless a GPU and the CUDA build are
// both there (auto), and cuda without either is an error that says
// which is missing.
func TestChooseProvider(t *testing.T) {
	const cpu, gpu = "/cpu/libonnxruntime.so", "/gpu/libonnxruntime.so"
	for _, c := range []struct {
		name     string
		cfg      Config
		gpu      bool
		lib      string
		cuda     bool
		required bool
		err      string
	}{
		{name: "default is cpu, even with a GPU", cfg: Config{Library: cpu, GPULibrary: gpu}, gpu: true, lib: cpu},
		{name: "cpu", cfg: Config{Library: cpu, GPULibrary: gpu, Provider: ProviderCPU}, gpu: true, lib: cpu},
		{name: "auto without a GPU", cfg: Config{Library: cpu, GPULibrary: gpu, Provider: ProviderAuto}, lib: cpu},
		{name: "auto without the CUDA build", cfg: Config{Library: cpu, Provider: ProviderAuto}, gpu: true, lib: cpu},
		{name: "auto with both", cfg: Config{Library: cpu, GPULibrary: gpu, Provider: ProviderAuto}, gpu: true, lib: gpu, cuda: true},
		{name: "cuda", cfg: Config{Library: cpu, GPULibrary: gpu, Provider: ProviderCUDA}, gpu: true, lib: gpu, cuda: true, required: true},
		{name: "cuda without a GPU", cfg: Config{Library: cpu, GPULibrary: gpu, Provider: ProviderCUDA}, err: "no NVIDIA GPU"},
		{name: "cuda without the CUDA build", cfg: Config{Library: cpu, Provider: ProviderCUDA}, gpu: true, err: "BLUEPRINT_ONNXRUNTIME_GPU_LIB"},
		{name: "unknown", cfg: Config{Library: cpu, Provider: "tpu"}, err: "want cpu, cuda or auto"},
	} {
		pl, err := choose(c.cfg, c.gpu)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want one saying %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || pl.library != c.lib || pl.cuda != c.cuda || pl.required != c.required || pl.why == "" {
			t.Errorf("%s: %+v, %v; want library %s cuda %v required %v", c.name, pl, err, c.lib, c.cuda, c.required)
		}
	}
}

// TestHasGPU looks for NVIDIA's device nodes where it is told to.
func TestHasGPU(t *testing.T) {
	dir := t.TempDir()
	old := gpuDevices
	t.Cleanup(func() { gpuDevices = old })
	gpuDevices = filepath.Join(dir, "nvidia[0-9]*")
	for _, name := range []string{"nvidiactl", "nvidia-uvm"} { // present without a GPU's node
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if HasGPU() {
		t.Error("HasGPU with no nvidia<N> node")
	}
	if err := os.WriteFile(filepath.Join(dir, "nvidia0"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if !HasGPU() {
		t.Error("no GPU seen with nvidia0")
	}
}

// TestProviderCPUWithAGPU: on the CPU build the detector says it runs
// on the CPU, and auto without a CUDA build picks the CPU build even
// where a GPU is seen.
func TestProviderCPUWithAGPU(t *testing.T) {
	old := hasGPU
	t.Cleanup(func() { hasGPU = old })
	hasGPU = func() bool { return true }
	lib := rastertest.Library(t)
	for _, cfg := range []Config{{Library: lib}, {Library: lib, Provider: ProviderAuto}} {
		d, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if d.Provider() != ProviderCPU || d.ProviderReason() == "" {
			t.Errorf("%+v: provider %q (%s), want cpu", cfg, d.Provider(), d.ProviderReason())
		}
		d.Close()
	}
	if _, err := New(Config{Library: lib, Provider: ProviderCUDA}); err == nil || !strings.Contains(err.Error(), "BLUEPRINT_ONNXRUNTIME_GPU_LIB") {
		t.Errorf("cuda without a CUDA build: %v", err)
	}
}
