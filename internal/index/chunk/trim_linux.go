//go:build linux && cgo

package chunk

/*
#include <stddef.h>

// malloc_trim is glibc's; weak, so that a C library without it (musl)
// links too, and the call is skipped there.
extern int malloc_trim(size_t pad) __attribute__((weak));

static void ctxls_trim(void) {
	if (malloc_trim) {
		malloc_trim(0);
	}
}
*/
import "C"

// ReleaseMemory returns the C heap's free memory (the parsers' freed
// trees) to the system: glibc keeps it in its arenas, one per thread
// that parsed, for the life of the process otherwise.
func ReleaseMemory() { C.ctxls_trim() }
