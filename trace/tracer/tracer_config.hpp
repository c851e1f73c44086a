// The tracer's settings, from the environment the process was started with:
//   ALLOCSTRESS_TRACE_OUT=PREFIX         files PREFIX.<pid>.ast (default prefix: allocstress-trace,
//                                        i.e. in the current folder)
//   ALLOCSTRESS_TRACE_LEVEL=N            zstd level of the blocks, kMinLevel..kMaxLevel (-7..19)
//   ALLOCSTRESS_TRACE_CALL_SITES=0|1     record each call's return address (file flag kFlagCallSites)
// They are read from /proc/self/environ, not getenv(): the first allocation may come before libc
// has set up `environ`, and a program that changes its own environment must not change how it is
// traced half-way.  getenv() is the fallback when /proc is not mounted.
#pragma once

#include <cstddef>

namespace allocstress::tracer {

// Default level: chosen by measurement (bench/trace_overhead.py, figures in bench/README.md).
inline constexpr int kDefaultLevel = 1;
inline constexpr int kMinLevel = -7;  // negative: zstd's fast levels
inline constexpr int kMaxLevel = 19;
inline constexpr std::size_t kMaxPrefixBytes = 3800;  // PATH_MAX less room for ".<pid>.<n>.ast"

struct TracerConfig {
  char prefix[kMaxPrefixBytes + 1] = "allocstress-trace";
  int level = kDefaultLevel;
  bool call_sites = false;
};

// Reads the settings; false (after reporting one error line naming the variable and what is
// accepted) when one of them is invalid: the process is then not traced.
bool read_tracer_config(TracerConfig& config);

}  // namespace allocstress::tracer
