package turns

import (
	"context"
	"errors"
	"testing"
	"time"
)

// acquireAsync starts an Acquire and returns the channel its result
// arrives on.
func acquireAsync(q *Queue, ctx context.Context, key string) <-chan func() {
	ch := make(chan func(), 1)
	go func() {
		rel, err := q.Acquire(ctx, key)
		if err != nil {
			close(ch)
			return
		}
		ch <- rel
	}()
	return ch
}

// waitFor waits until the queue holds want waiters of key.
func waitFor(t *testing.T, q *Queue, key string, want int) {
	t.Helper()
	for range 2000 {
		q.mu.Lock()
		n := 0
		if k := q.keys[key]; k != nil {
			n = len(k.waiters)
		}
		q.mu.Unlock()
		if n == want {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("key %s: never %d waiting", key, want)
}

func TestPerKeyShareLeavesRoomForOthers(t *testing.T) {
	q := New(2, 1, 3)
	ctx := context.Background()
	a1, err := q.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	// a's second waits though a slot is free: a holds its share.
	a2 := acquireAsync(q, ctx, "a")
	waitFor(t, q, "a", 1)
	// b takes the free slot at once.
	b1, err := q.Acquire(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	b1()
	select {
	case <-a2:
		t.Fatal("a's second work ran beside its first")
	case <-time.After(20 * time.Millisecond):
	}
	a1()
	rel := <-a2
	if rel == nil {
		t.Fatal("a's second work was refused")
	}
	rel()
}

func TestBusyPastTheWaitingShare(t *testing.T) {
	q := New(1, 1, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rel, err := q.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	w1 := acquireAsync(q, ctx, "a")
	waitFor(t, q, "a", 1)
	w2 := acquireAsync(q, ctx, "a")
	waitFor(t, q, "a", 2)
	if _, err := q.Acquire(ctx, "a"); !errors.Is(err, ErrBusy) {
		t.Fatalf("a fourth work of one key: %v, want ErrBusy", err)
	}
	// Another key still queues.
	wb := acquireAsync(q, ctx, "b")
	waitFor(t, q, "b", 1)
	rel()
	// b was next in turn after a's first waiter.
	r := <-w1
	r()
	r = <-wb
	r()
	r = <-w2
	r()
}

func TestKeysServedInTurn(t *testing.T) {
	q := New(1, 1, 10)
	ctx := context.Background()
	rel, err := q.Acquire(ctx, "hog")
	if err != nil {
		t.Fatal(err)
	}
	var hogs []<-chan func()
	for i := range 5 {
		hogs = append(hogs, acquireAsync(q, ctx, "hog"))
		waitFor(t, q, "hog", i+1)
	}
	other := acquireAsync(q, ctx, "other")
	waitFor(t, q, "other", 1)
	rel()
	// The hog's first waiter came first; the other key is next, before
	// the hog's four others.
	r := <-hogs[0]
	select {
	case <-other:
		t.Fatal("other admitted while the hog's work runs in the only slot")
	default:
	}
	r()
	select {
	case r = <-other:
	case <-time.After(2 * time.Second):
		t.Fatal("the other key waited behind the hog's queue")
	}
	for _, h := range hogs[1:] {
		select {
		case <-h:
			t.Fatal("a hog's work ran beside the other key's")
		default:
		}
	}
	r()
	for _, h := range hogs[1:] {
		(<-h)()
	}
	if len(q.keys) != 0 || len(q.ring) != 0 || q.running != 0 {
		t.Errorf("state left after all work: keys %v ring %v running %d", q.keys, q.ring, q.running)
	}
}

func TestCancelledWaiterLeavesNothing(t *testing.T) {
	q := New(1, 1, 2)
	rel, err := q.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := q.Acquire(ctx, "b"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting past the deadline: %v", err)
	}
	rel()
	if len(q.keys) != 0 || len(q.ring) != 0 || q.running != 0 {
		t.Errorf("state left: keys %v ring %v running %d", q.keys, q.ring, q.running)
	}
	// The slot is free again.
	rel, err = q.Acquire(context.Background(), "b")
	if err != nil {
		t.Fatal(err)
	}
	rel()
}
