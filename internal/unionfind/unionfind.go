// Package unionfind provides disjoint sets over the indices 0..n-1: the
// groups a reader builds by joining items that belong together (rows into
// a table, runs into a title block, characters into a line of text).
package unionfind

// Sets is a union-find over 0..n-1.
type Sets []int

// New returns n items, each its own set.
func New(n int) Sets {
	s := make(Sets, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Find returns the representative of i's set, halving the path to it.
func (s Sets) Find(i int) int {
	for s[i] != i {
		s[i] = s[s[i]]
		i = s[i]
	}
	return i
}

// Join puts a's set and b's into one.
func (s Sets) Join(a, b int) {
	if ra, rb := s.Find(a), s.Find(b); ra != rb {
		s[ra] = rb
	}
}
