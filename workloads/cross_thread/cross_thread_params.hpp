// Parameters of the cross-thread workloads `xthread` (cross_thread.hpp) and `larson` (larson.hpp).
// Both draw slots, sizes and seeds as alloc-test does (AllocTestParams); these are their own.
#pragma once

#include <cstdint>

namespace allocstress {

inline constexpr const char* kXThreadWorkload = "xthread";
inline constexpr const char* kLarsonWorkload = "larson";

struct CrossThreadSpec {
  double remote_share = 0.5;            // xthread: share of frees handed to another thread, 0..1 (CLI: percent)
  std::uint64_t queue_capacity = 1024;  // xthread: blocks one queue holds
  std::uint64_t rounds = 16;            // larson: rounds the iterations are split into; the slot
                                        // arrays pass to the next thread between rounds (rounds - 1 times)
};

// Upper bounds: a queue of 2^20 entries is 16 MiB of harness memory per thread; more than 10^6
// rounds would make the barriers, not the allocator, the measured work.
inline constexpr std::uint64_t kMaxQueueCapacity = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kMaxRounds = 1'000'000;

// Throws std::invalid_argument with one line naming the bad field and the accepted range.
void validate(const CrossThreadSpec& spec);

// larson only: every round needs an iteration.  Throws std::invalid_argument unless
// rounds <= iterations_per_thread.
void validate_larson_rounds(std::uint64_t rounds, std::uint64_t iterations_per_thread);

}  // namespace allocstress
