// Block sizes of the alloc-test model (BACKGROUND §1): p ~ 1/size up to 2^E.  A power-of-two bucket
// k in [kMinBucket, E) is chosen with probability proportional to 2^-k, so every bucket carries
// about the same number of bytes; the size is then uniform in [2^k, 2^(k+1)).  With E = 16: sizes
// 4 B .. 64 KiB - 1, mean ~41.5 B, 93.75% of blocks < 64 B (the study: ~5 B .. 64 KiB, mean ~45 B,
// 94% <= 64 B; it used piecewise-linear shapes inside buckets, we use uniform).
//
// Sampling is table driven and branch-free, one 64-bit draw per size: the number of trailing
// zeros of the low 32 bits is geometric (P(t) = 2^-(t+1)); folding it modulo the bucket count
// (a 33-entry table) gives exactly the truncated geometric law, up to a 2^-32 remainder.  The high
// 32 bits, shifted, give the uniform offset inside the bucket.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace allocstress {

class InverseSizeSampler {
 public:
  static constexpr unsigned kMinBucket = 2;   // smallest block: 4 bytes
  static constexpr unsigned kMinExp = 3;      // at least one bucket: [4, 8)
  static constexpr unsigned kMaxExp = 28;     // largest block: 256 MiB - 1

  // pre: kMinExp <= max_size_exp <= kMaxExp
  explicit InverseSizeSampler(unsigned max_size_exp);

  std::size_t sample(std::uint64_t random_bits) const {
    const unsigned zeros = static_cast<unsigned>(std::countr_zero(static_cast<std::uint32_t>(random_bits)));
    const unsigned k = bucket_of_zeros_[zeros];
    const auto hi = static_cast<std::uint32_t>(random_bits >> 32);
    return (std::size_t{1} << k) + (std::size_t{hi} >> (32 - k));
  }

  unsigned max_size_exp() const { return max_exp_; }
  unsigned bucket_count() const { return max_exp_ - kMinBucket; }
  // Largest size sample() can return: 2^E - 1.
  std::size_t max_size() const { return (std::size_t{1} << max_exp_) - 1; }
  // The model's probability of bucket k (sizes in [2^k, 2^(k+1))).
  double bucket_probability(unsigned k) const;
  // The model's mean block size in bytes.
  double mean_size() const;

 private:
  unsigned max_exp_;
  std::array<std::uint8_t, 33> bucket_of_zeros_{};
};

}  // namespace allocstress
