package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"blueprint/internal/catalog"
	"blueprint/internal/job"
	"blueprint/internal/signing"
)

func (s *Server) handleInit(w http.ResponseWriter, r *http.Request, c job.Caller) {
	var req job.InitRequest
	dec, err := bodyDecoder(w, r, maxInitBody)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := dec.Decode(&req); err != nil {
		s.writeError(w, r, decodeError(err))
		return
	}
	if dec.More() {
		s.writeError(w, r, job.Errorf(job.CodeUnprocessable, "request body must be one JSON object"))
		return
	}
	created, replayed, err := s.cfg.Service.Init(r.Context(), c, req, r.Header.Get(HeaderIdempotencyKey))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if replayed {
		w.Header().Set(HeaderIdempotentReplayed, "true")
	}
	s.writeJSON(w, r, http.StatusCreated, created)
}

// decodeError turns a JSON decoding failure of the init body into a 422
// naming the field where possible.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &job.Error{Code: job.CodeUnprocessable, Message: fmt.Sprintf("%s must be %s, not a JSON %s", te.Field, expected(te), te.Value),
			Details: map[string]any{"field": te.Field}}
	}
	var big *http.MaxBytesError
	if errors.As(err, &big) {
		return &job.Error{Code: job.CodeUnprocessable, Message: fmt.Sprintf("request body is too large: at most %d bytes are accepted", big.Limit),
			Details: map[string]any{"max_bytes": big.Limit}}
	}
	return &job.Error{Code: job.CodeUnprocessable, Message: "request body is not a valid JSON object: " + err.Error()}
}

// expected names, with its article, the JSON type a field of the init
// body takes.
func expected(te *json.UnmarshalTypeError) string {
	switch te.Field {
	case "size":
		return "an integer"
	case "confidence":
		return "a number"
	case "models", "reference_jobs":
		return "an array of strings"
	case "start_on_upload":
		return "a boolean"
	}
	return "a string"
}

func (s *Server) handleStart(w http.ResponseWriter, r *http.Request, c job.Caller) {
	started, err := s.cfg.Service.Start(r.Context(), c, r.PathValue("job_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusAccepted, started)
}

// parseConfidence reads ?confidence: absent is nil, else a number 0..1.
func parseConfidence(r *http.Request) (*float64, error) {
	raw, ok := r.URL.Query()["confidence"]
	if !ok {
		return nil, nil
	}
	v, err := strconv.ParseFloat(raw[0], 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > 1 || len(raw) > 1 {
		return nil, job.InvalidParameter("confidence", "confidence must be one number from 0 to 1")
	}
	return &v, nil
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, c job.Caller) {
	conf, err := parseConfidence(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	o := job.ReadOptions{Confidence: conf, Lang: catalog.PreferredLanguage(r.Header.Get("Accept-Language"))}
	for _, v := range r.URL.Query()["include"] {
		for _, part := range strings.Split(v, ",") {
			if part != "detections" {
				s.writeError(w, r, job.InvalidParameter("include", "include accepts only \"detections\""))
				return
			}
			o.IncludeDetections = true
		}
	}
	v, err := s.cfg.Service.Get(r.Context(), c, r.PathValue("job_id"), o)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, v)
}

// intParam reads an integer query parameter within [lo, hi]; absent is def.
func intParam(r *http.Request, name string, def, lo, hi int) (int, error) {
	raw, ok := r.URL.Query()[name]
	if !ok {
		return def, nil
	}
	v, err := strconv.Atoi(raw[0])
	if err != nil || v < lo || v > hi || len(raw) > 1 {
		if hi == math.MaxInt {
			return 0, job.InvalidParameter(name, "%s must be an integer of at least %d", name, lo)
		}
		return 0, job.InvalidParameter(name, "%s must be an integer from %d to %d", name, lo, hi)
	}
	return v, nil
}

func (s *Server) handleDetections(w http.ResponseWriter, r *http.Request, c job.Caller) {
	page, err := pageIndex(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	withRejected, err := parseReview(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	conf, err := parseConfidence(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	limit, err := intParam(r, "limit", job.DefaultPageLimit, 1, job.MaxPageLimit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	offset, err := intParam(r, "offset", 0, 0, math.MaxInt)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.cfg.Service.PageDetections(r.Context(), c, r.PathValue("job_id"), page, job.PageOptions{
		Confidence: conf, Limit: limit, Offset: offset, Lang: catalog.PreferredLanguage(r.Header.Get("Accept-Language")), WithRejected: withRejected})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, out)
}

type symbolCatalog struct {
	Models  []string         `json:"models"`
	Count   int              `json:"count"`
	Symbols []job.SymbolView `json:"symbols"`
}

func (s *Server) handleSymbols(w http.ResponseWriter, r *http.Request, _ job.Caller) {
	lang := catalog.PreferredLanguage(r.Header.Get("Accept-Language"))
	syms := s.cfg.Catalog.Symbols()
	out := symbolCatalog{Models: s.cfg.Catalog.Models(), Count: len(syms), Symbols: make([]job.SymbolView, 0, len(syms))}
	for _, sym := range syms {
		out.Symbols = append(out.Symbols, s.cfg.Service.Symbol(sym.Class, lang))
	}
	w.Header().Set("Content-Language", lang)
	w.Header().Add("Vary", "Accept-Language")
	s.writeJSON(w, r, http.StatusOK, out)
}

func (s *Server) handleIcon(w http.ResponseWriter, r *http.Request, _ job.Caller) {
	class := r.PathValue("class")
	format := r.URL.Query().Get("format")
	switch format {
	case "":
		format = "svg"
	case "svg", "png":
	default:
		s.writeError(w, r, job.InvalidParameter("format", "format must be svg or png"))
		return
	}
	if _, ok := s.cfg.Catalog.Meta(class); !ok {
		s.writeError(w, r, job.Errorf(job.CodeNotFound, "no icon for symbol class %q", class))
		return
	}
	url, err := s.cfg.Links.IconFileURL(r.Context(), class, format, s.cfg.Clock.Now().Add(job.SignedGetTTL))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Location", url)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusFound)
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	if len(s.cfg.OpenAPI) == 0 {
		s.writeError(w, r, job.Errorf(job.CodeNotFound, "no OpenAPI document configured"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(s.cfg.OpenAPI)
}

// verifySigned checks the signed URL of the request; false means a 403
// has been written. A HEAD is checked as the GET it asks about, so that it
// answers as that GET does, without the body.
func (s *Server) verifySigned(w http.ResponseWriter, r *http.Request) bool {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	err := s.cfg.Links.Verify(method, r.URL.Path, r.URL.Query(), s.cfg.Clock.Now())
	switch {
	case err == nil:
		return true
	case errors.Is(err, signing.ErrExpired):
		s.writeError(w, r, job.Errorf(job.CodeForbidden, "this signed URL has expired"))
	default:
		s.writeError(w, r, job.Errorf(job.CodeForbidden, "this URL's signature is not valid"))
	}
	return false
}

func (s *Server) handleUpload(w http.ResponseWriter, r *http.Request) {
	if !s.verifySigned(w, r) {
		return
	}
	body := newPacedBody(w, r.Body, s.uploadPace)
	out, err := s.cfg.Service.Upload(r.Context(), r.PathValue("job_id"), r.Header.Get("Content-Type"), r.ContentLength, body)
	if err != nil && body.slow {
		err = body.tooSlow()
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, out)
}

func (s *Server) handlePageImage(w http.ResponseWriter, r *http.Request) {
	if !s.verifySigned(w, r) {
		return
	}
	name, ok := strings.CutSuffix(r.PathValue("file"), ".png")
	page, err := strconv.Atoi(name)
	if !ok || err != nil || page < 0 {
		s.writeError(w, r, job.Errorf(job.CodeNotFound, "page image not found"))
		return
	}
	img, err := s.cfg.Service.PageImage(r.Context(), r.PathValue("job_id"), page)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer img.Close()
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "private, max-age=3600")
	if img.Size >= 0 {
		w.Header().Set("Content-Length", strconv.FormatInt(img.Size, 10))
	}
	if r.Method == http.MethodHead {
		return
	}
	// The status is sent with the first bytes; a failure now can only cut
	// the body short (the client sees fewer bytes than Content-Length).
	if n, err := io.Copy(w, img); err != nil {
		s.log.Warn("page image stream cut short", "path", r.URL.Path, "bytes_sent", n, "err", err)
	}
}

func (s *Server) handleIconFile(w http.ResponseWriter, r *http.Request) {
	if !s.verifySigned(w, r) {
		return
	}
	file := r.PathValue("file")
	var (
		data  []byte
		err   error
		ctype string
	)
	if class, ok := strings.CutSuffix(file, ".svg"); ok {
		ctype = "image/svg+xml"
		data, err = s.cfg.Catalog.IconSVG(class)
	} else if class, ok := strings.CutSuffix(file, ".png"); ok {
		ctype = "image/png"
		data, err = s.cfg.Catalog.IconPNG(class, IconPNGSize)
	} else {
		err = catalog.ErrUnknownClass
	}
	if errors.Is(err, catalog.ErrUnknownClass) {
		s.writeError(w, r, job.Errorf(job.CodeNotFound, "no icon %q", file))
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data) // the client went away; nothing to do
	}
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request, c job.Caller) {
	limit, err := intParam(r, "limit", job.DefaultListLimit, 1, job.MaxListLimit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	cursor := r.URL.Query()["cursor"]
	if len(cursor) > 1 {
		s.writeError(w, r, job.InvalidParameter("cursor", "cursor must be given at most once"))
		return
	}
	o := job.ListOptions{Limit: limit}
	if len(cursor) == 1 {
		o.Cursor = cursor[0]
	}
	out, err := s.cfg.Service.List(r.Context(), c, o)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, out)
}
