// A log-linear histogram of non-negative integer values (timer ticks): values below 16 have a
// bucket each; above, every power of two is split into 16 equal sub-buckets, so a bucket's width
// is at most 1/16 of its lower bound and a percentile read from it is within 6.25% of the true
// value (we report the bucket's lower bound, never more than the true value).  The maximum is
// kept exactly.  Fixed size, no allocation after construction: it can be filled inside a
// measured loop.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace allocstress {

class LatencyHistogram {
 public:
  static constexpr unsigned kSubBits = 4;
  static constexpr unsigned kSub = 1u << kSubBits;
  static constexpr unsigned kBuckets = kSub + (64 - kSubBits) * kSub;

  static constexpr unsigned bucket_of(std::uint64_t v) {
    if (v < kSub) return unsigned(v);
    const unsigned e = unsigned(std::bit_width(v)) - 1;  // v in [2^e, 2^(e+1)), e >= kSubBits
    return kSub + (e - kSubBits) * kSub + unsigned((v >> (e - kSubBits)) & (kSub - 1));
  }
  static constexpr std::uint64_t lower_bound(unsigned b) {
    if (b < kSub) return b;
    const unsigned e = (b - kSub) / kSub + kSubBits, sub = (b - kSub) % kSub;
    return (std::uint64_t{1} << e) + (std::uint64_t{sub} << (e - kSubBits));
  }

  void add(std::uint64_t v) {
    ++counts_[bucket_of(v)];
    ++count_;
    if (v > max_) max_ = v;
  }
  void merge(const LatencyHistogram& o) {
    for (unsigned b = 0; b < kBuckets; ++b) counts_[b] += o.counts_[b];
    count_ += o.count_;
    if (o.max_ > max_) max_ = o.max_;
  }

  std::uint64_t count() const { return count_; }
  std::uint64_t max() const { return max_; }
  // The lower bound of the bucket holding the q-quantile (0 < q <= 1): the smallest bucket whose
  // cumulative count reaches ceil(q * count).  pre: count() > 0.
  std::uint64_t quantile(double q) const {
    std::uint64_t rank = std::uint64_t(q * double(count_));
    if (double(rank) < q * double(count_)) ++rank;
    if (rank == 0) rank = 1;
    std::uint64_t seen = 0;
    for (unsigned b = 0; b < kBuckets; ++b) {
      seen += counts_[b];
      if (seen >= rank) return lower_bound(b);
    }
    return max_;
  }

 private:
  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t count_ = 0, max_ = 0;
};

}  // namespace allocstress
