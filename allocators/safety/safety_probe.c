/* allocstress-safety-probe: which heap misuses does the malloc of this process catch, and does
 * it honour the C library's contract?  The runner preloads one allocator and runs one mode.
 *
 * Model: this process may sit on a broken or hostile malloc, so it allocates nothing except what
 * a case allocates on purpose: no stdio, no locale; every line is formatted on the stack and
 * written with one write(2), unbuffered; every run ends with _exit (no atexit handlers or
 * destructors that could crash after the last line and change the verdict).
 *
 * Contract (stdout lines; the runner parses exactly these):
 *   every mode first:  provider <realpath of the object defining the malloc this process calls>
 *   list:              name TAB group TAB scored(1|0) TAB description    (exit 0)
 *   case NAME:         step setup|misuse|follow|check   (a phase starts; follow/check optional)
 *                      fault target|elsewhere <step> <signo> 0x<addr>   (SIGSEGV/SIGBUS; exit 70)
 *                      outcome silent|error|corrupted <detail>          (last line; exit 0)
 *                      An `error` detail starts with errno's name (or the code returned), "0"
 *                      when unset.  Nothing is ever written to stderr in case mode: stderr is
 *                      the allocator's.  If the allocator aborts, the process just dies.
 *   conformance:       check <kind>, then ok <kind> | fail <kind>: <reason> | skip <kind>: <why>;
 *                      last line `done` (exit 0).  No fault handler: a crash kills the process.
 *   properties:        address, gap, guard, header, freed-link lines, then `done` (exit 0).
 *                      A case runs without address-space randomisation (the probe re-executes
 *                      itself once with ADDR_NO_RANDOMIZE): where a case's outcome hangs on the
 *                      layout (glibc's mangled free-list link, the page before an mmap), the same
 *                      machine then gives the same outcome on every run.  properties keeps it on:
 *                      it measures it.
 *   unknown case NAME: "unknown case NAME; `list` shows them" on stderr, exit 2 (no stdout).
 *   anything else:     a usage line on stderr, exit 2. */
#define _GNU_SOURCE
#include "safety_probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
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

static void resolve_heap(void) {
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
static void print_provider(void) {
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

/* ---- case mode: phases, targets, the fault handler, the outcome ---- */

static const char* volatile current_step = "none";
static struct {
  volatile uintptr_t lo, hi;
} targets[4];
static volatile size_t target_count;

void step(const char* name) {
  struct line l;
  current_step = name;
  line_start(&l, "step ");
  line_str(&l, name);
  line_emit(&l, STDOUT_FILENO);
}
void target_add(const void* p, size_t n) {
  if (target_count >= sizeof targets / sizeof targets[0]) return;
  targets[target_count].lo = (uintptr_t)p;
  targets[target_count].hi = (uintptr_t)p + n;
  target_count = target_count + 1;
  __asm__ volatile("" ::: "memory");
}
void targets_clear(void) {
  __asm__ volatile("" ::: "memory");
  target_count = 0;
}
_Noreturn void outcome_line(struct line* l) {
  line_emit(l, STDOUT_FILENO);
  _exit(0);
}
_Noreturn void outcome(const char* kind, const char* detail) {
  struct line l;
  line_start(&l, "outcome ");
  line_str(&l, kind);
  line_str(&l, " ");
  line_str(&l, detail);
  outcome_line(&l);
}

static void on_fault(int signo, siginfo_t* info, void* context) {
  (void)context;
  const uintptr_t at = (uintptr_t)info->si_addr;
  int hit = 0;
  for (size_t i = 0; i < target_count && i < sizeof targets / sizeof targets[0]; i++)
    if (at >= targets[i].lo && at < targets[i].hi) hit = 1;
  struct line l;
  line_start(&l, hit ? "fault target " : "fault elsewhere ");
  line_str(&l, current_step);
  line_str(&l, " ");
  line_dec(&l, (uint64_t)signo);
  line_str(&l, " ");
  line_hex(&l, at);
  line_emit(&l, STDOUT_FILENO);
  _exit(70);
}

void install_alt_stack(int worker) {
  static char stacks[2][64 * 1024] __attribute__((aligned(64)));
  stack_t ss;
  ss.ss_sp = stacks[worker != 0];
  ss.ss_size = sizeof stacks[0];
  ss.ss_flags = 0;
  sigaltstack(&ss, NULL);
}

static void install_fault_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  install_alt_stack(0);
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
}

/* ---- modes ---- */

static void print_list(void) {
  for (size_t i = 0; i < safety_case_count; i++) {
    struct line l;
    line_start(&l, safety_cases[i].name);
    line_str(&l, "\t");
    line_str(&l, safety_cases[i].group);
    line_str(&l, safety_cases[i].scored ? "\t1\t" : "\t0\t");
    line_str(&l, safety_cases[i].description);
    line_emit(&l, STDOUT_FILENO);
  }
}

static _Noreturn void usage(void) {
  struct line l;
  line_start(&l, "usage: allocstress-safety-probe list | case NAME | conformance | properties");
  line_emit(&l, STDERR_FILENO);
  _exit(2);
}

int main(int argc, char** argv) {
  if (argc < 2) usage();
  const char* mode = argv[1];
  resolve_heap();
  if (strcmp(mode, "list") == 0 && argc == 2) {
    print_provider();
    print_list();
    _exit(0);
  }
  if (strcmp(mode, "conformance") == 0 && argc == 2) {
    print_provider();
    run_conformance();
  }
  if (strcmp(mode, "properties") == 0 && argc == 2) {
    print_provider();
    run_properties();
  }
  if (strcmp(mode, "case") != 0 || argc != 3) usage();
  const int persona = personality(0xffffffff);
  if (persona != -1 && (persona & ADDR_NO_RANDOMIZE) == 0 && personality((unsigned long)persona | ADDR_NO_RANDOMIZE) != -1) {
    execv("/proc/self/exe", argv);  /* returns only on failure: then the case runs randomised */
  }
  for (size_t i = 0; i < safety_case_count; i++) {
    if (strcmp(argv[2], safety_cases[i].name) != 0) continue;
    print_provider();
    install_fault_handler();
    safety_cases[i].run();
    outcome("silent", "the case ended without an outcome of its own");
  }
  struct line l;
  line_start(&l, "unknown case ");
  line_str(&l, argv[2]);
  line_str(&l, "; `list` shows them");
  line_emit(&l, STDERR_FILENO);
  _exit(2);
}
