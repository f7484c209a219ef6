package httpapi

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"blueprint/internal/catalog"
	"blueprint/internal/export"
	"blueprint/internal/job"
)

// takeoffFormat is one export of the take-off: GET
// /v1/jobs/{job_id}/<name>.<ext>, downloaded as <file>-<name>.<ext>.
type takeoffFormat struct {
	name, ext, mediaType string
	write                func(io.Writer, *job.Takeoff) error
}

var (
	takeoffCSV       = takeoffFormat{"takeoff", "csv", export.MediaCSV, export.CSV}
	takeoffXLSX      = takeoffFormat{"takeoff", "xlsx", export.MediaXLSX, export.XLSX}
	takeoffLegendCSV = takeoffFormat{"legend-check", "csv", export.MediaCSV, export.LegendCSV}
)

// handleTakeoff answers the take-off of a done job as a file, under the
// same filter as the poll's summary (?confidence=) and in the language of
// Accept-Language. The file is built whole before anything is sent, so a
// failure is still a JSON error.
func (s *Server) handleTakeoff(format takeoffFormat) func(http.ResponseWriter, *http.Request, job.Caller) {
	return func(w http.ResponseWriter, r *http.Request, c job.Caller) {
		conf, err := parseConfidence(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		lang := catalog.PreferredLanguage(r.Header.Get("Accept-Language"))
		t, err := s.cfg.Service.Takeoff(r.Context(), c, r.PathValue("job_id"), job.ReadOptions{Confidence: conf, Lang: lang})
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		var b bytes.Buffer
		if err := format.write(&b, t); err != nil {
			s.writeError(w, r, err)
			return
		}
		h := w.Header()
		h.Set("Content-Type", format.mediaType)
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": takeoffFileName(t.FileName, format.name, format.ext)}))
		h.Set("Content-Length", strconv.Itoa(b.Len()))
		h.Set("Content-Language", lang)
		h.Add("Vary", "Accept-Language")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(b.Bytes()) // the client went away; nothing to do
		}
	}
}

// takeoffFileName names the download after the uploaded file: "plan.pdf"
// and "takeoff" give "plan-takeoff.csv".
func takeoffFileName(fileName, name, ext string) string {
	base := strings.TrimSuffix(path.Base(strings.ReplaceAll(fileName, "\\", "/")), path.Ext(fileName))
	if base == "" || base == "." || base == "/" {
		base = "job"
	}
	return base + "-" + name + "." + ext
}
