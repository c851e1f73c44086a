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
//    `taken` at its next event, restarts the buffer empty.  An event the owner was encoding at
//    that very moment is lost (it was not published yet); no event is ever written twice.
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

// Appends one event of the calling thread.  pre: the recursion guard is held.
inline void record(const trace::TraceEvent& e) {
  ThreadBuffer* b = t_state.buffer;
  if (__builtin_expect(reinterpret_cast<std::uintptr_t>(b) <= 1, 0)) {
    // acquire: the settings (g_config) were written before tracing was switched on.
    if (b == kThreadExited || !g_tracing.load(std::memory_order_acquire) || (b = attach_thread()) == nullptr) return;
  }
  if (__builtin_expect(b->taken.load(std::memory_order_relaxed), 0)) restart_taken_buffer(*b);
  std::uint64_t published = b->published.load(std::memory_order_relaxed);
  if (__builtin_expect(std::uint32_t(published) > kBlockBytes - trace::kMaxEncodedEventBytes ||
                           std::uint32_t(published >> 32) >= trace::kMaxBlockEvents, 0)) {
    if (!flush_own_buffer(*b)) {
      g_lost_events.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    published = 0;
  }
  unsigned char* const end = trace::encode_event(b->data + std::uint32_t(published), b->codec, e, g_config.call_sites);
  b->published.store((published & ~std::uint64_t(0xffffffff)) + (std::uint64_t(1) << 32) + std::uint64_t(end - b->data),
                     std::memory_order_release);
}

}  // namespace allocstress::tracer
