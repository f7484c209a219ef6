package budget

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestGateBoundsBytesAndSlots: concurrent work never holds more than the
// budget or the slots, all of it runs (waiting, not failing), and work
// larger than the budget runs alone.
func TestGateBoundsBytesAndSlots(t *testing.T) {
	g := New(100, 3)
	var held, docs, maxHeld, maxDocs atomic.Int64
	var wg sync.WaitGroup
	sizes := []int64{10, 60, 40, 30, 250, 5, 90, 50, 20, 70}
	for _, n := range sizes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := g.Acquire(context.Background(), n)
			if err != nil {
				t.Error(err)
				return
			}
			h, d := held.Add(min(n, 100)), docs.Add(1)
			for _, p := range []struct {
				m *atomic.Int64
				v int64
			}{{&maxHeld, h}, {&maxDocs, d}} {
				for old := p.m.Load(); p.v > old && !p.m.CompareAndSwap(old, p.v); old = p.m.Load() {
				}
			}
			time.Sleep(5 * time.Millisecond)
			held.Add(-min(n, 100))
			docs.Add(-1)
			release()
		}()
	}
	wg.Wait()
	if maxHeld.Load() > 100 || maxDocs.Load() > 3 {
		t.Fatalf("held %d bytes and %d documents at once; budget 100 and 3", maxHeld.Load(), maxDocs.Load())
	}
	if maxDocs.Load() < 2 {
		t.Errorf("never more than %d document at once: the gate serialised everything", maxDocs.Load())
	}
}

// TestGateWaitEndsWithContext: a waiter whose context ends gets its error
// and holds nothing.
func TestGateWaitEndsWithContext(t *testing.T) {
	g := New(10, 1)
	release, err := g.Acquire(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.Acquire(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
	release()
	r2, err := g.Acquire(context.Background(), 10)
	if err != nil {
		t.Fatalf("the cancelled waiter kept something: %v", err)
	}
	r2()
}

// TestChargeOverdrawsAndHoldsNewWork: a charge is taken at once even past
// the budget, new work waits until it is given back, and giving it back
// admits the waiter.
func TestChargeOverdrawsAndHoldsNewWork(t *testing.T) {
	g := New(100, 4)
	release, err := g.Acquire(context.Background(), 80)
	if err != nil {
		t.Fatal(err)
	}
	undo := g.Charge(50) // the admitted work's drawing grew past its estimate
	if got := g.Held(); got != 130 {
		t.Fatalf("held %d after the charge, want 130", got)
	}
	admitted := make(chan func(), 1)
	go func() {
		r, err := g.Acquire(context.Background(), 10)
		if err != nil {
			t.Error(err)
		}
		admitted <- r
	}()
	select {
	case <-admitted:
		t.Fatal("new work was admitted while the budget was overdrawn")
	case <-time.After(50 * time.Millisecond):
	}
	undo()
	undo()          // twice is harmless
	r := <-admitted // 80 + 10 fits once the charge is given back
	if got := g.Held(); got != 90 {
		t.Errorf("held %d, want 90", got)
	}
	release()
	r()
	if got := g.Held(); got != 0 {
		t.Errorf("held %d after every release, want 0", got)
	}
}

// A release of returnAtOnce bytes or more, by Acquire's release or a
// Charge's, calls each giveBack once; a smaller one none.
func TestLargeReleaseGivesBackCHeap(t *testing.T) {
	calls := 0
	g := New(1<<30, 2, func() { calls++ }, func() { calls += 10 })
	small, err := g.Acquire(context.Background(), returnAtOnce-1)
	if err != nil {
		t.Fatal(err)
	}
	small()
	g.Charge(1 << 20)()
	if calls != 0 {
		t.Fatalf("a release under %d bytes gave back memory (%d calls)", returnAtOnce, calls)
	}
	large, err := g.Acquire(context.Background(), returnAtOnce)
	if err != nil {
		t.Fatal(err)
	}
	large()
	large() // released once only
	if calls != 11 {
		t.Fatalf("after one large release: %d, want each giveBack once (11)", calls)
	}
	release := g.Charge(returnAtOnce)
	release()
	if calls != 22 {
		t.Fatalf("after a large charge's release: %d, want 22", calls)
	}
}
