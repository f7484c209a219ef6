package engine

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/raster"
	"blueprint/internal/raster/rastertest"
)

// newEngine returns the production engine for the embedded catalog.
func newEngine(t *testing.T) detect.Engine {
	t.Helper()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := New(cat, Options{Raster: raster.Config{Library: rastertest.Library(t)}})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// firstPage opens data through the document package, as a job does, and
// renders its first page; the document is closed when the test ends.
func firstPage(t *testing.T, data []byte, mime string) detect.Page {
	t.Helper()
	doc, err := document.Open(context.Background(), data, mime, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { doc.Close() })
	page, err := doc.Page(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// luminaireOps draws the catalog luminaire (circle of 2 mm with an X) with
// its centre at (x, y) points, in glyph millimetres under a cm.
func luminaireOps(x, y float64) string {
	return fmt.Sprintf("q 2.834646 0 0 2.834646 %g %g cm 0.1 w ", x, y) + documenttest.CircleOps(0, 0, 2) +
		" -1.414 -1.414 m 1.414 1.414 l S -1.414 1.414 m 1.414 -1.414 l S Q "
}

// TestEngineFindsVectorSymbols drives the production engine through the
// real document pipeline: a PDF page (rotated, with a CropBox) whose drawing
// holds two luminaires and the text "O X", and an image page.
func TestEngineFindsVectorSymbols(t *testing.T) {
	eng := newEngine(t)
	content := luminaireOps(200, 300) + luminaireOps(400, 500) +
		"BT /F1 24 Tf 100 100 Td (O X) Tj ET"
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 612 792]", CropBox: "[0 0 612 792]", Rotate: 90, Content: content})
	ctx := context.Background()
	page := firstPage(t, pdf, document.MimePDF)
	all, err := eng.Detect(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	// What a partner sees by default: detections at their class's threshold.
	var dets []detect.Detection
	for _, d := range all {
		if d.Confidence >= 0.5 {
			dets = append(dets, d)
		}
	}
	if len(dets) != 2 {
		t.Fatalf("got %d detections at 0.5, want 2 luminaires: %+v", len(dets), all)
	}
	// /Rotate 90 maps PDF (x, y) to raster (y, x) in points.
	want := [][2]float64{{300, 200}, {500, 400}}
	for _, w := range want {
		cx, cy := w[0]*200/72, w[1]*200/72
		found := false
		for _, d := range dets {
			mx, my := d.Box.X+d.Box.W/2, d.Box.Y+d.Box.H/2
			if d.Class == "luminaire" && d.Source.VectorMatching &&
				math.Abs(mx-cx) < 2 && math.Abs(my-cy) < 2 && math.Abs(d.Box.W-4*200/25.4) < 2 &&
				d.Confidence >= 0.5 {
				found = true
			}
		}
		if !found {
			t.Errorf("no luminaire centred at %.0f,%.0f px: %+v", cx, cy, dets)
		}
	}
}

// TestEngineImagePage: an image upload has no vector drawing; the raster
// detector skips a blank one and reports nothing.
func TestEngineImagePage(t *testing.T) {
	eng := newEngine(t)
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 64, 48))); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	page := firstPage(t, buf.Bytes(), document.MimePNG)
	if page.PDF != nil {
		t.Fatal("image page has a vector side")
	}
	dets, err := eng.Detect(ctx, page)
	if err != nil || len(dets) != 0 {
		t.Fatalf("image page: %v, %+v; want no detections", err, dets)
	}
}

// TestEngineConcurrent runs one engine on several pages at once (run with
// -race): results must not depend on what else is running.
func TestEngineConcurrent(t *testing.T) {
	eng := newEngine(t)
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 612 792]", Content: luminaireOps(200, 300) + luminaireOps(300, 600)})
	ctx := context.Background()
	page := firstPage(t, pdf, document.MimePDF)
	want, err := eng.Detect(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 5; i++ {
				dets, err := eng.Detect(ctx, page)
				if err == nil && len(dets) != len(want) {
					err = fmt.Errorf("got %d detections, want %d", len(dets), len(want))
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
