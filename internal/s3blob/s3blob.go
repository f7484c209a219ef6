// Package s3blob is the job.Blobs of the AWS deployment: one S3 bucket
// (template.yaml, FilesBucket) holding uploads, page images and
// detections under jobs/<id>/, and the published icon files under icons/.
//
// It also implements job.DirectUploads, for uploads that partners PUT
// straight to S3, and signs the presigned URLs partners use: a PUT that
// signs the job's Content-Type and exact Content-Length (S3 itself refuses
// another type or size, a forged or an expired URL), and GETs of page
// images and icons.
package s3blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"blueprint/internal/job"
)

// MaxPresignTTL is the longest lifetime S3 accepts for a presigned URL
// (SigV4: 7 days).
const MaxPresignTTL = 7 * 24 * time.Hour

// Store is a job.Blobs and job.DirectUploads on one bucket. It is safe for
// concurrent use.
type Store struct {
	c       *s3.Client
	presign *s3.PresignClient
	bucket  string
}

var (
	_ job.Blobs         = (*Store)(nil)
	_ job.DirectUploads = (*Store)(nil)
)

// New returns a Store on bucket.
func New(c *s3.Client, bucket string) *Store {
	return &Store{c: c, bucket: bucket, presign: s3.NewPresignClient(c, func(o *s3.PresignOptions) {
		o.Presigner = fixedTimePresigner{v4.NewSigner()}
	})}
}

// Bucket is the bucket's name.
func (s *Store) Bucket() string { return s.bucket }

// Put stores r's bytes under key. S3 replaces an object atomically, so
// readers see the old or the new bytes. The bytes are read whole first (a
// read error or a cancelled context stores nothing); the objects the
// service writes itself (page images, detections, icons) are already in
// memory, and uploads go straight to S3.
func (s *Store) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	data, err := io.ReadAll(&ctxReader{ctx: ctx, r: r})
	if err != nil {
		return 0, fmt.Errorf("s3blob: put %s: read: %w", key, err)
	}
	if err := s.PutBytes(ctx, key, "", data); err != nil {
		return 0, err
	}
	return int64(len(data)), nil
}

// PutBytes stores data under key with Content-Type contentType ("" for
// S3's default).
func (s *Store) PutBytes(ctx context.Context, key, contentType string, data []byte) error {
	in := &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key),
		Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data)))}
	if contentType != "" {
		in.ContentType = aws.String(contentType)
	}
	if _, err := s.c.PutObject(ctx, in); err != nil {
		return fmt.Errorf("s3blob: put %s: %w", key, err)
	}
	return nil
}

// Get opens the object at key; ErrNotFound if there is none.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	out, err := s.c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return nil, fmt.Errorf("s3blob: get %s: %w", key, notFound(err))
	}
	return out.Body, nil
}

// Delete removes the object at key; removing an absent one succeeds.
func (s *Store) Delete(ctx context.Context, key string) error {
	_, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil && !errors.Is(notFound(err), job.ErrNotFound) {
		return fmt.Errorf("s3blob: delete %s: %w", key, err)
	}
	return nil
}

// DeletePrefix removes every object whose key starts with prefix, 1000 per
// request.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) error {
	p := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("s3blob: list %s: %w", prefix, err)
		}
		if len(page.Contents) == 0 {
			continue
		}
		ids := make([]types.ObjectIdentifier, 0, len(page.Contents))
		for _, o := range page.Contents {
			ids = append(ids, types.ObjectIdentifier{Key: o.Key})
		}
		out, err := s.c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(s.bucket),
			Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return fmt.Errorf("s3blob: delete under %s: %w", prefix, err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("s3blob: delete under %s: %d objects failed, first %s: %s %s",
				prefix, len(out.Errors), aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message))
		}
	}
	return nil
}

// Stat describes the object at key; ErrNotFound if there is none.
func (s *Store) Stat(ctx context.Context, key string) (job.ObjectInfo, error) {
	out, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return job.ObjectInfo{}, fmt.Errorf("s3blob: stat %s: %w", key, notFound(err))
	}
	return job.ObjectInfo{Size: aws.ToInt64(out.ContentLength), ETag: aws.ToString(out.ETag)}, nil
}

// CopyIfMatch copies src to dst inside the bucket if src's ETag is still
// etag (CopySourceIfMatch): ErrChanged if it is not, ErrNotFound if src is
// absent.
func (s *Store) CopyIfMatch(ctx context.Context, dst, src, etag string) error {
	_, err := s.c.CopyObject(ctx, &s3.CopyObjectInput{
		Bucket:            aws.String(s.bucket),
		Key:               aws.String(dst),
		CopySource:        aws.String(s.bucket + "/" + escapeKey(src)),
		CopySourceIfMatch: aws.String(etag),
	})
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "PreconditionFailed" {
		return fmt.Errorf("s3blob: copy %s to %s: %w", src, dst, job.ErrChanged)
	}
	if err != nil {
		return fmt.Errorf("s3blob: copy %s to %s: %w", src, dst, notFound(err))
	}
	return nil
}

// PresignPut is a PUT URL of key that S3 accepts only with Content-Type
// contentType and a body of exactly size bytes, signed as at signedAt and
// valid until expires (at most MaxPresignTTL later). The same arguments
// and credentials give the same URL.
func (s *Store) PresignPut(ctx context.Context, key, contentType string, size int64, signedAt, expires time.Time) (string, error) {
	ttl, err := presignTTL(signedAt, expires)
	if err != nil {
		return "", err
	}
	req, err := s.presign.PresignPutObject(withSigningTime(ctx, signedAt), &s3.PutObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key),
		ContentType: aws.String(contentType), ContentLength: aws.Int64(size),
	}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fmt.Errorf("s3blob: presign PUT %s: %w", key, err)
	}
	return req.URL, nil
}

// PresignGet is a GET URL of key, signed as at signedAt and valid until
// expires, whose response carries Content-Type contentType.
func (s *Store) PresignGet(ctx context.Context, key, contentType string, signedAt, expires time.Time) (string, error) {
	ttl, err := presignTTL(signedAt, expires)
	if err != nil {
		return "", err
	}
	req, err := s.presign.PresignGetObject(withSigningTime(ctx, signedAt), &s3.GetObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key), ResponseContentType: aws.String(contentType),
	}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fmt.Errorf("s3blob: presign GET %s: %w", key, err)
	}
	return req.URL, nil
}

func presignTTL(signedAt, expires time.Time) (time.Duration, error) {
	ttl := expires.Sub(signedAt).Truncate(time.Second)
	if ttl < time.Second || ttl > MaxPresignTTL {
		return 0, fmt.Errorf("s3blob: a presigned URL lives from 1 s to %s, not %s", MaxPresignTTL, ttl)
	}
	return ttl, nil
}

// signingTimeKey carries the signing time of a presigned URL to
// fixedTimePresigner.
type signingTimeKey struct{}

func withSigningTime(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, signingTimeKey{}, t.UTC().Truncate(time.Second))
}

// fixedTimePresigner signs as at the time in the context instead of now,
// so that a URL signed again for the same job (an idempotent replay of
// init, a poll) is the same URL.
type fixedTimePresigner struct{ s *v4.Signer }

func (p fixedTimePresigner) PresignHTTP(ctx context.Context, creds aws.Credentials, r *http.Request, payloadHash, service, region string,
	signingTime time.Time, optFns ...func(*v4.SignerOptions)) (string, http.Header, error) {
	if t, ok := ctx.Value(signingTimeKey{}).(time.Time); ok {
		signingTime = t
	}
	return p.s.PresignHTTP(ctx, creds, r, payloadHash, service, region, signingTime, optFns...)
}

// notFound turns S3's answers for a missing object into job.ErrNotFound
// (wrapping the original).
func notFound(err error) error {
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	var ae smithy.APIError
	if errors.As(err, &nsk) || errors.As(err, &nf) || (errors.As(err, &ae) && (ae.ErrorCode() == "NoSuchKey" || ae.ErrorCode() == "NotFound")) {
		return fmt.Errorf("%w: %w", job.ErrNotFound, err)
	}
	return err
}

// escapeKey escapes each path segment of key for a CopySource header.
func escapeKey(key string) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// ctxReader stops reading once its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
