package detect

// Inference thresholds applied when detections are stored. Detections below
// them are never stored and cannot be recovered by a lower read-time filter.
const (
	// StoredFloor is the lowest confidence of any stored detection.
	StoredFloor = 0.10
	// SingleClassFloor is the confidence a class's only detection in a whole
	// job must reach to be kept: a lone, weak detection is more likely noise
	// than the single instance of a symbol on a drawing set.
	SingleClassFloor = 0.25
)

// KeepStored applies the storage rules to the detections of every page of
// one job (indexed by page) and returns the kept detections per page, in
// their original order. The input is not modified.
func KeepStored(pages [][]Detection) [][]Detection {
	count := map[string]int{}
	for _, ds := range pages {
		for _, d := range ds {
			if d.Confidence >= StoredFloor {
				count[d.Class]++
			}
		}
	}
	out := make([][]Detection, len(pages))
	for i, ds := range pages {
		kept := make([]Detection, 0, len(ds))
		for _, d := range ds {
			if d.Confidence < StoredFloor {
				continue
			}
			if count[d.Class] == 1 && d.Confidence < SingleClassFloor {
				continue
			}
			kept = append(kept, d)
		}
		out[i] = kept
	}
	return out
}

// Filter is a read-time confidence filter.
type Filter struct {
	// Flat, when set, is one floor for every class (confidence_mode "flat").
	Flat *float64
	// PerClass gives each class's default threshold when Flat is nil
	// (confidence_mode "per_class_default").
	PerClass func(class string) float64
}

// DefaultFilter is the per_class_default filter: each class's default
// threshold as threshold reports it (the catalog's Threshold), and
// StoredFloor for a class it does not know.
func DefaultFilter(threshold func(class string) (float64, bool)) Filter {
	return Filter{PerClass: func(class string) float64 {
		if t, ok := threshold(class); ok {
			return t
		}
		return StoredFloor
	}}
}

// Mode is the wire name of the filter's confidence_mode.
func (f Filter) Mode() string {
	if f.Flat != nil {
		return "flat"
	}
	return "per_class_default"
}

// Keep reports whether d passes the filter. The zero Filter keeps every
// detection.
func (f Filter) Keep(d Detection) bool {
	switch {
	case f.Flat != nil:
		return d.Confidence >= *f.Flat
	case f.PerClass != nil:
		return d.Confidence >= f.PerClass(d.Class)
	default:
		return true
	}
}

// Apply returns the detections that pass the filter, in order.
func (f Filter) Apply(ds []Detection) []Detection {
	out := make([]Detection, 0, len(ds))
	for _, d := range ds {
		if f.Keep(d) {
			out = append(out, d)
		}
	}
	return out
}
