package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/document/documenttest"
)

// threePages is a PDF of three pages of different sizes, each with one
// black rectangle.
func threePages() []byte {
	return documenttest.PDF(
		documenttest.Page{MediaBox: "[0 0 300 200]", Content: "0 g 36 36 72 72 re f"},
		documenttest.Page{MediaBox: "[0 0 144 144]", Content: "0 g 0 0 72 72 re f"},
		documenttest.Page{MediaBox: "[0 0 500 500]", CropBox: "[0 0 216 360]", Rotate: 90, Content: "0 g 0 0 36 36 re f"},
	)
}

// darkEngine is a detector for the tests: it reports the box of the dark
// pixels it sees on the raster, so results prove which raster it was given.
var darkEngine = detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	var r image.Rectangle
	b := p.Raster.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			cr, cg, cb, _ := p.Raster.At(x, y).RGBA()
			if (cr+cg+cb)/3 < 0x8000 {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if r.Empty() {
		return nil, nil
	}
	return []detect.Detection{{Class: "dark", Confidence: 1, Box: detect.Box{
		X: float64(r.Min.X), Y: float64(r.Min.Y), W: float64(r.Dx()), H: float64(r.Dy())}}}, nil
})

func open(t *testing.T, data []byte, mime string) *document.Document {
	t.Helper()
	ctx := context.Background()
	if _, err := document.Validate(ctx, data, mime, document.DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	doc, err := document.Open(ctx, data, mime, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { doc.Close() })
	return doc
}

func TestRunPages(t *testing.T) {
	for _, keep := range []bool{false, true} {
		doc := open(t, threePages(), document.MimePDF)
		var got []PageResult
		err := Run(context.Background(), doc, Options{Engine: darkEngine, KeepPNG: keep}, func(r PageResult) error {
			got = append(got, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			w, h int
			box  detect.Box
		}{
			{833, 556, detect.Box{X: 100, Y: 556 - 300, W: 200, H: 200}},
			{400, 400, detect.Box{X: 0, Y: 200, W: 200, H: 200}},
			// 216 × 360 pt turned clockwise: 1000 × 600 px; the square at
			// the crop's bottom-left corner lands top-left.
			{1000, 600, detect.Box{X: 0, Y: 0, W: 100, H: 100}},
		}
		if len(got) != len(want) {
			t.Fatalf("keep %v: %d results, want %d", keep, len(got), len(want))
		}
		for i, r := range got {
			w := want[i]
			if r.Index != i || r.Width != w.w || r.Height != w.h {
				t.Errorf("page %d: index %d size %d × %d, want %d × %d", i, r.Index, r.Width, r.Height, w.w, w.h)
			}
			if len(r.Detections) != 1 {
				t.Fatalf("page %d: %d detections", i, len(r.Detections))
			}
			if b := r.Detections[0].Box; absDiff(b.X, w.box.X) > 1 || absDiff(b.Y, w.box.Y) > 1 || absDiff(b.W, w.box.W) > 1 || absDiff(b.H, w.box.H) > 1 {
				t.Errorf("page %d: box %+v, want %+v", i, b, w.box)
			}
			if r.RenderSeconds <= 0 || r.DetectSeconds <= 0 {
				t.Errorf("page %d: timings %g %g", i, r.RenderSeconds, r.DetectSeconds)
			}
			if !keep {
				if r.PNG != nil {
					t.Errorf("page %d: PNG kept without KeepPNG", i)
				}
				continue
			}
			img, err := png.Decode(bytes.NewReader(r.PNG))
			if err != nil {
				t.Fatalf("page %d: PNG: %v", i, err)
			}
			if img.Bounds() != image.Rect(0, 0, w.w, w.h) {
				t.Errorf("page %d: PNG %v, want %d × %d", i, img.Bounds(), w.w, w.h)
			}
		}
	}
}

func absDiff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestRunImage(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y := 10; y < 20; y++ {
		for x := 5; x < 25; x++ {
			img.Pix[y*img.Stride+x] = 0
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	doc := open(t, buf.Bytes(), document.MimePNG)
	n := 0
	err := Run(context.Background(), doc, Options{Engine: darkEngine}, func(r PageResult) error {
		n++
		if r.Width != 64 || r.Height != 48 || len(r.Detections) != 1 || r.Detections[0].Box != (detect.Box{X: 5, Y: 10, W: 20, H: 10}) {
			t.Errorf("result %+v", r)
		}
		return nil
	})
	if err != nil || n != 1 {
		t.Fatalf("err %v, %d pages", err, n)
	}
}

func TestRunStops(t *testing.T) {
	stop := errors.New("stop here")
	t.Run("each error", func(t *testing.T) {
		doc := open(t, threePages(), document.MimePDF)
		calls := 0
		err := Run(context.Background(), doc, Options{Engine: darkEngine}, func(r PageResult) error {
			calls++
			return stop
		})
		if !errors.Is(err, stop) || calls != 1 {
			t.Errorf("err %v after %d calls", err, calls)
		}
	})
	t.Run("engine error", func(t *testing.T) {
		doc := open(t, threePages(), document.MimePDF)
		failing := detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
			if p.Index == 1 {
				return nil, stop
			}
			return nil, nil
		})
		var seen []int
		err := Run(context.Background(), doc, Options{Engine: failing}, func(r PageResult) error {
			seen = append(seen, r.Index)
			return nil
		})
		if !errors.Is(err, stop) || len(seen) != 1 {
			t.Errorf("err %v, pages seen %v", err, seen)
		}
	})
	t.Run("cancelled between pages", func(t *testing.T) {
		doc := open(t, threePages(), document.MimePDF)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var seen []int
		err := Run(ctx, doc, Options{Engine: darkEngine}, func(r PageResult) error {
			seen = append(seen, r.Index)
			cancel()
			return nil
		})
		if !errors.Is(err, context.Canceled) || len(seen) != 1 {
			t.Errorf("err %v, pages seen %v", err, seen)
		}
	})
	t.Run("page over the pixel limit", func(t *testing.T) {
		pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 100 100]"}, documenttest.Page{MediaBox: "[0 0 14400 14400]"})
		doc, err := document.Open(context.Background(), pdf, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		defer doc.Close()
		var seen []int
		err = Run(context.Background(), doc, Options{Engine: darkEngine}, func(r PageResult) error {
			seen = append(seen, r.Index)
			return nil
		})
		var ie *document.InvalidError
		if !errors.As(err, &ie) || ie.Reason != document.ReasonPageTooLarge || len(seen) != 1 {
			t.Errorf("err %v, pages seen %v", err, seen)
		}
	})
	t.Run("no engine", func(t *testing.T) {
		doc := open(t, threePages(), document.MimePDF)
		if err := Run(context.Background(), doc, Options{}, func(PageResult) error { return nil }); err == nil {
			t.Error("ran without an engine")
		}
	})
}

// TestRunOnePageAtATime: without a document pass, pages are detected in
// order and each is handed over before the next is detected.
func TestRunOnePageAtATime(t *testing.T) {
	doc := open(t, threePages(), document.MimePDF)
	var events []string
	eng := detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		events = append(events, "detect "+string(rune('0'+p.Index)))
		return nil, nil
	})
	err := Run(context.Background(), doc, Options{Engine: eng}, func(r PageResult) error {
		events = append(events, "each "+string(rune('0'+r.Index)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"detect 0", "each 0", "detect 1", "each 1", "detect 2", "each 2"}
	if len(events) != len(want) {
		t.Fatalf("events %v, want %v", events, want)
	}
	for i := range want {
		if events[i] != want[i] {
			t.Fatalf("events %v, want %v", events, want)
		}
	}
}

// kindsEngine is a document engine whose document pass gives the pages
// the kinds it holds; its page engine records the order of detection.
type kindsEngine struct {
	kinds  []string
	detect *[]int
}

func (k kindsEngine) Detect(_ context.Context, p detect.Page) ([]detect.Detection, error) {
	*k.detect = append(*k.detect, p.Index)
	return nil, nil
}

func (k kindsEngine) Prepare(context.Context, detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	return k, detect.DocumentInfo{Kinds: k.kinds}, nil
}

// TestRunCountedPagesFirst: after the document pass, pages it counts are
// detected before those it does not (page 0 is rendered during the pass,
// so it goes first), and results still reach each in page order, with
// their kinds and page images.
func TestRunCountedPagesFirst(t *testing.T) {
	doc := open(t, threePages(), document.MimePDF)
	var detected, handed []int
	eng := kindsEngine{kinds: []string{detect.KindFloorPlan, detect.KindSchedule, detect.KindFloorPlan}, detect: &detected}
	err := Run(context.Background(), doc, Options{Engine: eng, KeepPNG: true}, func(r PageResult) error {
		handed = append(handed, r.Index)
		if r.Kind != eng.kinds[r.Index] || len(r.PNG) == 0 {
			t.Errorf("page %d: kind %q, %d PNG bytes", r.Index, r.Kind, len(r.PNG))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(detected) != "[0 2 1]" || fmt.Sprint(handed) != "[0 1 2]" {
		t.Fatalf("detected %v, handed on %v; want [0 2 1] and [0 1 2]", detected, handed)
	}
}

// TestRunUncountedPagesOnlySized: without KeepPNG, the pages the document
// pass does not count are neither rendered nor detected, yet still reach
// each in order with their kind and the size a render gives; page 0,
// rendered during the document pass, is detected whatever its kind. With
// KeepPNG every page is rendered and detected.
func TestRunUncountedPagesOnlySized(t *testing.T) {
	sizes := [][2]int{{833, 556}, {400, 400}, {1000, 600}} // threePages at 200 DPI
	for _, c := range []struct {
		kinds        []string
		keep         bool
		wantDetected string
	}{
		{[]string{detect.KindFloorPlan, detect.KindSchedule, detect.KindFloorPlan}, false, "[0 2]"},
		{[]string{detect.KindLegend, detect.KindFloorPlan, detect.KindRiser}, false, "[0 1]"},
		{[]string{detect.KindLegend, detect.KindSingleLine, detect.KindRiser}, false, "[0]"},
		{[]string{detect.KindLegend, detect.KindSingleLine, detect.KindRiser}, true, "[0 1 2]"},
	} {
		doc := open(t, threePages(), document.MimePDF)
		var detected, handed []int
		eng := kindsEngine{kinds: c.kinds, detect: &detected}
		err := Run(context.Background(), doc, Options{Engine: eng, KeepPNG: c.keep}, func(r PageResult) error {
			handed = append(handed, r.Index)
			if r.Kind != c.kinds[r.Index] || r.Width != sizes[r.Index][0] || r.Height != sizes[r.Index][1] || (len(r.PNG) > 0) != c.keep {
				t.Errorf("kinds %v keep %v: page %d: kind %q, %d × %d, %d PNG bytes", c.kinds, c.keep, r.Index, r.Kind, r.Width, r.Height, len(r.PNG))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(detected) != c.wantDetected || fmt.Sprint(handed) != "[0 1 2]" {
			t.Errorf("kinds %v keep %v: detected %v, handed on %v; want %s and [0 1 2]", c.kinds, c.keep, detected, handed, c.wantDetected)
		}
	}
}

// TestRunUncountedPageOverLimit: a page only sized still fails as
// page_too_large when it is over the pixel limit, as its render would.
func TestRunUncountedPageOverLimit(t *testing.T) {
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 100 100]"}, documenttest.Page{MediaBox: "[0 0 14400 14400]"})
	doc, err := document.Open(context.Background(), pdf, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	var detected []int
	eng := kindsEngine{kinds: []string{detect.KindFloorPlan, detect.KindSchedule}, detect: &detected}
	err = Run(context.Background(), doc, Options{Engine: eng}, func(PageResult) error { return nil })
	var ie *document.InvalidError
	if !errors.As(err, &ie) || ie.Reason != document.ReasonPageTooLarge {
		t.Errorf("err %v, want page_too_large", err)
	}
}

// TestRunProgressCountsPagesAsTheyFinish: page 2 (counted) finishes before
// page 1 (a schedule), so each still waits for page 1, but Progress counts
// page 2 at once, naming it: a job's pages_done must not stall behind one
// slow page, and the job can tell which pages are done.
func TestRunProgressCountsPagesAsTheyFinish(t *testing.T) {
	doc := open(t, threePages(), document.MimePDF)
	var detected, handed []int
	var progress []string
	eng := kindsEngine{kinds: []string{detect.KindFloorPlan, detect.KindSchedule, detect.KindFloorPlan}, detect: &detected}
	opt := Options{Engine: eng, KeepPNG: true, Progress: func(page, finished int) error {
		progress = append(progress, fmt.Sprintf("page %d: %d after %d handed", page, finished, len(handed)))
		return nil
	}}
	if err := Run(context.Background(), doc, opt, func(r PageResult) error {
		handed = append(handed, r.Index)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := "[page 0: 1 after 0 handed page 2: 2 after 1 handed page 1: 3 after 1 handed]"
	if fmt.Sprint(progress) != want || fmt.Sprint(handed) != "[0 1 2]" {
		t.Fatalf("progress %v, handed %v; want %s and [0 1 2]", progress, handed, want)
	}
	stop := errors.New("stop")
	err := Run(context.Background(), open(t, threePages(), document.MimePDF), Options{Engine: eng, Progress: func(int, int) error { return stop }},
		func(PageResult) error { return nil })
	if !errors.Is(err, stop) {
		t.Fatalf("an error of Progress: Run returned %v", err)
	}
}
