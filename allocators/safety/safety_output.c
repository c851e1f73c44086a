/* The safety probe's output and its view of the allocator (see safety_probe.h): the lines it
 * writes, each with one write(2) from a buffer on the stack; the allocator's entry points
 * (`heap`); which object defines a symbol; the `provider` line every mode starts with. */
#define _GNU_SOURCE
#include "safety_probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct heap_api heap;

/* ---- output ---- */

void line_str(struct line* l, const char* s) {
  while (*s != '\0' && l->len < sizeof l->text - 1) l->text[l->len++] = *s++;
}
void line_start(struct line* l, const char* s) {
  l->len = 0;
  line_str(l, s);
}
static void line_digits(struct line* l, uint64_t v, unsigned base) {
  char digits[24];
  size_t n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v != 0);
  while (n > 0 && l->len < sizeof l->text - 1) l->text[l->len++] = digits[--n];
}
void line_hex(struct line* l, uintptr_t v) {
  line_str(l, "0x");
  line_digits(l, v, 16);
}
void line_dec(struct line* l, uint64_t v) { line_digits(l, v, 10); }
void line_sdec(struct line* l, int64_t v) {
  if (v < 0) {
    line_str(l, "-");
    line_digits(l, (uint64_t)0 - (uint64_t)v, 10);
  } else {
    line_digits(l, (uint64_t)v, 10);
  }
}
void line_errno(struct line* l, int e) {
  const char* name = e != 0 ? strerrorname_np(e) : NULL; /* a static table: no allocation */
  if (name != NULL)
    line_str(l, name);
  else
    line_sdec(l, e);
}
void line_emit(struct line* l, int fd) {
  l->text[l->len++] = '\n'; /* line_str leaves room for it */
  const char* p = l->text;
  size_t left = l->len;
  while (left > 0) {
    const ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    p += w;
    left -= (size_t)w;
  }
  l->len--;
}
void say(const char* s) {
  struct line l;
  line_start(&l, s);
  line_emit(&l, STDOUT_FILENO);
}

/* ---- where symbols come from ---- */

static void* object_base(const char* name, const char** file) {
  Dl_info info;
  void* sym = dlsym(RTLD_DEFAULT, name);
  if (sym == NULL || dladdr(sym, &info) == 0) return NULL;
  if (file != NULL) *file = info.dli_fname;
  return info.dli_fbase;
}
const char* symbol_object(const char* name) {
  const char* file = NULL;
  return object_base(name, &file) != NULL ? file : NULL;
}
int same_object_as_malloc(const char* name) {
  void* base = object_base(name, NULL);
  return base != NULL && base == object_base("malloc", NULL);
}

void resolve_heap(void) {
  static const struct {
    const char* name;
    size_t offset;
  } entries[] = {
      {"malloc", offsetof(struct heap_api, malloc)},
      {"free", offsetof(struct heap_api, free)},
      {"calloc", offsetof(struct heap_api, calloc)},
      {"realloc", offsetof(struct heap_api, realloc)},
      {"reallocarray", offsetof(struct heap_api, reallocarray)},
      {"memalign", offsetof(struct heap_api, memalign)},
      {"aligned_alloc", offsetof(struct heap_api, aligned_alloc)},
      {"posix_memalign", offsetof(struct heap_api, posix_memalign)},
      {"malloc_usable_size", offsetof(struct heap_api, malloc_usable_size)},
  };
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
    void* sym = dlsym(RTLD_DEFAULT, entries[i].name); /* object pointer -> function pointer */
    memcpy((char*)&heap + entries[i].offset, &sym, sizeof sym);
  }
}

/* realpath with a caller's buffer keeps glibc's scratch buffers on the stack (no malloc). */
void print_provider(void) {
  static char resolved[PATH_MAX];
  struct line l;
  const char* file = symbol_object("malloc");
  line_start(&l, "provider ");
  if (file == NULL || file[0] == '\0')
    line_str(&l, "unknown");
  else
    line_str(&l, realpath(file, resolved) != NULL ? resolved : file);
  line_emit(&l, STDOUT_FILENO);
}
