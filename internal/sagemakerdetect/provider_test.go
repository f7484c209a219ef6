package sagemakerdetect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"blueprint/internal/raster"
	"blueprint/internal/raster/rastertest"
	"blueprint/internal/rasterserve"
)

// TestServeModeProvider starts the serve mode as the GPU serving image
// (functions/process/Dockerfile.sagemaker) does: the CUDA build named by
// BLUEPRINT_ONNXRUNTIME_GPU_LIB, its folder on LD_LIBRARY_PATH. On a
// machine without a GPU (here) auto serves on the CPU build and says why,
// and cuda refuses to start, saying there is no GPU; on a machine with
// one, auto serves on the CUDA provider. Skipped unless the GPU layer is
// fetched (make ort-gpu-layer).
func TestServeModeProvider(t *testing.T) {
	lib := rastertest.Library(t)
	root := moduleRoot(t)
	m, _ := filepath.Glob(filepath.Join(root, "layers", "onnxruntime-gpu", "lib", "libonnxruntime.so.*"))
	if len(m) == 0 {
		t.Skip("the CUDA build of ONNX Runtime is not fetched (make ort-gpu-layer)")
	}
	gpuLib := m[len(m)-1]
	bin := filepath.Join(t.TempDir(), "process")
	build := exec.Command("go", "build", "-o", bin, "./functions/process")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build functions/process: %v\n%s", err, out)
	}
	env := []string{"BLUEPRINT_ONNXRUNTIME_LIB=" + lib, rasterserve.EnvGPULibrary + "=" + gpuLib,
		"LD_LIBRARY_PATH=" + filepath.Dir(gpuLib), rasterserve.EnvAddr + "=127.0.0.1:0"}

	line, logs, err := serveLine(t, bin, env)
	if err != nil {
		t.Fatalf("auto: %v\n%s", err, logs)
	}
	t.Logf("auto: provider %s (%s)", line.Provider, line.Reason)
	want := raster.ProviderCPU
	if raster.HasGPU() {
		want = raster.ProviderCUDA
	}
	if line.Provider != string(want) || line.Reason == "" {
		t.Errorf("auto: provider %q (%s), want %s", line.Provider, line.Reason, want)
	}

	_, logs, err = serveLine(t, bin, append(env, rasterserve.EnvProvider+"=cuda"))
	if raster.HasGPU() {
		if err != nil {
			t.Errorf("cuda on a machine with a GPU: %v\n%s", err, logs)
		}
	} else if err == nil || !strings.Contains(logs, "no NVIDIA GPU") {
		t.Errorf("cuda without a GPU: %v, logs:\n%s\nwant a refusal naming the missing GPU", err, logs)
	}

	if _, logs, err = serveLine(t, bin, append(env, rasterserve.EnvProvider+"=gpu")); err == nil || !strings.Contains(logs, "want cpu, cuda or auto") {
		t.Errorf("provider gpu: %v, logs:\n%s", err, logs)
	}
}

// servingLine is the serve mode's "serving" log line.
type servingLine struct {
	Msg      string `json:"msg"`
	Provider string `json:"provider"`
	Reason   string `json:"provider_reason"`
}

// serveLine starts the serve mode with env and returns its serving line,
// then stops it; or the error it exited with and its logs.
func serveLine(t *testing.T, bin string, env []string) (servingLine, string, error) {
	t.Helper()
	cmd := exec.Command(bin, rasterserve.Arg)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	found := make(chan servingLine, 1)
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.Write(append(sc.Bytes(), '\n'))
			var line servingLine
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
				found <- line
			}
		}
		exited <- cmd.Wait()
	}()
	select {
	case line := <-found:
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		return line, logs.String(), nil
	case err := <-exited:
		if err == nil {
			err = errors.New("exited without serving")
		}
		return servingLine{}, logs.String(), err
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-exited
		return servingLine{}, logs.String(), os.ErrDeadlineExceeded
	}
}
