package reviewcred

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)

func minter(t *testing.T, secret string) *Minter {
	t.Helper()
	m, err := New([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRoundTrip: a credential verifies to what it was made for until it
// expires, and then says so.
func TestRoundTrip(t *testing.T) {
	m := minter(t, "s")
	c := Credential{KeyID: "key_0123", JobID: "6f1c-job", ExpiresAt: now.Add(TTL)}
	tok := m.Mint(c)
	if !strings.HasPrefix(tok, Prefix) || strings.ContainsAny(tok, " \n+/=") {
		t.Fatalf("credential %q: want the prefix and a header-safe token", tok)
	}
	got, err := m.Verify(tok, now.Add(TTL-time.Second))
	if err != nil || got != c {
		t.Fatalf("Verify = %+v, %v; want %+v", got, err, c)
	}
	if got, err := m.Verify(tok, now.Add(TTL)); !errors.Is(err, ErrExpired) || got.JobID != c.JobID {
		t.Errorf("at expiry: %+v, %v; want ErrExpired with the credential", got, err)
	}
}

// TestForgeries: another secret, an altered payload or MAC, and things
// that are not credentials at all are ErrMalformed.
func TestForgeries(t *testing.T) {
	m := minter(t, "s")
	c := Credential{KeyID: "key_a", JobID: "job-1", ExpiresAt: now.Add(time.Hour)}
	tok := m.Mint(c)
	p64, mac64, _ := strings.Cut(strings.TrimPrefix(tok, Prefix), ".")
	other := base64.RawURLEncoding.EncodeToString([]byte("key_a\njob-2\n" + "9999999999"))
	for name, bad := range map[string]string{
		"other secret":   minter(t, "t").Mint(c),
		"other job":      Prefix + other + "." + mac64,
		"flipped mac":    Prefix + p64 + "." + strings.ToUpper(mac64[:4]) + mac64[4:],
		"no mac":         Prefix + p64,
		"empty":          "",
		"prefix only":    Prefix,
		"an API key":     "key-a-0123456789",
		"too long":       tok + strings.Repeat("A", maxLength),
		"padded base64":  Prefix + p64 + "=." + mac64,
		"two fields":     minter(t, "s").Mint(Credential{KeyID: "key_a\nx", JobID: "", ExpiresAt: now.Add(time.Hour)}),
		"missing job id": minter(t, "s").Mint(Credential{KeyID: "key_a", ExpiresAt: now.Add(time.Hour)}),
	} {
		if _, err := m.Verify(bad, now); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
	if _, err := New(nil); err == nil {
		t.Error("New(nil) accepted an empty secret")
	}
}

func FuzzVerify(f *testing.F) {
	m, _ := New([]byte("s"))
	f.Add(m.Mint(Credential{KeyID: "k", JobID: "j", ExpiresAt: now.Add(time.Hour)}))
	f.Add(Prefix + "a.b")
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := m.Verify(tok, now)
		if err == nil && (c.KeyID == "" || c.JobID == "" || !now.Before(c.ExpiresAt)) {
			t.Fatalf("accepted %q as %+v", tok, c)
		}
	})
}
