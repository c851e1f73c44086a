// Parameters of the allocator-induced false-sharing kernels `false-sharing-active` and
// `false-sharing-passive` (the kernels and their model: false_sharing.hpp).
#pragma once

#include <cstdint>
#include <string_view>

namespace allocstress {

inline constexpr const char* kFalseSharingActiveWorkload = "false-sharing-active";
inline constexpr const char* kFalseSharingPassiveWorkload = "false-sharing-passive";

bool is_false_sharing_workload(std::string_view workload);

struct FalseSharingSpec {
  std::uint64_t object_size = 8;  // bytes per object
  std::uint64_t objects = 16;     // objects per thread per round
  std::uint64_t writes = 1000;    // writes to each object per round
  std::uint64_t rounds = 1000;    // allocate-write-free rounds
};

// Accepted ranges (validate): object_size 1..4096, objects 1..1e6, writes 1..1e9, rounds 1..1e7
// (16 bytes of per-round timings per thread and round), and objects x object_size <= 64 MiB per
// thread (the untimed shared-line count needs 16 bytes per cache line an object touches).
inline constexpr std::uint64_t kMaxFalseSharingObjectSize = 4096;
inline constexpr std::uint64_t kMaxFalseSharingObjects = 1'000'000;
inline constexpr std::uint64_t kMaxFalseSharingWrites = 1'000'000'000;
inline constexpr std::uint64_t kMaxFalseSharingRounds = 10'000'000;
inline constexpr std::uint64_t kMaxFalseSharingBytesPerThread = std::uint64_t{64} << 20;

// Throws std::invalid_argument with one line naming the bad field and the accepted range.
void validate(const FalseSharingSpec& spec);

}  // namespace allocstress
