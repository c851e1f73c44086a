// Validation of the cross-thread workloads' parameters (cross_thread_params.hpp).
#include "workloads/cross_thread/cross_thread_params.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "workloads/param_range.hpp"

namespace allocstress {

void validate(const CrossThreadSpec& spec) {
  if (!(spec.remote_share >= 0.0 && spec.remote_share <= 1.0)) {  // also rejects NaN
    char percent[32];
    std::snprintf(percent, sizeof percent, "%g", spec.remote_share * 100.0);
    throw std::invalid_argument(std::string("remote share out of range: ") + percent + "% (accepted: 0..100 percent)");
  }
  require_in_range("queue capacity", spec.queue_capacity, 1, kMaxQueueCapacity, " blocks");
  require_in_range("rounds", spec.rounds, 1, kMaxRounds);
}

void validate_larson_rounds(std::uint64_t rounds, std::uint64_t iterations_per_thread) {
  if (rounds > iterations_per_thread)
    throw std::invalid_argument("rounds out of range: " + std::to_string(rounds) + " (accepted: 1..iterations per thread = " +
                                std::to_string(iterations_per_thread) + ")");
}

}  // namespace allocstress
