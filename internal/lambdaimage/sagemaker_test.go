package lambdaimage

import (
	"bufio"
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSageMakerDockerfile holds functions/process/Dockerfile.sagemaker (the
// serving image for GPU instances; no Docker here to build it) to what the
// Makefile builds: its build stage runs make ort-gpu-layer with the files
// that target reads, and the image copies the layer to ORT_GPU_ROOT,
// names the CUDA build there for the serve mode and puts the folder on
// LD_LIBRARY_PATH.
func TestSageMakerDockerfile(t *testing.T) {
	root := filepath.Join("..", "..")
	raw, err := os.ReadFile(filepath.Join(root, "functions", "process", "Dockerfile.sagemaker"))
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	makefile := string(mk)
	layer, groot, version := makeVar(t, makefile, "ORT_GPU_DIR"), makeVar(t, makefile, "ORT_GPU_ROOT"), makeVar(t, makefile, "ORT_VERSION")
	stages, err := Parse(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) != 2 || stages[0].Name != "gpu" || stages[1].From != "${PROCESS_IMAGE}" {
		t.Fatalf("want a gpu stage and the processing image (${PROCESS_IMAGE}) with the layer, got %+v", stages)
	}
	if !slices.ContainsFunc(stages[0].Runs(), func(r string) bool { return strings.Contains(r, "make ort-gpu-layer") }) {
		t.Error("the gpu stage does not run make ort-gpu-layer")
	}
	// The gpu stage copies from the context what the target reads.
	build, err := stages[0].Copies()
	if err != nil {
		t.Fatal(err)
	}
	var copied []string
	for _, c := range build {
		for _, src := range c.Src {
			if _, err := os.Stat(filepath.Join(root, src)); err != nil {
				t.Errorf("line %d: COPY %s: %v", c.Line, src, err)
			}
			copied = append(copied, src)
		}
	}
	for _, need := range []string{"Makefile", makeVar(t, makefile, "ORT_GPU_REQ"), "scripts/ort-gpu-layer.py"} {
		if !slices.Contains(copied, need) {
			t.Errorf("the gpu stage does not copy %s, which make ort-gpu-layer reads", need)
		}
	}
	copies, err := stages[1].Copies()
	if err != nil {
		t.Fatal(err)
	}
	if len(copies) != 1 || copies[0].From != "gpu" || !slices.Equal(copies[0].Src, []string{"/src/" + layer + "/"}) || copies[0].Dst != groot+"/" {
		t.Errorf("COPY %+v; want --from=gpu /src/%s/ %s/", copies, layer, groot)
	}
	env, err := stages[1].Env()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := Lookup(env, "BLUEPRINT_ONNXRUNTIME_GPU_LIB"); got != groot+"/libonnxruntime.so."+version {
		t.Errorf("BLUEPRINT_ONNXRUNTIME_GPU_LIB=%q, want %s/libonnxruntime.so.%s", got, groot, version)
	}
	if got, _ := Lookup(env, "LD_LIBRARY_PATH"); !slices.Contains(strings.Split(got, ":"), groot) {
		t.Errorf("LD_LIBRARY_PATH=%q does not hold %s", got, groot)
	}
	if got, _ := Lookup(env, "BLUEPRINT_ONNXRUNTIME_LIB"); got != "" {
		t.Errorf("BLUEPRINT_ONNXRUNTIME_LIB=%q: the CPU build stays the processing image's", got)
	}
	ignore, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Fields(string(ignore)), layer) {
		t.Errorf(".dockerignore does not keep this machine's %s (GBs) out of the build context", layer)
	}
}

// Libraries the GPU layer may need from outside itself: glibc's, the C++
// runtime and zlib of the processing image's base (Amazon Linux 2023,
// whose microdnf needs them too), and the driver's libcuda.so.1, which
// the NVIDIA container runtime mounts from the instance.
var outsideGPULayer = map[string]string{
	"libc.so.6": "glibc", "libm.so.6": "glibc", "libdl.so.2": "glibc", "librt.so.1": "glibc",
	"libpthread.so.0": "glibc", "ld-linux-x86-64.so.2": "glibc",
	"libstdc++.so.6": "base image", "libgcc_s.so.1": "base image", "libz.so.1": "base image",
	"libcuda.so.1": "NVIDIA driver",
}

// Libraries loaded by name at run time, not through DT_NEEDED: ONNX
// Runtime's providers (from its own folder) and cuDNN 9's parts and NVRTC
// (by cuDNN, from the loader's path).
var gpuLayerDlopened = []string{
	"libonnxruntime_providers_shared.so", "libonnxruntime_providers_cuda.so",
	"libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9", "libcudnn_adv.so.9",
	"libcudnn_engines_precompiled.so.9", "libcudnn_engines_runtime_compiled.so.9", "libcudnn_heuristic.so.9",
	"libnvrtc.so.12",
}

// TestSageMakerGPULayer: every shared library of the GPU layer (make
// ort-gpu-layer) finds each library it needs (DT_NEEDED) in the layer or
// in outsideGPULayer, the libraries loaded by name are there, and none
// needs a glibc newer than Amazon Linux 2023's 2.34. Skipped where the
// layer is not fetched (about 2.9 GB).
func TestSageMakerGPULayer(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, makeVar(t, string(mk), "ORT_GPU_DIR"))
	manifest, err := os.Open(filepath.Join(dir, "MANIFEST"))
	if err != nil {
		t.Skipf("the GPU layer is not fetched here (make ort-gpu-layer): %v", err)
	}
	defer manifest.Close()
	var libs []string
	sc := bufio.NewScanner(manifest)
	for sc.Scan() {
		if name, _, ok := strings.Cut(sc.Text(), "\t"); ok {
			libs = append(libs, name)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	version := makeVar(t, string(mk), "ORT_VERSION")
	for _, want := range append([]string{"libonnxruntime.so." + version}, gpuLayerDlopened...) {
		if !slices.Contains(libs, want) {
			t.Errorf("the layer has no %s", want)
		}
	}
	outside := map[string]int{}
	for _, name := range libs {
		f, err := elf.Open(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		needed, err := f.ImportedLibraries()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, n := range needed {
			switch {
			case slices.Contains(libs, n):
			case outsideGPULayer[n] != "":
				outside[n]++
			default:
				t.Errorf("%s needs %s, which is neither in the layer nor one of %v", name, n, outsideGPULayer)
			}
		}
		syms, _ := f.ImportedSymbols()
		for _, s := range syms {
			if v, ok := strings.CutPrefix(s.Version, "GLIBC_"); ok && newerThan(v, 2, 34) {
				t.Errorf("%s needs %s (%s), newer than Amazon Linux 2023's glibc 2.34", name, s.Version, s.Name)
				break
			}
		}
		f.Close()
	}
	t.Logf("%d libraries; needed from outside the layer: %v", len(libs), outside)
}

// newerThan reports whether the version "a.b[.c]" is newer than major.minor.
func newerThan(v string, major, minor int) bool {
	p := strings.Split(v, ".")
	a, _ := strconv.Atoi(p[0])
	b := 0
	if len(p) > 1 {
		b, _ = strconv.Atoi(p[1])
	}
	return a > major || (a == major && b > minor)
}
