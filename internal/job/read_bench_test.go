package job_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"blueprint/internal/boltstore"
	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/httpapi"
	"blueprint/internal/job"
	"blueprint/internal/localblob"
	"blueprint/internal/runner"
	"blueprint/internal/signing"
)

// BenchmarkPageDetections reads one page of 2000 stored detections (every
// catalog class, confidences spread over the stored range) through the
// per-page detections endpoint's service call, with the default per-class
// filter: the path that consults the catalog once per detection for the
// threshold and once per returned detection for its symbol fields.
func BenchmarkPageDetections(b *testing.B) {
	const n = job.MaxPageLimit
	ctx := context.Background()
	dir := b.TempDir()
	store, err := boltstore.Open(filepath.Join(dir, "jobs.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = store.Close() })
	blobs, err := localblob.New(filepath.Join(dir, "blobs"))
	if err != nil {
		b.Fatal(err)
	}
	cat, err := catalog.Load("")
	if err != nil {
		b.Fatal(err)
	}
	signer, err := signing.New(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		b.Fatal(err)
	}
	svc, err := job.NewService(job.Config{
		Store: store, Blobs: blobs, Flow: runner.New(store, runner.Options{}), Catalog: cat,
		Engine:        detect.EngineFunc(func(context.Context, detect.Page) ([]detect.Detection, error) { return nil, nil }),
		Links:         httpapi.NewLocalLinks("http://127.0.0.1:8080", signer),
		WebhookSecret: func(string) ([]byte, bool) { return nil, false },
	})
	if err != nil {
		b.Fatal(err)
	}

	type stored struct {
		ID         string        `json:"id"`
		Class      string        `json:"class"`
		Confidence float64       `json:"confidence"`
		Box        detect.Box    `json:"box"`
		Source     detect.Source `json:"source"`
	}
	syms := cat.Symbols()
	page := struct {
		Detections []stored `json:"detections"`
	}{}
	for i := range n {
		page.Detections = append(page.Detections, stored{
			ID: fmt.Sprintf("d%04d", i), Class: syms[i%len(syms)].Class,
			Confidence: detect.StoredFloor + float64(i%90)/100,
			Box:        detect.Box{X: float64(i), Y: float64(i), W: 20, H: 20},
			Source:     detect.Source{VectorMatching: true},
		})
	}
	data, err := json.Marshal(page)
	if err != nil {
		b.Fatal(err)
	}
	const owner, id = "owner", "bench-job"
	if _, err := blobs.Put(ctx, job.ResultKey(id, 0), bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	if err := store.CreateJob(ctx, &job.Job{ID: id, Owner: owner, Status: job.Done, FileName: "a.pdf",
		MimeType: "application/pdf", Models: cat.Models(), CreatedAt: now, CompletedAt: &now,
		Pages: []job.Page{{Index: 0, Width: 6000, Height: 4000}}}); err != nil {
		b.Fatal(err)
	}

	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := svc.PageDetections(ctx, job.Caller{KeyID: owner}, id, 0, job.PageOptions{Limit: n})
			if err != nil {
				b.Fatal(err)
			}
			if out.Total == 0 || out.Total == n || len(out.Detections) != out.Total {
				b.Fatalf("total %d, returned %d: the filter should keep some and drop some", out.Total, len(out.Detections))
			}
		}
	})
	// What the HTTP layer adds: the response's JSON encoding.
	b.Run("read+encode", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		for b.Loop() {
			out, err := svc.PageDetections(ctx, job.Caller{KeyID: owner}, id, 0, job.PageOptions{Limit: n})
			if err != nil {
				b.Fatal(err)
			}
			buf.Reset()
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(out); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len()), "response-bytes")
	})
}
