package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/job"
)

// Presigner signs URLs of objects in the blob store that partners read and
// write directly, and stores small files; *s3blob.Store implements it.
type Presigner interface {
	// PresignPut is a PUT URL of key accepted only with Content-Type
	// contentType and exactly size bytes, signed as at signedAt, valid
	// until expires; the same arguments give the same URL.
	PresignPut(ctx context.Context, key, contentType string, size int64, signedAt, expires time.Time) (string, error)
	// PresignGet is a GET URL of key, answered with Content-Type
	// contentType, signed as at signedAt, valid until expires.
	PresignGet(ctx context.Context, key, contentType string, signedAt, expires time.Time) (string, error)
	// PutBytes stores data under key with Content-Type contentType.
	PutBytes(ctx context.Context, key, contentType string, data []byte) error
}

// iconPrefix of the icon files published to the blob store; each key
// holds the hash of its content, so a catalog override or a new renderer
// publishes new keys instead of changing old ones.
const publishedIconPrefix = "icons/"

// PresignedLinks builds the URLs of the AWS mode: the API's endpoints from
// the public base URL, and files (the upload, page images, icons) as
// presigned URLs of the S3 bucket, which partners' clients read and write
// directly (API Gateway takes no request body over 10 MB and a Lambda
// function answers no body over 6 MB). The service serves no files itself
// in this mode, so Verify refuses every URL. It implements Links and
// job.Links.
type PresignedLinks struct {
	apiLinks
	store Presigner
	cat   *catalog.Catalog
	clock job.Clock

	mu        sync.Mutex
	published map[string]bool // icon keys stored by this process
}

// NewPresignedLinks returns PresignedLinks for base (a trailing slash is
// dropped) over store, publishing the icons of cat; clock nil is
// job.SystemClock.
func NewPresignedLinks(base string, store Presigner, cat *catalog.Catalog, clock job.Clock) *PresignedLinks {
	if clock == nil {
		clock = job.SystemClock{}
	}
	return &PresignedLinks{apiLinks: newAPILinks(base), store: store, cat: cat, clock: clock, published: map[string]bool{}}
}

var (
	_ Links     = (*PresignedLinks)(nil)
	_ job.Links = (*PresignedLinks)(nil)
)

// UploadURL is the presigned PUT of the job's upload key, which S3
// accepts only with the job's mime_type as Content-Type and exactly its
// declared size. It is signed as at the job's creation, so every signing
// for the same job and credentials gives the same URL.
func (l *PresignedLinks) UploadURL(ctx context.Context, j *job.Job) (string, error) {
	return l.store.PresignPut(ctx, job.UploadKey(j.ID), j.MimeType, j.Size, j.CreatedAt, j.UploadExpiresAt)
}

// PageImageURL is a presigned GET of a page's PNG. S3 serves it without
// the service, so the PNG must exist when the URL is used: a service with
// presigned links keeps job.Config.LazyPageImages off, and processing
// stores every page's PNG alongside its detection.
func (l *PresignedLinks) PageImageURL(ctx context.Context, jobID string, page int, expires time.Time) (string, error) {
	return l.store.PresignGet(ctx, job.ImageKey(jobID, page), "image/png", l.clock.Now(), expires)
}

// IconFileURL is a presigned GET of the class's icon file, which it first
// publishes to the bucket unless this process has done so already.
func (l *PresignedLinks) IconFileURL(ctx context.Context, class, format string, expires time.Time) (string, error) {
	var (
		data  []byte
		err   error
		ctype string
	)
	switch format {
	case "svg":
		ctype = "image/svg+xml"
		data, err = l.cat.IconSVG(class)
	case "png":
		ctype = "image/png"
		data, err = l.cat.IconPNG(class, IconPNGSize)
	default:
		err = fmt.Errorf("unknown icon format %q", format)
	}
	if err != nil {
		return "", fmt.Errorf("render icon %s.%s: %w", class, format, err)
	}
	sum := sha256.Sum256(data)
	key := publishedIconPrefix + url.PathEscape(class) + "-" + hex.EncodeToString(sum[:12]) + "." + format
	l.mu.Lock()
	done := l.published[key]
	l.mu.Unlock()
	if !done {
		if err := l.store.PutBytes(ctx, key, ctype, data); err != nil {
			return "", fmt.Errorf("publish icon %s: %w", key, err)
		}
		l.mu.Lock()
		l.published[key] = true
		l.mu.Unlock()
	}
	return l.store.PresignGet(ctx, key, ctype, l.clock.Now(), expires)
}

// errNoServedFiles answers every signed-file route in AWS mode.
var errNoServedFiles = errors.New("this deployment serves files through presigned S3 URLs, not itself")

// Verify refuses every URL: no file is served by the service in this mode.
func (l *PresignedLinks) Verify(method, path string, query url.Values, now time.Time) error {
	return errNoServedFiles
}
