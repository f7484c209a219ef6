package legend

// sets is a union-find over 0..n-1: the groups that chaining rows into
// tables (scheduleGroups) and runs into a title block (titleBlock) build.
type sets []int

// newSets returns n items, each its own set.
func newSets(n int) sets {
	s := make(sets, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// find returns the representative of i's set, compressing the path.
func (s sets) find(i int) int {
	if s[i] != i {
		s[i] = s.find(s[i])
	}
	return s[i]
}

// join puts a's set into b's: b's representative stays the joined set's.
func (s sets) join(a, b int) {
	s[s.find(a)] = s.find(b)
}
