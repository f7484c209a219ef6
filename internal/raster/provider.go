package raster

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
)

// Provider is the ONNX Runtime execution provider a Detector runs the
// networks with (Config.Provider).
type Provider string

// The providers. The zero value is ProviderCPU: locally and in the
// processing function the detector runs on the CPU; the SageMaker serve
// mode (internal/rasterserve) defaults to ProviderAuto.
const (
	// ProviderCPU runs ONNX Runtime's CPU build (Config.Library).
	ProviderCPU Provider = "cpu"
	// ProviderCUDA runs ONNX Runtime's CUDA build (Config.GPULibrary) with
	// its CUDA execution provider, or fails: no GPU, no CUDA build
	// configured, or a CUDA provider that does not start is an error.
	ProviderCUDA Provider = "cuda"
	// ProviderAuto is ProviderCUDA when the machine has an NVIDIA GPU
	// (HasGPU) and Config.GPULibrary is set, else ProviderCPU. When the
	// CUDA provider then does not start (a driver too old, a library
	// missing), the reason is logged and the networks run on the CUDA
	// build's own CPU provider (the same CPU kernels as the CPU build:
	// ONNX Runtime's library is loaded once per process, so the CPU
	// build can no longer be loaded instead).
	ProviderAuto Provider = "auto"
)

// ParseProvider reads a provider name: cpu, cuda or auto (any case); ""
// is ProviderCPU.
func ParseProvider(s string) (Provider, error) {
	switch p := Provider(strings.ToLower(strings.TrimSpace(s))); p {
	case "":
		return ProviderCPU, nil
	case ProviderCPU, ProviderCUDA, ProviderAuto:
		return p, nil
	default:
		return "", fmt.Errorf("raster: execution provider %q: want cpu, cuda or auto", s)
	}
}

// gpuDevices is where HasGPU looks for NVIDIA's device nodes; a variable
// for tests.
var gpuDevices = "/dev/nvidia[0-9]*"

// HasGPU reports whether the machine shows an NVIDIA GPU to this process:
// a device node /dev/nvidia0, /dev/nvidia1, ... The NVIDIA container
// runtime creates them in a container given a GPU (SageMaker's GPU
// instances); environment variables such as NVIDIA_VISIBLE_DEVICES are
// no sign, as images set them whatever the instance.
func HasGPU() bool {
	m, _ := filepath.Glob(gpuDevices)
	return len(m) > 0
}

// plan is what NewWithModel loads and runs: the library, whether to
// append the CUDA execution provider, and whether failing to is an error
// (ProviderCUDA) or a fallback to the CPU provider (ProviderAuto).
type plan struct {
	library  string
	cuda     bool
	required bool
	// why says how the provider was chosen (logged).
	why string
}

// choose picks the library and provider for cfg on a machine with or
// without a GPU.
func choose(cfg Config, gpu bool) (plan, error) {
	p := cfg.Provider
	if p == "" {
		p = ProviderCPU
	}
	switch p {
	case ProviderCPU:
		return plan{library: cfg.Library, why: "cpu requested"}, nil
	case ProviderCUDA:
		switch {
		case cfg.GPULibrary == "":
			return plan{}, errors.New("raster: execution provider cuda: no CUDA build of ONNX Runtime configured (BLUEPRINT_ONNXRUNTIME_GPU_LIB)")
		case !gpu:
			return plan{}, fmt.Errorf("raster: execution provider cuda: this machine shows no NVIDIA GPU (no %s)", gpuDevices)
		}
		return plan{library: cfg.GPULibrary, cuda: true, required: true, why: "cuda requested"}, nil
	case ProviderAuto:
		switch {
		case !gpu:
			return plan{library: cfg.Library, why: "auto: no NVIDIA GPU (no " + gpuDevices + ")"}, nil
		case cfg.GPULibrary == "":
			return plan{library: cfg.Library, why: "auto: a GPU but no CUDA build of ONNX Runtime configured"}, nil
		}
		return plan{library: cfg.GPULibrary, cuda: true, why: "auto: NVIDIA GPU found"}, nil
	default:
		return plan{}, fmt.Errorf("raster: execution provider %q: want cpu, cuda or auto", p)
	}
}

// appendCUDA appends to the session options the CUDA execution
// provider on device 0. ONNX Runtime loads the CUDA provider's
// library (libonnxruntime_providers_cuda.so, beside libonnxruntime.so)
// and with it CUDA, cuBLAS, cuDNN, cuFFT and cuRAND here: a library
// missing fails now; no usable device fails when a session is created.
func appendCUDA(opts *ort.SessionOptions) error {
	co, err := ort.NewCUDAProviderOptions()
	if err != nil {
		return fmt.Errorf("CUDA provider options: %w", err)
	}
	defer co.Destroy()
	if err := co.Update(map[string]string{"device_id": "0"}); err != nil {
		return fmt.Errorf("CUDA provider options: %w", err)
	}
	if err := opts.AppendExecutionProviderCUDA(co); err != nil {
		return fmt.Errorf("append the CUDA execution provider: %w", err)
	}
	return nil
}

// logger is cfg's logger, or slog's default.
func (cfg Config) logger() *slog.Logger {
	if cfg.Log != nil {
		return cfg.Log
	}
	return slog.Default()
}

// checkLibrary reports whether the library file exists, before anything
// is loaded (a failed load cannot be undone).
func checkLibrary(path string) error {
	if path == "" {
		return errors.New("raster: no ONNX Runtime library configured")
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("raster: ONNX Runtime library: %w", err)
	}
	return nil
}
