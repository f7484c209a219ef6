package synth

import (
	"context"
	"slices"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/document"
	"blueprint/internal/legend"
)

// tableCaseSheet returns the first legend set of seed drawing case c with
// its legend on its first page (no title sheet).
func tableCaseSheet(t *testing.T, g *Generator, seed uint64, c string) (Sheet, []Symbol) {
	t.Helper()
	for i := range 400 {
		l := newSetLayout(rngFor(seed, i, 30))
		if l.table != c || l.titleSheet {
			continue
		}
		s, err := g.Legend(seed, i, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s, g.novelSymbols(rngFor(seed, i, 20))
	}
	t.Fatalf("no set of seed %d draws %s", seed, c)
	return Sheet{}, nil
}

// readLegend reads the legend rows of a generated set as the engine does.
func readLegend(t *testing.T, s Sheet) *legend.Document {
	t.Helper()
	ctx := context.Background()
	doc, err := document.Open(ctx, s.Data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	v, err := legend.DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	d, err := legend.Read(ctx, doc, v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestTableCasesRead: each legend-table case of issue 35 is drawn, tagged
// in the truth, and read whole: section rows are no rows, a bill of
// quantities beside a legend is no legend, and a multi-column legend's
// part numbers and quantities are read whatever its column order.
func TestTableCasesRead(t *testing.T) {
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(FromCatalog(cat))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{caseSectioned, caseBOQ, caseMulticolumn} {
		t.Run(c, func(t *testing.T) {
			s, syms := tableCaseSheet(t, g, 35, c)
			if s.Truth.Paper != "A1" {
				t.Errorf("paper %s, want A1", s.Truth.Paper)
			}
			counts := map[string]int{}
			for _, p := range s.Truth.Pages {
				if !slices.Contains(p.Cases, c) {
					t.Errorf("page %d cases %v, want %s", p.PageIndex, p.Cases, c)
				}
				for _, sym := range p.Symbols {
					if sym.Case != c {
						t.Fatalf("symbol case %q, want %s", sym.Case, c)
					}
					if p.PageIndex == 0 {
						counts[sym.Class]++
					}
				}
			}
			d := readLegend(t, s)
			read := map[string]bool{}
			for i, r := range d.Rows {
				read[d.Classes[i]] = true
				if slices.Contains(sectionTitles[:], r.Description) {
					t.Errorf("section row %q read as a legend row", r.Description)
				}
			}
			for _, sym := range syms {
				if !read[sym.Class] {
					t.Errorf("no row of %s (%q) read", sym.Class, sym.NameEN)
				}
			}
			switch c {
			case caseSectioned:
				if len(d.Rows) < 30 {
					t.Errorf("%d rows read, want 30 or more", len(d.Rows))
				}
			case caseBOQ, caseMulticolumn:
				// The legend's rows are the legend's alone: the bill of
				// quantities is read apart, as a schedule whose rows each
				// give a code (docs/legend.md, "Schedules and tags").
				legendRows, scheduleRows := 0, 0
				for _, r := range d.Rows {
					switch r.Source {
					case legend.SourceSchedule:
						scheduleRows++
						if r.Code == "" {
							t.Errorf("schedule row %q has no code", r.Description)
						}
					default:
						legendRows++
					}
				}
				if legendRows != len(syms) {
					t.Errorf("%d legend rows read, want the legend's %d", legendRows, len(syms))
				}
				if c == caseBOQ && scheduleRows == 0 {
					t.Errorf("the bill of quantities was not read as a schedule")
				}
			}
			if c != caseMulticolumn {
				return
			}
			for i, r := range d.Rows {
				if r.PartNumber == "" {
					t.Errorf("row %q: no part number", r.Description)
				}
				if r.Quantity == nil || *r.Quantity != counts[d.Classes[i]] {
					t.Errorf("row %q: quantity %v, want %d", r.Description, r.Quantity, counts[d.Classes[i]])
				}
			}
		})
	}
}
