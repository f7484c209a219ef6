package job

import (
	"context"
	"fmt"
	"testing"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
)

// pathLinks builds unsigned URLs from fixed paths: enough for the views,
// which only embed the strings.
type pathLinks struct{}

func (pathLinks) UploadURL(_ context.Context, j *Job) (string, error) { return "/uploads/" + j.ID, nil }
func (pathLinks) JobURL(jobID string) string                          { return "/v1/jobs/" + jobID }
func (pathLinks) DetectionsURL(jobID string, page int) string {
	return fmt.Sprintf("/v1/jobs/%s/pages/%d/detections", jobID, page)
}
func (pathLinks) PageImageURL(_ context.Context, jobID string, page int, _ time.Time) (string, error) {
	return fmt.Sprintf("/files/pages/%s/%d.png", jobID, page), nil
}
func (pathLinks) IconURL(class string) string { return "/v1/symbols/" + class + "/icon" }

// BenchmarkFilterAndViews is the catalog-bound part of a per-page read of
// 2000 decoded detections, without the blob read and JSON decoding: the
// per-class filter (one threshold look-up per detection) and the views of
// the kept detections (one symbol look-up each).
func BenchmarkFilterAndViews(b *testing.B) {
	cat, err := catalog.Load("")
	if err != nil {
		b.Fatal(err)
	}
	s := &Service{cfg: Config{Catalog: cat, Links: pathLinks{}}}
	syms := cat.Symbols()
	var sp storedPage
	for i := range MaxPageLimit {
		sp.Detections = append(sp.Detections, storedDetection{ID: fmt.Sprint(i), Class: syms[i%len(syms)].Class,
			Confidence: detect.StoredFloor + float64(i%90)/100, Box: detect.Box{X: 1, Y: 2, W: 3, H: 4}})
	}
	j := &Job{Models: cat.Models()}
	p := Page{Index: 0, Width: 6000, Height: 4000}
	b.ReportAllocs()
	for b.Loop() {
		kept := sp.visible(s.filter(j, nil))
		if len(kept) == 0 || len(kept) == len(sp.Detections) {
			b.Fatalf("kept %d of %d", len(kept), len(sp.Detections))
		}
		syms := s.symbolViews("en")
		for _, d := range kept {
			_ = s.detectionView(d, p, syms)
		}
	}
}
