package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var (
	testSecret = []byte("whsec_test_secret")
	testBody   = []byte(`{"job_id":"j1","status":"done"}`)
	testTime   = time.Unix(1700000000, 0)
)

// The v1 value below was computed outside Go:
//
//	printf '%s' '1700000000.{"job_id":"j1","status":"done"}' | openssl dgst -sha256 -hmac whsec_test_secret
const opensslV1 = "350024a9e416929265ee6b9337e9d84eaca1e8b620cbb7e9cc3f539ac11e150a"

func TestSignKnownVector(t *testing.T) {
	got := Sign(testSecret, testTime, testBody)
	want := "t=1700000000,v1=" + opensslV1
	if got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
}

func TestSignMatchesHandComputedHMAC(t *testing.T) {
	secret := []byte("another secret")
	body := []byte("{\"x\": [1, 2, 3]}\n")
	at := time.Unix(1234567890, 999)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("1234567890." + string(body)))
	want := "t=1234567890,v1=" + hex.EncodeToString(mac.Sum(nil))
	if got := Sign(secret, at, body); got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
}

// stripeParse mirrors the parser of Stripe's client libraries
// (stripe-go webhook.parseSignatureHeader): split on ",", each pair on the
// first "=", "t" is the timestamp, every "v1" is a candidate signature.
func stripeParse(header string) (ts int64, sigs [][]byte, err error) {
	for _, pair := range strings.Split(header, ",") {
		parts := strings.SplitN(pair, "=", 2)
		if len(parts) != 2 {
			return 0, nil, errors.New("bad pair")
		}
		switch parts[0] {
		case "t":
			ts, err = strconv.ParseInt(parts[1], 10, 64)
			if err != nil {
				return 0, nil, err
			}
		case "v1":
			sig, err := hex.DecodeString(parts[1])
			if err != nil {
				return 0, nil, err
			}
			sigs = append(sigs, sig)
		}
	}
	return ts, sigs, nil
}

func TestSignIsStripeCompatible(t *testing.T) {
	header := Sign(testSecret, testTime, testBody)
	ts, sigs, err := stripeParse(header)
	if err != nil {
		t.Fatalf("stripe-shaped parser rejected %q: %v", header, err)
	}
	if ts != testTime.Unix() || len(sigs) != 1 {
		t.Fatalf("parsed t=%d with %d signatures", ts, len(sigs))
	}
	mac := hmac.New(sha256.New, testSecret)
	mac.Write([]byte(strconv.FormatInt(ts, 10) + "." + string(testBody)))
	if !hmac.Equal(mac.Sum(nil), sigs[0]) {
		t.Fatal("stripe-shaped verification failed")
	}
	if strings.ToLower(header) != header {
		t.Fatalf("signature is not lowercase: %q", header)
	}
}

func TestVerify(t *testing.T) {
	good := Sign(testSecret, testTime, testBody)
	v1 := "v1=" + opensslV1
	cases := []struct {
		name   string
		secret []byte
		header string
		body   []byte
		now    time.Time
		want   error
	}{
		{"valid", testSecret, good, testBody, testTime, nil},
		{"valid with spaces", testSecret, "t=1700000000, " + v1, testBody, testTime, nil},
		{"at +300 s", testSecret, good, testBody, testTime.Add(Tolerance), nil},
		{"at -300 s", testSecret, good, testBody, testTime.Add(-Tolerance), nil},
		{"at +301 s", testSecret, good, testBody, testTime.Add(Tolerance + time.Second), ErrTimestampOutOfTolerance},
		{"from the future", testSecret, good, testBody, testTime.Add(-Tolerance - time.Second), ErrTimestampOutOfTolerance},
		{"tampered body", testSecret, good, []byte(`{"job_id":"j2","status":"done"}`), testTime, ErrSignatureMismatch},
		{"body with trailing newline", testSecret, good, append(append([]byte{}, testBody...), '\n'), testTime, ErrSignatureMismatch},
		{"wrong secret", []byte("whsec_other"), good, testBody, testTime, ErrSignatureMismatch},
		{"tampered timestamp", testSecret, "t=1700000001," + v1, testBody, testTime, ErrSignatureMismatch},
		{"truncated signature", testSecret, good[:len(good)-2], testBody, testTime, ErrSignatureMismatch},
		{"several v1, one valid", testSecret, "t=1700000000,v1=" + strings.Repeat("0", 64) + "," + v1, testBody, testTime, nil},
		{"several v1, none valid", testSecret, "t=1700000000,v1=" + strings.Repeat("0", 64) + ",v1=abc", testBody, testTime, ErrSignatureMismatch},
		{"unknown schemes ignored", testSecret, "t=1700000000,v0=deadbeef," + v1 + ",v2=x", testBody, testTime, nil},
		{"v0 only", testSecret, "t=1700000000,v0=" + opensslV1, testBody, testTime, ErrMalformedHeader},
		{"empty", testSecret, "", testBody, testTime, ErrMalformedHeader},
		{"no timestamp", testSecret, v1, testBody, testTime, ErrMalformedHeader},
		{"no signature", testSecret, "t=1700000000", testBody, testTime, ErrMalformedHeader},
		{"bad timestamp", testSecret, "t=soon," + v1, testBody, testTime, ErrMalformedHeader},
		{"two timestamps", testSecret, "t=1700000000,t=1700000000," + v1, testBody, testTime, ErrMalformedHeader},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Verify(c.secret, c.header, c.body, c.now)
			if c.want == nil {
				if err != nil {
					t.Fatalf("Verify = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Verify = %v, want %v", err, c.want)
			}
		})
	}
}

// TestRetrySchedule pins the schedule's jitter bounds: retry k waits the
// k-th entry ± RetryJitterPercent %, and retry numbers outside 1..MaxRetries
// are clamped.
func TestRetrySchedule(t *testing.T) {
	if err := RetrySchedule.Check(); err != nil {
		t.Fatal(err)
	}
	if len(RetrySchedule) != MaxRetries {
		t.Fatalf("%d entries, want MaxRetries = %d", len(RetrySchedule), MaxRetries)
	}
	m := time.Minute
	cases := []struct {
		retry  int
		lo, hi time.Duration
	}{
		{-3, 48 * time.Second, 72 * time.Second},
		{0, 48 * time.Second, 72 * time.Second},
		{1, 48 * time.Second, 72 * time.Second},
		{2, 4 * m, 6 * m},
		{3, 24 * m, 36 * m},
		{4, 96 * m, 144 * m},
		{5, 288 * m, 432 * m},
		{6, 576 * m, 864 * m},
		{7, 576 * m, 864 * m},
		{1 << 30, 576 * m, 864 * m},
	}
	for _, c := range cases {
		if lo, hi := RetrySchedule.Bounds(c.retry); lo != c.lo || hi != c.hi {
			t.Errorf("Bounds(%d) = [%s, %s], want [%s, %s]", c.retry, lo, hi, c.lo, c.hi)
		}
	}
	for i := 1; i < MaxRetries; i++ {
		if RetrySchedule[i] <= RetrySchedule[i-1] {
			t.Errorf("retry %d waits %s, no longer than retry %d's %s", i+1, RetrySchedule[i], i, RetrySchedule[i-1])
		}
	}
}

// TestRetryJitter draws waits of every retry: all within Bounds, spread
// over the range, and centred on the nominal wait.
func TestRetryJitter(t *testing.T) {
	short := Schedule{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 4 * time.Millisecond, 5 * time.Millisecond, 6 * time.Millisecond}
	for _, s := range []Schedule{RetrySchedule, short} {
		for retry := 1; retry <= MaxRetries; retry++ {
			lo, hi := s.Bounds(retry)
			nominal := s[retry-1]
			const n = 400
			seen := map[time.Duration]bool{}
			var sum float64
			least, most := hi, lo
			for range n {
				d := s.Wait(retry)
				if d < lo || d > hi {
					t.Fatalf("Wait(%d) = %s outside [%s, %s]", retry, d, lo, hi)
				}
				seen[d] = true
				sum += float64(d) / float64(nominal)
				least, most = min(least, d), max(most, d)
			}
			if len(seen) < n/2 {
				t.Errorf("Wait(%d) of %s is not jittered: %d distinct values in %d", retry, nominal, len(seen), n)
			}
			// Uniform on nominal·[0.8, 1.2]: the mean of 400 draws is within
			// 0.03 of 1 (five standard deviations), and some fall in each
			// outer eighth of the range.
			if mean := sum / n; mean < 0.97 || mean > 1.03 {
				t.Errorf("Wait(%d) mean = %.3f of the nominal %s, want about 1", retry, mean, nominal)
			}
			if eighth := (hi - lo) / 8; least > lo+eighth || most < hi-eighth {
				t.Errorf("Wait(%d) drew only [%s, %s] of [%s, %s]", retry, least, most, lo, hi)
			}
		}
	}
}

func TestScheduleCheck(t *testing.T) {
	bad := RetrySchedule
	bad[3] = 0
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "retry 4") {
		t.Errorf("Check of a zero entry = %v, want an error naming retry 4", err)
	}
	bad[3] = -time.Second
	if err := bad.Check(); err == nil {
		t.Error("Check of a negative entry passed")
	}
	if RetrySchedule[3] != 2*time.Hour {
		t.Error("changing a copy changed RetrySchedule")
	}
}

// TestDocsTabulateSchedule checks that docs/webhooks.md's retry table is
// the one RetrySchedule and RetryJitterPercent give.
func TestDocsTabulateSchedule(t *testing.T) {
	doc, err := os.ReadFile("../../docs/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	var cum, cumLo, cumHi time.Duration
	for retry := 1; retry <= MaxRetries; retry++ {
		lo, hi := RetrySchedule.Bounds(retry)
		cum, cumLo, cumHi = cum+RetrySchedule[retry-1], cumLo+lo, cumHi+hi
		row := fmt.Sprintf("| %d | %s | %s – %s | %s | %s – %s |", retry,
			human(RetrySchedule[retry-1]), human(lo), human(hi), human(cum), human(cumLo), human(cumHi))
		if !strings.Contains(string(doc), "\n"+row+"\n") {
			t.Errorf("docs/webhooks.md lacks the row\n%s", row)
		}
	}
	if want := fmt.Sprintf("±%d %%", RetryJitterPercent); !strings.Contains(string(doc), want) {
		t.Errorf("docs/webhooks.md does not name the jitter %q", want)
	}
}

// human writes d as the docs do: "2 h 4 min 48 s", zero parts left out.
func human(d time.Duration) string {
	var parts []string
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "min"}, {time.Second, "s"}} {
		if n := d / u.d; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, u.name))
			d -= n * u.d
		}
	}
	return strings.Join(parts, " ")
}

type received struct {
	method, contentType, userAgent, sig, id, typ string
	body                                         []byte
}

func TestSendDeliversSignedEvent(t *testing.T) {
	got := make(chan received, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"),
			r.Header.Get(SignatureHeader), r.Header.Get(EventIDHeader), r.Header.Get(EventTypeHeader), b}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()

	client := Guard{AllowPrivate: true}.Client(AttemptTimeout)
	ev := Event{ID: "evt_0b6f8a4e-3f7e-4a37-9d6b-3b1cbb0d9a11", Type: EventDone, Body: testBody}
	now := time.Now()
	if err := Send(context.Background(), client, srv.URL+"/hook", testSecret, ev, now); err != nil {
		t.Fatalf("Send: %v", err)
	}
	r := <-got
	if r.method != http.MethodPost || r.contentType != "application/json" || r.userAgent != UserAgent {
		t.Errorf("request: method %q, content type %q, user agent %q", r.method, r.contentType, r.userAgent)
	}
	if r.id != ev.ID || r.typ != EventDone {
		t.Errorf("event headers: id %q type %q", r.id, r.typ)
	}
	if string(r.body) != string(testBody) {
		t.Errorf("body %q", r.body)
	}
	if err := Verify(testSecret, r.sig, r.body, time.Now()); err != nil {
		t.Errorf("receiver cannot verify %q: %v", r.sig, err)
	}
}

func TestSendNon2xxIsError(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusAccepted, http.StatusBadRequest, http.StatusInternalServerError, http.StatusServiceUnavailable} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			_, _ = io.WriteString(w, "receiver says hi")
		}))
		err := Send(context.Background(), Guard{AllowPrivate: true}.Client(AttemptTimeout), srv.URL, testSecret,
			Event{ID: "evt_1", Type: EventFailed, Body: []byte(`{}`)}, time.Now())
		srv.Close()
		if status < 300 {
			if err != nil {
				t.Errorf("status %d: Send = %v, want nil", status, err)
			}
			continue
		}
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != status {
			t.Errorf("status %d: Send = %v, want *StatusError with that status", status, err)
		}
	}
}

func TestSendDoesNotFollowRedirects(t *testing.T) {
	var targetHits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targetHits.Add(1)
	}))
	defer target.Close()
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/internal", status)
		}))
		err := Send(context.Background(), Guard{AllowPrivate: true}.Client(AttemptTimeout), redirector.URL, testSecret,
			Event{ID: "evt_2", Type: EventDone, Body: []byte(`{}`)}, time.Now())
		redirector.Close()
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != status {
			t.Errorf("redirect %d: Send = %v, want *StatusError %d", status, err, status)
		}
	}
	if n := targetHits.Load(); n != 0 {
		t.Fatalf("redirect target was reached %d times", n)
	}
}

func TestSendTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer srv.Close()
	defer close(release)
	start := time.Now()
	err := Send(context.Background(), Guard{AllowPrivate: true}.Client(200*time.Millisecond), srv.URL, testSecret,
		Event{ID: "evt_3", Type: EventDone, Body: []byte(`{}`)}, time.Now())
	if err == nil {
		t.Fatal("Send to a hanging receiver returned nil")
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("Send took %s despite a 200 ms timeout", elapsed)
	}
}
