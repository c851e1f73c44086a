// Clocks of the tracer.  Events carry TSC ticks (format rule, trace_format.hpp): an allocation
// reads the counter right after the real allocator returned, a free right before the real free
// is called, so a block's free is stamped before its reuse and its allocation before its free.
// Block headers and the file header pair a TSC read with CLOCK_MONOTONIC so that the reader can
// derive the TSC rate.  Off x86, CLOCK_MONOTONIC nanoseconds stand in for the TSC.
//
// Both reads are plain RDTSC.  RDTSC is not serializing: the CPU may execute it some dozens of
// cycles before the instructions that precede it have finished.  Within a thread the order of
// events is the program order anyway (the trace keeps each thread's events in sequence).  Across
// threads, a block changes hands only through the allocator's own synchronisation (a lock or an
// atomic in free/malloc) plus the program's hand-over, which take longer than that window.
// RDTSCP, which waits for earlier instructions, costs 36 ns against RDTSC's 21 ns on the project's
// VM and made alloc-test 0.17x slower under the tracer (bench/trace_overhead.py): not used.
#pragma once

#include <time.h>

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace allocstress::tracer {

inline std::uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return std::uint64_t(ts.tv_sec) * 1'000'000'000u + std::uint64_t(ts.tv_nsec);
}

#if defined(__x86_64__) || defined(__i386__)
inline std::uint64_t read_tsc() { return __rdtsc(); }
#else
inline std::uint64_t read_tsc() { return clock_ns(CLOCK_MONOTONIC); }
#endif

}  // namespace allocstress::tracer
