package cmalloc_test

import (
	"os"
	"runtime"
	"testing"

	"blueprint/internal/apiclient"
	"blueprint/internal/cmalloc"
	"blueprint/internal/cmalloc/cmalloctest"
)

// rssMiB is the process's resident size (VmRSS).
func rssMiB(t *testing.T) float64 {
	t.Helper()
	kb := apiclient.ProcStatusKB(os.Getpid(), "VmRSS")
	if kb == 0 {
		t.Skip("no VmRSS in /proc/self/status")
	}
	return float64(kb) / 1024
}

// 256 MiB freed in 4 KiB blocks below one still held stays resident
// until Trim, which gives most of it back (glibc's malloc_trim).
func TestTrimGivesFreedCHeapBack(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("measured by /proc on Linux")
	}
	runtime.LockOSThread() // one thread, one malloc arena
	defer runtime.UnlockOSThread()
	release := cmalloctest.Churn(65536, 4096)
	defer release()
	before := rssMiB(t)
	cmalloc.Trim()
	after := rssMiB(t)
	t.Logf("resident %.0f MiB before Trim, %.0f MiB after", before, after)
	if before-after < 200 {
		t.Fatalf("Trim gave back %.0f MiB of the 256 MiB freed (resident %.0f -> %.0f MiB)", before-after, before, after)
	}
}
