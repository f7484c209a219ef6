package raster

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/raster/rastertest"
)

// TestMain lets this test binary serve as the child CheckInChild starts.
func TestMain(m *testing.M) {
	ServeChildCheck()
	os.Exit(m.Run())
}

// TestLazyOpensOnFirstUse: NewLazy needs no runtime; the first Detect
// opens the detector and finds what an eagerly opened one finds, and a
// runtime that is not there fails that call, saying so, and the next
// call tries again.
func TestLazyOpensOnFirstUse(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libonnxruntime.so.1.24.1")
	bad, err := NewLazy(Config{Library: missing})
	if err != nil {
		t.Fatalf("NewLazy needs no runtime: %v", err)
	}
	if got := bad.Meta().Classes; len(got) == 0 {
		t.Fatal("no classes in the metadata")
	}
	js := "../../testdata/synth/scan-00004.json"
	for range 2 {
		_, _, _ = runSheet(t, js, func(p detect.Page, _ []truthSymbol) ([]detect.Detection, error) {
			_, err := bad.Detect(context.Background(), p)
			if err == nil || !strings.Contains(err.Error(), missing) {
				t.Errorf("Detect without a runtime: %v, want an error naming %s", err, missing)
			}
			return nil, nil
		})
	}
	if err := bad.Close(); err != nil {
		t.Errorf("Close of an unopened detector: %v", err)
	}

	lazy, err := NewLazy(Config{Library: rastertest.Library(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	want, _, _ := detectSheet(t, newDetector(t), js)
	got, _, _ := runSheet(t, js, func(p detect.Page, _ []truthSymbol) ([]detect.Detection, error) {
		return lazy.Detect(context.Background(), p)
	})
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("lazy detector found %d detections, the eager one %d (or they differ)", len(got), len(want))
	}
}

// TestCheckInChild: the check opens the detector in a child process and
// reports a runtime that is missing or is not a library in one line
// naming it.
func TestCheckInChild(t *testing.T) {
	ctx := context.Background()
	if err := CheckInChild(ctx, Config{Library: rastertest.Library(t)}); err != nil {
		t.Fatalf("the real runtime: %v", err)
	}
	junk := filepath.Join(t.TempDir(), "libonnxruntime.so")
	if err := os.WriteFile(junk, []byte("not a shared library"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, lib := range []string{filepath.Join(t.TempDir(), "libonnxruntime.so.1.24.1"), junk, ""} {
		err := CheckInChild(ctx, Config{Library: lib})
		if err == nil {
			t.Errorf("%q passed the check", lib)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, lib) {
			t.Errorf("%q: %q is not one line naming the library", lib, msg)
		}
	}
}
