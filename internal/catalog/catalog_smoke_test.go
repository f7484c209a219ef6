package catalog

import "testing"

func TestLoadEmbedded(t *testing.T) {
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Symbols()); n != 61 {
		t.Fatalf("%d symbols, want 61", n)
	}
}
