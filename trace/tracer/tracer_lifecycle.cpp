// Start and end of tracing in a process (see tracer_lifecycle.hpp).
#include "tracer_lifecycle.hpp"

#include <pthread.h>

#include "thread_buffers.hpp"
#include "trace_output.hpp"
#include "tracer_signals.hpp"
#include "tracer_state.hpp"

namespace allocstress::tracer {

__thread ThreadState t_state __attribute__((tls_model("initial-exec")));
std::atomic<bool> g_tracing{false};
TracerConfig g_config;
std::atomic<int> g_owner_pid{0};
std::atomic<std::uint64_t> g_lost_events{0};
std::atomic<int> g_ending{kRunning};
std::atomic<unsigned> g_direct_writers{0};

namespace {

std::atomic<int> g_start_state{0};  // 0 not started, 1 starting, 2 started

void on_fork_child() {
  GuardScope guard;
  g_owner_pid.store(getpid(), std::memory_order_relaxed);
  g_lost_events.store(0, std::memory_order_relaxed);
  thread_buffers_after_fork_child();
  output_after_fork_child();
}

__attribute__((constructor)) void on_load() {
  GuardScope guard;
  ensure_started();
}

// Runs when the dynamic linker finalizes this library: after the program's destructors and
// atexit handlers.  Events after this point (destructors of libraries finalized later, threads
// still running) are not written: the end record closes the file.  A vfork child that calls
// exit() (not _exit) does nothing here: the trace is its parent's.
__attribute__((destructor)) void on_unload() {
  GuardScope guard;
  end_process_trace(trace::EndCause::exit, 0, true);
}

}  // namespace

void bootstrap() {
  int expected = 0;
  if (!g_start_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    while (g_start_state.load(std::memory_order_acquire) != 2) sched_yield();
    return;
  }
  resolve_real_functions();
  g_owner_pid.store(getpid(), std::memory_order_relaxed);
  output_mark_start();
  if (read_tracer_config(g_config)) {
    thread_buffers_init();
    pthread_atfork(nullptr, nullptr, on_fork_child);
    g_tracing.store(true, std::memory_order_release);
    install_signal_handlers();
  }
  g_start_state.store(2, std::memory_order_release);
}

bool end_process_trace(trace::EndCause cause, int signal, bool create) {
  if (!g_tracing.load(std::memory_order_relaxed) || !process_owns_trace()) return false;
  // exit(): later destructors may join threads, whose calls must go on; _exit, exec and fatal
  // signals: the process dies right after, and no other thread's call may return unrecorded.
  stop_recording_for_end(cause == trace::EndCause::exit ? kEndingExit : kEndingFinal);
  flush_all_buffers();
  output_end(cause, signal, create, self_tid());
  return true;
}

bool flush_before_process_change(trace::EndCause cause) {
  GuardScope guard;
  ensure_started();
  return end_process_trace(cause, 0, cause != trace::EndCause::exec);
}

void resume_after_failed_exec() {
  GuardScope guard;
  if (g_tracing.load(std::memory_order_relaxed)) output_end(trace::EndCause::resumed, 0, false, self_tid());
  resume_recording();
}

}  // namespace allocstress::tracer
