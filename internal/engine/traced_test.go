package engine

import (
	"context"
	"image"
	"math"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/ocr"
)

// tracingEngine returns an engine that reads image pages by tracing them
// (Options.TraceImages) with this machine's tesseract (ocrEngineWith).
func tracingEngine(t *testing.T) *Engine {
	return ocrEngineWith(t, func(o *ocr.Reader) Options { return Options{RasterOff: true, Outlines: o, TraceImages: true} })
}

// TestTracedImageCounts: an image upload with its own legend, read by
// tracing: the legend's rows are read from the traced page's words, the
// smoke detectors are found at the legend's size and at twice it, none
// in the legend, each on its drawn place; the page says its text was read
// by OCR; and a resumed document pass (the page traced again) gives the
// same detections.
func TestTracedImageCounts(t *testing.T) {
	ctx := context.Background()
	e := tracingEngine(t)
	for _, plan := range []float64{1, 2} {
		data, want := legendImage(t, plan)
		doc, err := document.Open(ctx, data, document.MimePNG, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		eng, info, state, err := e.PrepareSaved(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		classes := map[string]bool{}
		for _, r := range info.Legend {
			classes[r.Class] = true
		}
		if !classes["smoke_detector"] || !classes["manual_call_point"] {
			t.Fatalf("plan at %.0f×: legend rows %+v, want the smoke detector's and the call point's", plan, info.Legend)
		}
		if !detect.TextUnread(info.Warnings)[0] {
			t.Errorf("plan at %.0f×: warnings %+v, want page 0's text read by OCR", plan, info.Warnings)
		}
		p, ds := detectPage(t, eng, doc, 0)
		smoke := 0
		for _, d := range ds {
			c := image.Pt(int(d.Box.X+d.Box.W/2), int(d.Box.Y+d.Box.H/2))
			if c.Y < 220 && c.X < 500 {
				t.Errorf("plan at %.0f×: %s counted inside the legend at %v", plan, d.Class, c)
			}
			if d.Class != "smoke_detector" {
				continue
			}
			near := false
			for _, w := range want[d.Class] {
				near = near || math.Hypot(float64(c.X-w.X), float64(c.Y-w.Y)) < 15*plan
			}
			if !near {
				t.Errorf("plan at %.0f×: smoke detector at %v is none of the drawn ones", plan, c)
			}
			smoke++
		}
		if smoke != len(want["smoke_detector"]) {
			t.Errorf("plan at %.0f×: %d smoke detectors, %d drawn", plan, smoke, len(want["smoke_detector"]))
		}
		resumed, _, err := e.Resume(ctx, state)
		if err != nil {
			t.Fatal(err)
		}
		again, err := resumed.Detect(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != len(ds) {
			t.Errorf("plan at %.0f×: %d detections after resuming, %d before", plan, len(again), len(ds))
		}
		doc.Close()
	}
}
