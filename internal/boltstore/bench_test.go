package boltstore

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"blueprint/internal/job"
)

// BenchmarkCreateJob measures one fsynced job write.
func BenchmarkCreateJob(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "jobs.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		j := &job.Job{ID: fmt.Sprintf("job_%09d", i), Status: job.Queued, CreatedAt: t0.Add(time.Duration(i))}
		if err := s.CreateJob(ctx, j); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListJobs lists the 100 oldest queued jobs among 10 000 jobs in
// four states.
func BenchmarkListJobs(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "jobs.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	states := []job.State{job.Queued, job.Processing, job.Done, job.Failed}
	// One transaction for the setup; CreateJob's own commits are measured
	// by BenchmarkCreateJob.
	err = s.db.Update(func(tx *bolt.Tx) error {
		for i := range 10000 {
			j := &job.Job{ID: fmt.Sprintf("job_%09d", i), Status: states[i%4], CreatedAt: t0.Add(-time.Duration(i) * time.Second)}
			data, err := json.Marshal(j)
			if err != nil {
				return err
			}
			if err := tx.Bucket(bucketJobs).Put([]byte(j.ID), data); err != nil {
				return err
			}
			if err := addIndexes(tx, j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		ids, err := s.ListJobs(ctx, job.Queued, 100)
		if err != nil || len(ids) != 100 {
			b.Fatal(len(ids), err)
		}
	}
}
