/* A test allocator whose costs are known in advance (x86-64 only), the independent reference of
 * the counts tier (tests/cli/references/counts.sh):
 *   - malloc executes exactly 6 instructions and free exactly 1, whatever the size: the counts
 *     tier's "instructions in allocator calls" must be 6 x mallocs + 1 x frees;
 *   - every block is a fresh run of whole pages of a zero-filled arena in .bss, one page for any
 *     size up to 4096 bytes, and is never reused: a workload that writes every block it gets
 *     faults exactly one page per malloc of such a size, and the allocator makes no system call.
 * Built twice: as it is, and with -DEXTRA_MALLOC=10 -DEXTRA_FREE=3 (tests/CMakeLists.txt), which
 * pads malloc with 10 more instructions and free with 3 (nops: each one executed, Ir counts it),
 * 16 and 4 in all: two allocators on the same op stream whose costs differ by a known amount, so
 * the counts tier's figures net of void must differ by exactly 10 x mallocs + 3 x frees.
 * Never measured: the arena (2 GiB of address space) is never given back and a process that asks
 * for more crashes. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#if !defined(__x86_64__)
#error "known_cost_malloc.c is x86-64 assembly"
#endif

#define ARENA_BYTES "0x80000000"

#ifndef EXTRA_MALLOC
#define EXTRA_MALLOC 0
#endif
#ifndef EXTRA_FREE
#define EXTRA_FREE 0
#endif
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* malloc(n): n rounded up to whole pages, at least one (cmp/adc turns 0 into one page), taken
 * from the arena with one atomic add: 6 instructions on every path (+ EXTRA_MALLOC nops); free:
 * 1 (+ EXTRA_FREE nops). */
__asm__(
    ".bss\n"
    ".balign 4096\n"
    "known_cost_arena:\n"
    ".skip " ARENA_BYTES "\n"
    ".data\n"
    ".balign 8\n"
    "known_cost_next:\n"
    ".quad known_cost_arena\n"
    ".text\n"
    ".globl malloc\n"
    ".type malloc, @function\n"
    "malloc:\n"
    "  .rept " STRINGIFY(EXTRA_MALLOC) "\n  nop\n  .endr\n"
    "  cmp $1, %rdi\n"
    "  adc $4095, %rdi\n"
    "  and $-4096, %rdi\n"
    "  mov %rdi, %rax\n"
    "  lock xadd %rax, known_cost_next(%rip)\n"
    "  ret\n"
    ".size malloc, .-malloc\n"
    ".globl free\n"
    ".type free, @function\n"
    "free:\n"
    "  .rept " STRINGIFY(EXTRA_FREE) "\n  nop\n  .endr\n"
    "  ret\n"
    ".size free, .-free\n");

void* malloc(size_t n);

/* The rest of the API in C: not on the counted workload's path.  Blocks are page-aligned, so any
 * alignment up to a page is honoured; the arena is zero and never reused, so calloc needs no
 * memset. */
void* calloc(size_t n, size_t m) {
  if (m != 0 && n > ((size_t)-1) / m) return NULL;
  return malloc(n * m);
}
size_t malloc_usable_size(void* p) {
  (void)p;
  return 4096; /* at least: a block is one page or more */
}
void* realloc(void* p, size_t n) {
  void* q = malloc(n);
  if (p != NULL) memcpy(q, p, n); /* the old block's size is unknown: copying n bytes stays inside the arena */
  return q;
}
int posix_memalign(void** out, size_t alignment, size_t n) {
  if (alignment > 4096 || (alignment & (alignment - 1)) != 0) return EINVAL;
  *out = malloc(n);
  return 0;
}
void* aligned_alloc(size_t alignment, size_t n) { return alignment <= 4096 ? malloc(n) : NULL; }
void* memalign(size_t alignment, size_t n) { return alignment <= 4096 ? malloc(n) : NULL; }
