// Per-thread buffers: attaching, flushing, thread exit and fork (see thread_buffers.hpp).
#include "thread_buffers.hpp"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <new>

#include "tracer_clock.hpp"
#include "tracer_messages.hpp"

namespace allocstress::tracer {

namespace {

// How long the ending thread waits for the events other threads are recording (each takes well
// under a microsecond; a thread preempted in the middle of one is scheduled again long before).
constexpr std::uint64_t kEndingWaitNs = 200'000'000;

std::atomic<ThreadBuffer*> g_registry{nullptr};
std::atomic<std::uint32_t> g_next_thread{0};
pthread_key_t g_exit_key;
bool g_exit_key_ok = false;

std::uint32_t published_events(const ThreadBuffer& b) { return std::uint32_t(b.published.load(std::memory_order_acquire) >> 32); }

// Empties the buffer; pre: its lock is held (or no other thread can see it).
void restart(ThreadBuffer& b) {
  b.published.store(0, std::memory_order_relaxed);
  b.codec = trace::CodecState{};
  b.taken.store(false, std::memory_order_relaxed);
}

// Writes the published events as the buffer's next block; pre: lock held.
void write_published(ThreadBuffer& b, std::uint32_t self) {
  const std::uint64_t published = b.published.load(std::memory_order_acquire);
  const std::uint32_t events = std::uint32_t(published >> 32);
  if (events == 0) return;
  if (!write_block({b.thread, b.tid, b.block_seq, events}, b.data, std::uint32_t(published), self)) {
    g_lost_events.fetch_add(events, std::memory_order_relaxed);
    return;  // the block sequence stays gapless: the reader checks it
  }
  ++b.block_seq;
}

void on_thread_exit(void* arg) {
  GuardScope guard;
  auto* b = static_cast<ThreadBuffer*>(arg);
  ThreadState& t = t_state;
  flush_own_buffer(*b);
  // Re-arm: glibc runs the key destructors again (up to PTHREAD_DESTRUCTOR_ITERATIONS rounds)
  // while a value is set, so frees made by other keys' destructors after ours are written too.
  if (++t.exit_rounds < PTHREAD_DESTRUCTOR_ITERATIONS) {
    pthread_setspecific(g_exit_key, b);
    return;
  }
  const std::uint32_t self = self_tid();
  b->lock.lock(self);
  t.exited_thread = b->thread;  // the thread's later calls go on under its index (record_after_thread_exit)
  t.exited_block_seq = b->block_seq;
  restart(*b);
  b->in_use.store(false, std::memory_order_release);
  b->lock.unlock();
  t.buffer = kThreadExited;
}

// Waits while the process ends by _exit, exec or a fatal signal (a failed exec lets it go on).
void wait_while_final_end() {
  for (unsigned spins = 0; g_ending.load(std::memory_order_acquire) == kEndingFinal; ++spins) {
    if (spins < 64) {
      cpu_relax();
    } else {
      const timespec pause{0, 100'000};
      nanosleep(&pause, nullptr);
    }
  }
}

// A full memory barrier on every thread of this process (the ending thread's half of the
// handshake with the owners' `writing` flags): membarrier, registered at start-up; the slower
// global command where the private one is refused; false when neither is available.
bool barrier_on_every_thread() {
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return true;
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 &&
      syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
    return true;
  return syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0;
}

}  // namespace

ThreadBuffer* attach_thread() {
  ThreadState& t = t_state;
  const std::uint32_t self = self_tid();
  ThreadBuffer* b = nullptr;
  for (ThreadBuffer* c = g_registry.load(std::memory_order_acquire); c != nullptr && b == nullptr; c = c->next) {
    bool expected = false;
    if (!c->in_use.load(std::memory_order_relaxed) && c->in_use.compare_exchange_strong(expected, true, std::memory_order_acquire)) b = c;
  }
  if (b == nullptr) {
    void* mem = mmap(nullptr, sizeof(ThreadBuffer), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
      if (g_tracing.exchange(false)) report_error("cannot map a thread buffer: ", strerrordesc_np(errno), "; tracing stopped");
      return nullptr;
    }
    b = new (mem) ThreadBuffer;
    b->in_use.store(true, std::memory_order_relaxed);
    ThreadBuffer* head = g_registry.load(std::memory_order_relaxed);
    do b->next = head;
    while (!g_registry.compare_exchange_weak(head, b, std::memory_order_release, std::memory_order_relaxed));
  }
  b->lock.lock(self);
  restart(*b);
  b->thread = g_next_thread.fetch_add(1, std::memory_order_relaxed);
  b->tid = self;
  b->block_seq = 0;
  b->lock.unlock();
  t.buffer = b;
  t.exit_rounds = 0;
  if (g_exit_key_ok) pthread_setspecific(g_exit_key, b);
  return b;
}

void restart_taken_buffer(ThreadBuffer& b) {
  b.lock.lock(self_tid());
  restart(b);
  b.lock.unlock();
}

bool flush_own_buffer(ThreadBuffer& b) {
  const std::uint32_t self = self_tid();
  if (b.lock.held_by(self)) return false;  // a signal handler interrupted this thread's own flush
  if (!process_owns_trace()) return false;  // a vfork child: the parent's buffer, the parent writes it
  b.lock.lock(self);
  if (!b.taken.load(std::memory_order_relaxed)) write_published(b, self);
  restart(b);
  b.lock.unlock();
  return true;
}

void flush_all_buffers() {
  const std::uint32_t self = self_tid();
  ThreadBuffer* const mine = t_state.buffer;
  for (ThreadBuffer* b = g_registry.load(std::memory_order_acquire); b != nullptr; b = b->next) {
    if (b == mine) {
      flush_own_buffer(*b);
      continue;
    }
    if (b->lock.held_by(self)) continue;
    b->lock.lock(self);
    if (b->in_use.load(std::memory_order_relaxed) && !b->taken.load(std::memory_order_relaxed) && published_events(*b) > 0) {
      write_published(*b, self);
      b->taken.store(true, std::memory_order_relaxed);
    }
    b->lock.unlock();
  }
}

void thread_buffers_init() {
  g_exit_key_ok = pthread_key_create(&g_exit_key, on_thread_exit) == 0;
  syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);  // may fail: barrier_on_every_thread falls back
}

void record_after_thread_exit(const trace::TraceEvent& e) {
  ThreadState& t = t_state;
  if (!g_tracing.load(std::memory_order_acquire)) return;
  // The same handshake as an owner's `writing` flag, with a counter (this path is rare): the
  // read-modify-write orders it before the load of g_ending.
  for (;;) {
    g_direct_writers.fetch_add(1, std::memory_order_seq_cst);
    if (g_ending.load(std::memory_order_seq_cst) != kEndingFinal) break;
    g_direct_writers.fetch_sub(1, std::memory_order_release);
    wait_while_final_end();
  }
  unsigned char data[trace::kMaxEncodedEventBytes];
  trace::CodecState codec{};
  const unsigned char* const end = trace::encode_event(data, codec, e, g_config.call_sites);
  const std::uint32_t self = self_tid();
  if (write_block({t.exited_thread, self, t.exited_block_seq, 1}, data, std::uint32_t(end - data), self)) ++t.exited_block_seq;
  else g_lost_events.fetch_add(1, std::memory_order_relaxed);
  g_direct_writers.fetch_sub(1, std::memory_order_release);
}

void wait_while_process_ends(ThreadBuffer& b) {
  do {
    b.writing.store(false, std::memory_order_release);
    wait_while_final_end();
    b.writing.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // rare: a real fence, no barrier needed from the ending thread
  } while (g_ending.load(std::memory_order_relaxed) == kEndingFinal);
}

void stop_recording_for_end(int ending) {
  g_ending.store(ending, std::memory_order_seq_cst);
  const bool ordered = barrier_on_every_thread();
  ThreadBuffer* const mine = t_state.buffer;
  // An event of this very thread under way (a fatal signal arrived in the middle of it) is never
  // published: lost.
  if (reinterpret_cast<std::uintptr_t>(mine) > 1 && mine->writing.load(std::memory_order_relaxed))
    g_lost_events.fetch_add(1, std::memory_order_relaxed);
  // Without the barrier a flag may be seen late: wait a little anyway.
  const std::uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + (ordered ? kEndingWaitNs : kEndingWaitNs / 10);
  auto wait_for = [&](auto busy) {
    for (unsigned spins = 0; busy(); ++spins) {
      if (clock_ns(CLOCK_MONOTONIC) > deadline) return false;
      if (spins < 64) cpu_relax();
      else sched_yield();
    }
    return true;
  };
  for (ThreadBuffer* b = g_registry.load(std::memory_order_acquire); b != nullptr; b = b->next)
    if (b != mine && !wait_for([b] { return b->writing.load(std::memory_order_acquire); }))
      g_lost_events.fetch_add(1, std::memory_order_relaxed);  // still unpublished: an owner stopped in the middle of an event
  if (!wait_for([] { return g_direct_writers.load(std::memory_order_acquire) > 0; }))
    g_lost_events.fetch_add(g_direct_writers.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void resume_recording() { g_ending.store(kRunning, std::memory_order_release); }

void thread_buffers_after_fork_child() {
  ThreadState& t = t_state;
  g_ending.store(kRunning, std::memory_order_relaxed);  // the forking thread was not ending, or it would not fork
  g_direct_writers.store(0, std::memory_order_relaxed);
  syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
  t.tid = 0;  // the child's thread has an id of its own
  ThreadBuffer* const mine = reinterpret_cast<std::uintptr_t>(t.buffer) > 1 ? t.buffer : nullptr;
  g_next_thread.store(0, std::memory_order_relaxed);
  for (ThreadBuffer* b = g_registry.load(std::memory_order_acquire); b != nullptr; b = b->next) {
    b->lock.reset();
    restart(*b);
    if (b != mine) b->in_use.store(false, std::memory_order_relaxed);
  }
  if (mine != nullptr) {
    mine->thread = g_next_thread.fetch_add(1, std::memory_order_relaxed);
    mine->tid = self_tid();
    mine->block_seq = 0;
  }
}

}  // namespace allocstress::tracer
