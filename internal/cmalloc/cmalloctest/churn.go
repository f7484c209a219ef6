//go:build cgo

// Package cmalloctest fragments the C heap for cmalloc's tests: C code
// cannot live in a _test.go file.
package cmalloctest

/*
#include <stdlib.h>
#include <string.h>

// bp_churn allocates n blocks of size bytes, touching each, then one
// more, and frees the first n: the freed memory lies below a block still
// held, so free cannot give it back from the heap's top. It returns the
// block still held.
static void *bp_churn(int n, int size) {
	void **b = malloc(sizeof(void *) * n);
	for (int i = 0; i < n; i++) {
		b[i] = malloc(size);
		memset(b[i], 1, size);
	}
	void *keep = malloc(size);
	memset(keep, 1, size);
	for (int i = 0; i < n; i++) free(b[i]);
	free(b);
	return keep;
}
*/
import "C"

import "unsafe"

// Churn frees about n×size bytes of C heap that stay resident below a
// block still held, and returns a function that frees that block.
func Churn(n, size int) (release func()) {
	p := C.bp_churn(C.int(n), C.int(size))
	return func() { C.free(unsafe.Pointer(p)) }
}
