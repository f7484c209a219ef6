package signing

import (
	"errors"
	"net/url"
	"testing"
	"time"
)

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	s, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	exp := now.Add(time.Hour)
	raw := s.URL("http://x", "PUT", "/uploads/j1", exp)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	other, _ := New([]byte("other"))
	tamper := func(k, v string) url.Values {
		c := url.Values{}
		for kk, vv := range q {
			c[kk] = append([]string(nil), vv...)
		}
		c.Set(k, v)
		return c
	}
	cases := []struct {
		name   string
		signer *Signer
		method string
		path   string
		query  url.Values
		now    time.Time
		want   error
	}{
		{"valid", s, "PUT", "/uploads/j1", q, now, nil},
		{"reloaded key", again, "PUT", "/uploads/j1", q, now, nil},
		{"last second", s, "PUT", "/uploads/j1", q, exp, nil},
		{"expired", s, "PUT", "/uploads/j1", q, exp.Add(time.Second), ErrExpired},
		{"other path", s, "PUT", "/uploads/j2", q, now, ErrForged},
		{"other method", s, "GET", "/uploads/j1", q, now, ErrForged},
		{"other key", other, "PUT", "/uploads/j1", q, now, ErrForged},
		{"extended expiry", s, "PUT", "/uploads/j1", tamper(ParamExpires, "9999999999"), now, ErrForged},
		{"no sig", s, "PUT", "/uploads/j1", tamper(ParamSig, ""), now, ErrForged},
		{"bad expires", s, "PUT", "/uploads/j1", tamper(ParamExpires, "x"), now, ErrForged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.signer.Verify(c.method, c.path, c.query, c.now)
			if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Fatalf("Verify = %v, want %v", err, c.want)
			}
		})
	}
}
