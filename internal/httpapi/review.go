package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"blueprint/internal/catalog"
	"blueprint/internal/job"
)

// maxReviewBody bounds the JSON body of the review endpoints (job.MaxAddDetections
// detections fit well within it).
const maxReviewBody = 256 << 10

// pageIndex reads the {page_index} path value: a page that cannot exist is
// 404, like one the job does not have.
func pageIndex(r *http.Request) (int, error) {
	page, err := strconv.Atoi(r.PathValue("page_index"))
	if err != nil || page < 0 {
		return 0, job.Errorf(job.CodeNotFound, "page %q not found; pages are numbered from 0", r.PathValue("page_index"))
	}
	return page, nil
}

// decodeReviewBody decodes one JSON object into v, refusing unknown fields
// (a misspelt field would otherwise change nothing and say so nowhere).
func decodeReviewBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec, err := bodyDecoder(w, r, maxReviewBody)
	if err != nil {
		return err
	}
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &job.Error{Code: job.CodeUnprocessable, Message: fmt.Sprintf("%s has the wrong JSON type (%s)", te.Field, te.Value),
				Details: map[string]any{"field": te.Field}}
		}
		return decodeError(err)
	}
	if dec.More() {
		return job.Errorf(job.CodeUnprocessable, "request body must be one JSON object")
	}
	return nil
}

func (s *Server) handleAddDetections(w http.ResponseWriter, r *http.Request, c job.Caller) {
	page, err := pageIndex(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req job.AddDetectionsRequest
	if err := decodeReviewBody(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	out, replayed, err := s.cfg.Service.AddDetections(r.Context(), c, r.PathValue("job_id"), page, req,
		r.Header.Get(HeaderIdempotencyKey), catalog.PreferredLanguage(r.Header.Get("Accept-Language")))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if replayed {
		w.Header().Set(HeaderIdempotentReplayed, "true")
	}
	s.writeJSON(w, r, http.StatusCreated, out)
}

func (s *Server) handleReviewDetection(w http.ResponseWriter, r *http.Request, c job.Caller) {
	page, err := pageIndex(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req job.ReviewRequest
	if err := decodeReviewBody(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.cfg.Service.ReviewDetection(r.Context(), c, r.PathValue("job_id"), page, r.PathValue("detection_id"), req,
		catalog.PreferredLanguage(r.Header.Get("Accept-Language")))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, out)
}

// parseReview reads ?review: absent lists what counts, "all" adds the
// detections reviewers rejected.
func parseReview(r *http.Request) (bool, error) {
	raw, ok := r.URL.Query()["review"]
	if !ok {
		return false, nil
	}
	if len(raw) != 1 || raw[0] != "all" {
		return false, job.InvalidParameter("review", "review accepts only \"all\" (to list rejected detections too)")
	}
	return true, nil
}
