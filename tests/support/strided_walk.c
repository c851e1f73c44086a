/* A program whose simulated cache misses are known in advance, the independent reference of the
 * cache simulation (platform/cache_simulation.*; tests/unit/platform/cache_simulation_test.cpp).
 *
 *   strided_walk BYTES STRIDE ALIGN WRITE_PASSES READ_PASSES
 *
 * maps BYTES (+ ALIGN) of memory, starts it at a multiple of ALIGN, writes every page of it (not
 * simulated: callgrind's instrumentation is still off), then, with instrumentation and collection
 * switched on, walks it WRITE_PASSES times writing one byte every STRIDE bytes, then READ_PASSES
 * times reading one byte every STRIDE bytes, switches collection off and exits.  The simulated
 * caches start empty when instrumentation starts, and nothing but the walk touches memory while
 * collection is on (the loop keeps everything else in registers), so with STRIDE = the line size
 * and n = BYTES / STRIDE lines, for an LRU cache of S bytes and A ways whose every set gets the
 * same number of the walk's lines (ALIGN a multiple of its sets x line):
 *   BYTES <= S:   the first pass misses each line once, every later access hits;
 *   BYTES >= 2S:  every access misses (2A or more lines cycled through each A-way set).
 * Writes allocate (callgrind's model), so a write pass fills the cache as a read pass does.
 * Never measured; not built in sanitizer builds (valgrind and the sanitizers' runtimes exclude
 * each other). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <valgrind/callgrind.h>

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: strided_walk BYTES STRIDE ALIGN WRITE_PASSES READ_PASSES\n");
    return 2;
  }
  const size_t bytes = strtoull(argv[1], NULL, 10), stride = strtoull(argv[2], NULL, 10), align = strtoull(argv[3], NULL, 10);
  const long write_passes = strtol(argv[4], NULL, 10), read_passes = strtol(argv[5], NULL, 10);
  if (bytes == 0 || stride == 0 || align == 0 || (align & (align - 1)) != 0) {
    fprintf(stderr, "strided_walk: BYTES and STRIDE must be positive, ALIGN a power of two\n");
    return 2;
  }
  char* mapped = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    perror("strided_walk: mmap");
    return 1;
  }
  volatile char* const base = (volatile char*)(((uintptr_t)mapped + align - 1) & ~(uintptr_t)(align - 1));
  memset((char*)base, 1, bytes); /* every page present before the walk */
  volatile char* const end = base + bytes;
  unsigned sum = 0;

  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_TOGGLE_COLLECT;
  for (long pass = 0; pass < write_passes; ++pass)
    for (volatile char* p = base; p < end; p += stride) *p = (char)pass;
  for (long pass = 0; pass < read_passes; ++pass)
    for (volatile char* p = base; p < end; p += stride) sum += (unsigned char)*p;
  CALLGRIND_TOGGLE_COLLECT;

  printf("%u\n", sum);
  return 0;
}
