package awsapp_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// mupdf is the module that links MuPDF.
const mupdf = "github.com/gen2brain/go-fitz"

// TestOnlyFileReadersLinkMuPDF checks the import split: the Lambda
// functions that never open an upload (webhook, sweep, upload events) do
// not link go-fitz, so they build with CGO_ENABLED=0; the api (start
// check) and process functions do.
func TestOnlyFileReadersLinkMuPDF(t *testing.T) {
	for fn, want := range map[string]bool{"api": true, "process": true, "webhook": false, "sweep": false, "upload": false} {
		out, err := exec.Command("go", "list", "-deps", "blueprint/functions/"+fn).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", fn, err)
		}
		deps := strings.Fields(string(out))
		got := slices.ContainsFunc(deps, func(p string) bool { return strings.HasPrefix(p, mupdf) })
		if got != want {
			t.Errorf("functions/%s links %s: %v, want %v", fn, mupdf, got, want)
		}
	}
}
