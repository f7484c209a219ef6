package mupdf

import (
	"context"
	"errors"
	"image"
	"testing"
	"time"

	"blueprint/internal/document/documenttest"
	"blueprint/internal/drawing"
)

// a1W and a1H are an A1 sheet in points.
const a1W, a1H = 1684, 2384

// TestTilingPatternRenderBounded: the 713-byte page of issue 47 (an A1
// page filled with a 0.01 pt tiling pattern: 4 × 10^10 cells) renders for
// hours in MuPDF's draw device, in one loop no cookie stops. The render
// counts the cells before painting them and stops past MaxTileCells, and
// with a cancelled context it returns at once.
func TestTilingPatternRenderBounded(t *testing.T) {
	d, err := Open(documenttest.TilingPatternPDF(a1W, a1H, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	l, err := d.List(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dst := image.NewRGBA(image.Rect(0, 0, 800, 1100)) // the page's top-left part: a full A1 raster is not needed
	l.MaxTileCells = 8_000_000
	start := time.Now()
	err = l.Render(context.Background(), pxPerPt, dst)
	var le *drawing.LimitError
	if !errors.As(err, &le) || le.Limit != drawing.LimitOps || le.Max != 8_000_000 {
		t.Fatalf("render: %v, want a *drawing.LimitError of 8 000 000 operations", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the refused render took %v", el)
	}

	// Within the bound, the cells are painted: an A1 page of 1 pt cells
	// (4 million) renders whole, and a cancelled render of it returns at
	// once.
	d1, err := Open(documenttest.TilingPatternPDF(a1W, a1H, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer d1.Close()
	l1, err := d1.List(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Close()
	l1.MaxTileCells = 8_000_000
	full := image.NewRGBA(image.Rect(0, 0, 4678, 6623))
	start = time.Now()
	if err := l1.Render(context.Background(), pxPerPt, full); err != nil {
		t.Fatal(err)
	}
	t.Logf("an A1 page of 4 million 1 pt cells rendered in %v", time.Since(start))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start = time.Now()
	if err := l1.Render(ctx, pxPerPt, full); !errors.Is(err, context.Canceled) {
		t.Fatalf("render with a cancelled context: %v", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("the cancelled render returned after %v", el)
	}
}

// TestCancelledContextStopsMuPDF: costing, interpreting, rendering and
// walking a page with a context already done, or done while MuPDF runs, return
// within a short bound with the context's error.
func TestCancelledContextStopsMuPDF(t *testing.T) {
	pdf := documenttest.ClipHeavyPDF(documenttest.A1, 400, 1)
	d, err := Open(pdf)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.ListContext(done, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("list with a cancelled context: %v", err)
	}
	if _, err := d.Cost(done, CostLimits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cost with a cancelled context: %v", err)
	}
	l, err := d.List(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := l.Bounds
	dst := image.NewRGBA(image.Rect(0, 0, int(r.X1*pxPerPt+0.5), int(r.Y1*pxPerPt+0.5)))
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"render", func(ctx context.Context) error { return l.Render(ctx, pxPerPt, dst) }},
		{"walk", func(ctx context.Context) error {
			return l.Walk(ctx, drawing.NewBuilder(r.X1-r.X0, r.Y1-r.Y0, pxPerPt))
		}},
		{"cost", func(ctx context.Context) error {
			_, err := d.Cost(ctx, CostLimits{})
			return err
		}},
		{"list", func(ctx context.Context) error {
			l, err := d.ListContext(ctx, 0)
			if err == nil {
				l.Close()
			}
			return err
		}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start := time.Now()
		err := tc.run(ctx)
		el := time.Since(start)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if el > 2*time.Second {
			t.Errorf("%s with a 20 ms deadline returned after %v", tc.name, el)
		}
		t.Logf("%s with a 20 ms deadline: %v after %v", tc.name, err, el)
	}
}

// TestWalkChargesPatternCells: the walk counts a tiling pattern's cell
// content once per cell of the page it paints, so the page of issue 47
// passes the drawing's operation limit, and a coarse pattern does not.
func TestWalkChargesPatternCells(t *testing.T) {
	for _, tc := range []struct {
		cell float64
		over bool
	}{{0.01, true}, {1, true}, {20, false}} {
		d, err := Open(documenttest.TilingPatternPDF(a1W, a1H, tc.cell))
		if err != nil {
			t.Fatal(err)
		}
		var b *drawing.Builder
		_, err = d.WalkPage(context.Background(), 0, func(r Rect) *drawing.Builder {
			b = drawing.NewBuilder(r.X1-r.X0, r.Y1-r.Y0, pxPerPt)
			b.SetLimits(drawing.Limits{MaxOps: 1_000_000}, nil)
			return b
		})
		d.Close()
		var le *drawing.LimitError
		if got := errors.As(err, &le); got != tc.over {
			t.Errorf("cell %g pt: walk %v, want over the limit %v", tc.cell, err, tc.over)
		}
	}
}
