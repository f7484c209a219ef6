//go:build !cgo

package cmalloc

// Trim does nothing in a build without cgo: there is no C heap of ours
// to give back.
func Trim() {}
