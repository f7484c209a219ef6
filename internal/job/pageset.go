package job

import "math/bits"

// PageSet is a set of page indexes kept as a bitmap: bit i%8 of byte i/8
// is page i. It is stored as JSON's base64 of those bytes, so the record
// of a 500-page job's finished pages is 63 bytes (84 characters) however
// many pages are done. The zero value is the empty set.
type PageSet []byte

// Add returns the set with page i in it (i ≥ 0); s itself is changed
// where it is long enough.
func (s PageSet) Add(i int) PageSet {
	if i < 0 {
		return s
	}
	if n := i/8 + 1; len(s) < n {
		s = append(s, make([]byte, n-len(s))...)
	}
	s[i/8] |= 1 << (i % 8)
	return s
}

// AddRange returns the set with pages first to end-1 in it.
func (s PageSet) AddRange(first, end int) PageSet {
	for i := first; i < end; i++ {
		s = s.Add(i)
	}
	return s
}

// Has reports whether page i is in the set.
func (s PageSet) Has(i int) bool {
	return i >= 0 && i/8 < len(s) && s[i/8]&(1<<(i%8)) != 0
}

// Len is the number of pages in the set.
func (s PageSet) Len() int {
	n := 0
	for _, b := range s {
		n += bits.OnesCount8(b)
	}
	return n
}

// Pages lists the set's pages in increasing order (empty, not nil, for
// the empty set).
func (s PageSet) Pages() []int {
	out := make([]int, 0, s.Len())
	for k, b := range s {
		for b != 0 {
			i := bits.TrailingZeros8(b)
			out = append(out, k*8+i)
			b &^= 1 << i
		}
	}
	return out
}
