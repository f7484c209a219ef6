package httpapi

import (
	"net/http"

	"blueprint/internal/job"
)

// handleSearch answers POST /v1/jobs/{job_id}/search: every instance of
// what a box on a page holds (job.Service.Search).
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request, c job.Caller) {
	var req job.SearchRequest
	if err := decodeReviewBody(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.cfg.Service.Search(r.Context(), c, r.PathValue("job_id"), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, out)
}
