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
 * allocation calls of its process (an unmeasured verification run: it is preloaded first); that
 * half is program_probe_count.c.
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
#include "platform/process/program_probe_count.h"  /* g_calls, resolve_next */
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
