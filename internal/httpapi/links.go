package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"blueprint/internal/signing"
)

// Paths of the files the service serves itself behind signed URLs.
const (
	uploadPrefix    = "/uploads/"
	pageImagePrefix = "/files/pages/"
	iconPrefix      = "/files/icons/"
)

// Links builds the absolute and signed URLs of responses from the public
// base URL. It implements job.Links.
type Links struct {
	base   string
	signer *signing.Signer
}

// NewLinks returns Links for base (e.g. "http://127.0.0.1:8080"; a
// trailing slash is dropped) signed with signer.
func NewLinks(base string, signer *signing.Signer) *Links {
	return &Links{base: strings.TrimRight(base, "/"), signer: signer}
}

// UploadURL is the signed PUT URL of a job's upload.
func (l *Links) UploadURL(jobID string, expires time.Time) string {
	return l.signer.URL(l.base, http.MethodPut, uploadPrefix+jobID, expires)
}

// JobURL is the poll URL of a job.
func (l *Links) JobURL(jobID string) string { return l.base + "/v1/jobs/" + url.PathEscape(jobID) }

// DetectionsURL is the per-page detections endpoint of a job's page.
func (l *Links) DetectionsURL(jobID string, page int) string {
	return fmt.Sprintf("%s/v1/jobs/%s/pages/%d/detections", l.base, url.PathEscape(jobID), page)
}

// PageImageURL is a signed GET URL of a page's PNG.
func (l *Links) PageImageURL(jobID string, page int, expires time.Time) string {
	return l.signer.URL(l.base, http.MethodGet, fmt.Sprintf("%s%s/%d.png", pageImagePrefix, jobID, page), expires)
}

// IconURL is the icon endpoint of a class (which redirects to a signed URL).
func (l *Links) IconURL(class string) string {
	return l.base + "/v1/symbols/" + url.PathEscape(class) + "/icon"
}

// iconFileURL is the signed URL of a class's icon file; ext is "svg" or "png".
func (l *Links) iconFileURL(class, ext string, expires time.Time) string {
	return l.signer.URL(l.base, http.MethodGet, iconPrefix+class+"."+ext, expires)
}
