// Validation of the cross-thread workloads' parameters (cross_thread_params.hpp).
#include "workloads/cross_thread/cross_thread_params.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace allocstress {

void validate(const CrossThreadSpec& spec) {
  if (!(spec.remote_share >= 0.0 && spec.remote_share <= 1.0)) {  // also rejects NaN
    char percent[32];
    std::snprintf(percent, sizeof percent, "%g", spec.remote_share * 100.0);
    throw std::invalid_argument(std::string("remote share out of range: ") + percent + "% (accepted: 0..100 percent)");
  }
  if (spec.queue_capacity < 1 || spec.queue_capacity > kMaxQueueCapacity)
    throw std::invalid_argument("queue capacity out of range: " + std::to_string(spec.queue_capacity) + " (accepted: 1.." +
                                std::to_string(kMaxQueueCapacity) + " blocks)");
  if (spec.rounds < 1 || spec.rounds > kMaxRounds)
    throw std::invalid_argument("rounds out of range: " + std::to_string(spec.rounds) + " (accepted: 1.." + std::to_string(kMaxRounds) + ")");
}

void validate_larson_rounds(std::uint64_t rounds, std::uint64_t iterations_per_thread) {
  if (rounds > iterations_per_thread)
    throw std::invalid_argument("rounds out of range: " + std::to_string(rounds) + " (accepted: 1..iterations per thread = " +
                                std::to_string(iterations_per_thread) + ")");
}

}  // namespace allocstress
