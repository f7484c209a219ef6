package engine

import (
	"context"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/synth"
)

// TestLegendStyle: a generated sheet drawn in the catalog's symbols, whose
// legend keys only some of them (make synth KIND=vector SEED=20261205,
// sheet-00002), is read as drawn in the catalog's symbols, and the symbols
// its legend leaves out are still found by the catalog's glyphs; a legend
// set that draws its own glyphs (KIND=legend SEED=60613, legend-00016) is
// read as drawing its own symbols, and no catalog glyph is reported there:
// not of a class its legend leaves out, nor of one it draws its own way.
func TestLegendStyle(t *testing.T) {
	ctx := context.Background()
	cat, g, eng := synthEngine(t)
	vec, err := g.Vector(20261205, 1, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	own, err := g.Legend(60613, 15, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		sheet    synth.Sheet
		ownStyle bool
	}{{"catalog's symbols, partly keyed", vec, false}, {"own symbols", own, true}} {
		doc, err := document.Open(ctx, c.sheet.Data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		pe, info, err := eng.Prepare(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		de := pe.(*fused).vector.(*docEngine)
		if de.ownStyle() != c.ownStyle {
			t.Errorf("%s: own style %v (%d of %d legend glyphs not the catalog's), want %v", c.name, de.ownStyle(), de.ownSymbols, de.legendRows, c.ownStyle)
		}
		named := detect.NamedClasses(info.Legend)
		truth, unnamedFound, catalogFound := 0, 0, 0
		for _, tp := range c.sheet.Truth.Pages {
			for _, s := range tp.Symbols {
				if !named[s.Class] {
					truth++
				}
			}
		}
		for _, ds := range detectPages(t, pe, doc) {
			for _, d := range ds {
				th, _ := cat.Threshold(d.Class)
				if d.LegendRow != 0 || d.Class == "" || d.Confidence < th {
					continue
				}
				catalogFound++
				if !named[d.Class] {
					unnamedFound++
				}
			}
		}
		doc.Close()
		switch {
		case c.ownStyle && catalogFound > 0:
			t.Errorf("%s: %d catalog glyph finds, %d of classes the legend leaves out", c.name, catalogFound, unnamedFound)
		case !c.ownStyle && (truth == 0 || float64(unnamedFound) < 0.9*float64(truth)):
			t.Errorf("%s: %d catalog glyph finds of classes the legend leaves out, of %d drawn", c.name, unnamedFound, truth)
		}
	}
}

// TestOwnStyleNeedsFourGlyphs: a legend of two or three glyphs of its own
// may be a sheet in the standard's symbols keying only its specials; from
// four, more than half of them its own make a legend of its own symbols.
func TestOwnStyleNeedsFourGlyphs(t *testing.T) {
	for _, c := range []struct {
		rows, own int
		want      bool
	}{{0, 0, false}, {2, 2, false}, {3, 3, false}, {4, 3, true}, {4, 2, false}, {21, 21, true}, {36, 3, false}} {
		de := &docEngine{legendRows: c.rows, ownSymbols: c.own}
		if got := de.ownStyle(); got != c.want {
			t.Errorf("%d of %d legend glyphs its own: own style %v, want %v", c.own, c.rows, got, c.want)
		}
	}
}
