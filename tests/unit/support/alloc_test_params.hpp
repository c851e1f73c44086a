// Test support for the workloads' unit tests: alloc-test parameters with the fields a test sets
// most (threads, allocations or operations per thread, the largest size exponent E, the seed);
// every other field keeps AllocTestParams' default.
#pragma once

#include <cstdint>

#include "workloads/alloc_test.hpp"

namespace allocstress::testing {

inline AllocTestParams alloc_test_params(unsigned threads, std::uint64_t per_thread, unsigned max_size_exp, std::uint64_t seed) {
  AllocTestParams p;
  p.threads = threads;
  p.iterations_per_thread = per_thread;
  p.max_size_exp = max_size_exp;
  p.seed = seed;
  return p;
}

}  // namespace allocstress::testing
