package apikey

import "testing"

func TestParseAndAuthenticate(t *testing.T) {
	es, err := ParseEntries("k1:s1, k2:s2:600,")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewKeyring(es)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		raw    string
		ok     bool
		rpm    int
		secret string
	}{
		{"k1", true, DefaultRequestsPerMinute, "s1"},
		{"k2", true, 600, "s2"},
		{"k3", false, 0, ""},
		{"", false, 0, ""},
		{"k1 ", false, 0, ""},
	}
	for _, c := range cases {
		k, ok := r.Authenticate(c.raw)
		if ok != c.ok || k.RequestsPerMinute != c.rpm || string(k.WebhookSecret) != c.secret {
			t.Errorf("Authenticate(%q) = %+v, %v", c.raw, k, ok)
		}
		if ok {
			if byID, _ := r.ByID(k.ID); byID.ID != k.ID {
				t.Errorf("ByID(%q) did not find the key", k.ID)
			}
		}
	}
	k1, _ := r.Authenticate("k1")
	k2, _ := r.Authenticate("k2")
	if k1.ID == k2.ID {
		t.Fatal("two keys share an ID")
	}
}

func TestParseErrors(t *testing.T) {
	for _, spec := range []string{"k1", "k1:s1:0", "k1:s1:x", "a:b:c:d"} {
		if _, err := ParseEntries(spec); err == nil {
			t.Errorf("ParseEntries(%q) accepted", spec)
		}
	}
	if _, err := NewKeyring([]Entry{{"a", "s", 1}, {"a", "t", 1}}); err == nil {
		t.Error("duplicate key accepted")
	}
}

func TestDevKey(t *testing.T) {
	dir := t.TempDir()
	e, created, err := LoadOrCreateDevKey(dir)
	if err != nil || !created {
		t.Fatalf("first: %v created=%v", err, created)
	}
	again, created, err := LoadOrCreateDevKey(dir)
	if err != nil || created || again != e {
		t.Fatalf("second: %+v %v %v", again, created, err)
	}
}
