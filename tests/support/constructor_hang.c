/* A drop-in "allocator" for the allocator-failure test: its constructor never returns (a sleep
 * loop), so any process that preloads it hangs before main.  The preload check must kill it
 * after --timeout and the matrix go on without it.  Never use it to measure anything. */
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void hang_forever(void) {
  for (;;) sleep(1);
}

/* Defines malloc so that, were the constructor to return, it would pass as an allocator. */
extern void* __libc_malloc(size_t);
void* malloc(size_t n) { return __libc_malloc(n); }
