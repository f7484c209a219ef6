package detect

import "testing"

func TestKeepStored(t *testing.T) {
	pages := [][]Detection{
		{{Class: "luminaire", Confidence: 0.05}, {Class: "luminaire", Confidence: 0.12}, {Class: "doorbell", Confidence: 0.2}},
		{{Class: "luminaire", Confidence: 0.15}, {Class: "fan", Confidence: 0.3}, {Class: "sounder", Confidence: 0.24}, {Class: "sounder", Confidence: 0.09}},
	}
	got := KeepStored(pages)
	// luminaire: two above the floor, both kept; the 0.05 one dropped.
	// doorbell: lone and below 0.25, dropped. fan: lone but 0.3, kept.
	// sounder: only one above the floor, so it is lone and 0.24 < 0.25: dropped.
	want := [][]string{{"luminaire"}, {"luminaire", "fan"}}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("page %d: got %+v want classes %v", i, got[i], want[i])
		}
		for j, c := range want[i] {
			if got[i][j].Class != c {
				t.Fatalf("page %d item %d: got %s want %s", i, j, got[i][j].Class, c)
			}
		}
	}
	if len(pages[0]) != 3 {
		t.Fatal("input modified")
	}
}

func TestFilter(t *testing.T) {
	ds := []Detection{{Class: "a", Confidence: 0.3}, {Class: "b", Confidence: 0.6}, {Class: "a", Confidence: 0.8}}
	per := Filter{PerClass: func(c string) float64 {
		if c == "a" {
			return 0.5
		}
		return 0.7
	}}
	if got := per.Apply(ds); len(got) != 1 || got[0].Confidence != 0.8 || per.Mode() != "per_class_default" {
		t.Fatalf("per-class: %+v", got)
	}
	x := 0.3
	flat := Filter{Flat: &x}
	if got := flat.Apply(ds); len(got) != 3 || flat.Mode() != "flat" {
		t.Fatalf("flat: %+v", got)
	}
	if got := (Filter{}).Apply(ds); len(got) != 3 {
		t.Fatalf("zero filter: %+v", got)
	}
	// DefaultFilter: "a" has its threshold 0.5; an unknown class needs StoredFloor.
	def := DefaultFilter(func(c string) (float64, bool) { return 0.5, c == "a" })
	more := append(ds, Detection{Class: "c", Confidence: StoredFloor}, Detection{Class: "c", Confidence: StoredFloor / 2})
	got := def.Apply(more)
	if len(got) != 3 || got[0] != more[1] || got[1] != more[2] || got[2] != more[3] || def.Mode() != "per_class_default" {
		t.Fatalf("default filter: %+v", got)
	}
}
