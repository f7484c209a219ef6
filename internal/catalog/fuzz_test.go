package catalog

import (
	"slices"
	"testing"
)

// FuzzOverride: any operator override file is applied or refused with an
// error, never a panic; an applied one leaves every symbol with a
// non-empty name, a #RRGGBB colour, a threshold in 0..1 and a null or
// non-empty Talo 2010 code.
func FuzzOverride(f *testing.F) {
	f.Add([]byte(`{"symbols":{"smoke_detector":{"display_name":"Smoke","color":"#112233","threshold":0.4,"talo2010_code":"S1"}}}`))
	f.Add([]byte(`{"symbols":{"socket_outlet":{"talo2010_code":null,"display_name_fi":"Pistorasia"}}}`))
	f.Add([]byte(`{"symbols":{}}`))
	f.Add([]byte(`{"symbols":{"teapot":{}}}`))
	f.Add([]byte(`{"symbols":{"smoke_detector":{"threshold":1.5}}}`))
	f.Add([]byte(`{"symbols":{"smoke_detector":{"color":"red"}}} trailing`))
	f.Add([]byte(`{"symbols":null}`))
	f.Add([]byte(`[`))
	base, err := Load("")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A copy of the parsed catalog: applyOverride changes only the
		// symbols' own fields.
		c := &Catalog{models: base.models, symbols: slices.Clone(base.symbols), index: base.index}
		if err := c.applyOverride(data, "fuzz.json"); err != nil {
			return
		}
		for _, s := range c.Symbols() {
			if s.DisplayName == "" || s.DisplayNameFI == "" || checkColor(s.Color) != nil || checkThreshold(s.Threshold) != nil {
				t.Fatalf("override %q left %+v", data, s)
			}
			if s.Talo2010Code != nil && *s.Talo2010Code == "" {
				t.Fatalf("override %q left an empty talo2010_code on %s", data, s.Class)
			}
		}
		if len(c.Symbols()) != len(base.Symbols()) {
			t.Fatalf("override changed the number of symbols")
		}
	})
}
