package document

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// realdataDir holds real drawings kept outside the repository
// (../shared/realdata from the repository root); tests skip without it.
const realdataDir = "../../../shared/realdata"

// TestRealDrawings validates the real drawing sets and renders one page of
// each: real CAD exports must pass the start checks with the default limits.
func TestRealDrawings(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(realdataDir, "*.pdf"))
	if len(files) == 0 {
		t.Skipf("no real drawings in %s", realdataDir)
	}
	ctx := context.Background()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			info, err := Validate(ctx, data, MimePDF, DefaultLimits())
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			validated := time.Since(start)
			doc, err := Open(ctx, data, MimePDF, DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			defer doc.Close()
			start = time.Now()
			p, err := doc.Page(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if p.Raster.Bounds().Dx() != p.Width || p.Raster.Bounds().Dy() != p.Height {
				t.Errorf("raster %v for %d × %d", p.Raster.Bounds(), p.Width, p.Height)
			}
			t.Logf("%d bytes, %d pages, validated in %v; page 0 %d × %d px rendered in %v",
				len(data), info.Pages, validated, p.Width, p.Height, time.Since(start))
		})
	}
}

// TestRealDrawingsWalkedDirect: the document pass's read of a page (its
// content walked with no display list) is the drawing the page pass reads
// beside the render, on every page of the real drawings.
func TestRealDrawingsWalkedDirect(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(realdataDir, "*.pdf"))
	if len(files) == 0 {
		t.Skipf("no real drawings in %s", realdataDir)
	}
	ctx := context.Background()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Open(ctx, data, MimePDF, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		for i := range doc.NumPages() {
			got, err := doc.Drawing(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			l, _, _, err := doc.list(context.Background(), i)
			if err != nil {
				t.Fatal(err)
			}
			want, err := doc.walk(ctx, i, l)
			l.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s page %d: direct walk %d segments %d arcs %d chars; list walk %d, %d, %d",
					filepath.Base(f), i, len(got.Segments), len(got.Arcs), len(got.Chars), len(want.Segments), len(want.Arcs), len(want.Chars))
			}
		}
		doc.Close()
	}
}
