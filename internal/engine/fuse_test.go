package engine

import (
	"context"
	"errors"
	"image"
	"math"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
)

type fakePDF struct{}

func (fakePDF) Drawing(context.Context) (*drawing.Page, error) { return &drawing.Page{}, nil }

func fixed(ds ...detect.Detection) detect.Engine {
	return detect.EngineFunc(func(context.Context, detect.Page) ([]detect.Detection, error) {
		return append([]detect.Detection(nil), ds...), nil
	})
}

func det(class string, x, y, conf float64, vec bool) detect.Detection {
	return detect.Detection{Class: class, Confidence: conf, Box: detect.Box{X: x, Y: y, W: 30, H: 30},
		Source: detect.Source{VectorMatching: vec, Detector: !vec}}
}

// TestFuseRules: agreement merges into one detection with both flags and
// the vector box; a lone vector match is unchanged; a lone raster
// detection keeps its confidence on an image, is weighed down on a page
// whose drawing the matcher read, and gives way to another class's match.
func TestFuseRules(t *testing.T) {
	vec := fixed(det("luminaire", 100, 100, 0.9, true), det("smoke_detector", 400, 400, 0.8, true), det("socket_outlet", 700, 100, 0.95, true))
	ras := fixed(
		det("luminaire", 103, 98, 0.7, false),      // agrees
		det("heat_detector", 402, 401, 0.9, false), // other class where the drawing has a smoke detector
		det("sounder", 900, 900, 0.8, false),       // only the detector saw it
	)
	e := Fuse(vec, ras)
	got, err := e.Detect(context.Background(), detect.Page{PDF: fakePDF{}, Raster: image.NewGray(image.Rect(0, 0, 10, 10))})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("got %d detections, want 4: %+v", len(got), got)
	}
	byClass := map[string]detect.Detection{}
	for _, d := range got {
		byClass[d.Class] = d
	}
	l := byClass["luminaire"]
	if !l.Source.Detector || !l.Source.VectorMatching || l.Box.X != 100 || l.Confidence != 0.9 {
		t.Errorf("agreed luminaire: %+v", l)
	}
	if s := byClass["smoke_detector"]; s.Source.Detector || s.Confidence != 0.8 {
		t.Errorf("vector-only smoke detector: %+v", s)
	}
	if _, ok := byClass["heat_detector"]; ok {
		t.Error("raster class kept over another class's vector match")
	}
	if s := byClass["sounder"]; !s.Source.Detector || s.Source.VectorMatching || math.Abs(s.Confidence-0.8*secondOpinionWeight) > 1e-9 {
		t.Errorf("raster-only sounder on a vector page: %+v", s)
	}

	// An image page: no vector pass, raster confidences as they are.
	got, err = e.Detect(context.Background(), detect.Page{Raster: image.NewGray(image.Rect(0, 0, 10, 10))})
	if err != nil || len(got) != 3 {
		t.Fatalf("image page: %v %+v", err, got)
	}
	for _, d := range got {
		if !d.Source.Detector || d.Source.VectorMatching || (d.Class == "sounder" && d.Confidence != 0.8) {
			t.Errorf("image page detection %+v", d)
		}
	}
}

// TestFuseRasterOff: without the raster detector PDFs get the matcher's
// detections and images fail, saying why.
func TestFuseRasterOff(t *testing.T) {
	e := Fuse(fixed(det("luminaire", 1, 1, 0.9, true)), nil)
	got, err := e.Detect(context.Background(), detect.Page{PDF: fakePDF{}})
	if err != nil || len(got) != 1 {
		t.Fatalf("PDF page: %v %+v", err, got)
	}
	if _, err := e.Detect(context.Background(), detect.Page{Index: 0}); !errors.Is(err, ErrRasterOff) {
		t.Fatalf("image page: %v, want ErrRasterOff", err)
	}
}
