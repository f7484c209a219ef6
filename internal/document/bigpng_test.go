package document

import (
	"context"
	"image"
	"runtime"
	"testing"
	"time"

	"blueprint/internal/document/documenttest"
)

// TestSixteenBitPNGBudget: a 16-bit RGBA PNG is checked from its header
// (no pixel decoded: a few kilobytes allocated), charged the bytes its
// 8-bit page takes, and decoded straight into that page: the decode
// allocates about 4 bytes a pixel, not the 8 of a 16-bit copy.
func TestSixteenBitPNGBudget(t *testing.T) {
	const w, h = 3000, 2000
	data := documenttest.PNG16(w, h)
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	if _, err := Validate(ctx, data, MimePNG, DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<10 {
		t.Errorf("the start check of a %d-byte PNG allocated %d bytes: it decoded pixels", len(data), alloc)
	}
	t.Logf("%d × %d 16-bit RGBA PNG of %d bytes checked in %v", w, h, len(data), took)

	hd, err := readImageHeader(data, MimePNG)
	if err != nil || hd.DecodeBytes != w*h*4 {
		t.Fatalf("charged %d bytes (%v), want %d", hd.DecodeBytes, err, w*h*4)
	}
	lim := DefaultLimits()
	lim.MaxPagePixels = w*h - 1
	_, err = Validate(ctx, data, MimePNG, lim)
	wantInvalid(t, err, ReasonPageTooLarge)

	runtime.ReadMemStats(&before)
	img, err := decodeImage(ctx, data, MimePNG, DefaultLimits())
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	rgba, ok := img.(*image.RGBA)
	if !ok || rgba.Bounds() != image.Rect(0, 0, w, h) {
		t.Fatalf("page %T %v", img, img.Bounds())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > w*h*4+4<<20 {
		t.Errorf("decoding allocated %d bytes for a %d-byte page", alloc, w*h*4)
	}
	// Paper is white, a grid line black, the translucent blue band over
	// white is light blue.
	if c := rgba.RGBAAt(1, 1); c.R != 255 || c.G != 255 || c.B != 255 || c.A != 255 {
		t.Errorf("paper %v", c)
	}
	if c := rgba.RGBAAt(1, 0); c.R != 0 || c.G != 0 || c.B != 0 {
		t.Errorf("line %v", c)
	}
	if c := rgba.RGBAAt(1, h/3+1); c.B != 255 || c.R < 120 || c.R > 135 {
		t.Errorf("band %v", c)
	}
}
