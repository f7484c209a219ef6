package signing

import (
	"net/url"
	"testing"
	"time"
)

// FuzzVerify: any path and query are answered without a panic, and only
// a URL this signer made verifies: a forged signature fails, a signed URL
// passes until it expires.
func FuzzVerify(f *testing.F) {
	s, err := New([]byte("fuzz-secret"))
	if err != nil {
		f.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	exp := now.Add(time.Hour)
	f.Add("PUT", "/uploads/abc", "expires=1800003600&sig="+s.Sign("PUT", "/uploads/abc", exp))
	f.Add("GET", "/files/pages/j/0.png", "expires=-1&sig=zz")
	f.Add("GET", "/files/icons/x.svg", "expires=99999999999999999999&sig=&sig=00")
	f.Add("get", "/", "%zz&expires=1800003600")
	f.Fuzz(func(t *testing.T, method, path, rawQuery string) {
		q, _ := url.ParseQuery(rawQuery)
		err := s.Verify(method, path, q, now)
		if err == nil {
			// It verified: the signature must be the one this signer makes.
			if q.Get(ParamSig) == "" {
				t.Fatalf("verified without a signature: %q", rawQuery)
			}
		}
		u, perr := url.Parse(s.URL("http://h", method, path, exp))
		if perr != nil {
			return // a path that is no URL path; Verify above did not panic
		}
		if err := s.Verify(method, path, u.Query(), now); err != nil {
			t.Fatalf("own URL for %s %q refused: %v", method, path, err)
		}
		if err := s.Verify(method, path+"x", u.Query(), now); err == nil {
			t.Fatalf("URL for %q verified for %q", path, path+"x")
		}
		if err := s.Verify(method, path, u.Query(), exp.Add(time.Second)); err != ErrExpired {
			t.Fatalf("expired URL: %v", err)
		}
	})
}
