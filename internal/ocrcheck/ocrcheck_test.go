package ocrcheck

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"blueprint/internal/ocr"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The check passes on this machine's tesseract (skipped where it is not
// installed, as internal/ocr's tests are, unless BLUEPRINT_REQUIRE_OCR).
func TestRunReadsEnglishAndFinnish(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil && os.Getenv("BLUEPRINT_REQUIRE_OCR") == "" {
		t.Skip("tesseract not installed")
	}
	read, err := Run(context.Background(), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("read:\n%s", read)
}

// Without a program it fails, saying so, rather than passing on no text.
func TestRunFailsWithoutTesseract(t *testing.T) {
	_, err := Run(context.Background(), env(map[string]string{"BLUEPRINT_OCR": "/nonexistent/tesseract"}))
	if !errors.Is(err, ocr.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	_, err = Run(context.Background(), env(map[string]string{"BLUEPRINT_OCR": "off"}))
	if err == nil || !strings.Contains(err.Error(), "off") {
		t.Fatalf("err = %v, want one naming off", err)
	}
}
