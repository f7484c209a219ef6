// Package budget bounds the memory the service spends on documents: how
// many documents are checked or processed at once, and how many bytes
// their work may hold together. Work over the bound waits its turn (first
// come, first served); it never fails for want of memory. Work that turns
// out to hold more than it was admitted with (a page's drawing, read as it
// is walked) charges the difference as it grows: the budget may then be
// overdrawn, and new work waits until the charges are given back.
package budget

import (
	"container/list"
	"context"
	"fmt"
	"runtime/debug"
	"sync"
)

// returnAtOnce is the size of a release after which the runtime is asked
// to give freed memory back to the system at once: a released page raster
// of hundreds of megabytes would otherwise stay resident until the next
// collection, on top of the next document's.
const returnAtOnce = 64 << 20

// Gate admits document work within a memory budget and a number of
// documents at once. It is safe for concurrent use.
type Gate struct {
	total int64
	slots int
	// giveBack returns memory held outside Go's heap after a large release
	// (New).
	giveBack []func()

	mu      sync.Mutex
	used    int64      // bytes admitted and charged; may pass total through charges
	docs    int        // documents admitted
	waiters *list.List // of *waiter, first come first served
}

type waiter struct {
	n     int64
	ready chan struct{} // closed once admitted
}

// New returns a Gate for totalBytes of document memory and slots
// documents at once (both at least 1). After a release of returnAtOnce
// bytes or more it asks Go's runtime to give freed memory back to the
// system, then calls each of giveBack: memory the work held outside Go's
// heap (MuPDF's and ONNX Runtime's C heap: cmalloc.Trim).
func New(totalBytes int64, slots int, giveBack ...func()) *Gate {
	return &Gate{total: max(totalBytes, 1), slots: max(slots, 1), waiters: list.New(), giveBack: giveBack}
}

// returnFreed gives freed memory back to the system at once.
func (g *Gate) returnFreed() {
	debug.FreeOSMemory()
	for _, f := range g.giveBack {
		f()
	}
}

// Total returns the memory budget in bytes.
func (g *Gate) Total() int64 { return g.total }

// Slots returns the number of documents admitted at once.
func (g *Gate) Slots() int { return g.slots }

// Held returns the bytes admitted and charged now (more than Total while
// charges overdraw the budget).
func (g *Gate) Held() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.used
}

// Acquire waits for one document slot and n bytes of the budget (n over
// the whole budget waits for all of it, so such work runs alone), and
// returns the function that gives both back; call it exactly once. Waiters
// are admitted in the order they came. It fails only when ctx ends first,
// holding nothing then.
func (g *Gate) Acquire(ctx context.Context, n int64) (release func(), err error) {
	n = min(max(n, 0), g.total)
	g.mu.Lock()
	if g.waiters.Len() == 0 && g.fits(n) {
		g.docs++
		g.used += n
		g.mu.Unlock()
		return g.releaser(n), nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	e := g.waiters.PushBack(w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		return g.releaser(n), nil
	case <-ctx.Done():
		g.mu.Lock()
		select {
		case <-w.ready: // admitted meanwhile: give it back
			g.mu.Unlock()
			g.give(n)
		default:
			g.waiters.Remove(e)
			g.admit() // a waiter behind this one may fit now
			g.mu.Unlock()
		}
		return nil, fmt.Errorf("wait for a document slot and %d bytes of the memory budget: %w", n, ctx.Err())
	}
}

// Charge adds n bytes held by admitted work to the budget at once, without
// waiting (the memory is already in use), and returns the function that
// gives them back; call it exactly once. While charges overdraw the
// budget, new work waits.
func (g *Gate) Charge(n int64) (release func()) {
	n = max(n, 0)
	g.mu.Lock()
	g.used += n
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.used -= n
			g.admit()
			g.mu.Unlock()
			if n >= returnAtOnce {
				g.returnFreed()
			}
		})
	}
}

// fits reports whether n more bytes and one more document are within the
// bounds. Called with mu held.
func (g *Gate) fits(n int64) bool {
	return g.docs < g.slots && g.used+n <= g.total
}

// admit lets in the waiters at the head of the line that fit, in order.
// Called with mu held.
func (g *Gate) admit() {
	for e := g.waiters.Front(); e != nil; e = g.waiters.Front() {
		w := e.Value.(*waiter)
		if !g.fits(w.n) {
			return
		}
		g.waiters.Remove(e)
		g.docs++
		g.used += w.n
		close(w.ready)
	}
}

// give returns one document slot and n bytes.
func (g *Gate) give(n int64) {
	g.mu.Lock()
	g.docs--
	g.used -= n
	g.admit()
	g.mu.Unlock()
	if n >= returnAtOnce {
		g.returnFreed()
	}
}

func (g *Gate) releaser(n int64) func() {
	var once sync.Once
	return func() { once.Do(func() { g.give(n) }) }
}
