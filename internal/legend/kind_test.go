package legend

import (
	"context"
	"slices"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
)

// write appends s as characters of size px on a baseline at (x, y).
func write(pg *drawing.Page, s string, x, y, size float64) {
	for _, r := range s {
		w := 0.6 * size
		pg.Chars = append(pg.Chars, drawing.Char{Text: string(r), Origin: glyph.Point{X: x, Y: y},
			Min: glyph.Point{X: x, Y: y - 0.7*size}, Max: glyph.Point{X: x + w, Y: y}, Size: size})
		x += w
	}
}

// diagram is a page of many lines and no door: a feeder tree.
func diagram() *drawing.Page {
	pg := &drawing.Page{Width: 3000, Height: 2000, Styles: []drawing.Style{{Stroke: "#000000"}}}
	pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: 100, Y: 300}, B: glyph.Point{X: 2800, Y: 300}})
	for x := 200.0; x < 2800; x += 150 {
		pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: x, Y: 300}, B: glyph.Point{X: x, Y: 1200}})
		pg.Arcs = append(pg.Arcs, drawing.Arc{C: glyph.Point{X: x, Y: 500}, R: 8, Start: 0, Sweep: 90})
		for y := 600.0; y < 1200; y += 20 { // a breaker's marks
			pg.Segments = append(pg.Segments, drawing.Segment{A: glyph.Point{X: x - 5, Y: y}, B: glyph.Point{X: x + 5, Y: y}})
		}
	}
	return pg
}

func TestKindFromTheDrawing(t *testing.T) {
	// Titles drawn as outlines: no words, no door swing: a plan by
	// default, unless the set's plans draw doors (TestReadBareSheets).
	if k, bare := kindOf(diagram(), nil); k != detect.KindFloorPlan || !bare {
		t.Errorf("wordless diagram: kind %q bare %v, want %q and bare", k, bare, detect.KindFloorPlan)
	}
	// Circuit tables of a single-line diagram.
	sld := diagram()
	write(sld, "CIRCUIT NO", 200, 1500, 20)
	write(sld, "400V AC, 100A, 6kA, 50Hz", 200, 250, 20)
	for i := range 12 {
		write(sld, "DB-S1 5486W", 400+float64(i)*180, 1500, 20)
	}
	if k := Kind(sld, nil); k != detect.KindSingleLine {
		t.Errorf("single-line diagram: kind %q, want %q", k, detect.KindSingleLine)
	}
	// The same words on a sheet with a door swing: a plan.
	plan := diagram()
	write(plan, "CIRCUIT NO", 200, 1500, 20)
	write(plan, "6kA", 200, 250, 20)
	plan.Arcs = append(plan.Arcs, drawing.Arc{C: glyph.Point{X: 1000, Y: 1000}, R: 70, Start: 180, Sweep: 90})
	if k := Kind(plan, nil); k != detect.KindFloorPlan {
		t.Errorf("plan with a door: kind %q, want %q", k, detect.KindFloorPlan)
	}
	// A doorless drawing that names its rooms is a plan.
	rooms := diagram()
	for i := range 12 {
		write(rooms, "OFFICE", 300+float64(i)*200, 900, 20)
	}
	if k := Kind(rooms, nil); k != detect.KindFloorPlan {
		t.Errorf("doorless plan with room names: kind %q, want %q", k, detect.KindFloorPlan)
	}
	// A title cue still decides.
	named := diagram()
	write(named, "LEVEL 2 FLOOR PLAN", 200, 1800, 40)
	if k := Kind(named, nil); k != detect.KindFloorPlan {
		t.Errorf("titled plan: kind %q, want %q", k, detect.KindFloorPlan)
	}
}

// pages serves drawings as a document.
type pages []*drawing.Page

func (p pages) NumPages() int { return len(p) }
func (p pages) Drawing(_ context.Context, i int) (*drawing.Page, error) {
	return p[i], nil
}

// TestReadBareSheets: a wordless, doorless sheet is a diagram in a set
// whose plans draw doors, and a plan in a set of such sheets only (a page
// of bare symbols).
func TestReadBareSheets(t *testing.T) {
	plan := diagram()
	plan.Arcs = append(plan.Arcs, drawing.Arc{C: glyph.Point{X: 1000, Y: 1000}, R: 70, Start: 180, Sweep: 90})
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Read(context.Background(), pages{diagram(), plan}, v)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{detect.KindRiser, detect.KindFloorPlan}; !slices.Equal(d.Kinds, want) {
		t.Errorf("set with a plan: kinds %v, want %v", d.Kinds, want)
	}
	d, err = Read(context.Background(), pages{diagram(), diagram()}, v)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{detect.KindFloorPlan, detect.KindFloorPlan}; !slices.Equal(d.Kinds, want) {
		t.Errorf("bare set: kinds %v, want %v", d.Kinds, want)
	}
}
