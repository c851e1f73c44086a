// Names and validation of the false-sharing kernels' parameters (false_sharing_params.hpp).
#include "workloads/false_sharing/false_sharing_params.hpp"

#include <stdexcept>
#include <string>

namespace allocstress {

bool is_false_sharing_workload(std::string_view w) {
  return w == kFalseSharingActiveWorkload || w == kFalseSharingPassiveWorkload;
}

void validate(const FalseSharingSpec& s) {
  auto range = [](const char* option, std::uint64_t v, std::uint64_t hi) {
    if (v < 1 || v > hi)
      throw std::invalid_argument(std::string(option) + " out of range: " + std::to_string(v) + " (accepted: 1.." +
                                  std::to_string(hi) + ")");
  };
  range("--object-size", s.object_size, kMaxFalseSharingObjectSize);
  range("--objects", s.objects, kMaxFalseSharingObjects);
  range("--writes", s.writes, kMaxFalseSharingWrites);
  range("--fs-rounds", s.rounds, kMaxFalseSharingRounds);
  if (s.objects * s.object_size > kMaxFalseSharingBytesPerThread)
    throw std::invalid_argument("--objects x --object-size out of range: " + std::to_string(s.objects * s.object_size) +
                                " bytes per thread (accepted: 1.." + std::to_string(kMaxFalseSharingBytesPerThread) + ")");
}

}  // namespace allocstress
