package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"blueprint/internal/job"
	"blueprint/internal/reviewcred"
)

// Review links open the review page (/app/) on one job without the key
// ever leaving the partner: POST /v1/review-links (with the key, naming
// the job) returns the page's URL with a handoff token in its fragment,
// and the page trades the token once, with POST /v1/review-links/exchange
// (no key, the token in the body), for a review credential: a token sent
// in X-API-Key that grants that job's reading, review, search and
// exports, for reviewcred.TTL, and nothing else (no list, no init, no
// start, no other job, no further links). The store keeps each token's
// SHA-256 only, single use, for ReviewLinkTTL.

// ReviewLinkTTL is how long a review link's handoff token can be exchanged.
const ReviewLinkTTL = 5 * time.Minute

// ReviewCredentialTTL is how long a review credential works.
const ReviewCredentialTTL = reviewcred.TTL

// maxReviewLinks bounds the handoff tokens of the in-memory store (used
// when Config.Handoffs is nil). Used tokens stay until they expire, so
// that a second use is told apart from a forged token; past the bound the
// soonest to expire is dropped.
const maxReviewLinks = 4096

// handoffTokenBytes is the size of a handoff token's random value: 256
// bits, so that guessing a live token is hopeless at any request rate.
// This is why the exchange, which takes no key, needs no rate limit of
// its own beyond the failed-authentication throttle.
const handoffTokenBytes = 32

// maxReviewLinkBody bounds the JSON body of both review-link endpoints.
const maxReviewLinkBody = 4 << 10

// Parameters of the review page's URL fragment.
const (
	fragmentJob     = "job"
	fragmentHandoff = "handoff"
)

// Reasons a handoff token is refused, as details.reason of the 401.
const (
	handoffUnknown = "unknown"
	handoffUsed    = "used"
	handoffExpired = "expired"
)

// AccessReview is the access of a review credential, as the exchange
// names it.
const AccessReview = "review"

// reviewLinkRequest is the body of POST /v1/review-links.
type reviewLinkRequest struct {
	JobID *string `json:"job_id"`
}

// reviewLink answers POST /v1/review-links.
type reviewLink struct {
	URL       string  `json:"url"`
	JobID     *string `json:"job_id"`
	ExpiresAt string  `json:"expires_at"`
}

// exchangeRequest is the body of POST /v1/review-links/exchange.
type exchangeRequest struct {
	Handoff string `json:"handoff"`
}

// exchangeResponse answers POST /v1/review-links/exchange. APIKey is the
// field clients of the first version read: it holds the same review
// credential (never the key), which they send in X-API-Key as before.
type exchangeResponse struct {
	Credential string  `json:"credential"`
	APIKey     string  `json:"api_key"`
	Access     string  `json:"access"`
	JobID      *string `json:"job_id"`
	ExpiresAt  string  `json:"expires_at"`
}

// memHandoffs keeps handoff tokens in the memory of this process, under
// their hash: a restart forgets them, and a token issued by one process
// is unknown to another. For tests and programs without a store; it is
// safe for concurrent use.
type memHandoffs struct {
	mu      sync.Mutex
	entries map[string]*memHandoff
	max     int
}

type memHandoff struct {
	job.Handoff
	used bool
}

var _ job.Handoffs = (*memHandoffs)(nil)

// newHandoffs returns an empty store of at most limit tokens.
func newHandoffs(limit int) *memHandoffs {
	return &memHandoffs{entries: map[string]*memHandoff{}, max: limit}
}

// PutHandoff keeps h. A full store first drops the expired tokens, then
// the one that expires soonest.
func (hs *memHandoffs) PutHandoff(_ context.Context, h job.Handoff) error {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if _, ok := hs.entries[h.TokenHash]; ok {
		return job.ErrExists
	}
	if len(hs.entries) >= hs.max {
		hs.evict(time.Now())
	}
	hs.entries[h.TokenHash] = &memHandoff{Handoff: h}
	return nil
}

// evict drops expired tokens and, if the store is still full, the one
// that expires soonest. The caller holds mu.
func (hs *memHandoffs) evict(now time.Time) {
	var (
		soonest string
		at      time.Time
		found   bool
	)
	for k, e := range hs.entries {
		if !now.Before(e.ExpiresAt) {
			delete(hs.entries, k)
			continue
		}
		if !found || e.ExpiresAt.Before(at) {
			soonest, at, found = k, e.ExpiresAt, true
		}
	}
	if len(hs.entries) >= hs.max && found {
		delete(hs.entries, soonest)
	}
}

// TakeHandoff uses the token once within its lifetime.
func (hs *memHandoffs) TakeHandoff(_ context.Context, tokenHash string, now time.Time) (*job.Handoff, error) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	e, ok := hs.entries[tokenHash]
	switch {
	case !ok:
		return nil, job.ErrNotFound
	case !now.Before(e.ExpiresAt):
		return nil, job.ErrHandoffExpired
	case e.used:
		return nil, job.ErrHandoffUsed
	}
	e.used = true
	h := e.Handoff
	return &h, nil
}

// newHandoffToken returns a new random token and the hash it is stored
// under.
func newHandoffToken() (token, hash string) {
	b := make([]byte, handoffTokenBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, handoffHash(token)
}

// handoffHash is the lowercase hex SHA-256 of a token.
func handoffHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// decodeBody decodes a review-link endpoint's JSON body into v, refusing
// unknown fields and repeated keys as every other body does; an empty
// body is a 422.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec, err := bodyDecoder(w, r, maxReviewLinkBody)
	if err != nil {
		return err
	}
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return job.Errorf(job.CodeUnprocessable, "request body must be a JSON object")
		}
		return decodeError(err)
	}
	if dec.More() {
		return job.Errorf(job.CodeUnprocessable, "request body must be one JSON object")
	}
	return nil
}

// handleCreateReviewLink answers POST /v1/review-links: a URL of the
// review page that opens job_id (a job of the caller's, required) and
// signs the page in for that job's review once, within ReviewLinkTTL.
func (s *Server) handleCreateReviewLink(w http.ResponseWriter, r *http.Request, c job.Caller) {
	var req reviewLinkRequest
	if err := decodeBody(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.JobID == nil || *req.JobID == "" {
		s.writeError(w, r, &job.Error{Code: job.CodeUnprocessable,
			Message: "job_id is required: a review link grants the review of one job (to see every job, open the review page with the API key)",
			Details: map[string]any{"field": "job_id"}})
		return
	}
	if err := s.cfg.Service.CheckOwned(r.Context(), c, *req.JobID); err != nil {
		s.writeError(w, r, err)
		return
	}
	now := s.cfg.Clock.Now()
	token, hash := newHandoffToken()
	h := job.Handoff{TokenHash: hash, KeyID: c.KeyID, JobID: *req.JobID, ExpiresAt: now.Add(ReviewLinkTTL)}
	if err := s.cfg.Handoffs.PutHandoff(r.Context(), h); err != nil {
		s.writeError(w, r, fmt.Errorf("store review link: %w", err))
		return
	}
	fragment := url.Values{}
	fragment.Set(fragmentJob, *req.JobID)
	fragment.Set(fragmentHandoff, token)
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, r, http.StatusCreated, reviewLink{URL: s.cfg.Links.ReviewURL(fragment), JobID: req.JobID, ExpiresAt: job.Timestamp(h.ExpiresAt)})
}

// handleExchangeReviewLink answers POST /v1/review-links/exchange: a
// review credential for the job of a handoff token, once; a used, expired
// or unknown token is 401 unauthorized with details.reason. It takes no
// key, and the token is never in the URL.
func (s *Server) handleExchangeReviewLink(w http.ResponseWriter, r *http.Request) {
	addr := clientAddr(r)
	now := s.cfg.Clock.Now()
	if d, blocked := s.authFails.Exhausted(addr, AuthFailuresPerMinute, now); blocked {
		s.writeAuthThrottled(w, r, d.Reset)
		return
	}
	var req exchangeRequest
	if err := decodeBody(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Handoff == "" {
		s.writeError(w, r, &job.Error{Code: job.CodeUnprocessable, Message: "handoff must be the token of a review link",
			Details: map[string]any{"field": "handoff"}})
		return
	}
	h, err := s.cfg.Handoffs.TakeHandoff(r.Context(), handoffHash(req.Handoff), now)
	reason := ""
	switch {
	case errors.Is(err, job.ErrHandoffUsed):
		reason = handoffUsed
	case errors.Is(err, job.ErrHandoffExpired):
		reason = handoffExpired
	case errors.Is(err, job.ErrNotFound):
		reason = handoffUnknown
		s.failedAuth(addr, now) // a guess, or a link of another service
	case err != nil:
		s.writeError(w, r, fmt.Errorf("exchange review link: %w", err))
		return
	default:
		if _, ok := s.cfg.Keys.ByID(h.KeyID); !ok { // the key was withdrawn since
			reason = handoffUnknown
		}
	}
	if reason != "" {
		s.writeError(w, r, &job.Error{Code: job.CodeUnauthorized, Message: handoffRefusal(reason),
			Details: map[string]any{"reason": reason}})
		return
	}
	exp := now.Add(ReviewCredentialTTL)
	cred := s.creds.Mint(reviewcred.Credential{KeyID: h.KeyID, JobID: h.JobID, ExpiresAt: exp})
	jobID := h.JobID
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, r, http.StatusOK, exchangeResponse{Credential: cred, APIKey: cred, Access: AccessReview, JobID: &jobID,
		ExpiresAt: job.Timestamp(exp)})
}

// handoffRefusal is the message of a refused handoff token.
func handoffRefusal(reason string) string {
	const next = "; ask for a new review link"
	switch reason {
	case handoffUsed:
		return "this review link has already been used" + next
	case handoffExpired:
		return fmt.Sprintf("this review link has expired (links work for %d minutes)", int(ReviewLinkTTL/time.Minute)) + next
	}
	return "this review link is not known here: it was never issued, or its key was withdrawn" + next
}
