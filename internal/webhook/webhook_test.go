package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
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

func TestBackoffCeiling(t *testing.T) {
	cases := map[int]time.Duration{
		-3: time.Second, 0: time.Second, 1: 2 * time.Second, 5: 32 * time.Second,
		9: 512 * time.Second, 10: BackoffCap, 63: BackoffCap, 1 << 30: BackoffCap,
	}
	for attempt, want := range cases {
		if got := BackoffCeiling(attempt); got != want {
			t.Errorf("BackoffCeiling(%d) = %s, want %s", attempt, got, want)
		}
	}
}

func TestBackoffFullJitter(t *testing.T) {
	for _, attempt := range []int{0, 3, 12} {
		ceiling := BackoffCeiling(attempt)
		seen := map[time.Duration]bool{}
		var sum time.Duration
		const n = 400
		for range n {
			d := Backoff(attempt)
			if d < 0 || d > ceiling {
				t.Fatalf("Backoff(%d) = %s outside [0, %s]", attempt, d, ceiling)
			}
			seen[d] = true
			sum += d
		}
		if len(seen) < n/2 {
			t.Errorf("Backoff(%d) is not jittered: %d distinct values in %d", attempt, len(seen), n)
		}
		// Full jitter is uniform on [0, ceiling]: the mean of 400 draws lies
		// within 0.35..0.65 of the ceiling with overwhelming probability.
		mean := float64(sum) / n / float64(ceiling)
		if mean < 0.35 || mean > 0.65 {
			t.Errorf("Backoff(%d) mean = %.2f of the ceiling, want about 0.5", attempt, mean)
		}
	}
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
