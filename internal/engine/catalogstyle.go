package engine

import (
	"context"

	"blueprint/internal/glyph"
	"blueprint/internal/legend"
	"blueprint/internal/vector"
)

// classGlyph is a legend glyph and the class its row names.
type classGlyph struct {
	class string
	g     glyph.Glyph
}

// legendGlyphs are the job's legend glyphs that name a class: one per
// distinct glyph of the document's legends (leaders; line types left out)
// and the glyphs cut from its references' legends and plans.
func legendGlyphs(ld *legend.Document, classes []string, refs []refCut) []classGlyph {
	var out []classGlyph
	for _, l := range ld.Leaders() {
		if r := ld.Rows[l]; !r.LineType && classes[l] != "" && len(r.Glyph.Shapes) > 0 {
			out = append(out, classGlyph{classes[l], r.Glyph})
		}
	}
	for _, rc := range refs {
		for _, g := range rc.Glyphs {
			if c := rc.Rows[g.Row].Class; c != "" && len(g.Glyph.Shapes) > 0 {
				out = append(out, classGlyph{c, g.Glyph})
			}
		}
	}
	return out
}

// legendStyle counts the glyphs gs that are not the catalog's own symbol
// of their class (vector.DrawsAs); drawn holds the classes of those that
// are. A sheet drawn in the catalog's symbols (EN 60617's)
// keys only some of them and relies on the standard for the rest; a sheet
// that draws its own symbols keys what it holds, and draws it its own
// way.
func (e *Engine) legendStyle(ctx context.Context, gs []classGlyph) (own int, drawn map[string]bool, err error) {
	drawn = map[string]bool{}
	for _, cg := range gs {
		catalogs := false
		for _, t := range e.catalog {
			if t.Class != cg.class {
				continue
			}
			t.MinScale, t.MaxScale = legendMinScale, legendMaxScale
			ok, err := vector.DrawsAs(ctx, cg.g, t)
			if err != nil {
				return 0, nil, err
			}
			if ok {
				catalogs, drawn[cg.class] = true, true
				break
			}
		}
		if !catalogs {
			own++
		}
	}
	return own, drawn, nil
}
