package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/job"
	"blueprint/internal/reviewcred"
)

// AuthFailuresPerMinute is how many requests with a wrong key (or review
// credential, or handoff token) one client address may send per window
// (ratelimit.Window): past it, every request of that address that needs
// a key is 429 rate_limited with Retry-After until the window ends,
// without its key being checked, so that guessing keys is throttled even
// where 401 and 200 would tell a right guess from a wrong one. Counted
// per process (on AWS per warm API instance).
const AuthFailuresPerMinute = 30

// reviewSecretPurpose names the review credentials' secret when it is
// derived (signing.Signer.Derive locally, apikey.Keyring.Derive on AWS).
const reviewSecretPurpose = "review-credential"

// ReviewSecretPurpose is the purpose a program derives Config.ReviewSecret
// for from a secret of its own.
const ReviewSecretPurpose = reviewSecretPurpose

// Reasons in the details of a 401 or 429 about authentication.
const (
	reasonCredentialExpired = "credential_expired"
	reasonAuthFailures      = "too_many_failed_authentications"
)

// authenticate returns the Caller and key of r's X-API-Key: the key
// itself, or a review credential of a key still configured (a Caller
// scoped to its job). Otherwise it writes 401 (or 429 for an address past
// AuthFailuresPerMinute) and returns false.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (job.Caller, apikey.Key, bool) {
	addr := clientAddr(r)
	now := s.cfg.Clock.Now()
	if d, blocked := s.authFails.Exhausted(addr, AuthFailuresPerMinute, now); blocked {
		s.writeAuthThrottled(w, r, d.Reset)
		return job.Caller{}, apikey.Key{}, false
	}
	raw := r.Header.Get(HeaderAPIKey)
	if key, ok := s.cfg.Keys.Authenticate(raw); ok {
		return job.Caller{KeyID: key.ID}, key, true
	}
	if strings.HasPrefix(raw, reviewcred.Prefix) {
		cred, err := s.creds.Verify(raw, now)
		key, known := s.cfg.Keys.ByID(cred.KeyID)
		switch {
		case err == nil && known:
			return job.Caller{KeyID: key.ID, JobID: cred.JobID}, key, true
		case errors.Is(err, reviewcred.ErrExpired) && known:
			// A genuine credential past its time is no guess: not counted.
			s.writeError(w, r, &job.Error{Code: job.CodeUnauthorized,
				Message: "this review link's access has expired; ask for a new review link",
				Details: map[string]any{"reason": reasonCredentialExpired}})
			return job.Caller{}, apikey.Key{}, false
		}
	}
	if raw != "" { // a missing key is no guess
		s.failedAuth(addr, now)
	}
	s.writeError(w, r, job.Errorf(job.CodeUnauthorized, "missing or invalid %s header", HeaderAPIKey))
	return job.Caller{}, apikey.Key{}, false
}

// failedAuth counts one failed authentication of addr.
func (s *Server) failedAuth(addr string, now time.Time) {
	_, _ = s.authFails.Allow(context.Background(), addr, AuthFailuresPerMinute, now) // the in-memory limiter never fails
}

// writeAuthThrottled answers 429 to an address past AuthFailuresPerMinute.
func (s *Server) writeAuthThrottled(w http.ResponseWriter, r *http.Request, reset time.Duration) {
	secs := int(reset / time.Second)
	hd := w.Header()
	hd.Set(HeaderRetryAfter, strconv.Itoa(secs))
	// The headers of the limit that applies: this address's failures.
	hd.Set(HeaderRateLimit, strconv.Itoa(AuthFailuresPerMinute))
	hd.Set(HeaderRateRemaining, "0")
	hd.Set(HeaderRateReset, strconv.Itoa(secs))
	s.writeError(w, r, &job.Error{Code: job.CodeRateLimited,
		Message: fmt.Sprintf("too many requests with a wrong %s from this address; retry after %d s", HeaderAPIKey, secs),
		Details: map[string]any{"limit": AuthFailuresPerMinute, "retry_after_seconds": secs, "reason": reasonAuthFailures}})
}

// clientAddr is the address failed authentications are counted under:
// the request's remote IP (API Gateway's source IP on AWS), an IPv6
// address by its /64, which one client usually holds whole.
func clientAddr(r *http.Request) string {
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
