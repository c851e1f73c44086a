/* The program probe: preloaded into every process of a measured program's tree (the program and
 * every descendant that inherits LD_PRELOAD: gcc's driver, cc1 and as; a server's forked
 * workers), it appends to one log which process ran, where its `malloc` resolves, whether the
 * allocator's library is mapped, and at a normal exit its own peak RSS.  The reader and the
 * format are in program_probe.hpp; this file writes it.
 *
 *   ALLOCSTRESS_PROBE_LOG=/path/file   the log (unset or empty: the library does nothing at all)
 *   ALLOCSTRESS_PROBE_WATCH=/lib.so    the allocator's library ("" or unset: glibc's malloc)
 *
 * Built twice (platform/CMakeLists.txt): liballocstress_probe.so reports; with PROBE_COUNT,
 * liballocstress_probe_count.so also interposes the malloc family and C++ operator new/delete,
 * forwards every call to the next definition (the allocator's, or libc's) and counts the
 * allocation calls of its process (an unmeasured verification run: it is preloaded first).
 *
 * Report mode never allocates: stack buffers and system calls only (open/read/write/readlink),
 * its own integer formatting, no stdio.  Every line is one write() on a descriptor opened
 * O_APPEND and closed again, shorter than PIPE_BUF, so the processes of a tree never interleave
 * their lines.  Nothing it fails to do is reported: it must never disturb the program. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef PROBE_COUNT
#include <sched.h>
#include <stdatomic.h>
#endif

#define PROBE_API __attribute__((visibility("default")))

enum { kPathMax = 4096, kLineMax = PIPE_BUF - 1 };  /* a line, its newline included, is < PIPE_BUF */

static int g_active;              /* ALLOCSTRESS_PROBE_LOG was set: report */
static char g_log[kPathMax];      /* its absolute path, copied at load (the program may change it) */

/* ---- text without allocation ---------------------------------------------------------------- */

struct line {
  char text[kLineMax + 1];
  size_t used;
};

static void put(struct line* l, const char* s, size_t n) {
  if (n > kLineMax - 1 - l->used) n = kLineMax - 1 - l->used;  /* room for the newline stays */
  memcpy(l->text + l->used, s, n);
  l->used += n;
}
static void put_str(struct line* l, const char* s) { put(l, s, strlen(s)); }
static void put_u64(struct line* l, uint64_t v) {
  char digits[24];
  size_t n = 0;
  do digits[sizeof digits - ++n] = (char)('0' + v % 10); while ((v /= 10) != 0);
  put(l, digits + sizeof digits - n, n);
}
/* `s` with '%' and newline (and, when `space`, ' ') percent-encoded: the reader decodes them. */
static void put_encoded(struct line* l, const char* s, int space, size_t limit) {
  const size_t stop = l->used + limit < kLineMax - 1 ? l->used + limit : kLineMax - 1;
  for (; *s != '\0' && l->used + 3 <= stop; ++s) {
    if (*s == '%') put(l, "%25", 3);
    else if (*s == '\n') put(l, "%0A", 3);
    else if (*s == ' ' && space) put(l, "%20", 3);
    else put(l, s, 1);
  }
}

static void append_line(struct line* l) {
  l->text[l->used++] = '\n';
  const int fd = open(g_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t w;
  do w = write(fd, l->text, l->used); while (w < 0 && errno == EINTR);
  close(fd);
}

/* The canonical path of `path` into out (kPathMax): the kernel's name of the opened file, which
 * has every symbolic link resolved (what realpath gives, without realpath's scratch buffers). */
static int canonical(const char* path, char* out) {
  const int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd >= 0) {
    char proc[40] = "/proc/self/fd/";
    struct line num = {.used = 0};
    put_u64(&num, (uint64_t)fd);
    memcpy(proc + 14, num.text, num.used);
    proc[14 + num.used] = '\0';
    const ssize_t n = readlink(proc, out, kPathMax - 1);
    close(fd);
    if (n > 0 && out[0] == '/') {
      out[n] = '\0';
      return 1;
    }
  }
  return realpath(path, out) != NULL;  /* no /proc: glibc's realpath, stack buffers for short paths */
}

static void executable(char* out) {
  const ssize_t n = readlink("/proc/self/exe", out, kPathMax - 1);
  out[n > 0 ? n : 0] = '\0';
}

/* ---- the allocator: mapped? where does malloc resolve? ----------------------------------- */

struct watch_search {
  const char* path;  /* as given */
  struct stat file;  /* its device and inode: the same file under any name */
  int found;
};

static int look_at_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct watch_search* w = data;
  const char* name = info->dlpi_name;
  if (name == NULL || name[0] == '\0') return 0;  /* the program itself */
  struct stat st;
  if (strcmp(name, w->path) == 0 || (stat(name, &st) == 0 && st.st_dev == w->file.st_dev && st.st_ino == w->file.st_ino))
    w->found = 1;
  return w->found;
}

/* 1: the watched library is mapped, 0: it is not (or it does not exist), -1: none is watched. */
static int watched_library_mapped(void) {
  const char* watch = getenv("ALLOCSTRESS_PROBE_WATCH");
  if (watch == NULL || watch[0] == '\0') return -1;
  struct watch_search w = {.path = watch, .found = 0};
  if (stat(watch, &w.file) != 0) return 0;
  dl_iterate_phdr(look_at_object, &w);
  return w.found;
}

/* The canonical path of the object the program's calls to malloc reach; `exe` when the program
 * defines malloc itself (it brings its own allocator).  dlsym(RTLD_DEFAULT) is not that answer:
 * a program that is not position-independent and takes malloc's address makes its own PLT stub
 * the canonical address of malloc, so that lookup names the program, though its calls still go
 * on to the real definition.  The probe is the first object LD_PRELOAD loads (cells put it in
 * front of the allocator), so dlsym(RTLD_NEXT) from here finds what every call reaches: the
 * first definition after the program -- the allocator's, or libc's under glibc's own malloc.
 * The counting probe forwards to the same definition. */
static void malloc_object(char* out, const char* exe) {
  out[0] = '\0';
  void* sym = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info info;
  struct link_map* map = NULL;
  const ElfW(Sym)* entry = NULL;
  if (sym != NULL && dladdr1(sym, &info, (void**)&map, RTLD_DL_LINKMAP) != 0 && map != NULL && map->l_prev == NULL &&
      dladdr1(sym, &info, (void**)&entry, RTLD_DL_SYMENT) != 0 && entry != NULL && entry->st_shndx != SHN_UNDEF &&
      info.dli_sname != NULL && strcmp(info.dli_sname, "malloc") == 0) {  /* the program's own definition */
    memcpy(out, exe, strlen(exe) + 1);
    return;
  }
  sym = dlsym(RTLD_NEXT, "malloc");
  if (sym == NULL || dladdr1(sym, &info, (void**)&map, RTLD_DL_LINKMAP) == 0) return;
  if (map != NULL && map->l_prev == NULL) {  /* the first object of the namespace: the program */
    memcpy(out, exe, strlen(exe) + 1);
    return;
  }
  if (info.dli_fname == NULL || info.dli_fname[0] != '/' || !canonical(info.dli_fname, out)) {
    const char* name = info.dli_fname != NULL ? info.dli_fname : "";
    const size_t n = strnlen(name, kPathMax - 1);
    memcpy(out, name, n);
    out[n] = '\0';
  }
}

/* ---- the lines ------------------------------------------------------------------------------ */

#ifdef PROBE_COUNT
static atomic_ulong g_calls;  /* allocation calls of this process (relaxed: a tally, no ordering) */

/* The program's calls start at __libc_start_main, which _start calls through the PLT once every
 * shared library is initialised (the executable's own constructors run inside it).  Calls before
 * it are the libraries' initialisation, not the program's: the allocator's own dlsym allocates
 * (jemalloc: 1 call in coreutils' true, which never calls malloc; glibc: none).  They are
 * dropped here.  A program that does not start through glibc's __libc_start_main is counted
 * from its load. */
typedef int (*main_fn)(int, char**, char**);
typedef int (*start_main_fn)(main_fn, int, char**, void (*)(void), void (*)(void), void (*)(void), void*);
PROBE_API int __libc_start_main(main_fn main, int argc, char** argv, void (*init)(void), void (*fini)(void),
                                void (*rtld_fini)(void), void* stack_end) {
  start_main_fn next_start;
  *(void**)&next_start = dlsym(RTLD_NEXT, "__libc_start_main");
  if (next_start == NULL) _exit(127);  /* cannot happen in a glibc process; never run main unstarted */
  atomic_store_explicit(&g_calls, 0, memory_order_relaxed);
  return next_start(main, argc, argv, init, fini, rtld_fini, stack_end);
}
#endif

static void write_start(void) {
  char exe[kPathMax], object[kPathMax];
  executable(exe);
  malloc_object(object, exe);
  const int mapped = watched_library_mapped();
  struct line l = {.used = 0};
  put_str(&l, "start ");
  put_u64(&l, (uint64_t)getpid());
  put_str(&l, " ");
  put_u64(&l, (uint64_t)getppid());
  put_str(&l, mapped < 0 ? " - " : mapped ? " 1 " : " 0 ");
  if (object[0] == '\0') put_str(&l, "-");
  else put_encoded(&l, object, 1, 2000);
  put_str(&l, " ");
  if (exe[0] == '\0') put_str(&l, "-");
  else put_encoded(&l, exe, 0, kLineMax);
  append_line(&l);
}

static void write_fork(void) {
  struct line l = {.used = 0};
  put_str(&l, "fork ");
  put_u64(&l, (uint64_t)getpid());
  put_str(&l, " ");
  put_u64(&l, (uint64_t)getppid());
  append_line(&l);
}

/* VmHWM of /proc/self/status in KiB, or -1.  Not inlined: its buffer leaves the stack before the
 * line is built (exit() may run on a thread with a small stack). */
__attribute__((noinline)) static long long peak_rss_kib(void) {
  char text[8192];
  const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t used = 0;
  ssize_t n;
  while (used < sizeof text - 1 && (n = read(fd, text + used, sizeof text - 1 - used)) != 0) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    used += (size_t)n;
  }
  close(fd);
  text[used] = '\0';
  const char* at = strstr(text, "\nVmHWM:");
  if (at == NULL) return -1;
  at += 7;
  while (*at == ' ' || *at == '\t') ++at;
  if (*at < '0' || *at > '9') return -1;
  long long kib = 0;
  while (*at >= '0' && *at <= '9') kib = kib * 10 + (*at++ - '0');
  return kib;
}

static void on_fork_child(void) {
#ifdef PROBE_COUNT
  atomic_store_explicit(&g_calls, 0, memory_order_relaxed);  /* the child counts its own calls */
#endif
  write_fork();
}

#ifdef PROBE_COUNT
static void resolve_next(void);
#endif

/* High priority: before the constructors of the program's libraries, which may fork or exit. */
__attribute__((constructor(101))) static void probe_load(void) {
#ifdef PROBE_COUNT
  resolve_next();
#endif
  const char* log = getenv("ALLOCSTRESS_PROBE_LOG");
  if (log == NULL || log[0] == '\0') return;
  size_t at = 0;
  if (log[0] != '/') {  /* relative: to this process's directory at load, which may change */
    if (getcwd(g_log, kPathMax - 2) == NULL) return;
    at = strlen(g_log);
    g_log[at++] = '/';
  }
  const size_t n = strlen(log);
  if (at + n >= kPathMax) return;
  memcpy(g_log + at, log, n + 1);
  g_active = 1;
  pthread_atfork(NULL, NULL, on_fork_child);
  write_start();
}

/* exit() and a return from main run it (in a forked child too); _exit, a signal and exec do not. */
__attribute__((destructor(101))) static void probe_exit(void) {
  if (!g_active) return;
  const long long kib = peak_rss_kib();
  struct line l = {.used = 0};
  put_str(&l, "exit ");
  put_u64(&l, (uint64_t)getpid());
  put_str(&l, " ");
  if (kib < 0) put_str(&l, "-");
  else put_u64(&l, (uint64_t)kib);
  put_str(&l, " ");
#ifdef PROBE_COUNT
  put_u64(&l, (uint64_t)atomic_load_explicit(&g_calls, memory_order_relaxed));
#else
  put_str(&l, "-");
#endif
  append_line(&l);
}

#ifdef PROBE_COUNT
/* ---- counting interposers ------------------------------------------------------------------
 * Each forwards to the next definition (dlsym(RTLD_NEXT), resolved once, on the first call or at
 * load) and counts the allocation calls: malloc, calloc, realloc, reallocarray, the memalign
 * family, operator new.  While the thread resolving them is inside dlsym, which may allocate, its
 * calls are served from a static arena that free() ignores.  A `new` that the next library
 * implements with malloc (libstdc++'s does, jemalloc's and tcmalloc's do not) counts once: the
 * thread's malloc inside it is not counted.  With no operator new after this library (a C
 * program), new and delete fall back to malloc and free, consistently for the whole process. */

typedef void* (*malloc_fn)(size_t);
typedef void* (*calloc_fn)(size_t, size_t);
typedef void* (*realloc_fn)(void*, size_t);
typedef void* (*reallocarray_fn)(void*, size_t, size_t);
typedef void (*free_fn)(void*);
typedef int (*posix_memalign_fn)(void**, size_t, size_t);
typedef void* (*aligned_fn)(size_t, size_t);
typedef void* (*new_fn)(size_t);
typedef void* (*new_nothrow_fn)(size_t, const void*);
typedef void* (*new_aligned_fn)(size_t, size_t);
typedef void* (*new_aligned_nothrow_fn)(size_t, size_t, const void*);
typedef void (*delete_fn)(void*);
typedef void (*delete_sized_fn)(void*, size_t);

static struct {
  malloc_fn malloc;
  calloc_fn calloc;
  realloc_fn realloc;
  reallocarray_fn reallocarray;
  free_fn free;
  posix_memalign_fn posix_memalign;
  aligned_fn aligned_alloc, memalign;
  malloc_fn valloc, pvalloc;
  new_fn new_, new_array;
  new_nothrow_fn new_nothrow, new_array_nothrow;
  new_aligned_fn new_aligned, new_array_aligned;
  new_aligned_nothrow_fn new_aligned_nothrow, new_array_aligned_nothrow;
  delete_fn delete_, delete_array;
  delete_sized_fn delete_sized, delete_array_sized, delete_aligned, delete_array_aligned;
  void (*delete_sized_aligned)(void*, size_t, size_t);
  void (*delete_array_sized_aligned)(void*, size_t, size_t);
  int cxx;  /* operator new/delete found after this library */
} next;

static atomic_int g_state;  /* 0 unresolved, 1 resolving, 2 resolved */
/* volatile: glibc declares dlsym a leaf, so the compiler would drop the store around it. */
static __thread volatile int t_resolving __attribute__((tls_model("initial-exec")));
static __thread int t_in_new __attribute__((tls_model("initial-exec")));

enum { kArenaBytes = 64 * 1024, kArenaHeader = 16 };
static _Alignas(64) unsigned char g_arena[kArenaBytes];
static atomic_size_t g_arena_used;

static int in_arena(const void* p) {
  return (const unsigned char*)p >= g_arena && (const unsigned char*)p < g_arena + kArenaBytes;
}
/* Zeroed (never reused); its size stored in the 16 bytes before it. */
static void* arena_alloc(size_t n, size_t align) {
  if (align < kArenaHeader) align = kArenaHeader;
  if (n > kArenaBytes || align > 4096) return NULL;
  const size_t need = (n + kArenaHeader + align + 15) & ~(size_t)15;
  const size_t at = atomic_fetch_add(&g_arena_used, need);
  if (at + need > kArenaBytes) return NULL;
  uintptr_t p = (uintptr_t)(g_arena + at + kArenaHeader);
  p = (p + align - 1) & ~(uintptr_t)(align - 1);
  memcpy((void*)(p - sizeof(size_t)), &n, sizeof n);
  return (void*)p;
}
static size_t arena_size(const void* p) {
  size_t n;
  memcpy(&n, (const unsigned char*)p - sizeof n, sizeof n);
  return n;
}

#define RESOLVE(slot, name) (*(void**)&next.slot = dlsym(RTLD_NEXT, name))

static void resolve_next(void) {
  if (atomic_load_explicit(&g_state, memory_order_acquire) == 2) return;
  int expected = 0;
  if (!atomic_compare_exchange_strong(&g_state, &expected, 1)) {
    while (atomic_load_explicit(&g_state, memory_order_acquire) != 2) sched_yield();  /* another thread */
    return;
  }
  t_resolving = 1;
  RESOLVE(malloc, "malloc");
  RESOLVE(free, "free");
  RESOLVE(calloc, "calloc");
  RESOLVE(realloc, "realloc");
  RESOLVE(reallocarray, "reallocarray");
  RESOLVE(posix_memalign, "posix_memalign");
  RESOLVE(aligned_alloc, "aligned_alloc");
  RESOLVE(memalign, "memalign");
  RESOLVE(valloc, "valloc");
  RESOLVE(pvalloc, "pvalloc");
  RESOLVE(new_, "_Znwm");
  RESOLVE(new_array, "_Znam");
  RESOLVE(new_nothrow, "_ZnwmRKSt9nothrow_t");
  RESOLVE(new_array_nothrow, "_ZnamRKSt9nothrow_t");
  RESOLVE(new_aligned, "_ZnwmSt11align_val_t");
  RESOLVE(new_array_aligned, "_ZnamSt11align_val_t");
  RESOLVE(new_aligned_nothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t");
  RESOLVE(new_array_aligned_nothrow, "_ZnamSt11align_val_tRKSt9nothrow_t");
  RESOLVE(delete_, "_ZdlPv");
  RESOLVE(delete_array, "_ZdaPv");
  RESOLVE(delete_sized, "_ZdlPvm");
  RESOLVE(delete_array_sized, "_ZdaPvm");
  RESOLVE(delete_aligned, "_ZdlPvSt11align_val_t");
  RESOLVE(delete_array_aligned, "_ZdaPvSt11align_val_t");
  RESOLVE(delete_sized_aligned, "_ZdlPvmSt11align_val_t");
  RESOLVE(delete_array_sized_aligned, "_ZdaPvmSt11align_val_t");
  /* All of them, or the fallback for all: a block from one family is never freed by the other. */
  next.cxx = next.new_ && next.new_array && next.new_nothrow && next.new_array_nothrow && next.new_aligned &&
             next.new_array_aligned && next.new_aligned_nothrow && next.new_array_aligned_nothrow && next.delete_ &&
             next.delete_array && next.delete_sized && next.delete_array_sized && next.delete_aligned &&
             next.delete_array_aligned && next.delete_sized_aligned && next.delete_array_sized_aligned;
  t_resolving = 0;
  atomic_store_explicit(&g_state, 2, memory_order_release);
}

static inline void count(void) {
  if (!t_in_new) atomic_fetch_add_explicit(&g_calls, 1, memory_order_relaxed);
}

PROBE_API void* malloc(size_t n) {
  if (t_resolving) return arena_alloc(n, 16);
  resolve_next();
  count();
  return next.malloc(n);
}

PROBE_API void* calloc(size_t k, size_t n) {
  if (t_resolving) {
    size_t bytes;
    return __builtin_mul_overflow(k, n, &bytes) ? NULL : arena_alloc(bytes, 16);
  }
  resolve_next();
  count();
  return next.calloc(k, n);
}

PROBE_API void free(void* p) {
  if (p == NULL || in_arena(p)) return;
  if (t_resolving) return;  /* cannot happen: nothing but the arena was handed out yet */
  resolve_next();
  next.free(p);
}

PROBE_API void* realloc(void* p, size_t n) {
  if (t_resolving || in_arena(p)) {
    void* q = t_resolving ? arena_alloc(n, 16) : malloc(n);
    if (q != NULL && p != NULL) {
      const size_t old = arena_size(p);
      memcpy(q, p, old < n ? old : n);
    }
    return q;
  }
  resolve_next();
  count();
  return next.realloc(p, n);
}

PROBE_API void* reallocarray(void* p, size_t k, size_t n) {
  size_t bytes;
  if (t_resolving || in_arena(p)) {
    if (__builtin_mul_overflow(k, n, &bytes)) {
      errno = ENOMEM;
      return NULL;
    }
    return realloc(p, bytes);
  }
  resolve_next();
  count();
  if (next.reallocarray != NULL) return next.reallocarray(p, k, n);
  if (__builtin_mul_overflow(k, n, &bytes)) {
    errno = ENOMEM;
    return NULL;
  }
  return next.realloc(p, bytes);
}

PROBE_API int posix_memalign(void** out, size_t align, size_t n) {
  if (t_resolving) {
    *out = arena_alloc(n, align);
    return *out != NULL ? 0 : ENOMEM;
  }
  resolve_next();
  count();
  return next.posix_memalign(out, align, n);
}

PROBE_API void* aligned_alloc(size_t align, size_t n) {
  if (t_resolving) return arena_alloc(n, align);
  resolve_next();
  count();
  return next.aligned_alloc(align, n);
}

PROBE_API void* memalign(size_t align, size_t n) {
  if (t_resolving) return arena_alloc(n, align);
  resolve_next();
  count();
  return next.memalign(align, n);
}

PROBE_API void* valloc(size_t n) {
  if (t_resolving) return arena_alloc(n, 4096);
  resolve_next();
  count();
  return next.valloc(n);
}

PROBE_API void* pvalloc(size_t n) {
  if (t_resolving) return arena_alloc(n, 4096);
  resolve_next();
  count();
  return next.pvalloc(n);
}

/* operator new/delete.  The next `new` runs with t_in_new set (its malloc is not counted again);
 * the flag is a depth restored by a cleanup that also runs when it throws (-fexceptions). */
static void leave_new(int* saved) { t_in_new = *saved; }
#define INSIDE_NEW int saved_in_new __attribute__((cleanup(leave_new))) = t_in_new; t_in_new = 1

static void* fallback_new(size_t n, int nothrow) {
  void* p = next.malloc(n != 0 ? n : 1);
  if (p == NULL && !nothrow) abort();  /* no libstdc++ to throw std::bad_alloc with */
  return p;
}
static void* fallback_new_aligned(size_t n, size_t align, int nothrow) {
  void* p = NULL;
  if (next.posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, n != 0 ? n : 1) != 0) p = NULL;
  if (p == NULL && !nothrow) abort();
  return p;
}

#define NEW_BODY(call, fallback) \
  resolve_next();                \
  count();                       \
  if (!next.cxx) return fallback; \
  INSIDE_NEW;                    \
  return call

PROBE_API void* _Znwm(size_t n) { NEW_BODY(next.new_(n), fallback_new(n, 0)); }
PROBE_API void* _Znam(size_t n) { NEW_BODY(next.new_array(n), fallback_new(n, 0)); }
PROBE_API void* _ZnwmRKSt9nothrow_t(size_t n, const void* tag) { NEW_BODY(next.new_nothrow(n, tag), fallback_new(n, 1)); }
PROBE_API void* _ZnamRKSt9nothrow_t(size_t n, const void* tag) { NEW_BODY(next.new_array_nothrow(n, tag), fallback_new(n, 1)); }
PROBE_API void* _ZnwmSt11align_val_t(size_t n, size_t a) { NEW_BODY(next.new_aligned(n, a), fallback_new_aligned(n, a, 0)); }
PROBE_API void* _ZnamSt11align_val_t(size_t n, size_t a) { NEW_BODY(next.new_array_aligned(n, a), fallback_new_aligned(n, a, 0)); }
PROBE_API void* _ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t a, const void* tag) {
  NEW_BODY(next.new_aligned_nothrow(n, a, tag), fallback_new_aligned(n, a, 1));
}
PROBE_API void* _ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t a, const void* tag) {
  NEW_BODY(next.new_array_aligned_nothrow(n, a, tag), fallback_new_aligned(n, a, 1));
}

#define DELETE_BODY(call)                        \
  if (p == NULL || in_arena(p)) return;          \
  resolve_next();                                \
  if (next.cxx) call;                            \
  else next.free(p)

PROBE_API void _ZdlPv(void* p) { DELETE_BODY(next.delete_(p)); }
PROBE_API void _ZdaPv(void* p) { DELETE_BODY(next.delete_array(p)); }
PROBE_API void _ZdlPvm(void* p, size_t n) { DELETE_BODY(next.delete_sized(p, n)); }
PROBE_API void _ZdaPvm(void* p, size_t n) { DELETE_BODY(next.delete_array_sized(p, n)); }
PROBE_API void _ZdlPvSt11align_val_t(void* p, size_t a) { DELETE_BODY(next.delete_aligned(p, a)); }
PROBE_API void _ZdaPvSt11align_val_t(void* p, size_t a) { DELETE_BODY(next.delete_array_aligned(p, a)); }
PROBE_API void _ZdlPvmSt11align_val_t(void* p, size_t n, size_t a) { DELETE_BODY(next.delete_sized_aligned(p, n, a)); }
PROBE_API void _ZdaPvmSt11align_val_t(void* p, size_t n, size_t a) { DELETE_BODY(next.delete_array_sized_aligned(p, n, a)); }
#endif
