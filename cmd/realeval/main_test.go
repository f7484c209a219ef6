package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestSkipsWithoutData: where the real-data folder is absent the command
// says so and succeeds, without running anything.
func TestSkipsWithoutData(t *testing.T) {
	var out, errb bytes.Buffer
	missing := filepath.Join(t.TempDir(), "realdata")
	if err := run(context.Background(), []string{"-data", missing, "-blueprint", "/nonexistent"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "skipped: no real-data folder at "+missing) {
		t.Errorf("output %q", out.String())
	}
}

func TestParseTakeoff(t *testing.T) {
	got, err := parseTakeoff([]byte(`[{"file":"a.pdf","summary":{"total_detections":5,"by_symbol":[{"class":"speaker","count":3},{"class":"luminaire","count":2}]}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if got["speaker"] != 3 || got["luminaire"] != 2 || len(got) != 2 {
		t.Errorf("counts %v", got)
	}
	if _, err := parseTakeoff([]byte(`[]`)); err == nil {
		t.Error("an empty take-off list was accepted")
	}
}
