package job_test

import (
	"context"
	"testing"

	"blueprint/internal/document/documenttest"
	"blueprint/internal/job"
)

// TestSearchAnyColour: a search from a black symbol finds its black copy
// and, by default, gives the red one back as a near miss "another_colour";
// with any_colour it is a match and no near miss is about colour.
func TestSearchAnyColour(t *testing.T) {
	ctx := context.Background()
	symbol := documenttest.CircleOps(0, 0, 6) + " 6 0 m 18 0 l 18 10 l S"
	at := func(x, y string) string { return "q 1 0 0 1 " + x + " " + y + " cm " + symbol + " Q " }
	content := "1 w " + at("40", "250") + at("200", "150") + "1 0 0 RG " + at("300", "60")
	e := processedDoc(t, documenttest.PDF(documenttest.Page{MediaBox: "[0 0 400 300]", Content: content}))
	owner := job.Caller{KeyID: "owner"}
	page := 0
	// The box around the symbol at (40, 250) pt: 3 pt round it.
	box := &job.BoxView{X: 31.0 / 400, Y: 37.0 / 300, Width: 30.0 / 400, Height: 22.0 / 300}
	for _, any := range []bool{false, true} {
		req := job.SearchRequest{PageIndex: &page, BBoxNorm: box, AnyColour: &any}
		r, err := e.svc.Search(ctx, owner, "doc", req)
		if err != nil {
			t.Fatal(err)
		}
		colourMisses := 0
		for _, n := range r.NearMisses {
			if n.Reason == "another_colour" {
				colourMisses++
			}
		}
		want, wantMisses := 2, 1
		if any {
			want, wantMisses = 3, 0
		}
		if r.Total != want || colourMisses != wantMisses {
			t.Errorf("any_colour %v: %d matches, %d near misses for colour; want %d and %d", any, r.Total, colourMisses, want, wantMisses)
		}
	}
}

// processedDoc is a service that has processed data as job "doc" of key
// "owner", with the production engine (raster detector off).
func processedDoc(t *testing.T, data []byte) *batchEnv {
	t.Helper()
	e := newBatchEnv(t, 100)
	e.queue(t, "doc", data)
	if err := e.svc.Process(context.Background(), "doc"); err != nil {
		t.Fatal(err)
	}
	return e
}
