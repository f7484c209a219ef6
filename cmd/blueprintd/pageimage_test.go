package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strconv"
	"testing"

	"blueprint/internal/job"
	"blueprint/internal/localblob"
)

// TestPageImageStreams checks that image_url serves exactly the stored PNG
// of each page (streamed from the blob store, with its length), and that a
// page image missing from storage is still a 404 in the JSON error shape.
func TestPageImageStreams(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, dir, options{runner: runnerOpts(), engine: scriptedEngine()})
	id := doneJob(t, e, keyA, nil)
	blobs, err := localblob.New(filepath.Join(dir, blobsDir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	stored := func(page int) []byte {
		rc, err := blobs.Get(ctx, job.ImageKey(id, page))
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	m := e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).JSON(t)
	pages := m["pages"].([]any)
	if len(pages) != 2 {
		t.Fatalf("pages: %v", pages)
	}
	urls := make([]string, len(pages))
	for i, p := range pages {
		urls[i] = p.(map[string]any)["image_url"].(string)
		want := stored(i)
		r := e.do("GET", urls[i], "", nil, nil)
		if r.Status != 200 || r.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("page %d: %d %s", i, r.Status, r.Header)
		}
		if !bytes.Equal(r.Body, want) {
			t.Fatalf("page %d: served %d bytes that differ from the %d stored", i, len(r.Body), len(want))
		}
		if r.Header.Get("Content-Length") != strconv.Itoa(len(want)) {
			t.Fatalf("page %d: Content-Length %q, stored %d bytes", i, r.Header.Get("Content-Length"), len(want))
		}
	}

	if err := blobs.Delete(ctx, job.ImageKey(id, 1)); err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", urls[1], "", nil, nil)
	if r.Status != 404 || r.Code(t) != "not_found" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("missing image: %d %s %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	// A blob that is not a PNG is a 500 in the error shape, not a stream.
	if _, err := blobs.Put(ctx, job.ImageKey(id, 1), bytes.NewReader([]byte("GIF89a not a png"))); err != nil {
		t.Fatal(err)
	}
	r = e.do("GET", urls[1], "", nil, nil)
	if r.Status != 500 || r.Code(t) != "internal_error" {
		t.Fatalf("corrupt image: %d %s", r.Status, r.Body)
	}
}
