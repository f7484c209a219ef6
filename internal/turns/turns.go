// Package turns shares a few slots among many keys, key by key in turn:
// work of one key never holds more than its share of the slots, never
// queues more than a few deep, and waiting work is admitted one key after
// another (round robin), so one key's many requests cannot keep another
// key's one request waiting behind them. The service gives "find more
// like this" searches their own Queue, apart from the document slots that
// start checks and jobs wait for.
package turns

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrBusy is the error of work refused at once because its key already
// has as much work running and waiting as the queue allows.
var ErrBusy = errors.New("turns: the key already has its share of work running and waiting")

// Queue admits work to Slots slots, at most PerKey of one key's work at
// once and at most Waiting of one key's work waiting. It is safe for
// concurrent use.
type Queue struct {
	slots, perKey, waiting int

	mu      sync.Mutex
	running int
	keys    map[string]*keyTurns
	ring    []string // keys with work waiting, in the order they are served
}

type keyTurns struct {
	running int
	waiters []chan struct{} // first come first served within the key
}

// New returns a Queue of slots slots, perKey of them at most for one
// key's work at once, and waiting of one key's work waiting at most (each
// at least 1, waiting at least 0).
func New(slots, perKey, waiting int) *Queue {
	return &Queue{slots: max(slots, 1), perKey: min(max(perKey, 1), max(slots, 1)), waiting: max(waiting, 0), keys: map[string]*keyTurns{}}
}

// Acquire takes a slot for key's work and returns the function that gives
// it back; call it exactly once. It waits while every slot is taken or
// the key holds its share, and fails at once with ErrBusy when the key
// already has its share running and Waiting more waiting, or with ctx's
// error when ctx ends before a slot is free (holding nothing then).
func (q *Queue) Acquire(ctx context.Context, key string) (release func(), err error) {
	q.mu.Lock()
	k := q.keys[key]
	if k == nil {
		k = &keyTurns{}
		q.keys[key] = k
	}
	if len(k.waiters) == 0 && q.running < q.slots && k.running < q.perKey {
		q.take(k)
		q.mu.Unlock()
		return q.releaser(key), nil
	}
	if len(k.waiters) >= q.waiting {
		q.forget(key, k)
		q.mu.Unlock()
		return nil, ErrBusy
	}
	ready := make(chan struct{})
	if len(k.waiters) == 0 {
		q.ring = append(q.ring, key)
	}
	k.waiters = append(k.waiters, ready)
	q.mu.Unlock()
	select {
	case <-ready:
		return q.releaser(key), nil
	case <-ctx.Done():
		q.mu.Lock()
		select {
		case <-ready: // admitted meanwhile: give the slot back
			q.mu.Unlock()
			q.give(key)
		default:
			for i, w := range k.waiters {
				if w == ready {
					k.waiters = append(k.waiters[:i], k.waiters[i+1:]...)
					break
				}
			}
			if len(k.waiters) == 0 {
				q.unring(key)
			}
			q.forget(key, k)
			q.mu.Unlock()
		}
		return nil, fmt.Errorf("turns: wait for a slot: %w", ctx.Err())
	}
}

// take gives a slot to k's work. Called with mu held.
func (q *Queue) take(k *keyTurns) {
	q.running++
	k.running++
}

// give returns a slot of key's work and admits waiting work in turn.
func (q *Queue) give(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	k := q.keys[key]
	q.running--
	k.running--
	q.admit()
	q.forget(key, k)
}

// admit lets waiting work in while slots are free, one key after another
// from the front of the ring; a key served goes to the back while it has
// work still waiting, and a key at its share is passed over. Called with
// mu held.
func (q *Queue) admit() {
	for q.running < q.slots {
		served := false
		for i, key := range q.ring {
			k := q.keys[key]
			if k.running >= q.perKey {
				continue
			}
			ready := k.waiters[0]
			k.waiters = k.waiters[1:]
			q.take(k)
			close(ready)
			q.ring = append(q.ring[:i], q.ring[i+1:]...)
			if len(k.waiters) > 0 {
				q.ring = append(q.ring, key)
			}
			served = true
			break
		}
		if !served {
			return
		}
	}
}

// unring takes key out of the ring. Called with mu held.
func (q *Queue) unring(key string) {
	for i, k := range q.ring {
		if k == key {
			q.ring = append(q.ring[:i], q.ring[i+1:]...)
			return
		}
	}
}

// forget drops the state of a key with nothing running or waiting, so the
// map holds only keys at work. Called with mu held.
func (q *Queue) forget(key string, k *keyTurns) {
	if k.running == 0 && len(k.waiters) == 0 {
		delete(q.keys, key)
	}
}

func (q *Queue) releaser(key string) func() {
	var once sync.Once
	return func() { once.Do(func() { q.give(key) }) }
}
