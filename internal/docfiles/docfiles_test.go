package docfiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"slices"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/job"
)

// TestMimesAgree ties the domain's accepted types to the ones package
// document reads.
func TestMimesAgree(t *testing.T) {
	doc := []string{document.MimePDF, document.MimePNG, document.MimeJPEG, document.MimeJPGAlias, document.MimeWebP}
	if !slices.Equal(job.AcceptedMimes(), doc) {
		t.Fatalf("job.AcceptedMimes() = %v, document reads %v", job.AcceptedMimes(), doc)
	}
	for _, m := range doc {
		if got, want := job.CanonicalMime(m), document.NormalizeMIME(m); got != want {
			t.Errorf("job.CanonicalMime(%q) = %q, document.NormalizeMIME says %q", m, got, want)
		}
	}
}

func TestLimits(t *testing.T) {
	if got := New(0, 0).Limits(); got != document.DefaultLimits() {
		t.Errorf("New(0, 0) limits %+v, want the defaults", got)
	}
	got := New(7, 1000).Limits()
	if got.MaxPages != 7 || got.MaxPagePixels != 1000 || got.MaxDecompressedBytes != document.DefaultLimits().MaxDecompressedBytes {
		t.Errorf("New(7, 1000) limits %+v", got)
	}
}

func TestCheckRefusalIsInvalidFile(t *testing.T) {
	r := New(1, 0)
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 72 72]"}, documenttest.Page{MediaBox: "[0 0 72 72]"})
	err := r.Check(context.Background(), pdf, job.MimePDF)
	var inv *job.InvalidFile
	if !errors.As(err, &inv) || inv.Reason != document.ReasonTooManyPages || inv.Details["max_pages"] != 1 {
		t.Fatalf("Check(2 pages, max 1) = %v, want an InvalidFile too_many_pages", err)
	}
	if err := r.Check(context.Background(), []byte("GIF89a"), job.MimePNG); !errors.As(err, &inv) || inv.Reason != document.ReasonTypeMismatch {
		t.Fatalf("Check(GIF as PNG) = %v, want type_mismatch", err)
	}
	if err := New(0, 0).Check(context.Background(), pdf, job.MimePDF); err != nil {
		t.Fatalf("Check(valid PDF) = %v", err)
	}
}

func TestRunPages(t *testing.T) {
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 144 72]"}, documenttest.Page{MediaBox: "[0 0 72 108]"})
	f, err := New(0, 0).Open(context.Background(), pdf, job.MimePDF)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.NumPages() != 2 {
		t.Fatalf("NumPages %d", f.NumPages())
	}
	boom := errors.New("engine down")
	var got []string
	eng := detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		if p.Index == 1 {
			return nil, boom
		}
		return []detect.Detection{{Class: "socket_outlet", Confidence: 0.9}}, nil
	})
	err = f.Run(context.Background(), job.RunOptions{Engine: eng, KeepPNG: true}, func(r job.PageResult) error {
		got = append(got, fmt.Sprintf("%d:%dx%d:%d:%t", r.Index, r.Width, r.Height, len(r.Detections), len(r.PNG) > 8))
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Run err = %v, want the engine's error in the chain", err)
	}
	if want := []string{"0:400x200:1:true"}; !slices.Equal(got, want) {
		t.Fatalf("pages %v, want %v", got, want)
	}
}

// TestPagePNGIsRunsPNG: PagePNG of a page decodes to the pixels of the PNG
// Run encodes for it with KeepPNG (PDF pages and an image), and Run
// without KeepPNG carries no PNG.
func TestPagePNGIsRunsPNG(t *testing.T) {
	ctx := context.Background()
	pdf := documenttest.PDF(
		documenttest.Page{MediaBox: "[0 0 144 72]", Content: "1 0 0 rg 10 10 50 30 re f"},
		documenttest.Page{MediaBox: "[0 0 300 200]", Rotate: 90, Content: "0 g 2 w 20 20 m 200 150 l S"},
	)
	img := image.NewNRGBA(image.Rect(0, 0, 70, 50))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var imgPNG bytes.Buffer
	if err := png.Encode(&imgPNG, img); err != nil {
		t.Fatal(err)
	}
	none := detect.EngineFunc(func(context.Context, detect.Page) ([]detect.Detection, error) { return nil, nil })
	for _, c := range []struct {
		mime string
		data []byte
	}{{job.MimePDF, pdf}, {job.MimePNG, imgPNG.Bytes()}} {
		f, err := New(0, 0).Open(ctx, c.data, c.mime)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var ran [][]byte
		if err := f.Run(ctx, job.RunOptions{Engine: none, KeepPNG: true}, func(r job.PageResult) error {
			ran = append(ran, r.PNG)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(ran) != f.NumPages() {
			t.Fatalf("%s: %d results for %d pages", c.mime, len(ran), f.NumPages())
		}
		for i, want := range ran {
			got, err := f.PagePNG(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			if !samePixels(t, got, want) {
				t.Errorf("%s page %d: PagePNG decodes to other pixels than Run's PNG", c.mime, i)
			}
		}
		if err := f.Run(ctx, job.RunOptions{Engine: none}, func(r job.PageResult) error {
			if r.PNG != nil {
				t.Errorf("%s page %d: a PNG without KeepPNG", c.mime, r.Index)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := New(0, 0).Open(ctx, pdf, job.MimePDF)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.PagePNG(ctx, 2); err == nil {
		t.Error("PagePNG of a page past the end")
	}
}

// samePixels decodes two PNGs and reports whether they hold the same
// pixels (as 8-bit NRGBA).
func samePixels(t *testing.T, a, b []byte) bool {
	t.Helper()
	da, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	db, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if da.Bounds() != db.Bounds() {
		return false
	}
	for y := da.Bounds().Min.Y; y < da.Bounds().Max.Y; y++ {
		for x := da.Bounds().Min.X; x < da.Bounds().Max.X; x++ {
			if color.NRGBAModel.Convert(da.At(x, y)) != color.NRGBAModel.Convert(db.At(x, y)) {
				return false
			}
		}
	}
	return true
}
