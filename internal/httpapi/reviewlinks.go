package httpapi

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"blueprint/internal/job"
)

// Review links open the review page (/app/) for a key without the key
// ever being in a URL: POST /v1/review-links (with the key) returns the
// page's URL with a handoff token in its fragment, and the page trades the
// token once, with POST /v1/review-links/exchange (no key, the token in
// the body), for the key, which it keeps in the tab's session storage.

// ReviewLinkTTL is how long a review link's handoff token can be exchanged.
const ReviewLinkTTL = 5 * time.Minute

// maxReviewLinks bounds the handoff tokens one process keeps. Used tokens
// stay until they expire, so that a second use is told apart from a
// forged token; past the bound the soonest to expire is dropped.
const maxReviewLinks = 4096

// handoffTokenBytes is the size of a handoff token's random value: 256
// bits, so that guessing one of at most maxReviewLinks live tokens is
// hopeless at any request rate. This is why the exchange, which takes no
// key, needs no rate limit of its own.
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

// reviewLinkRequest is the optional body of POST /v1/review-links.
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

// exchangeResponse answers POST /v1/review-links/exchange.
type exchangeResponse struct {
	APIKey string  `json:"api_key"`
	JobID  *string `json:"job_id"`
}

// handoff is what a handoff token stands for.
type handoff struct {
	apiKey  string
	jobID   *string
	expires time.Time
	used    bool
}

// handoffs keeps the handoff tokens of review links in the memory of this
// process, under the SHA-256 of each token: a restart forgets them, and a
// token issued by one process is unknown to another. It is safe for
// concurrent use.
type handoffs struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]*handoff
	max     int
}

// newHandoffs returns an empty store of at most limit tokens.
func newHandoffs(limit int) *handoffs {
	return &handoffs{entries: map[[sha256.Size]byte]*handoff{}, max: limit}
}

// add keeps h under a new random token and returns the token. A full
// store first drops the expired tokens, then the one that expires soonest.
func (hs *handoffs) add(h handoff, now time.Time) string {
	b := make([]byte, handoffTokenBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	token := base64.RawURLEncoding.EncodeToString(b)
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if len(hs.entries) >= hs.max {
		hs.evict(now)
	}
	hs.entries[sha256.Sum256([]byte(token))] = &h
	return token
}

// evict drops expired tokens and, if the store is still full, the one
// that expires soonest. The caller holds mu.
func (hs *handoffs) evict(now time.Time) {
	var (
		soonest [sha256.Size]byte
		at      time.Time
		found   bool
	)
	for k, e := range hs.entries {
		if !now.Before(e.expires) {
			delete(hs.entries, k)
			continue
		}
		if !found || e.expires.Before(at) {
			soonest, at, found = k, e.expires, true
		}
	}
	if len(hs.entries) >= hs.max && found {
		delete(hs.entries, soonest)
	}
}

// take uses the token: it returns its handoff the first time within its
// lifetime, and otherwise the reason it is refused (handoffUnknown,
// handoffUsed or handoffExpired).
func (hs *handoffs) take(token string, now time.Time) (handoff, string) {
	k := sha256.Sum256([]byte(token))
	hs.mu.Lock()
	defer hs.mu.Unlock()
	e, ok := hs.entries[k]
	switch {
	case !ok:
		return handoff{}, handoffUnknown
	case !now.Before(e.expires):
		delete(hs.entries, k)
		return handoff{}, handoffExpired
	case e.used:
		return handoff{}, handoffUsed
	}
	e.used = true
	return *e, ""
}

// decodeBody decodes a review-link endpoint's JSON body into v; an empty
// body leaves v as it is when emptyOK.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, emptyOK bool) error {
	dec, err := bodyDecoder(w, r, maxReviewLinkBody)
	if err != nil {
		return err
	}
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			if emptyOK {
				return nil
			}
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
// review page that signs the page in with the caller's key once, within
// ReviewLinkTTL, and opens job_id when given (a job of the caller's).
func (s *Server) handleCreateReviewLink(w http.ResponseWriter, r *http.Request, c job.Caller) {
	var req reviewLinkRequest
	if err := decodeBody(w, r, &req, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	fragment := url.Values{}
	if req.JobID != nil {
		if *req.JobID == "" {
			s.writeError(w, r, &job.Error{Code: job.CodeUnprocessable, Message: "job_id must be a job id or left out",
				Details: map[string]any{"field": "job_id"}})
			return
		}
		if err := s.cfg.Service.CheckOwned(r.Context(), c, *req.JobID); err != nil {
			s.writeError(w, r, err)
			return
		}
		fragment.Set(fragmentJob, *req.JobID)
	}
	now := s.cfg.Clock.Now()
	h := handoff{apiKey: r.Header.Get(HeaderAPIKey), jobID: req.JobID, expires: now.Add(ReviewLinkTTL)}
	fragment.Set(fragmentHandoff, s.handoffs.add(h, now))
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, r, http.StatusCreated, reviewLink{URL: s.cfg.Links.ReviewURL(fragment), JobID: req.JobID, ExpiresAt: job.Timestamp(h.expires)})
}

// handleExchangeReviewLink answers POST /v1/review-links/exchange: the key
// (and job) of a handoff token, once; a used, expired or unknown token is
// 401 unauthorized with details.reason. It takes no key, and the token is
// never in the URL.
func (s *Server) handleExchangeReviewLink(w http.ResponseWriter, r *http.Request) {
	var req exchangeRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Handoff == "" {
		s.writeError(w, r, &job.Error{Code: job.CodeUnprocessable, Message: "handoff must be the token of a review link",
			Details: map[string]any{"field": "handoff"}})
		return
	}
	h, reason := s.handoffs.take(req.Handoff, s.cfg.Clock.Now())
	if reason == "" {
		if _, ok := s.cfg.Keys.Authenticate(h.apiKey); !ok { // the key was withdrawn since
			reason = handoffUnknown
		}
	}
	if reason != "" {
		s.writeError(w, r, &job.Error{Code: job.CodeUnauthorized, Message: handoffRefusal(reason),
			Details: map[string]any{"reason": reason}})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, r, http.StatusOK, exchangeResponse{APIKey: h.apiKey, JobID: h.jobID})
}

// handoffRefusal is the message of a refused handoff token.
func handoffRefusal(reason string) string {
	const next = "; ask for a new review link or paste the API key into the page"
	switch reason {
	case handoffUsed:
		return "this review link has already been used" + next
	case handoffExpired:
		return fmt.Sprintf("this review link has expired (links work for %d minutes)", int(ReviewLinkTTL/time.Minute)) + next
	}
	return "this review link is not known here: it was never issued, or the service has restarted since" + next
}
