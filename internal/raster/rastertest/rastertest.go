// Package rastertest finds ONNX Runtime for tests of the raster detector.
package rastertest

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvLibrary names the library's path; make test and make run set it.
const EnvLibrary = "BLUEPRINT_ONNXRUNTIME_LIB"

// Library returns the path of libonnxruntime.so: $BLUEPRINT_ONNXRUNTIME_LIB
// (which must exist when set), else the one make ort puts under
// layers/onnxruntime/lib of the module root. Without either the test is
// skipped, saying how to fetch it (make test always does).
func Library(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(EnvLibrary); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", EnvLibrary, err)
		}
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test; ONNX Runtime not found")
		}
		dir = parent
	}
	m, _ := filepath.Glob(filepath.Join(dir, "layers", "onnxruntime", "lib", "libonnxruntime.so.*"))
	if len(m) == 0 {
		t.Skipf("ONNX Runtime not fetched (make ort) and %s not set", EnvLibrary)
	}
	return m[len(m)-1]
}
