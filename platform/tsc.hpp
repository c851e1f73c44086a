// Time-stamp counter reads for timing batches of operations.  On x86-64 both ends are LFENCE then
// RDTSC: the fence waits for earlier instructions, as RDTSCP would, but RDTSCP is not used because
// some VMs hide it from CPUID (this project's CI machine: no `rdtscp` in /proc/cpuinfo) and then
// valgrind cannot decode it (the counts cells died of SIGILL); elsewhere a nanosecond steady clock stands in
// and the counter is named accordingly in the results.  Never time single operations with it:
// on some VMs the TSC advances in ~10 ns steps.
#pragma once

#include <cstdint>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <time.h>
#endif

namespace allocstress {

#if defined(__x86_64__) || defined(__i386__)
inline constexpr std::string_view kCycleCounterName = "rdtsc";
inline std::uint64_t cycle_counter_begin() {
  _mm_lfence();
  return __rdtsc();
}
inline std::uint64_t cycle_counter_end() {
  _mm_lfence();
  return __rdtsc();
}
#else
inline constexpr std::string_view kCycleCounterName = "clock_monotonic_ns";
inline std::uint64_t cycle_counter_begin() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1'000'000'000u + std::uint64_t(ts.tv_nsec);
}
inline std::uint64_t cycle_counter_end() { return cycle_counter_begin(); }
#endif

}  // namespace allocstress
