package mupdf

import (
	"context"
	"image"
	"testing"

	"blueprint/internal/document/documenttest"
	"blueprint/internal/drawing"
)

func TestSmoke(t *testing.T) {
	pdf := documenttest.DensePlanPDF(documenttest.A1, 1, 1)
	d, err := Open(pdf)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	l, err := d.List(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	t.Logf("bounds %+v", l.Bounds)
	img := image.NewRGBA(image.Rect(0, 0, 200, 200))
	if err := l.Render(context.Background(), 200.0/72, img); err != nil {
		t.Fatal(err)
	}
	b := drawing.NewBuilder(l.Bounds.X1-l.Bounds.X0, l.Bounds.Y1-l.Bounds.Y0, 200.0/72)
	if err := l.Walk(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	pg := b.Page()
	t.Logf("%d segs %d arcs %d chars %d styles", len(pg.Segments), len(pg.Arcs), len(pg.Chars), len(pg.Styles))
}
