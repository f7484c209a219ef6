// Package budget bounds the memory the service spends on documents: how
// many documents are checked or processed at once, and how many bytes
// their work may hold together. Work over the bound waits its turn (first
// come, first served); it never fails for want of memory.
package budget

import (
	"context"
	"fmt"
	"runtime/debug"

	"golang.org/x/sync/semaphore"
)

// returnAtOnce is the size of a release after which the runtime is asked
// to give freed memory back to the system at once: a released page raster
// of hundreds of megabytes would otherwise stay resident until the next
// collection, on top of the next document's.
const returnAtOnce = 64 << 20

// Gate admits document work within a memory budget and a number of
// documents at once. It is safe for concurrent use.
type Gate struct {
	bytes *semaphore.Weighted
	docs  *semaphore.Weighted
	total int64
	slots int
}

// New returns a Gate for totalBytes of document memory and slots
// documents at once (both at least 1).
func New(totalBytes int64, slots int) *Gate {
	totalBytes, slots = max(totalBytes, 1), max(slots, 1)
	return &Gate{bytes: semaphore.NewWeighted(totalBytes), docs: semaphore.NewWeighted(int64(slots)), total: totalBytes, slots: slots}
}

// Total returns the memory budget in bytes.
func (g *Gate) Total() int64 { return g.total }

// Slots returns the number of documents admitted at once.
func (g *Gate) Slots() int { return g.slots }

// Acquire waits for one document slot and n bytes of the budget (n over
// the whole budget waits for all of it, so such work runs alone), and
// returns the function that gives both back; call it exactly once. It
// fails only when ctx ends first, holding nothing then.
func (g *Gate) Acquire(ctx context.Context, n int64) (release func(), err error) {
	n = min(max(n, 0), g.total)
	if err := g.docs.Acquire(ctx, 1); err != nil {
		return nil, fmt.Errorf("wait for a document slot: %w", err)
	}
	if err := g.bytes.Acquire(ctx, n); err != nil {
		g.docs.Release(1)
		return nil, fmt.Errorf("wait for %d bytes of the memory budget: %w", n, err)
	}
	return func() {
		g.bytes.Release(n)
		g.docs.Release(1)
		if n >= returnAtOnce {
			debug.FreeOSMemory()
		}
	}, nil
}
