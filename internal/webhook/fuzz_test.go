package webhook

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzVerify: any header and body are answered without a panic; a header
// Verify accepts has a t within Tolerance of now; and a signature made by
// Sign at time t verifies exactly when t is within Tolerance, whatever t.
func FuzzVerify(f *testing.F) {
	secret := []byte("whsec_fuzz")
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"job_id":"j","status":"done"}`)
	f.Add(Sign(secret, now, body), body, int64(0))
	f.Add("t=1800000000,v1=00,v1="+strings.Repeat("a", 64), body, int64(-301))
	f.Add("t=9,v1=ab", []byte{}, int64(7))
	// A signature dated 1<<62 s from now verified before the fix: the
	// Duration arithmetic saturated and its negation stayed negative.
	f.Add("t=0,v1=00", []byte{}, int64(1<<62))
	f.Add(",,=,t=,v1", []byte("x"), int64(300))
	f.Fuzz(func(t *testing.T, header string, body []byte, skew int64) {
		if err := Verify(secret, header, body, now); err == nil {
			ts, ok := headerTime(header)
			if !ok || ts < now.Unix()-int64(Tolerance/time.Second) || ts > now.Unix()+int64(Tolerance/time.Second) {
				t.Fatalf("accepted %q at %d: t outside the tolerance", header, now.Unix())
			}
		}
		at := time.Unix(now.Unix()+skew, 0)
		err := Verify(secret, Sign(secret, at, body), body, now)
		within := skew >= -int64(Tolerance/time.Second) && skew <= int64(Tolerance/time.Second)
		if within != (err == nil) || (!within && !errors.Is(err, ErrTimestampOutOfTolerance)) {
			t.Fatalf("signed %d s from now: %v", skew, err)
		}
	})
}

// headerTime returns the header's single t value.
func headerTime(header string) (int64, bool) {
	for _, part := range strings.Split(header, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "t="); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
