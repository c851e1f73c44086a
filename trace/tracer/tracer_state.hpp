// Process-wide state of the tracer and the per-thread state every interposed call touches.
//
// Model: each thread appends encoded events to a buffer of its own (thread_buffers.hpp); a full
// buffer becomes one compressed block, appended to this process's trace file with one write()
// (trace_output.hpp).  Everything the tracer does for itself runs with the calling thread's
// recursion guard held, so allocations made on its behalf (dlsym, pthread keys, libstdc++'s
// operator new calling malloc) are forwarded to the real allocator without being recorded.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "tracer_config.hpp"

namespace allocstress::tracer {

struct ThreadBuffer;

// Initial-exec TLS: a fixed offset from the thread pointer, no __tls_get_addr (which may allocate).
struct ThreadState {
  unsigned guard = 0;              // > 0 while the tracer works on this thread: calls are not recorded
  ThreadBuffer* buffer = nullptr;  // nullptr until the first event; kThreadExited after the last key destructor round
  std::uint32_t tid = 0;           // cached kernel thread id (0 = not read yet)
  unsigned exit_rounds = 0;        // pthread key destructor rounds seen
  // After the last key destructor round (buffer == kThreadExited): the thread's index and its next
  // block, for the calls glibc still makes on its way out (thread_buffers.hpp).
  std::uint32_t exited_thread = 0, exited_block_seq = 0;
};
extern __thread ThreadState t_state __attribute__((tls_model("initial-exec")));

inline ThreadBuffer* const kThreadExited = reinterpret_cast<ThreadBuffer*>(std::uintptr_t(1));

// False before the settings are read, when they are invalid, and after an output error.
extern std::atomic<bool> g_tracing;
extern TracerConfig g_config;

// The process whose trace the tracer's state (buffers, file, counters) belongs to: set at
// start-up and in a fork child (atfork handler).  Any other process seeing this memory is a
// child that did not go through fork(): vfork(), posix_spawn(), clone(CLONE_VM) -- it shares the
// parent's memory (and, until exec, a copy of its descriptors), so it must not write, close or
// create anything of the parent's trace; its exec'd image traces into a file of its own.
extern std::atomic<int> g_owner_pid;
// Events recorded but never written (a vfork child's event that found the parent's buffer full,
// a block refused after the end record, a block dropped by a signal handler re-entering a flush,
// an event a thread was recording when the process ended and did not finish in time).
extern std::atomic<std::uint64_t> g_lost_events;

// How the process's trace is ending (end_process_trace, tracer_lifecycle.hpp).  kEndingFinal
// (_exit, exec, a fatal signal: the process dies right after the end record): every other thread
// waits at its next call, before the call returns, so that no call returns that the trace lacks;
// a failed exec lets them go on.  kEndingExit (exit(): the library destructor; later destructors
// may still join threads, which must not wait): their calls go on and are not recorded.
inline constexpr int kRunning = 0, kEndingFinal = 1, kEndingExit = 2;
extern std::atomic<int> g_ending;
// Threads writing an event of their own outside a buffer (after their last key destructor round).
extern std::atomic<unsigned> g_direct_writers;

// True when the calling process owns the trace state (one getpid() system call: slow paths only).
inline bool process_owns_trace() { return getpid() == g_owner_pid.load(std::memory_order_relaxed); }

inline std::uint32_t self_tid() {
  ThreadState& t = t_state;
  if (t.tid == 0) t.tid = std::uint32_t(syscall(SYS_gettid));
  return t.tid;
}

// RAII recursion guard for the tracer's own slow paths (flushes, set-up, fork handling).
struct GuardScope {
  GuardScope() { ++t_state.guard; }
  ~GuardScope() { --t_state.guard; }
  GuardScope(const GuardScope&) = delete;
  GuardScope& operator=(const GuardScope&) = delete;
};

}  // namespace allocstress::tracer
