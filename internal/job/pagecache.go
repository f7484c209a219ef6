package job

import (
	"container/list"
	"sync"
)

// maxCachedDetections bounds the decoded result pages a Service keeps in
// memory: about 150 bytes a detection, some 30 MB in all.
const maxCachedDetections = 200_000

// pageCache keeps the decoded detections of recently read pages of done
// jobs, least recently used out first. A done job's results never change
// (processing writes them before the job becomes done, and expiry makes
// the job unreadable before deleting them), so an entry never goes stale
// while its job is readable. Safe for concurrent use.
type pageCache struct {
	mu    sync.Mutex
	max   int // detections held at most
	held  int
	order *list.List // of *cachedPage, most recent first
	byKey map[string]*list.Element
}

type cachedPage struct {
	key  string
	page storedPage
}

func newPageCache(maxDetections int) *pageCache {
	return &pageCache{max: maxDetections, order: list.New(), byKey: map[string]*list.Element{}}
}

// get returns the cached page of key; callers must not modify it.
func (c *pageCache) get(key string) (storedPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return storedPage{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedPage).page, true
}

// put keeps page under key, dropping the least recently used pages to stay
// within the bound; a page larger than the bound is not kept.
func (c *pageCache) put(key string, page storedPage) {
	n := len(page.Detections)
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return
	}
	for c.held+n > c.max {
		last := c.order.Back()
		old := last.Value.(*cachedPage)
		c.order.Remove(last)
		delete(c.byKey, old.key)
		c.held -= len(old.page.Detections)
	}
	c.byKey[key] = c.order.PushFront(&cachedPage{key: key, page: page})
	c.held += n
}
