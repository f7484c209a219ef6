package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"blueprint/internal/apitest"
)

// TestSmokeScript runs scripts/smoke.sh, the deployed API's smoke test
// (docs/deploy.md, "Smoke test"), against this service: it must pass on the
// README's sheet, and fail, naming the step, with a key the service does
// not know. Skipped where bash, curl or jq is missing.
func TestSmokeScript(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: %v", tool, err)
		}
	}
	e := startEnv(t, t.TempDir(), options{})
	script := filepath.Join("..", "..", "scripts", "smoke.sh")
	out, err := exec.Command("bash", script, e.base, apitest.KeyA).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "smoke: PASSED") || !strings.Contains(string(out), "ok   6 takeoff.csv") {
		t.Fatalf("smoke.sh: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	out, err = exec.Command("bash", script, e.base, "not-a-key").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "FAILED at 1 init") || !strings.Contains(string(out), "HTTP 401") {
		t.Fatalf("smoke.sh with a wrong key: %v\n%s", err, out)
	}
}
