package vector

import (
	"context"
	"fmt"
	"math"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// capPerEm is a font's capital height in ems (fonts put caps at 0.65–0.75
// em): page characters carry their em size, glyph texts their cap height.
const capPerEm = 0.7

// drawsAsMinArea is the least share of the glyph's box that a find of the
// template must cover for the glyph to be drawn as the template: a
// catalog circle found inside a larger legend glyph is a part of it.
const drawsAsMinArea = 0.5

// DrawsAs reports whether the glyph g (a legend row's) is drawn as the
// template t (a catalog symbol's): t is found whole in g drawn alone at
// its own size, text included, at a scale t allows, covering most of it.
func DrawsAs(ctx context.Context, g glyph.Glyph, t Template) (bool, error) {
	lo, hi := g.Bounds()
	w, h := (hi.X-lo.X)*PixelsPerMM, (hi.Y-lo.Y)*PixelsPerMM
	if !(w > 0 || h > 0) { // nothing drawn (Bounds gives an empty glyph a zero box)
		return false, nil
	}
	pg := textGlyphPage(g, lo, hi)
	m, err := NewMatcher([]Template{t})
	if err != nil {
		return false, fmt.Errorf("vector: draws as %s: %w", t.Class, err)
	}
	ms, err := m.Match(ctx, pg)
	if err != nil {
		return false, fmt.Errorf("vector: draws as %s: %w", t.Class, err)
	}
	area := math.Max(w, 1) * math.Max(h, 1)
	for _, x := range ms {
		if x.Confidence >= OperatingConfidence && x.Box.W*x.Box.H >= drawsAsMinArea*area {
			return true, nil
		}
	}
	return false, nil
}

// textGlyphPage draws g at its own size (PixelsPerMM) on a page of its
// box, lo to hi in glyph millimetres, with a margin: strokes, fills and
// its text as characters where the glyph puts them.
func textGlyphPage(g glyph.Glyph, lo, hi glyph.Point) *drawing.Page {
	pg, at := drawGlyph(g, lo, hi, PixelsPerMM)
	for _, s := range g.Shapes {
		if s.Kind != glyph.KindText || s.Text == "" {
			continue
		}
		// Size is the cap height; a character is about 0.6 em wide.
		capPx := s.Size * PixelsPerMM
		em := capPx / capPerEm
		rs := []rune(s.Text)
		cw := 0.6 * em
		base := at(s.Pts[0])
		x0 := base.X - cw*float64(len(rs))/2
		for i, r := range rs {
			x := x0 + cw*float64(i)
			pg.Chars = append(pg.Chars, drawing.Char{Text: string(r), Min: glyph.Point{X: x, Y: base.Y - capPx}, Max: glyph.Point{X: x + cw, Y: base.Y},
				Origin: glyph.Point{X: x, Y: base.Y}, Size: em})
		}
	}
	return pg
}
