package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"blueprint/internal/apitest"
	"blueprint/internal/config"
	"blueprint/internal/document/documenttest"
)

// fairnessTestEnv, set to 1, runs TestFairShare (make fairness).
const fairnessTestEnv = "BLUEPRINT_FAIRNESS_TEST"

// TestFairShare is issue 34's fair-sharing check: with three heavy jobs of
// key A running or queued (ten-sheet dense A0 plans), key B's one-page
// drawing must end within three times its time alone plus 15 s. It prints
// the times; the service runs with its default workers and budget for
// this machine.
func TestFairShare(t *testing.T) {
	if os.Getenv(fairnessTestEnv) != "1" {
		t.Skipf("set %s=1 (make fairness) to run", fairnessTestEnv)
	}
	e := startEnv(t, t.TempDir(), options{}, func(c *config.Config) {
		for i := range c.APIKeys {
			c.APIKeys[i].RequestsPerMinute = 1_000_000 // the test polls for minutes
		}
	})
	small, err := os.ReadFile(filepath.Join("..", "..", "testdata", "synth", "sheet-00005.pdf")) // one generated sheet with symbols
	if err != nil {
		t.Fatal(err)
	}
	heavy := documenttest.DensePlanPDF(documenttest.A0, 10, 11) // ten dense A0 sheets
	timed := func(key, name string, data []byte) (float64, string) {
		start := time.Now()
		_, got := e.runJob(key, name, "application/pdf", data)
		return time.Since(start).Seconds(), got["status"].(string)
	}
	alone, status := timed(apitest.KeyB, "b-alone.pdf", small)
	if status != "done" {
		t.Fatalf("B's drawing alone ended %s", status)
	}
	began := time.Now()
	var heavyIDs []string
	for range 3 {
		id, r := startHostile(e, "a-heavy.pdf", heavy)
		if r.Status != 202 {
			t.Fatalf("start of A's heavy job: %d %s", r.Status, r.Body)
		}
		heavyIDs = append(heavyIDs, id)
	}
	time.Sleep(2 * time.Second) // A's jobs are started and take the workers they may
	shared, status := timed(apitest.KeyB, "b-shared.pdf", small)
	if status != "done" {
		t.Fatalf("B's drawing beside A's ended %s", status)
	}
	var ends []float64
	for _, id := range heavyIDs {
		if got := e.waitStatus(apitest.KeyA, id, "done", "failed"); got["status"] != "done" {
			t.Errorf("A's heavy job ended %v: %v", got["status"], got["error"])
		}
		ends = append(ends, time.Since(began).Seconds())
	}
	bound := 3*alone + 15
	t.Logf("B's one-page drawing: %.1f s alone, %.1f s beside three heavy jobs of A (bound %.1f s); A's jobs (started together) seen ending after %.0f, %.0f, %.0f s",
		alone, shared, bound, ends[0], ends[1], ends[2])
	if shared > bound {
		t.Errorf("B waited: %.1f s > 3 × %.1f s + 15 s", shared, alone)
	}
}
