package catalog

import "testing"

// TestMetaAccessors checks that Meta, Threshold and Model agree with Lookup
// for every class (with an override in force, so a Talo code and a changed
// threshold are among them), refuse unknown classes, hand out no shared
// state, and that the per-detection accessors do not allocate.
func TestMetaAccessors(t *testing.T) {
	p := writeFile(t, `{"symbols": {"socket_outlet": {"talo2010_code": "2311", "threshold": 0.35}}}`)
	c := mustLoad(t, p)
	for _, s := range c.Symbols() {
		m, ok := c.Meta(s.Class)
		if !ok {
			t.Fatalf("Meta(%q) not found", s.Class)
		}
		want := Meta{Class: s.Class, DisplayName: s.DisplayName, DisplayNameFI: s.DisplayNameFI, Category: s.Category,
			SymbolCategory: s.SymbolCategory, Model: s.Model, Color: s.Color, Threshold: s.Threshold}
		got := m
		got.Talo2010Code = nil
		if got != want {
			t.Errorf("Meta(%q) = %+v, want %+v", s.Class, got, want)
		}
		if (m.Talo2010Code == nil) != (s.Talo2010Code == nil) || (m.Talo2010Code != nil && *m.Talo2010Code != *s.Talo2010Code) {
			t.Errorf("Meta(%q).Talo2010Code = %v, want %v", s.Class, m.Talo2010Code, s.Talo2010Code)
		}
		if th, ok := c.Threshold(s.Class); !ok || th != s.Threshold {
			t.Errorf("Threshold(%q) = %v, %v; want %v", s.Class, th, ok, s.Threshold)
		}
		if model, ok := c.Model(s.Class); !ok || model != s.Model {
			t.Errorf("Model(%q) = %q, %v; want %q", s.Class, model, ok, s.Model)
		}
	}
	if th, ok := c.Threshold("socket_outlet"); th != 0.35 || !ok {
		t.Errorf("Threshold ignores the override: %v", th)
	}
	m, _ := c.Meta("socket_outlet")
	if m.Talo2010Code == nil || *m.Talo2010Code != "2311" {
		t.Fatalf("Meta ignores the override: %+v", m)
	}
	*m.Talo2010Code = "changed"
	if again, _ := c.Meta("socket_outlet"); *again.Talo2010Code != "2311" {
		t.Error("Meta returned the catalog's own Talo code")
	}
	if _, ok := c.Meta("no_such_class"); ok {
		t.Error("Meta of an unknown class succeeded")
	}
	if _, ok := c.Threshold("no_such_class"); ok {
		t.Error("Threshold of an unknown class succeeded")
	}
	if _, ok := c.Model("no_such_class"); ok {
		t.Error("Model of an unknown class succeeded")
	}
	if n := testing.AllocsPerRun(100, func() {
		_, _ = c.Threshold("luminaire")
		_, _ = c.Model("luminaire")
		_, _ = c.Meta("luminaire") // no Talo code: nothing to copy
	}); n != 0 {
		t.Errorf("Threshold, Model and Meta allocate %v times per call", n)
	}
}
