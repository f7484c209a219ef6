package synth

import "blueprint/internal/catalog"

// FromCatalog returns the generator's view of every catalog symbol, in the
// catalog's stable order.
func FromCatalog(c *catalog.Catalog) []Symbol {
	syms := c.Symbols()
	out := make([]Symbol, len(syms))
	for i, s := range syms {
		out[i] = Symbol{
			Class: s.Class, Model: s.Model, Category: s.Category,
			NameEN: s.DisplayName, NameFI: s.DisplayNameFI, Color: s.Color, Glyph: s.Glyph,
		}
	}
	return out
}

// Embedded returns the embedded catalog and a generator of its symbols.
func Embedded() (*catalog.Catalog, *Generator, error) {
	cat, err := catalog.Load("")
	if err != nil {
		return nil, nil, err
	}
	g, err := New(FromCatalog(cat))
	if err != nil {
		return nil, nil, err
	}
	return cat, g, nil
}
