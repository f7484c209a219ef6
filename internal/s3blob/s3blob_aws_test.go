//go:build aws

package s3blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"blueprint/internal/awstest"
	"blueprint/internal/job"
	"blueprint/internal/job/jobtest"
)

// server is versitygw, started once for the package's tests.
var server *awstest.Server

func TestMain(m *testing.M) { os.Exit(awstest.Main(m, &server, awstest.StartS3)) }

var buckets atomic.Int64

// newStore creates a bucket and a Store on it.
func newStore(t *testing.T) *Store {
	t.Helper()
	c := awstest.S3(server)
	name := fmt.Sprintf("blobs-%d", buckets.Add(1))
	if err := awstest.CreateBucket(context.Background(), c, name); err != nil {
		t.Fatalf("%v\n%s", err, server.Logs())
	}
	return New(c, name)
}

func TestBlobsConformance(t *testing.T) {
	jobtest.RunBlobsConformance(t, func(t *testing.T) job.Blobs { return newStore(t) })
}

// put sends a PUT to a presigned URL and returns the status and body.
func put(t *testing.T, u, ctype string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPresignedPutRefusals checks that S3 itself refuses what the upload
// URL does not allow, and stores nothing then.
func TestPresignedPutRefusals(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	data := []byte("%PDF-1.7 presigned upload body")
	key := job.UploadKey("job_p")
	now := time.Now()
	u, err := s.PresignPut(ctx, key, "application/pdf", int64(len(data)), now, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	parsed, _ := url.Parse(u)
	signed := parsed.Query().Get("X-Amz-SignedHeaders")
	if !strings.Contains(signed, "content-type") || !strings.Contains(signed, "content-length") {
		t.Fatalf("X-Amz-SignedHeaders %q does not sign content-type and content-length", signed)
	}
	forged := func(mod func(url.Values)) string {
		q := parsed.Query()
		mod(q)
		c := *parsed
		c.RawQuery = q.Encode()
		return c.String()
	}
	old := now.Add(-2 * time.Hour)
	expired, err := s.PresignPut(ctx, key, "application/pdf", int64(len(data)), old, old.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.PresignPut(ctx, job.UploadKey("job_other"), "application/pdf", int64(len(data)), now, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	otherURL, _ := url.Parse(other)
	cases := []struct {
		name, url, ctype string
		body             []byte
	}{
		{"wrong content type", u, "image/png", data},
		{"no content type", u, "", data},
		{"one byte more", u, "application/pdf", append(bytes.Clone(data), ' ')},
		{"one byte less", u, "application/pdf", data[:len(data)-1]},
		{"forged signature", forged(func(q url.Values) { q.Set("X-Amz-Signature", strings.Repeat("0", 64)) }), "application/pdf", data},
		{"longer expiry", forged(func(q url.Values) { q.Set("X-Amz-Expires", "604800") }), "application/pdf", data},
		{"another key's signature", forged(func(q url.Values) { q.Set("X-Amz-Signature", otherURL.Query().Get("X-Amz-Signature")) }), "application/pdf", data},
		{"expired", expired, "application/pdf", data},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := put(t, c.url, c.ctype, c.body)
			if status != http.StatusForbidden {
				t.Fatalf("status %d, want 403: %s", status, body)
			}
			if _, err := s.Stat(ctx, key); !errors.Is(err, job.ErrNotFound) {
				t.Fatalf("a refused PUT stored an object: %v", err)
			}
		})
	}
	if status, body := put(t, u, "application/pdf", data); status != http.StatusOK {
		t.Fatalf("PUT with the signed type and size: %d %s", status, body)
	}
	info, err := s.Stat(ctx, key)
	if err != nil || info.Size != int64(len(data)) || info.ETag == "" {
		t.Fatalf("Stat after the PUT = %+v, %v", info, err)
	}
	// The same arguments sign the same URL (an init replay shows it again).
	again, err := s.PresignPut(ctx, key, "application/pdf", int64(len(data)), now, now.Add(time.Hour))
	if err != nil || again != u {
		t.Fatalf("signing again gave another URL:\n%s\n%s", u, again)
	}
}

func TestPresignedGet(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	png := []byte("\x89PNG fake page")
	if _, err := s.Put(ctx, job.ImageKey("job_g", 0), bytes.NewReader(png)); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	u, err := s.PresignGet(ctx, job.ImageKey("job_g", 0), "image/png", now, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, png) || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("GET: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	old := now.Add(-2 * time.Hour)
	expired, _ := s.PresignGet(ctx, job.ImageKey("job_g", 0), "image/png", old, old.Add(time.Hour))
	if resp, err := http.Get(expired); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("expired GET: %v %v", resp.StatusCode, err)
	}
}

func TestCopyIfMatch(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	src := job.UploadKey("job c") // a space: CopySource must be escaped
	if _, err := s.Put(ctx, src, strings.NewReader("first")); err != nil {
		t.Fatal(err)
	}
	info, err := s.Stat(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	dst := job.UploadVersionKey("job c", "v1")
	if err := s.CopyIfMatch(ctx, dst, src, info.ETag); err != nil {
		t.Fatalf("CopyIfMatch with the current ETag: %v", err)
	}
	if _, err := s.Put(ctx, src, strings.NewReader("second, replaced")); err != nil {
		t.Fatal(err)
	}
	if err := s.CopyIfMatch(ctx, job.UploadVersionKey("job c", "v2"), src, info.ETag); !errors.Is(err, job.ErrChanged) {
		t.Fatalf("CopyIfMatch with a stale ETag: %v, want ErrChanged", err)
	}
	if err := s.CopyIfMatch(ctx, job.UploadVersionKey("job c", "v3"), job.UploadKey("nope"), info.ETag); !errors.Is(err, job.ErrNotFound) {
		t.Fatalf("CopyIfMatch of a missing object: %v, want ErrNotFound", err)
	}
	rc, err := s.Get(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != "first" {
		t.Fatalf("the copy holds %q", got)
	}
	if _, err := s.Stat(ctx, job.UploadKey("nope")); !errors.Is(err, job.ErrNotFound) {
		t.Fatalf("Stat(missing) = %v", err)
	}
}
