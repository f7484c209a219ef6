package localblob

import (
	"testing"

	"blueprint/internal/job"
	"blueprint/internal/job/jobtest"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBlobsConformance(t *testing.T) {
	jobtest.RunBlobsConformance(t, func(t *testing.T) job.Blobs { return newStore(t) })
}
