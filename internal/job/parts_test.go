package job_test

import (
	"bytes"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"blueprint/internal/boltstore"
	"blueprint/internal/catalog"
	"blueprint/internal/httpapi"
	"blueprint/internal/job"
	"blueprint/internal/localblob"
	"blueprint/internal/signing"
)

// serviceParts are the real adapters a job.Service of these tests runs
// on: a bbolt store and local blobs in a temporary directory, the default
// catalog, local links signed with a fixed secret and a quiet logger.
type serviceParts struct {
	store *boltstore.Store
	blobs *localblob.Store
	cfg   job.Config // Store, Blobs, Catalog, Links and Logger set
}

func newServiceParts(t testing.TB) serviceParts {
	t.Helper()
	dir := t.TempDir()
	store, err := boltstore.Open(filepath.Join(dir, "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	blobs, err := localblob.New(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := signing.New(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return serviceParts{store: store, blobs: blobs, cfg: job.Config{
		Store: store, Blobs: blobs, Catalog: cat,
		Links:  httpapi.NewLocalLinks("http://127.0.0.1:8080", signer),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}}
}
