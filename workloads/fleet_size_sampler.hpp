// Block sizes of the `fleet` size model (`--sizes fleet`): a table that reproduces published
// statistics of allocation sizes across a production fleet (BACKGROUND: the fleet-wide malloc
// studies of warehouse-scale computers) instead of the alloc-test model's p ~ 1/size:
//   ~67% of allocations <= 64 B, ~92% <= 256 B, ~98% <= 1 KiB, median ~48 B, mean ~440 B,
//   and a long tail up to 4 MiB (2% above 1 KiB carry ~80% of the bytes).
// The table (fleet_size_table()) is a list of rows {min, max, weight}: a row is chosen with
// probability weight / sum of weights, then the size is uniform in min..max.  Inside rows the
// shape is ours (uniform); only the quantiles and the mean above are the published figures,
// and tests/unit/fleet_size_sampler_test.cpp checks them against the table and against draws.
//
// Sampling is one 64-bit draw per size, O(1), through a Walker/Vose alias table: the low 32 bits
// times the row count give the column (high word) and a uniform 32-bit coin (low word) that picks
// the column's row or its alias; the high 32 bits give the offset inside the row by
// multiply-shift.  Row probabilities are realised to within 2^-32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "alias_table.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"  // ValueRange

namespace allocstress {

// The fleet model's rows, smallest sizes first.
const std::vector<ValueRange>& fleet_size_table();

class FleetSizeSampler {
 public:
  // pre: rows non-empty, weights >= 0 with a positive sum, 1 <= min <= max.
  explicit FleetSizeSampler(const std::vector<ValueRange>& rows = fleet_size_table());

  // The shared sampler of the fleet table (built once, read-only).
  static const FleetSizeSampler& instance();

  std::size_t sample(std::uint64_t random_bits) const {
    const std::uint64_t x = (random_bits & 0xffff'ffffULL) * columns_.size();
    const std::size_t column = std::size_t(x >> 32);
    const AliasColumn& c = columns_[column];
    const Row& row = rows_[std::uint32_t(x) < c.threshold ? column : c.alias];
    return std::size_t(row.min + (((random_bits >> 32) * (row.span + 1)) >> 32));
  }

  std::size_t max_size() const { return max_size_; }
  // The model's exact figures (from the table, not from draws).
  double mean_size() const;
  // P(size <= bytes).
  double cdf(std::uint64_t bytes) const;
  // The smallest size s with cdf(s) >= p (0 < p <= 1).
  std::uint64_t quantile(double p) const;

 private:
  struct Row {
    std::uint64_t min, span;  // span = max - min
  };
  std::vector<ValueRange> table_;
  std::vector<AliasColumn> columns_;
  std::vector<Row> rows_;
  std::size_t max_size_ = 0;
};

}  // namespace allocstress
