// Package median computes the medians that consistency rules compare
// against: the typical size or scale of what a legend row found.
package median

import "slices"

// ByKey returns, for each key of samples with at least least values, the
// median of its values (the upper one of an even count). It sorts each
// key's values in place.
func ByKey[K comparable](samples map[K][]float64, least int) map[K]float64 {
	out := make(map[K]float64, len(samples))
	for k, s := range samples {
		if len(s) >= least && len(s) > 0 {
			out[k] = Of(s)
		}
	}
	return out
}

// Of returns the median of v (the upper one of an even count), sorting v
// in place; v must not be empty.
func Of(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
