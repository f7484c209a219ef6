// Package unionfind provides disjoint sets over the indices 0..n-1: the
// groups a reader builds by joining items that belong together (rows into
// a table, runs into a title block, characters into a line of text, runs
// of ink into a piece).
package unionfind

// Sets is a union-find over 0..n-1, indexed by T: int, or int32 where a
// page's millions of pieces make the width count. An item appended as
// its own index (append(s, T(len(s)))) is a new set of its own.
type Sets[T ~int | ~int32] []T

// New returns n items, each its own set.
func New[T ~int | ~int32](n int) Sets[T] {
	s := make(Sets[T], n)
	for i := range s {
		s[i] = T(i)
	}
	return s
}

// Find returns the representative of i's set, halving the path to it.
func (s Sets[T]) Find(i T) T {
	for s[i] != i {
		s[i] = s[s[i]]
		i = s[i]
	}
	return i
}

// Join puts a's set and b's into one. Which item represents the joined
// set is not promised.
func (s Sets[T]) Join(a, b T) {
	if ra, rb := s.Find(a), s.Find(b); ra != rb {
		s[ra] = rb
	}
}

// Roots sets every item to its set's representative and returns s: item
// i's set is then s[i].
func (s Sets[T]) Roots() Sets[T] {
	for i := range s {
		s[i] = s.Find(T(i))
	}
	return s
}

// Groups returns the items of each set, sets in the order of their first
// item and items in order.
func (s Sets[T]) Groups() [][]T {
	at := map[T]int{}
	var out [][]T
	for i := range s {
		r := s.Find(T(i))
		k, ok := at[r]
		if !ok {
			k = len(out)
			at[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], T(i))
	}
	return out
}
