package awsapp_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// mupdfPackages are the packages that link MuPDF: go-fitz and the
// service's own cgo MuPDF package.
var mupdfPackages = []string{"github.com/gen2brain/go-fitz", "blueprint/internal/mupdf"}

// TestOnlyFileReadersLinkMuPDF checks the import split: the Lambda
// functions that never open an upload (webhook, sweep) do not link
// go-fitz, so they build with CGO_ENABLED=0; the api and upload (start
// check, start_on_upload) and process functions do.
func TestOnlyFileReadersLinkMuPDF(t *testing.T) {
	for fn, want := range map[string]bool{"api": true, "process": true, "upload": true, "webhook": false, "sweep": false} {
		out, err := exec.Command("go", "list", "-deps", "blueprint/functions/"+fn).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", fn, err)
		}
		deps := strings.Fields(string(out))
		got := slices.ContainsFunc(deps, func(p string) bool {
			return slices.ContainsFunc(mupdfPackages, func(m string) bool { return p == m || strings.HasPrefix(p, m+"/") })
		})
		if got != want {
			t.Errorf("functions/%s links MuPDF (%v): %v, want %v", fn, mupdfPackages, got, want)
		}
	}
}
