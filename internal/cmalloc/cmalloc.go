//go:build cgo

// Package cmalloc gives the memory the process's C code freed back to the
// system. MuPDF (documents and renders) and ONNX Runtime allocate with the
// C library's malloc; glibc's keeps freed blocks in its arenas, one for
// each thread that allocated, and returns little of it by itself. A local
// server that processed 24 real jobs in a row grew from 65 to 330 MiB
// resident between jobs while its Go heap held 4 MiB; Trim after a large
// release gives that back. Built without cgo, or on a C library other than
// glibc, Trim does nothing.
package cmalloc

/*
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
static void bp_trim(void) { malloc_trim(0); }
#else
static void bp_trim(void) {}
#endif
*/
import "C"

// Trim returns the C heap's free memory to the system (glibc's
// malloc_trim(0): every arena's free pages, not only the top of the
// heap). It takes the allocator's locks while it walks the arenas, a few
// milliseconds on a heap of hundreds of megabytes: call it after a large
// release, not per allocation. Safe for concurrent use.
func Trim() { C.bp_trim() }
