/* An independent allocation counter for the tracer's tests: preloaded BEFORE the tracer
 * (LD_PRELOAD=libcount_malloc.so:liballocstress_trace.so), it counts every call of the malloc
 * family the program makes (operator new/delete reach it as malloc/free) and forwards it to the
 * next definition (the tracer).  At exit (library destructor) it writes "calls N" to
 * $ALLOCSTRESS_COUNT_OUT.<pid>.count.  A fork child starts from zero (atfork); a vfork child shares
 * the parent's counter (and its calls happen in the parent's heap), like the tracer.  Its own
 * bootstrap allocations (dlsym's) are served from a static buffer and not counted. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_ulong calls;
static _Thread_local int resolving;
static unsigned char boot[16384];
static atomic_size_t boot_used;

static void* (*next_malloc)(size_t);
static void* (*next_calloc)(size_t, size_t);
static void* (*next_realloc)(void*, size_t);
static void* (*next_reallocarray)(void*, size_t, size_t);
static void (*next_free)(void*);
static int (*next_posix_memalign)(void**, size_t, size_t);
static void* (*next_aligned_alloc)(size_t, size_t);
static void* (*next_memalign)(size_t, size_t);
static void* (*next_valloc)(size_t);
static void* (*next_pvalloc)(size_t);

static void* boot_alloc(size_t n) {
  size_t at = atomic_fetch_add(&boot_used, (n + 15) & ~(size_t)15);
  return at + n <= sizeof boot ? boot + at : NULL;
}
static int is_boot(void* p) { return (unsigned char*)p >= boot && (unsigned char*)p < boot + sizeof boot; }

static void resolve(void) {
  if (next_free) return;
  resolving = 1;
  next_malloc = dlsym(RTLD_NEXT, "malloc");
  next_calloc = dlsym(RTLD_NEXT, "calloc");
  next_realloc = dlsym(RTLD_NEXT, "realloc");
  next_reallocarray = dlsym(RTLD_NEXT, "reallocarray");
  next_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
  next_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
  next_memalign = dlsym(RTLD_NEXT, "memalign");
  next_valloc = dlsym(RTLD_NEXT, "valloc");
  next_pvalloc = dlsym(RTLD_NEXT, "pvalloc");
  next_free = dlsym(RTLD_NEXT, "free");
  resolving = 0;
}

#define COUNT() atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed)

void* malloc(size_t n) {
  if (resolving) return boot_alloc(n);
  resolve();
  COUNT();
  return next_malloc(n);
}
void* calloc(size_t a, size_t b) {
  if (resolving) return boot_alloc(a * b);  /* zeroed: static */
  resolve();
  COUNT();
  return next_calloc(a, b);
}
void* realloc(void* p, size_t n) {
  resolve();
  COUNT();
  return next_realloc(p, n);
}
void* reallocarray(void* p, size_t a, size_t b) {
  resolve();
  COUNT();
  return next_reallocarray(p, a, b);
}
void free(void* p) {
  if (is_boot(p)) return;
  resolve();
  COUNT();
  next_free(p);
}
int posix_memalign(void** out, size_t a, size_t n) {
  resolve();
  COUNT();
  return next_posix_memalign(out, a, n);
}
void* aligned_alloc(size_t a, size_t n) {
  resolve();
  COUNT();
  return next_aligned_alloc(a, n);
}
void* memalign(size_t a, size_t n) {
  resolve();
  COUNT();
  return next_memalign(a, n);
}
void* valloc(size_t n) {
  resolve();
  COUNT();
  return next_valloc(n);
}
void* pvalloc(size_t n) {
  resolve();
  COUNT();
  return next_pvalloc(n);
}

static void on_fork_child(void) { atomic_store(&calls, 0); }

__attribute__((constructor)) static void on_load(void) {
  resolve();
  pthread_atfork(NULL, NULL, on_fork_child);
}

__attribute__((destructor)) static void on_unload(void) {
  const unsigned long n = atomic_load(&calls);
  const char* prefix = getenv("ALLOCSTRESS_COUNT_OUT");
  if (!prefix) return;
  char path[4096], line[64];
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (attempt == 0) snprintf(path, sizeof path, "%s.%d.count", prefix, (int)getpid());
    else snprintf(path, sizeof path, "%s.%d.%d.count", prefix, (int)getpid(), attempt);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) continue;
    int len = snprintf(line, sizeof line, "calls %lu\n", n);
    if (write(fd, line, (size_t)len) != len) { /* nothing to do */ }
    close(fd);
    return;
  }
}
