package raster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"blueprint/internal/detect"
)

// Lazy is a Detector opened on its first Detect or Verify rather than at
// start: ONNX Runtime and the two networks' sessions (about 30 MB
// resident, never handed back to the system once loaded) cost nothing
// until a page needs them, so a service that has read no page stays
// small. NewLazy reads only the model's metadata; check at start that
// the detector opens with CheckInChild. A failed open is reported by the
// call that needed it and tried again by the next. Safe for concurrent
// use.
type Lazy struct {
	cfg  Config
	meta Meta

	mu  sync.Mutex
	det *Detector // nil until opened
}

// NewLazy returns a detector of the embedded model that opens on first
// use. It fails only when the embedded metadata is invalid.
func NewLazy(cfg Config) (*Lazy, error) {
	js, err := modelFiles.ReadFile("model/" + metaFile)
	if err != nil {
		return nil, fmt.Errorf("raster: read model metadata: %w", err)
	}
	m, err := ParseMeta(js)
	if err != nil {
		return nil, err
	}
	return &Lazy{cfg: cfg, meta: m}, nil
}

// Meta returns the model's metadata.
func (l *Lazy) Meta() Meta { return l.meta }

// open returns the detector, opening it on first call.
func (l *Lazy) open() (*Detector, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.det == nil {
		d, err := New(l.cfg)
		if err != nil {
			return nil, err
		}
		l.det = d
	}
	return l.det, nil
}

// Detect is Detector.Detect, opening the detector first if need be.
func (l *Lazy) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	d, err := l.open()
	if err != nil {
		return nil, err
	}
	return d.Detect(ctx, p)
}

// Verify is Detector.Verify, opening the detector first if need be.
func (l *Lazy) Verify(ctx context.Context, p detect.Page, boxes []detect.Box) ([]detect.Detection, error) {
	if l.meta.Classifier == nil || len(boxes) == 0 {
		return nil, nil
	}
	d, err := l.open()
	if err != nil {
		return nil, err
	}
	return d.Verify(ctx, p, boxes)
}

// Close releases the detector if it was opened.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.det == nil {
		return nil
	}
	err := l.det.Close()
	l.det = nil
	return err
}

// childCheckEnv, set in a process's environment, makes
// ServeChildCheck open the detector with the library it names and exit.
const childCheckEnv = "BLUEPRINT_RASTER_CHILD_CHECK"

// childCheckOK is what a child that opened the detector prints: the
// parent accepts nothing less, so an executable that does not call
// ServeChildCheck can never pass for one that does.
const childCheckOK = "raster detector opens"

// CheckInChild opens the detector as New(cfg) would, in a child process
// (this executable started again, which must call ServeChildCheck
// first thing), and reports why it does not open, in one line. The
// library and the sessions stay out of this process: pair it with
// NewLazy.
func CheckInChild(ctx context.Context, cfg Config) error {
	if cfg.Library == "" {
		return errors.New("raster: no ONNX Runtime library configured")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("raster: check the detector: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), childCheckEnv+"="+cfg.Library)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err == nil && strings.TrimSpace(stdout.String()) == childCheckOK {
		return nil
	}
	if msg := lastLine(stderr.String()); msg != "" {
		return errors.New(msg)
	}
	if err == nil {
		err = fmt.Errorf("%s did not check the detector (it does not call raster.ServeChildCheck)", exe)
	}
	return fmt.Errorf("raster: check the detector: %w", err)
}

// ServeChildCheck returns at once unless this process was started by
// CheckInChild; then it opens the detector, says whether it did, and
// exits. Call it first thing in main (and in TestMain of a test binary
// that starts the service).
func ServeChildCheck() {
	lib, ok := os.LookupEnv(childCheckEnv)
	if !ok {
		return
	}
	os.Exit(childCheck(lib, os.Stdout, os.Stderr))
}

// childCheck opens and closes the detector with the library and returns
// the exit status.
func childCheck(lib string, stdout, stderr io.Writer) int {
	d, err := New(Config{Library: lib})
	if err == nil {
		err = d.Close()
	}
	if err != nil {
		fmt.Fprintln(stderr, strings.ReplaceAll(err.Error(), "\n", " "))
		return 1
	}
	fmt.Fprintln(stdout, childCheckOK)
	return 0
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}
