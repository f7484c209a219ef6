package cmalloc_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"blueprint/internal/cmalloc"
	"blueprint/internal/cmalloc/cmalloctest"
)

// rssMiB is the process's resident size (VmRSS).
func rssMiB(t *testing.T) float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb / 1024
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
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
