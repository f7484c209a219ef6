package sagemakerdetect

import (
	"encoding/json"
	"image"
	_ "image/jpeg" // generated scans are JPEGs
	_ "image/png"
	"os"
	"path/filepath"
	"testing"

	"blueprint/internal/rasterserve"
)

// TestDevRequestSizes prints the size of the invocation each image of a
// folder would make inline (docs/deploy.md quotes it against SageMaker's
// 6 MB): REQUEST_SIZES_DATA=<folder of scans, e.g. from
// go run ./cmd/synth -kind raster> go test -run TestDevRequestSizes -v ./internal/sagemakerdetect
func TestDevRequestSizes(t *testing.T) {
	dir := os.Getenv("REQUEST_SIZES_DATA")
	if dir == "" {
		t.Skip("REQUEST_SIZES_DATA not set")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.[jp][pn]g"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .jpg or .png in %s (%v)", dir, err)
	}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		png, err := rasterserve.EncodePage(img)
		if err != nil {
			t.Fatal(err)
		}
		body, err := json.Marshal(rasterserve.Request{Mode: rasterserve.ModeDetect, Page: png})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %d×%d: page PNG %.1f MB, request %.1f MB (limit %.1f MB: staged=%v)", filepath.Base(f), img.Bounds().Dx(), img.Bounds().Dy(),
			float64(len(png))/1e6, float64(len(body))/1e6, float64(rasterserve.MaxRequestBytes)/1e6, len(body) > rasterserve.MaxRequestBytes)
	}
}
