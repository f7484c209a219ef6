// Package httpapi is the HTTP layer of the partner API: routing, API key
// authentication, per-key rate limiting, request IDs, the mapping of domain
// error codes to statuses, and the signed-URL file handlers of local mode.
// Business rules live in package job; handlers only translate.
package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/catalog"
	"blueprint/internal/job"
	"blueprint/internal/ratelimit"
	"blueprint/internal/reviewcred"
	"blueprint/internal/webapp"
)

// Header names of the API.
const (
	HeaderAPIKey             = "X-API-Key"
	HeaderRequestID          = "X-Request-Id"
	HeaderIdempotencyKey     = "Idempotency-Key"
	HeaderIdempotentReplayed = "Idempotent-Replayed"
	HeaderRateLimit          = "RateLimit-Limit"
	HeaderRateRemaining      = "RateLimit-Remaining"
	HeaderRateReset          = "RateLimit-Reset"
	HeaderRetryAfter         = "Retry-After"
	HeaderAllow              = "Allow"
	HeaderContentTypeOptions = "X-Content-Type-Options"
)

// Catch-all patterns of the mux: a request that only they match has no route.
const (
	patternAnyV1   = "/v1/"
	patternAny     = "/"
	patternGetInit = "GET /v1/jobs/init"
)

// IconPNGSize is the side in pixels of PNG icons.
const IconPNGSize = 128

// maxInitBody bounds the JSON body of init.
const maxInitBody = 64 << 10

// RateLimiter counts each key's requests against its limit per window
// (ratelimit.Window). A refused request is not counted. An error (the
// count's store unreachable) lets the request through: a limiter outage
// must not take the API down with it.
type RateLimiter interface {
	Allow(ctx context.Context, key string, limit int, now time.Time) (ratelimit.Decision, error)
}

// Config wires a Server.
type Config struct {
	Service *job.Service
	Keys    *apikey.Keyring
	// Limiter counts requests per key: ratelimit.Limiter counts in this
	// process (nil: a new one), dynamostore.RateLimiter across processes.
	Limiter RateLimiter
	// Links builds icon URLs and verifies the signed URLs of files the
	// service serves itself (*LocalLinks in local mode).
	Links   Links
	Catalog *catalog.Catalog
	// OpenAPI is the document served at GET /v1/openapi.json.
	OpenAPI []byte
	Clock   job.Clock // nil: job.SystemClock
	Logger  *slog.Logger
	// Handoffs keeps review links' handoff tokens where every API process
	// sees them (the bbolt store locally, DynamoDB on AWS); nil keeps
	// them in this process's memory (tests only: another process does
	// not know them).
	Handoffs job.Handoffs
	// ReviewSecret signs review credentials; every API process must have
	// the same one. Nil derives it from Keys (Keyring.Derive), which every
	// process configured with the same keys shares.
	ReviewSecret []byte
}

// Server is the http.Handler of the whole service.
type Server struct {
	cfg   Config
	mux   *http.ServeMux
	log   *slog.Logger
	creds *reviewcred.Minter
	// authFails counts failed authentications per client address in
	// this process (authFailuresPerMinute).
	authFails *ratelimit.Limiter
	// uploadPace is what an upload body must keep up (upload.go).
	uploadPace uploadPace
}

// New returns the handler with every route registered.
func New(cfg Config) *Server {
	if cfg.Limiter == nil {
		cfg.Limiter = ratelimit.New()
	}
	if cfg.Clock == nil {
		cfg.Clock = job.SystemClock{}
	}
	if cfg.Handoffs == nil {
		cfg.Handoffs = newHandoffs(maxReviewLinks)
	}
	if cfg.ReviewSecret == nil && cfg.Keys != nil {
		cfg.ReviewSecret = cfg.Keys.Derive(reviewSecretPurpose)
	}
	if cfg.ReviewSecret == nil { // no keys: no credential can name one
		cfg.ReviewSecret = make([]byte, 32)
		_, _ = rand.Read(cfg.ReviewSecret)
	}
	creds, err := reviewcred.New(cfg.ReviewSecret)
	if err != nil {
		panic(err) // Derive never returns an empty secret; an empty configured one is a wiring error
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), log: cfg.Logger, creds: creds, authFails: ratelimit.New(), uploadPace: defaultUploadPace}
	if s.log == nil {
		s.log = slog.Default()
	}
	m := s.mux
	m.HandleFunc("POST /v1/jobs/init", s.authed(s.handleInit))
	m.HandleFunc("POST /v1/jobs/{job_id}/start", s.authed(s.handleStart))
	m.HandleFunc("GET /v1/jobs/{job_id}", s.reviewer(s.handleGet))
	m.HandleFunc("GET /v1/jobs", s.authed(s.handleList))
	m.HandleFunc("GET /v1/jobs/{job_id}/pages/{page_index}/detections", s.reviewer(s.handleDetections))
	m.HandleFunc("POST /v1/jobs/{job_id}/pages/{page_index}/detections", s.reviewer(s.handleAddDetections))
	m.HandleFunc("PATCH /v1/jobs/{job_id}/pages/{page_index}/detections/{detection_id}", s.reviewer(s.handleReviewDetection))
	m.HandleFunc("POST /v1/jobs/{job_id}/search", s.reviewer(s.handleSearch))
	m.HandleFunc("GET /v1/jobs/{job_id}/takeoff.csv", s.reviewer(s.handleTakeoff(takeoffCSV)))
	m.HandleFunc("GET /v1/jobs/{job_id}/takeoff.xlsx", s.reviewer(s.handleTakeoff(takeoffXLSX)))
	m.HandleFunc("GET /v1/jobs/{job_id}/legend-check.csv", s.reviewer(s.handleTakeoff(takeoffLegendCSV)))
	m.HandleFunc("GET /v1/symbols", s.reviewer(s.handleSymbols))
	m.HandleFunc("GET /v1/symbols/{class}/icon", s.reviewer(s.handleIcon))
	m.HandleFunc("POST /v1/review-links", s.authed(s.handleCreateReviewLink))
	m.HandleFunc("POST /v1/review-links/exchange", s.handleExchangeReviewLink)
	m.HandleFunc("GET /v1/openapi.json", s.handleOpenAPI)
	m.HandleFunc("PUT "+uploadPrefix+"{job_id}", s.handleUpload)
	m.HandleFunc("GET "+pageImagePrefix+"{job_id}/{file}", s.handlePageImage)
	m.HandleFunc("GET "+iconPrefix+"{file}", s.handleIconFile)
	m.Handle("GET "+webapp.Prefix, webapp.Handler(http.HandlerFunc(s.notFound)))
	m.Handle("GET "+strings.TrimSuffix(webapp.Prefix, "/"), http.RedirectHandler(webapp.Prefix, http.StatusMovedPermanently))
	// The service's root is the review page (302: the root may serve
	// something else one day).
	m.Handle("GET /{$}", http.RedirectHandler(webapp.Prefix, http.StatusFound))
	// "init" is not a job id: GET /v1/jobs/init is a wrong method on init,
	// not a poll.
	m.HandleFunc(patternGetInit, s.noRoute)
	// A known path called with a method it does not define is a 405 with
	// Allow, answered before any key check (the routes are public in the
	// OpenAPI document). Unknown /v1 paths need a key like every /v1 path
	// (and count against its rate); other unknown paths are plain 404s.
	m.HandleFunc(patternAnyV1, s.noRoute)
	m.HandleFunc(patternAny, s.noRoute)
	return s
}

// noRoute answers a request only the catch-all patterns match: 405
// method_not_allowed with Allow when the path has routes for other methods,
// else 404 not_found (after the key check on /v1 paths).
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	if allowed := s.allowedMethods(r); len(allowed) > 0 {
		list := strings.Join(allowed, ", ")
		w.Header().Set(HeaderAllow, list)
		s.writeError(w, r, &job.Error{Code: job.CodeMethodNotAllowed,
			Message: fmt.Sprintf("method %s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, list),
			Details: map[string]any{"allowed_methods": allowed}})
		return
	}
	if strings.HasPrefix(r.URL.Path, patternAnyV1) {
		s.reviewer(func(w http.ResponseWriter, r *http.Request, _ job.Caller) { s.notFound(w, r) })(w, r)
		return
	}
	s.notFound(w, r)
}

// notFound answers 404 not_found for a path nothing serves.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, job.Errorf(job.CodeNotFound, "no route for %s %s", r.Method, r.URL.Path))
}

// allowedMethods lists the methods that have a route for r's path (GET
// routes also serve HEAD), in a fixed order.
func (s *Server) allowedMethods(r *http.Request) []string {
	var allowed []string
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = method
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != patternAnyV1 && pattern != patternAny && pattern != patternGetInit {
			allowed = append(allowed, method)
		}
	}
	return allowed
}

// statusRecorder remembers the status a handler wrote, for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// ServeHTTP gives every response an X-Request-Id and
// X-Content-Type-Options: nosniff (no browser may read a JSON error or a
// file as another type), turns panics into 500 and logs one line per
// request (never the query, which may hold signatures).
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	id := newRequestID()
	rw.Header().Set(HeaderRequestID, id)
	rw.Header().Set(HeaderContentTypeOptions, "nosniff")
	w := &statusRecorder{ResponseWriter: rw}
	start := time.Now()
	defer func() {
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", w.status,
			"duration_ms", time.Since(start).Milliseconds(), "request_id", id)
	}()
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic in handler", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "request_id", w.Header().Get(HeaderRequestID))
			s.writeError(w, r, job.Errorf(job.CodeInternal, "internal error"))
		}
	}()
	if target := s.redirectTarget(r); target != "" {
		s.nonCanonical(w, r, target)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// redirectTarget returns the path the mux would redirect r to with an HTML
// body ("//v1/symbols" to "/v1/symbols", "/v1" to "/v1/"), or "" when it
// would route r.
func (s *Server) redirectTarget(r *http.Request) string {
	if r.Method == http.MethodConnect {
		return ""
	}
	if c := cleanPath(r.URL.Path); c != r.URL.Path {
		return c
	}
	if _, pattern := s.mux.Handler(r); pattern == r.URL.Path+"/" {
		return pattern // the mux's trailing-slash redirect
	}
	return ""
}

// nonCanonical answers a path that is not in canonical form like any path
// without a route (a JSON 404, after the key check on /v1 paths), naming
// the canonical path. It does not redirect: a redirect would answer HTML,
// and clients must not learn to rely on non-canonical paths.
func (s *Server) nonCanonical(w http.ResponseWriter, r *http.Request, target string) {
	notFound := func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &job.Error{Code: job.CodeNotFound,
			Message: fmt.Sprintf("no route for %s %s: the path is not in canonical form (the canonical path is %s)", r.Method, r.URL.Path, target)})
	}
	if strings.HasPrefix(target, patternAnyV1) || strings.HasPrefix(r.URL.Path, patternAnyV1) {
		s.reviewer(func(w http.ResponseWriter, r *http.Request, _ job.Caller) { notFound(w, r) })(w, r)
		return
	}
	notFound(w, r)
}

// cleanPath is net/http's canonical form of a request path: path.Clean,
// rooted, keeping a trailing slash.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

func newRequestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return "req_" + hex.EncodeToString(b)
}

// StatusOf maps a domain error code to its HTTP status: the one place
// where codes become statuses.
func StatusOf(code job.Code) int {
	switch code {
	case job.CodeUnauthorized:
		return http.StatusUnauthorized
	case job.CodeForbidden:
		return http.StatusForbidden
	case job.CodeNotFound:
		return http.StatusNotFound
	case job.CodeConflict:
		return http.StatusConflict
	case job.CodePayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case job.CodeUnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case job.CodeUnprocessable:
		return http.StatusUnprocessableEntity
	case job.CodeRateLimited:
		return http.StatusTooManyRequests
	case job.CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case job.CodeUpstream:
		return http.StatusBadGateway
	default:
		return http.StatusInternalServerError
	}
}

type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Code    job.Code       `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var de *job.Error
	if !errors.As(err, &de) {
		de = &job.Error{Code: job.CodeInternal, Message: "internal error", Err: err}
	}
	status := StatusOf(de.Code)
	switch {
	case status >= 500 && r.Context().Err() != nil:
		// The client went away and its work stopped: nothing failed.
		s.log.Info("request ended: the client went away", "method", r.Method, "path", r.URL.Path, "err", err, "request_id", w.Header().Get(HeaderRequestID))
	case status >= 500:
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err, "request_id", w.Header().Get(HeaderRequestID))
	}
	if secs, ok := de.Details["retry_after_seconds"].(int); ok && de.Code == job.CodeRateLimited && w.Header().Get(HeaderRetryAfter) == "" {
		w.Header().Set(HeaderRetryAfter, strconv.Itoa(secs))
	}
	msg := de.Message
	if de.Code == job.CodeInternal {
		msg = "internal error; quote the X-Request-Id header to support"
	}
	body, err := encodeJSON(errorBody{Error: errorObject{Code: de.Code, Message: msg, Details: de.Details}})
	if err != nil { // details that do not encode: the code and message still do
		s.log.Error("encode error details", "err", err, "request_id", w.Header().Get(HeaderRequestID))
		body, _ = encodeJSON(errorBody{Error: errorObject{Code: de.Code, Message: msg}})
	}
	sendJSON(w, status, body)
}

// writeJSON answers status with v as the JSON body. v is encoded before
// anything is written, so a value that does not encode becomes a 500
// instead of a truncated body under status.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	b := jsonBuffers.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= maxPooledBuffer {
			b.Reset()
			jsonBuffers.Put(b)
		}
	}()
	b.Reset()
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.writeError(w, r, fmt.Errorf("encode %d response: %w", status, err))
		return
	}
	sendJSON(w, status, b.Bytes())
}

// jsonBuffers keeps response buffers between requests: a page of 2000
// detections is half a megabyte of JSON, and growing a fresh buffer for
// each of many concurrent reads keeps the collector busy.
var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer is the largest buffer kept for reuse.
const maxPooledBuffer = 4 << 20

func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func sendJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	// A known length spares large bodies the chunked framing.
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client went away; nothing to do
}

// authed admits the API key only: a review credential is 403 forbidden
// (job.ReviewOnly) on these routes (listing, creating and starting jobs,
// making review links). It applies the key's rate limit before h.
func (s *Server) authed(h func(http.ResponseWriter, *http.Request, job.Caller)) http.HandlerFunc {
	return s.authenticated(h, false)
}

// reviewer admits the API key and a review credential, whose Caller is
// limited to its job (the service answers not_found for any other).
func (s *Server) reviewer(h func(http.ResponseWriter, *http.Request, job.Caller)) http.HandlerFunc {
	return s.authenticated(h, true)
}

// authenticated authenticates X-API-Key (a key, or a review credential
// where review) and applies the key's rate limit before h. A client
// address that failed authentication authFailuresPerMinute times in a
// window gets 429 until the window ends, whatever it sends.
func (s *Server) authenticated(h func(http.ResponseWriter, *http.Request, job.Caller), review bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, key, ok := s.authenticate(w, r)
		if !ok {
			return
		}
		if c.Scoped() && !review {
			s.writeError(w, r, job.ReviewOnly(routeWhat(r)))
			return
		}
		d, err := s.cfg.Limiter.Allow(r.Context(), key.ID, key.RequestsPerMinute, s.cfg.Clock.Now())
		hd := w.Header()
		if err != nil {
			// Counted nowhere: serve the request (RateLimiter says why)
			// with the key's limit and without the count it could not read.
			s.log.Error("rate limit not counted", "err", err, "key_id", key.ID, "request_id", hd.Get(HeaderRequestID))
			hd.Set(HeaderRateLimit, strconv.Itoa(key.RequestsPerMinute))
			h(w, r, c)
			return
		}
		secs := strconv.Itoa(int(d.Reset / time.Second))
		hd.Set(HeaderRateLimit, strconv.Itoa(d.Limit))
		hd.Set(HeaderRateRemaining, strconv.Itoa(d.Remaining))
		hd.Set(HeaderRateReset, secs)
		if !d.Allowed {
			hd.Set(HeaderRetryAfter, secs)
			s.writeError(w, r, &job.Error{Code: job.CodeRateLimited,
				Message: fmt.Sprintf("rate limit of %d requests per minute exceeded; retry after %s s", d.Limit, secs),
				Details: map[string]any{"limit": d.Limit, "retry_after_seconds": int(d.Reset / time.Second)}})
			return
		}
		h(w, r, c)
	}
}

// routeWhat names what a request outside a review credential's scope
// asked for, for job.ReviewOnly's message.
func routeWhat(r *http.Request) string {
	switch {
	case strings.HasSuffix(r.URL.Path, "/init"):
		return "creating a job"
	case strings.HasSuffix(r.URL.Path, "/start"):
		return "starting a job"
	case strings.HasPrefix(r.URL.Path, "/v1/review-links"):
		return "making a review link"
	case r.URL.Path == "/v1/jobs":
		return "listing jobs"
	}
	return r.Method + " " + r.URL.Path
}
