package search

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"

	"blueprint/internal/detect"
	"blueprint/internal/glyphsearch"
)

// Images is the ImageSearcher of page images: package glyphsearch's search
// for the ink inside the box, at any angle, mirrored, 0.7–1.5× (its
// defaults unless Options says otherwise). It is safe for concurrent use.
type Images struct {
	Options glyphsearch.Options
}

var _ ImageSearcher = Images{}

// Search finds the ink inside box on query on each of pages. A page that is
// query itself (the same image value) is read once. A box holding no ink
// gives ErrEmptyRegion, one holding far more than a symbol
// (glyphsearch.ErrTooLarge) ErrRegionTooLarge.
func (s Images) Search(ctx context.Context, query image.Image, box detect.Box, pages []image.Image) ([][]Match, error) {
	qp, err := glyphsearch.NewPage(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("search: page image: %w", err)
	}
	r := image.Rect(int(math.Floor(box.X)), int(math.Floor(box.Y)), int(math.Ceil(box.X+box.W)), int(math.Ceil(box.Y+box.H))).Add(query.Bounds().Min)
	t, err := qp.Template(r)
	if errors.Is(err, glyphsearch.ErrNoGlyph) {
		return nil, ErrEmptyRegion
	}
	if errors.Is(err, glyphsearch.ErrTooLarge) {
		return nil, ErrRegionTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("search: exemplar: %w", err)
	}
	out := make([][]Match, len(pages))
	for i, img := range pages {
		p := qp
		if img != query {
			if p, err = glyphsearch.NewPage(ctx, img); err != nil {
				return nil, fmt.Errorf("search: page image %d: %w", i, err)
			}
		}
		ms, err := p.Search(ctx, t, s.Options)
		if err != nil {
			return nil, fmt.Errorf("search: page image %d: %w", i, err)
		}
		o := img.Bounds().Min
		for _, m := range ms {
			b := m.Box
			b.X, b.Y = b.X-float64(o.X), b.Y-float64(o.Y)
			out[i] = append(out[i], Match{Box: b, Score: math.Round(m.Score*1000) / 1000})
		}
	}
	return out, nil
}
