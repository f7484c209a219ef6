package apikey

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseAndAuthenticate(t *testing.T) {
	es, err := ParseEntries("key1-0123456789ab:s1, key2-0123456789ab:s2:600,")
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
		{"key1-0123456789ab", true, DefaultRequestsPerMinute, "s1"},
		{"key2-0123456789ab", true, 600, "s2"},
		{"key3-0123456789ab", false, 0, ""},
		{"", false, 0, ""},
		{"key1-0123456789ab ", false, 0, ""},
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
	k1, _ := r.Authenticate("key1-0123456789ab")
	k2, _ := r.Authenticate("key2-0123456789ab")
	if k1.ID == k2.ID {
		t.Fatal("two keys share an ID")
	}
}

func TestParseErrors(t *testing.T) {
	const k = "key1-0123456789ab"
	for _, spec := range []string{
		k, k + ":s1:0", k + ":s1:x", k + ":s1:1:2", // malformed items and rates
		" , ", ",", " ", // set, but no usable key
		"short:s1", "key1-0123456789:s1", // shorter than MinKeyLength
		k + ":", k + "::5", // empty secret
	} {
		_, err := ParseEntries(spec)
		if err == nil {
			t.Errorf("ParseEntries(%q) accepted", spec)
			continue
		}
		if strings.Contains(err.Error(), "key1-0123456789a") {
			t.Errorf("ParseEntries(%q): the error shows the key: %v", spec, err)
		}
	}
	if es, err := ParseEntries(""); err != nil || len(es) != 0 {
		t.Errorf(`ParseEntries("") = %v, %v; want no entries (a development key)`, es, err)
	}
	if _, err := NewKeyring([]Entry{{k, "s", 1}, {k, "t", 1}}); err == nil {
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

// TestDerive: the derived secret depends on every key and webhook secret
// and on the purpose, and is the same for the same configuration.
func TestDerive(t *testing.T) {
	ring := func(entries ...Entry) *Keyring {
		t.Helper()
		r, err := NewKeyring(entries)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := Entry{Key: "key-a-0123456789", WebhookSecret: "wa", RequestsPerMinute: 1}
	b := Entry{Key: "key-b-0123456789", WebhookSecret: "wb", RequestsPerMinute: 1}
	b2 := b
	b2.WebhookSecret = "wb2"
	base := ring(a, b).Derive("p")
	if !bytes.Equal(base, ring(a, b).Derive("p")) {
		t.Fatal("the same keys derive different secrets")
	}
	for name, other := range map[string][]byte{
		"purpose":        ring(a, b).Derive("q"),
		"one key":        ring(a).Derive("p"),
		"webhook secret": ring(a, b2).Derive("p"),
	} {
		if bytes.Equal(base, other) {
			t.Errorf("another %s derives the same secret", name)
		}
	}
}
