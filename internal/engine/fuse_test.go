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
	e := Fuse(vec, ras, true)
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
	e := Fuse(fixed(det("luminaire", 1, 1, 0.9, true)), nil, false)
	got, err := e.Detect(context.Background(), detect.Page{PDF: fakePDF{}})
	if err != nil || len(got) != 1 {
		t.Fatalf("PDF page: %v %+v", err, got)
	}
	if _, err := e.Detect(context.Background(), detect.Page{Index: 0}); !errors.Is(err, ErrRasterOff) {
		t.Fatalf("image page: %v, want ErrRasterOff", err)
	}
}

// judge is a raster detector that can verify: it says "luminaire" for
// every box it is given, and counts its calls.
type judge struct {
	detects, verifies int
	boxes             []detect.Box
}

func (j *judge) Detect(context.Context, detect.Page) ([]detect.Detection, error) {
	j.detects++
	return []detect.Detection{det("sounder", 900, 900, 0.8, false)}, nil
}

func (j *judge) Verify(_ context.Context, _ detect.Page, boxes []detect.Box) ([]detect.Detection, error) {
	j.verifies++
	j.boxes = append(j.boxes, boxes...)
	var out []detect.Detection
	for _, b := range boxes {
		out = append(out, detect.Detection{Class: "luminaire", Confidence: 0.9, Box: b, Source: detect.Source{Detector: true}})
	}
	return out, nil
}

// TestFuseVerifiesVectorMatches: on a PDF page where the matcher found
// symbols, a verifying detector judges the matcher's boxes and does not
// search the page (agreement gets both flags; disagreement leaves the
// match alone); on a PDF page where it found nothing, and on an image,
// the detector searches.
func TestFuseVerifiesVectorMatches(t *testing.T) {
	j := &judge{}
	e := Fuse(fixed(det("luminaire", 100, 100, 0.9, true), det("smoke_detector", 400, 400, 0.8, true)), j, true)
	page := detect.Page{PDF: fakePDF{}, Raster: image.NewGray(image.Rect(0, 0, 10, 10))}
	got, err := e.Detect(context.Background(), page)
	if err != nil {
		t.Fatal(err)
	}
	if j.detects != 0 || j.verifies != 1 || len(j.boxes) != 2 {
		t.Fatalf("detector searched %d times, verified %d times with %d boxes", j.detects, j.verifies, len(j.boxes))
	}
	if len(got) != 2 {
		t.Fatalf("got %+v", got)
	}
	for _, d := range got {
		if !d.Source.VectorMatching || d.Source.Detector != (d.Class == "luminaire") {
			t.Errorf("%+v", d)
		}
	}
	e = Fuse(fixed(), j, true)
	if got, err = e.Detect(context.Background(), page); err != nil || len(got) != 1 || j.detects != 1 {
		t.Fatalf("PDF page without matches: %v %+v, %d searches", err, got, j.detects)
	}
	if got, err = e.Detect(context.Background(), detect.Page{Raster: page.Raster}); err != nil || len(got) != 1 || j.detects != 2 {
		t.Fatalf("image page: %v %+v, %d searches", err, got, j.detects)
	}
}

// scanPDF is a PDF page whose drawing is mostly image: a scan.
type scanPDF struct{}

func (scanPDF) Drawing(context.Context) (*drawing.Page, error) {
	return &drawing.Page{Width: 10, Height: 10, ImageArea: 80}, nil
}

// TestFuseRasterOnScansOnly: by default the raster detector neither
// verifies nor searches a PDF page drawn as vectors, whether or not the
// matcher found symbols there; it searches a scanned PDF page and an
// image.
func TestFuseRasterOnScansOnly(t *testing.T) {
	j := &judge{}
	raster := image.NewGray(image.Rect(0, 0, 10, 10))
	for _, vec := range []detect.Engine{fixed(det("luminaire", 100, 100, 0.9, true)), fixed()} {
		got, err := Fuse(vec, j, false).Detect(context.Background(), detect.Page{PDF: fakePDF{}, Raster: raster})
		if err != nil {
			t.Fatal(err)
		}
		if j.detects != 0 || j.verifies != 0 {
			t.Fatalf("vector page: the detector searched %d and verified %d times", j.detects, j.verifies)
		}
		for _, d := range got {
			if d.Source.Detector {
				t.Errorf("vector page: %+v has the detector's flag", d)
			}
		}
	}
	got, err := Fuse(fixed(), j, false).Detect(context.Background(), detect.Page{PDF: scanPDF{}, Raster: raster})
	if err != nil || j.detects != 1 || len(got) != 1 {
		t.Fatalf("scanned PDF page: %v %+v, %d searches", err, got, j.detects)
	}
	if got, err = Fuse(fixed(), j, false).Detect(context.Background(), detect.Page{Raster: raster}); err != nil || j.detects != 2 || len(got) != 1 {
		t.Fatalf("image page: %v %+v, %d searches", err, got, j.detects)
	}
}
