// Test program for the tracer: makes an exactly known sequence of allocation calls and prints
// what the trace must contain, so that tests/cli/trace_capture.sh can compare it with the trace
// read back (dump_trace).  Every sequence is bracketed by markers, malloc(77777)+free at the
// start and malloc(77779)+free at the end, so that start-up and stdio allocations around it
// are ignored.  The expected events are kept in a static table while the sequence runs (printing
// allocates) and printed afterwards, one line each:
//   pid tid op size address old_address alignment      (addresses hex, '*' = any value)
//
// Modes (argv[1]):
//   sequence   every interposed function and operator new/delete variant, incl. failed calls
//   threads    two threads; each frees the other's blocks (cross-thread frees)
//   fork       a child that ends with exit() and one with _exit(); each must trace into a file
//              of its own without the parent's pending events
//   abort      the sequence, then abort(): the SIGABRT handler must write it out
//   exec       a short sequence, then exec of this program in `sequence` mode (same pid: the new
//              image must write a second file)
//   churn      20 short-lived threads one after the other, each with a short sequence: thread
//              exit writes each thread's events, and buffers of exited threads are reused
//   busy_exit  a thread allocating without pause while the main thread's sequence ends with
//              exit(): the exit writes both threads' pending events
//   loop       allocates and frees forever (killed by the test)
// Built at -O0 with -fno-builtin so that no call is merged or dropped.
#include <dlfcn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <new>
#include <pthread.h>

#include "trace/trace_format.hpp"

using allocstress::trace::op_name;
using allocstress::trace::TraceOp;

namespace {

constexpr std::size_t kStartMarker = 77777, kEndMarker = 77779;

struct Expected {
  unsigned pid, tid;
  TraceOp op;
  std::uint64_t size, address, old_address, alignment;
  bool any_address;
};
Expected g_expected[512];
std::atomic<unsigned> g_count{0};

unsigned tid() { return unsigned(syscall(SYS_gettid)); }
std::uint64_t u(const void* p) { return std::uint64_t(reinterpret_cast<std::uintptr_t>(p)); }

void expect(TraceOp op, std::uint64_t size, const void* address, const void* old = nullptr, std::uint64_t alignment = 0, bool any = false) {
  g_expected[g_count++] = {unsigned(getpid()), tid(), op, size, u(address), u(old), alignment, any};
}

void print_expected() {
  for (unsigned i = 0; i < g_count; ++i) {
    const Expected& e = g_expected[i];
    char address[32];
    if (e.any_address) std::strcpy(address, "*");
    else std::snprintf(address, sizeof address, "%" PRIx64, e.address);
    std::printf("%u %u %s %" PRIu64 " %s %" PRIx64 " %" PRIu64 "\n", e.pid, e.tid, op_name(e.op), e.size, address, e.old_address, e.alignment);
  }
  g_count = 0;
  std::fflush(stdout);
}

void marker(std::size_t size) {
  void* p = std::malloc(size);
  expect(TraceOp::malloc, size, p);
  std::free(p);
  expect(TraceOp::free, 0, p);
}

volatile std::size_t g_huge = SIZE_MAX;
bool g_on_jemalloc = false;  // set before any sequence: dlsym allocates  // volatile: the compiler must not see the failing sizes

// Every interposed C function, in each of its outcomes.
void c_functions() {
  void* p = std::malloc(24);
  expect(TraceOp::malloc, 24, p);
  void* q = std::calloc(10, 8);
  expect(TraceOp::calloc, 80, q);
  void* r = std::realloc(p, 1000);
  expect(TraceOp::realloc, 1000, r, p);
  void* s = std::realloc(nullptr, 40);
  expect(TraceOp::realloc, 40, s, nullptr);
  void* z = std::realloc(s, 0);  // glibc frees and returns NULL; other allocators may return a block
  expect(TraceOp::realloc, 0, z, s);
  if (z != nullptr) {
    std::free(z);
    expect(TraceOp::free, 0, z);
  }
  void* a = reallocarray(r, 5, 64);
  expect(TraceOp::reallocarray, 320, a, r);
  std::free(a);
  expect(TraceOp::free, 0, a);
  std::free(q);
  expect(TraceOp::free, 0, q);
  void* m = nullptr;
  const int rc = posix_memalign(&m, 64, 200);
  expect(TraceOp::posix_memalign, 200, rc == 0 ? m : nullptr, nullptr, 64);
  std::free(m);
  expect(TraceOp::free, 0, m);
  void* al = aligned_alloc(128, 256);
  expect(TraceOp::aligned_alloc, 256, al, nullptr, 128);
  std::free(al);
  expect(TraceOp::free, 0, al);
  void* me = memalign(32, 100);
  expect(TraceOp::memalign, 100, me, nullptr, 32);
  std::free(me);
  expect(TraceOp::free, 0, me);
  const auto page = std::uint64_t(sysconf(_SC_PAGESIZE));
  void* v = valloc(300);
  expect(TraceOp::valloc, 300, v, nullptr, page);
  std::free(v);
  expect(TraceOp::free, 0, v);
  // jemalloc defines no pvalloc: glibc's would hand out a block that jemalloc's free cannot take
  // (with or without the tracer), so it is left out there.
  if (!g_on_jemalloc) {
    void* pv = pvalloc(5000);
    expect(TraceOp::pvalloc, 5000, pv, nullptr, page);
    std::free(pv);
    expect(TraceOp::free, 0, pv);
  }
  std::free(nullptr);
  expect(TraceOp::free, 0, nullptr);
  void* failed = std::malloc(g_huge);
  expect(TraceOp::malloc, SIZE_MAX, failed);
  void* failed_c = std::calloc(g_huge / 2, 4);  // overflow: recorded with the saturated size
  expect(TraceOp::calloc, SIZE_MAX, failed_c);
  // Four calls from one call site (same return address), for the call-site check.
  void* same_site[4];
  for (void*& b : same_site) {
    b = std::malloc(4096);
    expect(TraceOp::malloc, 4096, b);
  }
  for (void* b : same_site) {
    std::free(b);
    expect(TraceOp::free, 0, b);
  }
}

// Every operator new/delete variant.
void operators() {
  const auto a256 = std::align_val_t(256), a128 = std::align_val_t(128);
  void* p = ::operator new(40);
  expect(TraceOp::op_new, 40, p);
  ::operator delete(p);
  expect(TraceOp::op_delete, 0, p);
  p = ::operator new(41);
  expect(TraceOp::op_new, 41, p);
  ::operator delete(p, 41);
  expect(TraceOp::op_delete_sized, 41, p);
  p = ::operator new[](100);
  expect(TraceOp::op_new_array, 100, p);
  ::operator delete[](p);
  expect(TraceOp::op_delete_array, 0, p);
  p = ::operator new[](101);
  expect(TraceOp::op_new_array, 101, p);
  ::operator delete[](p, 101);
  expect(TraceOp::op_delete_array_sized, 101, p);
  p = ::operator new(50, std::nothrow);
  expect(TraceOp::op_new_nothrow, 50, p);
  ::operator delete(p, std::nothrow);
  expect(TraceOp::op_delete_nothrow, 0, p);
  p = ::operator new[](51, std::nothrow);
  expect(TraceOp::op_new_array_nothrow, 51, p);
  ::operator delete[](p, std::nothrow);
  expect(TraceOp::op_delete_array_nothrow, 0, p);
  p = ::operator new(64, a256);
  expect(TraceOp::op_new_aligned, 64, p, nullptr, 256);
  ::operator delete(p, a256);
  expect(TraceOp::op_delete_aligned, 0, p, nullptr, 256);
  p = ::operator new(65, a256);
  expect(TraceOp::op_new_aligned, 65, p, nullptr, 256);
  ::operator delete(p, 65, a256);
  expect(TraceOp::op_delete_sized_aligned, 65, p, nullptr, 256);
  p = ::operator new[](66, a256);
  expect(TraceOp::op_new_array_aligned, 66, p, nullptr, 256);
  ::operator delete[](p, a256);
  expect(TraceOp::op_delete_array_aligned, 0, p, nullptr, 256);
  p = ::operator new[](67, a256);
  expect(TraceOp::op_new_array_aligned, 67, p, nullptr, 256);
  ::operator delete[](p, 67, a256);
  expect(TraceOp::op_delete_array_sized_aligned, 67, p, nullptr, 256);
  p = ::operator new(68, a128, std::nothrow);
  expect(TraceOp::op_new_aligned_nothrow, 68, p, nullptr, 128);
  ::operator delete(p, a128, std::nothrow);
  expect(TraceOp::op_delete_aligned_nothrow, 0, p, nullptr, 128);
  p = ::operator new[](69, a128, std::nothrow);
  expect(TraceOp::op_new_array_aligned_nothrow, 69, p, nullptr, 128);
  ::operator delete[](p, a128, std::nothrow);
  expect(TraceOp::op_delete_array_aligned_nothrow, 0, p, nullptr, 128);
  // Failures keep their semantics: nothrow returns nullptr, the throwing form throws bad_alloc.
  p = ::operator new(g_huge / 2, std::nothrow);
  expect(TraceOp::op_new_nothrow, g_huge / 2, p);
  bool threw = false;
  try {
    p = ::operator new(g_huge / 2);
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  expect(TraceOp::op_new, g_huge / 2, nullptr);
  // The exception object was allocated inside the real operator new (not recorded) and is
  // freed by the catch: a free of an address the trace never allocated.
  expect(TraceOp::free, 0, nullptr, nullptr, 0, true);
  if (!threw) {
    std::fprintf(stderr, "known_sequence: operator new(huge) did not throw\n");
    std::exit(1);
  }
}

void sequence() {
  marker(kStartMarker);
  c_functions();
  operators();
  marker(kEndMarker);
}

// --- threads: each frees the other's blocks --------------------------------------------------
constexpr int kHandOver = 8;
void* g_from_main[kHandOver];
void* g_from_worker[kHandOver];
std::atomic<int> g_stage{0};  // 1 worker started, 2 main's blocks ready, 3 worker's blocks ready

void wait_stage(int stage) {
  while (g_stage.load() < stage) sched_yield();
}

void* worker(void*) {
  g_stage = 1;
  wait_stage(2);
  marker(kStartMarker);
  for (void* p : g_from_main) {
    std::free(p);
    expect(TraceOp::free, 0, p);
  }
  for (int i = 0; i < kHandOver; ++i) {
    g_from_worker[i] = std::malloc(std::size_t(2000 + i));
    expect(TraceOp::malloc, std::uint64_t(2000 + i), g_from_worker[i]);
  }
  marker(kEndMarker);
  g_stage = 3;
  return nullptr;
}

void threads() {
  pthread_t t;
  pthread_create(&t, nullptr, worker, nullptr);
  wait_stage(1);
  marker(kStartMarker);
  for (int i = 0; i < kHandOver; ++i) {
    g_from_main[i] = std::malloc(std::size_t(1000 + i));
    expect(TraceOp::malloc, std::uint64_t(1000 + i), g_from_main[i]);
  }
  g_stage = 2;
  wait_stage(3);
  for (void* p : g_from_worker) {
    std::free(p);
    expect(TraceOp::free, 0, p);
  }
  marker(kEndMarker);
  pthread_join(t, nullptr);
}

// --- fork -------------------------------------------------------------------------------------
void fork_child(bool underscore_exit) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid != 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::exit(1);
    return;
  }
  g_count = 0;  // the parent's expectations are the parent's to print
  marker(kStartMarker);
  void* p = std::malloc(underscore_exit ? 3003 : 3002);
  expect(TraceOp::malloc, underscore_exit ? 3003 : 3002, p);
  std::free(p);
  expect(TraceOp::free, 0, p);
  marker(kEndMarker);
  print_expected();
  if (underscore_exit) _exit(0);
  std::exit(0);
}

void fork_mode() {
  marker(kStartMarker);
  void* kept = std::malloc(3001);  // pending in the parent's buffer when it forks
  expect(TraceOp::malloc, 3001, kept);
  const unsigned before = g_count;
  fork_child(false);
  fork_child(true);
  g_count = before;
  std::free(kept);
  expect(TraceOp::free, 0, kept);
  marker(kEndMarker);
}

void* short_sequence(void* arg) {
  marker(kStartMarker);
  const std::size_t size = 5000 + reinterpret_cast<std::uintptr_t>(arg);
  void* p = std::malloc(size);
  expect(TraceOp::malloc, size, p);
  std::free(p);
  expect(TraceOp::free, 0, p);
  marker(kEndMarker);
  return nullptr;
}

void thread_churn() {
  for (std::uintptr_t i = 0; i < 20; ++i) {
    pthread_t t;
    pthread_create(&t, nullptr, short_sequence, reinterpret_cast<void*>(i));
    pthread_join(t, nullptr);
  }
}

std::atomic<std::uint64_t> g_busy_calls{0};

void* busy(void*) {
  void* slots[16] = {};
  for (std::uint64_t i = 0;; ++i) {
    void*& s = slots[i % 16];
    std::free(s);
    s = std::malloc(32 + i % 64);
    g_busy_calls.store(i, std::memory_order_relaxed);
  }
}

void busy_exit() {
  pthread_t t;
  pthread_create(&t, nullptr, busy, nullptr);
  while (g_busy_calls.load() < 100000) sched_yield();  // the worker's buffer has blocks and pending events
  sequence();
  print_expected();
  std::printf("# busy %llu\n", static_cast<unsigned long long>(g_busy_calls.load()));
  std::exit(0);  // with the worker still allocating
}

void loop() {
  void* slots[64] = {};
  for (std::uint64_t i = 0;; ++i) {
    void*& s = slots[(i * 2654435761u) % 64];
    std::free(s);
    s = std::malloc(16 + (i % 512));
  }
}

// abort: the sequence, its expectation, then SIGABRT (the tracer's end record says so).
[[noreturn]] void abort_mode() {
  sequence();
  print_expected();
  std::abort();
}

// exec: one allocation and its expectation, then the sequence mode in a new image (exit 1 if none).
void exec_mode() {
  marker(kStartMarker);
  void* p = std::malloc(4001);
  expect(TraceOp::malloc, 4001, p);
  marker(kEndMarker);
  print_expected();
  char self[] = "/proc/self/exe", arg0[] = "known_sequence", arg1[] = "sequence";
  char* const args[] = {arg0, arg1, nullptr};
  execv(self, args);
  std::perror("known_sequence: execv");
  std::exit(1);
}

// Each mode runs, then prints its expectation (abort and exec never come back).
struct Mode { const char* name; void (*run)(); };
constexpr Mode kModes[] = {{"sequence", sequence},  {"threads", threads},     {"fork", fork_mode}, {"abort", abort_mode},
                           {"exec", exec_mode},     {"churn", thread_churn}, {"busy_exit", busy_exit}, {"loop", loop}};

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  g_on_jemalloc = dlsym(RTLD_DEFAULT, "mallctl") != nullptr;
  for (const Mode& m : kModes) {
    if (std::strcmp(mode, m.name) != 0) continue;
    m.run();
    print_expected();
    std::printf("# jemalloc %s\n", g_on_jemalloc ? "yes" : "no");
    return 0;
  }
  std::fprintf(stderr, "usage: known_sequence sequence|threads|fork|abort|exec|churn|busy_exit|loop\n");
  return 2;
}
