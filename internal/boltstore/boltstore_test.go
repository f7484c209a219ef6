package boltstore

import (
	"path/filepath"
	"testing"

	"blueprint/internal/job"
	"blueprint/internal/job/jobtest"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func TestStoreConformance(t *testing.T) {
	jobtest.RunStoreConformance(t, func(t *testing.T) job.Store { return newStore(t) })
}
