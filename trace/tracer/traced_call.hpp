// The shape of every interposed allocation function: forward to the real one with the recursion
// guard held, and record one event unless the call is nested inside the tracer (or inside
// another traced call: libstdc++'s operator new calling malloc is one operator new event).
// Allocation events read the TSC after the real call returned, free events before it is made
// (tracer_clock.hpp); a free's event is appended before the real free runs, so a free that
// aborts (glibc's double-free check) is in the trace the SIGABRT handler writes.  `site` is the traced call's return address (__builtin_return_address(0)
// of the exported function), recorded when ALLOCSTRESS_TRACE_CALL_SITES=1.
#pragma once

#include <cstdint>

#include "thread_buffers.hpp"
#include "tracer_clock.hpp"
#include "tracer_lifecycle.hpp"

namespace allocstress::tracer {

using trace::TraceEvent;
using trace::TraceOp;

inline std::uint64_t as_u64(const void* p) { return std::uint64_t(reinterpret_cast<std::uintptr_t>(p)); }

// Records `e` with the TSC and the block call() returned (nullptr = failed) filled in.
template <class Call>
inline void* traced_result(TraceEvent e, Call call) {
  ThreadState& t = t_state;
  if (t.guard != 0) return call();
  ++t.guard;
  ensure_started();
  void* const p = call();
  e.tsc = read_tsc();
  e.address = as_u64(p);
  record(e);
  --t.guard;
  return p;
}

// `call()` returns the block (nullptr = failed).
template <class Call>
inline void* traced_allocation(TraceOp op, std::size_t size, std::size_t alignment, void* site, Call call) {
  return traced_result(TraceEvent{.size = size, .alignment = alignment, .call_site = as_u64(site), .op = op}, call);
}

template <class Call>
inline void traced_free(TraceOp op, void* p, std::size_t size, std::size_t alignment, void* site, Call call) {
  ThreadState& t = t_state;
  if (t.guard != 0) return call();
  ++t.guard;
  ensure_started();
  record(TraceEvent{.tsc = read_tsc(), .address = as_u64(p), .size = size, .alignment = alignment, .call_site = as_u64(site), .op = op});
  call();
  --t.guard;
}

template <class Call>
inline void* traced_reallocation(TraceOp op, void* old, std::size_t size, void* site, Call call) {
  return traced_result(TraceEvent{.old_address = as_u64(old), .size = size, .call_site = as_u64(site), .op = op}, call);
}

}  // namespace allocstress::tracer
