package median

import "testing"

func TestByKey(t *testing.T) {
	got := ByKey(map[string][]float64{"a": {3, 1, 2}, "b": {4, 1, 3, 2}, "c": {9}, "d": nil}, 1)
	want := map[string]float64{"a": 2, "b": 3, "c": 9}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %g, want %g", k, got[k], v)
		}
	}
	if got := ByKey(map[int][]float64{1: {5, 6}, 2: {7, 8, 9}}, 3); len(got) != 1 || got[2] != 8 {
		t.Errorf("at least 3: %v, want only key 2 at 8", got)
	}
}
