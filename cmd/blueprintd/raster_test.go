package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"blueprint/internal/config"
)

// TestScansThroughAPI drives a PNG, a JPEG and a WebP scan (generated
// sheets, degraded like scans; the WebP is testdata/raster's re-encoding of
// a fixture) through the HTTP API with the production engine: each job ends
// done, and the raster detector's finds come back with source.detector.
func TestScansThroughAPI(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	cases := []struct{ file, mime string }{
		{"../../testdata/synth/scan-00001.png", "image/png"},
		{"../../testdata/synth/scan-00002.jpg", "image/jpeg"},
		{"../../testdata/raster/scan-00003.webp", "image/webp"},
	}
	for _, c := range cases {
		t.Run(c.mime, func(t *testing.T) {
			data, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			id, done := e.runJob(keyA, "scan", c.mime, data)
			if done["status"] != "done" {
				t.Fatalf("job: %v", done)
			}
			r := e.do("GET", fmt.Sprintf("/v1/jobs/%s/pages/0/detections?limit=2000", id), keyA, nil, nil)
			if r.Status != 200 {
				t.Fatalf("detections: %d %s", r.Status, r.Body)
			}
			dets, _ := r.JSON(t)["detections"].([]any)
			if len(dets) == 0 {
				t.Fatalf("no detections on a scan with symbols: %s", r.Body)
			}
			for _, d := range dets {
				src := d.(map[string]any)["source"].(map[string]any)
				if src["detector"] != true || src["vector_matching"] != false {
					t.Fatalf("image detection with source %v", src)
				}
			}
			t.Logf("%s: %d detections", c.mime, len(dets))
		})
	}
}

// TestImageJobWithRasterOff: with the raster detector turned off an image
// job fails with processing_failed saying why, and a PDF still ends done.
func TestImageJobWithRasterOff(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()}, func(c *config.Config) { c.Raster.Off = true })
	data, err := os.ReadFile("../../testdata/synth/scan-00004.png")
	if err != nil {
		t.Fatal(err)
	}
	_, failed := e.runJob(keyA, "scan.png", "image/png", data)
	em, _ := failed["error"].(map[string]any)
	if failed["status"] != "failed" || em["code"] != "processing_failed" || !strings.Contains(em["message"].(string), "raster detector is turned off") {
		t.Fatalf("job: %v", failed)
	}
}

// TestRefusesToStartWithoutRuntime: a raster detector that cannot load
// stops the service at start with one line naming the cause and the way
// out; turned off, the service starts.
func TestRefusesToStartWithoutRuntime(t *testing.T) {
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = t.TempDir()
	cfg.Raster.Library = filepath.Join(t.TempDir(), "libonnxruntime.so.1.24.1")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	_, _, err = newApp(context.Background(), cfg, log, options{})
	if err == nil {
		t.Fatal("started without ONNX Runtime")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "raster detector") || !strings.Contains(msg, "libonnxruntime.so.1.24.1") ||
		!strings.Contains(msg, config.EnvOnnxRuntimeLib) || !strings.Contains(msg, config.EnvRasterDetector+"=off") {
		t.Fatalf("start error %q does not say what is missing and how to go on", msg)
	}
	// Refusing, it wrote nothing: no development key, no signing key, no
	// store (issue 47: the key files were written before the refusal).
	dir := t.TempDir()
	env := map[string]string{config.EnvDataDir: dir, config.EnvListenAddr: "127.0.0.1:0", config.EnvOnnxRuntimeLib: cfg.Raster.Library}
	var out bytes.Buffer
	if err := run(context.Background(), func(k string) string { return env[k] }, &out, log); err == nil || !strings.Contains(err.Error(), "libonnxruntime.so.1.24.1") {
		t.Fatalf("run without ONNX Runtime: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 || out.Len() != 0 {
		t.Errorf("wrote %v and printed %q before refusing to start without ONNX Runtime", entries, out.String())
	}
	cfg.Raster.Off = true
	a, _, err := newApp(context.Background(), cfg, log, options{})
	if err != nil {
		t.Fatalf("raster detector off: %v", err)
	}
	a.close()
}
