package jobtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"testing"
	"time"

	"blueprint/internal/job"
)

// RunHandoffsConformance checks every promise of job.Handoffs against
// stores made by newHandoffs. Each call of newHandoffs must return a new,
// empty store whose cleanup is registered on the t it was given. Subtests
// run in parallel.
func RunHandoffsConformance(t *testing.T, newHandoffs func(t *testing.T) job.Handoffs) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s job.Handoffs)
	}{
		{"TakeOnce", handoffTakeOnce},
		{"Unknown", handoffUnknown},
		{"Expired", handoffExpired},
		{"PutExisting", handoffPutExisting},
		{"ConcurrentTakesOneWinner", handoffConcurrent},
		{"TokensApart", handoffTokensApart},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newHandoffs(t))
		})
	}
}

// tokenHash is the hash a store is given for token.
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func newHandoff(token string) job.Handoff {
	return job.Handoff{TokenHash: tokenHash(token), KeyID: "key_1", JobID: "job-" + token, ExpiresAt: t0.Add(5 * time.Minute)}
}

func mustPutHandoff(t *testing.T, s job.Handoffs, h job.Handoff) {
	t.Helper()
	if err := s.PutHandoff(context.Background(), h); err != nil {
		t.Fatalf("PutHandoff: %v", err)
	}
}

func handoffTakeOnce(t *testing.T, s job.Handoffs) {
	h := newHandoff("a")
	mustPutHandoff(t, s, h)
	got, err := s.TakeHandoff(context.Background(), h.TokenHash, t0.Add(time.Minute))
	if err != nil {
		t.Fatalf("first take: %v", err)
	}
	if got.KeyID != h.KeyID || got.JobID != h.JobID || !got.ExpiresAt.Equal(h.ExpiresAt) {
		t.Errorf("took %+v, stored %+v", got, h)
	}
	if _, err := s.TakeHandoff(context.Background(), h.TokenHash, t0.Add(2*time.Minute)); !errors.Is(err, job.ErrHandoffUsed) {
		t.Errorf("second take: %v, want ErrHandoffUsed", err)
	}
}

func handoffUnknown(t *testing.T, s job.Handoffs) {
	mustPutHandoff(t, s, newHandoff("a"))
	if _, err := s.TakeHandoff(context.Background(), tokenHash("b"), t0); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("take of a token never stored: %v, want ErrNotFound", err)
	}
}

func handoffExpired(t *testing.T, s job.Handoffs) {
	h := newHandoff("a")
	mustPutHandoff(t, s, h)
	for _, at := range []time.Time{h.ExpiresAt, h.ExpiresAt.Add(time.Minute)} {
		if _, err := s.TakeHandoff(context.Background(), h.TokenHash, at); !errors.Is(err, job.ErrHandoffExpired) {
			t.Errorf("take at %s, expiry %s: %v, want ErrHandoffExpired", at, h.ExpiresAt, err)
		}
	}
	// Just before expiry it still works, once.
	h2 := newHandoff("b")
	mustPutHandoff(t, s, h2)
	if _, err := s.TakeHandoff(context.Background(), h2.TokenHash, h2.ExpiresAt.Add(-time.Millisecond)); err != nil {
		t.Errorf("take a millisecond before expiry: %v", err)
	}
}

func handoffPutExisting(t *testing.T, s job.Handoffs) {
	h := newHandoff("a")
	mustPutHandoff(t, s, h)
	other := h
	other.KeyID = "key_2"
	if err := s.PutHandoff(context.Background(), other); !errors.Is(err, job.ErrExists) {
		t.Fatalf("put of an existing hash: %v, want ErrExists", err)
	}
	got, err := s.TakeHandoff(context.Background(), h.TokenHash, t0)
	if err != nil || got.KeyID != "key_1" {
		t.Errorf("take after a refused put: %+v %v, want the first record", got, err)
	}
}

func handoffConcurrent(t *testing.T, s job.Handoffs) {
	h := newHandoff("a")
	mustPutHandoff(t, s, h)
	const n = 16
	var (
		wg               sync.WaitGroup
		mu               sync.Mutex
		won, used, other int
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.TakeHandoff(context.Background(), h.TokenHash, t0.Add(time.Second))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, job.ErrHandoffUsed):
				used++
			default:
				other++
				t.Errorf("concurrent take: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || used != n-1 {
		t.Errorf("%d concurrent takes: %d won, %d used, %d other; want exactly one winner", n, won, used, other)
	}
}

func handoffTokensApart(t *testing.T, s job.Handoffs) {
	a, b := newHandoff("a"), newHandoff("b")
	mustPutHandoff(t, s, a)
	mustPutHandoff(t, s, b)
	if _, err := s.TakeHandoff(context.Background(), a.TokenHash, t0); err != nil {
		t.Fatal(err)
	}
	got, err := s.TakeHandoff(context.Background(), b.TokenHash, t0)
	if err != nil || got.JobID != b.JobID {
		t.Errorf("take of b after a: %+v %v", got, err)
	}
}
