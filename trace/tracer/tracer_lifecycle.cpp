// Start and end of tracing in a process (see tracer_lifecycle.hpp).
#include "tracer_lifecycle.hpp"

#include <pthread.h>
#include <signal.h>

#include "thread_buffers.hpp"
#include "trace_output.hpp"
#include "tracer_state.hpp"

namespace allocstress::tracer {

__thread ThreadState t_state __attribute__((tls_model("initial-exec")));
std::atomic<bool> g_tracing{false};
TracerConfig g_config;

namespace {

std::atomic<int> g_start_state{0};  // 0 not started, 1 starting, 2 started

void on_abort(int) {
  GuardScope guard;
  flush_all_buffers();
  output_ensure_file(self_tid());
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGABRT, &dfl, nullptr);
  raise(SIGABRT);  // blocked while this handler runs: delivered, with the default action, on return
}

void install_abort_handler() {
  struct sigaction current {};
  if (sigaction(SIGABRT, nullptr, &current) != 0 || (current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) return;
  struct sigaction sa {};
  sa.sa_handler = on_abort;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGABRT, &sa, nullptr);
}

void on_fork_child() {
  GuardScope guard;
  thread_buffers_after_fork_child();
  output_after_fork_child();
}

__attribute__((constructor)) void on_load() {
  GuardScope guard;
  ensure_started();
}

// Runs when the dynamic linker finalizes this library: after the program's destructors and
// atexit handlers.  Events after this point (destructors of libraries finalized later) are
// buffered but not written.
__attribute__((destructor)) void on_unload() {
  GuardScope guard;
  if (!g_tracing.load(std::memory_order_relaxed)) return;
  flush_all_buffers();
  output_ensure_file(self_tid());
}

}  // namespace

void bootstrap() {
  int expected = 0;
  if (!g_start_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    while (g_start_state.load(std::memory_order_acquire) != 2) sched_yield();
    return;
  }
  resolve_real_functions();
  output_mark_start();
  if (read_tracer_config(g_config)) {
    thread_buffers_init();
    pthread_atfork(nullptr, nullptr, on_fork_child);
    install_abort_handler();
    g_tracing.store(true, std::memory_order_release);
  }
  g_start_state.store(2, std::memory_order_release);
}

void flush_before_process_change(bool process_ends) {
  GuardScope guard;
  ensure_started();
  if (!g_tracing.load(std::memory_order_relaxed)) return;
  flush_all_buffers();
  if (process_ends) output_ensure_file(self_tid());
}

}  // namespace allocstress::tracer
