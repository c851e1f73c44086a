/* A library that replaces malloc but none of its partners (free, calloc, realloc, ...): the
 * preload check must refuse it, since mixing it with another free corrupts real heaps. */
#include <stddef.h>

extern void* __libc_malloc(size_t);

void* malloc(size_t n) { return __libc_malloc(n); }
