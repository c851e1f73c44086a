// Test program for the tracer (tests/cli/traces/trace_exits.sh): _exit while two threads allocate
// without pause.  A fork child runs two workers, each of which counts its calls that returned
// (a free, then a malloc, over and over) in memory shared with the parent, and the child's main
// thread calls _exit once both have made 100,000 calls.  The parent prints, once the child is
// gone, one line per worker:
//   # returned CHILD_PID TID CALLS
// Every call that returned must be in the child's trace; the call under way when the child died
// may be there too, uncounted.  Built at -O0 with -fno-builtin: no call is merged or dropped.
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>

namespace {

struct Shared {
  std::atomic<std::uint64_t> calls[2];
  std::atomic<unsigned> tids[2];
};
Shared* g_shared = nullptr;  // set before the workers start

void* worker(void* arg) {
  const auto i = reinterpret_cast<std::uintptr_t>(arg);
  g_shared->tids[i] = unsigned(syscall(SYS_gettid));
  void* slots[16] = {};
  for (std::uint64_t n = 0;; ++n) {
    void*& s = slots[n % 16];
    std::free(s);
    g_shared->calls[i].fetch_add(1);
    s = std::malloc(32 + n % 64);
    g_shared->calls[i].fetch_add(1);
  }
}

}  // namespace

int main() {
  g_shared = static_cast<Shared*>(mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (g_shared == MAP_FAILED) return 1;
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    pthread_t t[2];
    for (std::uintptr_t i = 0; i < 2; ++i) pthread_create(&t[i], nullptr, worker, reinterpret_cast<void*>(i));
    while (g_shared->calls[0].load() < 100000 || g_shared->calls[1].load() < 100000) sched_yield();
    _exit(0);  // with both workers still allocating
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  for (int i = 0; i < 2; ++i)
    std::printf("# returned %d %u %llu\n", int(pid), g_shared->tids[i].load(), static_cast<unsigned long long>(g_shared->calls[i].load()));
  return 0;
}
