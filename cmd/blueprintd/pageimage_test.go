package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"blueprint/internal/httpapi"
	"blueprint/internal/job"
	"blueprint/internal/localblob"
	"blueprint/internal/signing"
)

// TestPageImageStreams checks that image_url serves exactly the stored PNG
// of each page (streamed from the blob store, with its length): the local
// server stores none while processing (job.Config.LazyPageImages), renders
// a page's on its first GET and keeps it. A page image missing from
// storage is rendered again; a page past the end is a 404 and a stored
// image that is not a PNG a 500, both in the JSON error shape.
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
		if errors.Is(err, job.ErrNotFound) {
			return nil
		}
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
		if stored(i) != nil {
			t.Fatalf("page %d: an image stored before its first GET", i)
		}
		urls[i] = p.(map[string]any)["image_url"].(string)
		r := e.do("GET", urls[i], "", nil, nil)
		if r.Status != 200 || r.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("page %d: %d %s", i, r.Status, r.Header)
		}
		want := stored(i)
		if want == nil || !bytes.Equal(r.Body, want) {
			t.Fatalf("page %d: served %d bytes that differ from the %d stored", i, len(r.Body), len(want))
		}
		if r.Header.Get("Content-Length") != strconv.Itoa(len(want)) {
			t.Fatalf("page %d: Content-Length %q, stored %d bytes", i, r.Header.Get("Content-Length"), len(want))
		}
		if again := e.do("GET", urls[i], "", nil, nil); again.Status != 200 || !bytes.Equal(again.Body, want) {
			t.Fatalf("page %d, second GET: %d, %d bytes", i, again.Status, len(again.Body))
		}
	}

	first := stored(1)
	if err := blobs.Delete(ctx, job.ImageKey(id, 1)); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", urls[1], "", nil, nil); r.Status != 200 || !bytes.Equal(r.Body, first) || !bytes.Equal(stored(1), first) {
		t.Fatalf("deleted image: %d, %d bytes, want the same PNG rendered and stored again", r.Status, len(r.Body))
	}
	signer, err := signing.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	past, err := httpapi.NewLocalLinks(e.base, signer).PageImageURL(ctx, id, 2, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", past, "", nil, nil); r.Status != 404 || r.Code(t) != "not_found" || stored(2) != nil {
		t.Fatalf("page past the end: %d %s", r.Status, r.Body)
	}
	// A blob that is not a PNG is a 500 in the error shape, not a stream.
	if _, err := blobs.Put(ctx, job.ImageKey(id, 1), bytes.NewReader([]byte("GIF89a not a png"))); err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", urls[1], "", nil, nil)
	if r.Status != 500 || r.Code(t) != "internal_error" {
		t.Fatalf("corrupt image: %d %s", r.Status, r.Body)
	}
}
