package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"blueprint/internal/job"
	"blueprint/internal/signing"
	"blueprint/internal/webapp"
)

// Paths of the files the service serves itself behind signed URLs.
const (
	uploadPrefix    = "/uploads/"
	pageImagePrefix = "/files/pages/"
	iconPrefix      = "/files/icons/"
)

// Links is what the HTTP layer needs of the URLs it hands out and accepts:
// the target of the icon redirect and the check of the signed URLs of files
// the service serves itself (the catalog's icon URLs come from the job
// service's job.Links). *LocalLinks implements it for local mode; the AWS
// mode can pass one whose IconFileURL is an S3-presigned URL.
type Links interface {
	// IconFileURL is the absolute URL, valid until expires, of a class's
	// icon file; format is "svg" or "png".
	IconFileURL(ctx context.Context, class, format string, expires time.Time) (string, error)
	// Verify checks a signed URL the service serves itself (the upload PUT,
	// a page image, an icon file) for the request's method, path and query
	// at now. It returns nil for a valid URL, an error wrapping
	// signing.ErrExpired for a genuine but expired one, and another error
	// for a missing or forged signature (both answered 403).
	Verify(method, path string, query url.Values, now time.Time) error
	// ReviewURL is the absolute URL of the review page with fragment as
	// its fragment (the page's parameters, e.g. job and handoff), which
	// browsers never send to a server.
	ReviewURL(fragment url.Values) string
}

// apiLinks builds the URLs of the API's own endpoints from the public base
// URL; both modes share them.
type apiLinks struct {
	base string
}

func newAPILinks(base string) apiLinks { return apiLinks{base: strings.TrimRight(base, "/")} }

// JobURL is the poll URL of a job.
func (l apiLinks) JobURL(jobID string) string { return l.base + "/v1/jobs/" + url.PathEscape(jobID) }

// DetectionsURL is the per-page detections endpoint of a job's page.
func (l apiLinks) DetectionsURL(jobID string, page int) string {
	return fmt.Sprintf("%s/v1/jobs/%s/pages/%d/detections", l.base, url.PathEscape(jobID), page)
}

// ReviewURL is the review page's URL with fragment as its fragment.
func (l apiLinks) ReviewURL(fragment url.Values) string {
	u := l.base + webapp.Prefix
	if len(fragment) > 0 {
		u += "#" + fragment.Encode()
	}
	return u
}

// IconURL is the icon endpoint of a class (which redirects to a signed URL).
func (l apiLinks) IconURL(class string) string {
	return l.base + "/v1/symbols/" + url.PathEscape(class) + "/icon"
}

// LocalLinks builds the absolute and HMAC-signed URLs of local mode from
// the public base URL, where the service itself serves uploads, page images
// and icons. It implements Links and job.Links.
type LocalLinks struct {
	apiLinks
	signer *signing.Signer
}

// NewLocalLinks returns LocalLinks for base (e.g. "http://127.0.0.1:8080";
// a trailing slash is dropped) signed and verified with signer.
func NewLocalLinks(base string, signer *signing.Signer) *LocalLinks {
	return &LocalLinks{apiLinks: newAPILinks(base), signer: signer}
}

// UploadURL is the signed PUT URL of a job's upload.
func (l *LocalLinks) UploadURL(_ context.Context, j *job.Job) (string, error) {
	return l.signer.URL(l.base, http.MethodPut, uploadPrefix+j.ID, j.UploadExpiresAt), nil
}

// PageImageURL is a signed GET URL of a page's PNG.
func (l *LocalLinks) PageImageURL(_ context.Context, jobID string, page int, expires time.Time) (string, error) {
	return l.signer.URL(l.base, http.MethodGet, fmt.Sprintf("%s%s/%d.png", pageImagePrefix, jobID, page), expires), nil
}

// IconFileURL is the signed GET URL of a class's icon file; format is
// "svg" or "png".
func (l *LocalLinks) IconFileURL(_ context.Context, class, format string, expires time.Time) (string, error) {
	return l.signer.URL(l.base, http.MethodGet, iconPrefix+class+"."+format, expires), nil
}

// Verify checks the HMAC signature and expiry of a URL this LocalLinks
// (or another with the same signing key) signed.
func (l *LocalLinks) Verify(method, path string, query url.Values, now time.Time) error {
	return l.signer.Verify(method, path, query, now)
}

// LocalLinks serves both the HTTP layer and the job service.
var (
	_ Links     = (*LocalLinks)(nil)
	_ job.Links = (*LocalLinks)(nil)
)
