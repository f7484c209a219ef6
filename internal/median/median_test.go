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

func TestOf(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 3}, {[]float64{9}, 9}} {
		if got := Of(c.v); got != c.want {
			t.Errorf("Of %v: %g, want %g", c.v, got, c.want)
		}
	}
}
