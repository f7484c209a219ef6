package job

import (
	"fmt"
	"testing"

	"blueprint/internal/detect"
)

func TestReviewCacheBound(t *testing.T) {
	c := newReviewCache(10)
	pr := func(n int, v int64) *PageReviews { return &PageReviews{Reviews: make([]Review, n), Version: v} }
	c.put("a", pr(4, 1))
	c.put("b", pr(4, 1))
	c.put("a", pr(5, 2)) // replaced, not added
	if c.held != 9 {
		t.Fatalf("held %d, want 9", c.held)
	}
	c.put("c", pr(3, 1)) // b, least recently used, goes
	if _, ok := c.get("b"); ok {
		t.Error("b kept past the bound")
	}
	if got, ok := c.get("a"); !ok || got.Version != 2 {
		t.Errorf("a = %+v, %v", got, ok)
	}
	c.put("d", pr(11, 1)) // larger than the bound: not kept
	if _, ok := c.get("d"); ok || c.held != 8 {
		t.Errorf("an entry over the bound was kept (held %d)", c.held)
	}
	c.drop("a")
	if _, ok := c.get("a"); ok || c.held != 3 {
		t.Errorf("after drop: held %d", c.held)
	}
}

// TestApplyMany checks Apply with enough reviews to index the page: a
// review of a stored detection replaced in place, new ones appended once
// each, a deleted one gone, Added counted.
func TestApplyMany(t *testing.T) {
	pr := &PageReviews{Reviews: []Review{{DetectionID: "a"}, {DetectionID: "b"}, {DetectionID: "c"}}, Version: 3}
	u := PageReviewsUpdate{Version: 3, Delete: []string{"b"}}
	u.Put = append(u.Put, Review{DetectionID: "c", Decision: DecisionRejected})
	for _, id := range []string{"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n2"} {
		u.Put = append(u.Put, Review{DetectionID: id, Decision: DecisionAdded, Box: &detect.Box{W: 1, H: 1}})
	}
	pr.Apply(u)
	var got []string
	for _, r := range pr.Reviews {
		got = append(got, r.DetectionID+":"+r.Decision)
	}
	want := "[a: c:rejected n1:added n2:added n3:added n4:added n5:added n6:added n7:added n8:added]"
	if fmt.Sprint(got) != want || pr.Version != 4 || pr.Added != 8 {
		t.Errorf("Apply: %v, version %d, added %d; want %s, 4, 8", got, pr.Version, pr.Added, want)
	}
}
