package job

import (
	"container/list"
	"strconv"
	"sync"
)

// maxCachedReviews bounds the decoded page reviews a Service keeps in
// memory: about 200 bytes a review, some 40 MB in all.
const maxCachedReviews = 200_000

// reviewCache keeps the decoded reviews of recently read pages, least
// recently used out first, each with the version it was read at. Unlike
// results, reviews change: a reader checks the store's version (a read of
// the page's head, not its reviews) and uses the entry only when it
// matches, so an entry is never read stale, whichever process wrote. A
// writer that knows the entry it changed replaces it. Job IDs are never
// reused, so a version never names two states of one page. Entries are
// shared and must not be modified. Safe for concurrent use.
type reviewCache struct {
	mu    sync.Mutex
	max   int // reviews held at most
	held  int
	order *list.List // of *cachedReviews, most recent first
	byKey map[string]*list.Element
}

type cachedReviews struct {
	key string
	pr  *PageReviews
}

func newReviewCache(maxReviews int) *reviewCache {
	return &reviewCache{max: maxReviews, order: list.New(), byKey: map[string]*list.Element{}}
}

func reviewCacheKey(jobID string, page int) string { return jobID + "/" + strconv.Itoa(page) }

// get returns the cached reviews of key.
func (c *reviewCache) get(key string) (*PageReviews, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedReviews).pr, true
}

// put keeps pr under key in place of what was there, dropping the least
// recently used to stay within the bound; reviews larger than the bound
// are not kept.
func (c *reviewCache) put(key string, pr *PageReviews) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
	n := len(pr.Reviews)
	if n > c.max {
		return
	}
	for c.held+n > c.max {
		c.removeLocked(c.order.Back().Value.(*cachedReviews).key)
	}
	c.byKey[key] = c.order.PushFront(&cachedReviews{key: key, pr: pr})
	c.held += n
}

// drop forgets key.
func (c *reviewCache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
}

func (c *reviewCache) removeLocked(key string) {
	if e, ok := c.byKey[key]; ok {
		c.order.Remove(e)
		delete(c.byKey, key)
		c.held -= len(e.Value.(*cachedReviews).pr.Reviews)
	}
}
