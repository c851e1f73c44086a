/* A test allocator whose every allocation is one mmap and every free one munmap, so that a cell's
 * memory system calls are known exactly from its malloc and free counts: the independent check
 * of the profile run's strace counts.  Never measured.  A 16-byte header before each block holds
 * its size and its offset from the start of its mapping (alignment up to one page). */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

struct header {
  size_t size, offset;
};

static void* map_block(size_t n, size_t alignment) {
  if (alignment < 16) alignment = 16;
  if (n > ((size_t)1 << 40) || alignment > 4096 || (alignment & (alignment - 1)) != 0) return NULL;
  const size_t len = n + alignment + sizeof(struct header);
  char* base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return NULL;
  uintptr_t p = ((uintptr_t)base + sizeof(struct header) + alignment - 1) & ~(uintptr_t)(alignment - 1);
  struct header* h = (struct header*)p - 1;
  h->size = n;
  h->offset = p - (uintptr_t)base;
  return (void*)p;
}

static struct header* header_of(void* p) { return (struct header*)p - 1; }

void* malloc(size_t n) { return map_block(n, 16); }
void free(void* p) {
  if (p == NULL) return;
  const struct header h = *header_of(p);
  munmap((char*)p - h.offset, h.offset + h.size); /* may leave the mapping's last page: a test library */
}
void* calloc(size_t n, size_t m) {
  if (m != 0 && n > ((size_t)-1) / m) return NULL;
  return map_block(n * m, 16); /* mmap memory is zero */
}
void* realloc(void* p, size_t n) {
  if (p == NULL) return map_block(n, 16);
  void* q = map_block(n, 16);
  if (q == NULL) return NULL;
  memcpy(q, p, header_of(p)->size < n ? header_of(p)->size : n);
  free(p);
  return q;
}
int posix_memalign(void** out, size_t alignment, size_t n) {
  *out = map_block(n, alignment);
  return *out ? 0 : (alignment > 4096 ? EINVAL : ENOMEM);
}
void* aligned_alloc(size_t alignment, size_t n) { return map_block(n, alignment); }
void* memalign(size_t alignment, size_t n) { return map_block(n, alignment); }
size_t malloc_usable_size(void* p) { return p ? header_of(p)->size : 0; }
