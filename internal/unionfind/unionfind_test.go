package unionfind

import "testing"

// TestJoin: joined items share a representative, chains of joins make one
// set, and items never joined stay apart; Roots gives each its set's
// representative; an appended item is a set of its own.
func TestJoin(t *testing.T) {
	s := New[int32](6)
	s.Join(0, 1)
	s.Join(2, 1)
	s.Join(4, 5)
	for _, p := range [][2]int32{{0, 1}, {0, 2}, {1, 2}, {4, 5}} {
		if s.Find(p[0]) != s.Find(p[1]) {
			t.Errorf("%d and %d apart after joins", p[0], p[1])
		}
	}
	for _, p := range [][2]int32{{0, 3}, {0, 4}, {3, 5}} {
		if s.Find(p[0]) == s.Find(p[1]) {
			t.Errorf("%d and %d together, never joined", p[0], p[1])
		}
	}
	s.Join(2, 2) // joining a set with itself changes nothing
	if s.Find(3) != 3 {
		t.Errorf("a lone item's representative is %d", s.Find(3))
	}
	s = append(s, 6)
	s.Join(6, 3)
	r := s.Roots()
	for i := range r {
		if r[i] != s.Find(int32(i)) {
			t.Errorf("Roots: item %d gives %d, its representative is %d", i, r[i], s.Find(int32(i)))
		}
	}
	if r[6] != r[3] || r[6] == r[0] || r[0] != r[2] {
		t.Errorf("Roots %v: want 6 with 3, 0 with 2, apart from each other", r)
	}
}

// TestGroups: each set's items, sets in the order of their first item.
func TestGroups(t *testing.T) {
	s := New[int](5)
	s.Join(3, 0)
	s.Join(4, 2)
	got := s.Groups()
	want := [][]int{{0, 3}, {1}, {2, 4}}
	if len(got) != len(want) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	for k := range want {
		if len(got[k]) != len(want[k]) {
			t.Fatalf("groups %v, want %v", got, want)
		}
		for j := range want[k] {
			if got[k][j] != want[k][j] {
				t.Fatalf("groups %v, want %v", got, want)
			}
		}
	}
}
