package job

import (
	"fmt"
	"testing"
)

// TestPageCacheBound: the cache holds at most its bound of detections,
// drops the least recently used page first, and never keeps a page over
// the bound.
func TestPageCacheBound(t *testing.T) {
	page := func(n int) storedPage { return storedPage{Detections: make([]storedDetection, n)} }
	c := newPageCache(10)
	c.put("a", page(4))
	c.put("b", page(4))
	if _, ok := c.get("a"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.put("c", page(4)) // over 10: b, the least recent, goes
	if _, ok := c.get("b"); ok {
		t.Error("b kept past the bound")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%s dropped", k)
		}
	}
	c.put("huge", page(11))
	if _, ok := c.get("huge"); ok || c.held > 10 {
		t.Errorf("a page over the bound was kept (%d held)", c.held)
	}
	for i := range 100 {
		c.put(fmt.Sprint(i), page(i%5))
		if c.held > 10 || c.held != sum(c) {
			t.Fatalf("held %d (counted %d) after %d puts", c.held, sum(c), i)
		}
	}
}

func sum(c *pageCache) int {
	n := 0
	for e := c.order.Front(); e != nil; e = e.Next() {
		n += len(e.Value.(*cachedPage).page.Detections)
	}
	return n
}
