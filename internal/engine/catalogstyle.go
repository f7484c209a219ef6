package engine

import (
	"context"

	"blueprint/internal/legend"
	"blueprint/internal/vector"
)

// legendStyle counts the legend rows that name a class and draw a glyph
// (leaders: one per distinct glyph) and, of those, the rows whose glyph
// is not the catalog's own symbol of their class (vector.DrawsAs); drawn
// holds the classes of the rows whose glyph is. A sheet drawn in the
// catalog's symbols (the Finnish standard's) keys only some of them and
// relies on the standard for the rest; a sheet that draws its own symbols
// keys what it holds, and draws it its own way.
func (e *Engine) legendStyle(ctx context.Context, ld *legend.Document, classes []string) (own, rows int, drawn map[string]bool, err error) {
	drawn = map[string]bool{}
	for _, l := range ld.Leaders() {
		r := ld.Rows[l]
		if r.LineType || classes[l] == "" || len(r.Glyph.Shapes) == 0 {
			continue
		}
		rows++
		catalogs := false
		for _, t := range e.catalog {
			if t.Class != classes[l] {
				continue
			}
			t.MinScale, t.MaxScale = legendMinScale, legendMaxScale
			ok, err := vector.DrawsAs(ctx, r.Glyph, t)
			if err != nil {
				return 0, 0, nil, err
			}
			if ok {
				catalogs, drawn[classes[l]] = true, true
				break
			}
		}
		if !catalogs {
			own++
		}
	}
	return own, rows, drawn, nil
}
