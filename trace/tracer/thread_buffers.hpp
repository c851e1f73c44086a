// Per-thread event buffers: the tracer's fast path and the hand-over of full buffers as blocks.
//
// Model.  A thread gets a buffer (mmap'd, never freed, reused after its thread exits) at its
// first event.  The owner appends encoded events (delta state restarting at zero in each block,
// trace_format.hpp) without any lock; after each event it publishes (events, bytes) with one
// release store.  The buffer's lock is taken only to write the buffer out:
//  - by the owner when the next event might not fit (the usual case), and at thread exit
//    (pthread key destructor, re-armed so that later key destructors' frees are caught too);
//  - by another thread when the process ends (library destructor, SIGABRT, exec, _exit): it
//    writes what the owner had published and marks the buffer `taken`.  The owner, seeing
//    `taken` at its next event, restarts the buffer empty.  No event is ever written twice.
// The end and the owners' events in flight: an owner marks its buffer `writing` while it records
// an event.  The ending thread sets g_ending, makes every thread's flag visible
// (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): the owners' fast path needs no fence), and waits
// until no owner is writing (at most kEndingWaitNs; an event still unpublished then counts as
// lost) before it writes the buffers out.  An owner that sees g_ending at kEndingFinal waits
// there, before its call returns, until the process is gone (or an exec failed).
// After a thread's last key destructor round its buffer is another thread's to reuse; the calls
// glibc makes on the thread's way out (__libc_thread_freeres: free(NULL) of its strerror and
// strsignal buffers) are written at once, each as a block of its own under the thread's index.
// In a fork child only the forking thread exists: its buffer restarts empty (the parent's
// pending events stay the parent's) as thread 0 of the child's new file; the other buffers are
// freed.
#pragma once

#include <atomic>
#include <cstdint>

#include "spin_lock.hpp"
#include "trace/trace_format.hpp"
#include "trace_output.hpp"
#include "tracer_state.hpp"

namespace allocstress::tracer {

struct ThreadBuffer {
  SpinLock lock;                              // held by whoever writes this buffer out
  std::atomic<std::uint64_t> published{0};    // (events << 32) | encoded bytes; owner stores, release
  std::atomic<bool> taken{false};             // another thread wrote the published events out
  std::atomic<bool> in_use{false};            // owned by a live thread
  std::atomic<bool> writing{false};           // the owner is recording an event (owner stores only)
  std::uint32_t thread = 0, tid = 0, block_seq = 0;  // changed under `lock`
  trace::CodecState codec;                    // owner only
  ThreadBuffer* next = nullptr;               // registry link; buffers are never removed
  alignas(64) unsigned char data[kBlockBytes];
};

// Slow paths (thread_buffers.cpp); all run with the caller's recursion guard held.
ThreadBuffer* attach_thread();                  // the calling thread's new buffer; nullptr if none can be had
void restart_taken_buffer(ThreadBuffer& b);     // owner: after another thread wrote its events out
// Owner: write the buffer out and restart it; false (buffer untouched) when this process does
// not own the trace (a vfork child: the events stay for the parent) or the thread is already
// flushing it (a signal handler interrupted the flush).
bool flush_own_buffer(ThreadBuffer& b);
void flush_all_buffers();                       // process ending: every thread's published events
void thread_buffers_init();                     // creates the thread-exit key
void thread_buffers_after_fork_child();
// A thread past its last key destructor round: writes `e` at once, as a block of its own.
void record_after_thread_exit(const trace::TraceEvent& e);
// Owner: clears `writing`, waits while the process ends (g_ending kEndingFinal), sets it again.
void wait_while_process_ends(ThreadBuffer& b);
// The ending thread, before it writes the buffers out: sets g_ending (kEndingFinal or
// kEndingExit) and waits for the events other threads are recording (see above).
void stop_recording_for_end(int ending);
// After a failed exec: the other threads' calls go on (and are recorded).
void resume_recording();

// Appends one event of the calling thread.  pre: the recursion guard is held.
inline void record(const trace::TraceEvent& e) {
  ThreadBuffer* b = t_state.buffer;
  if (__builtin_expect(reinterpret_cast<std::uintptr_t>(b) <= 1, 0)) {
    if (b == kThreadExited) return record_after_thread_exit(e);
    // acquire: the settings (g_config) were written before tracing was switched on.
    if (!g_tracing.load(std::memory_order_acquire) || (b = attach_thread()) == nullptr) return;
  }
  b->writing.store(true, std::memory_order_relaxed);
  // The flag before the load below, for the compiler; the CPU's order is the ending thread's
  // membarrier's concern (see above).
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (__builtin_expect(g_ending.load(std::memory_order_relaxed) == kEndingFinal, 0)) wait_while_process_ends(*b);
  if (__builtin_expect(b->taken.load(std::memory_order_relaxed), 0)) restart_taken_buffer(*b);
  std::uint64_t published = b->published.load(std::memory_order_relaxed);
  if (__builtin_expect(std::uint32_t(published) > kBlockBytes - trace::kMaxEncodedEventBytes ||
                           std::uint32_t(published >> 32) >= trace::kMaxBlockEvents, 0)) {
    if (!flush_own_buffer(*b)) {
      g_lost_events.fetch_add(1, std::memory_order_relaxed);
      b->writing.store(false, std::memory_order_release);
      return;
    }
    published = 0;
  }
  unsigned char* const end = trace::encode_event(b->data + std::uint32_t(published), b->codec, e, g_config.call_sites);
  b->published.store((published & ~std::uint64_t(0xffffffff)) + (std::uint64_t(1) << 32) + std::uint64_t(end - b->data),
                     std::memory_order_release);
  b->writing.store(false, std::memory_order_release);
}

}  // namespace allocstress::tracer
