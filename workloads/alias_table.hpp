// Walker/Vose alias tables: O(1) draws from a discrete law over n rows.  Column c (chosen
// uniformly) keeps its own row when a 32-bit coin is below `threshold`, else gives `alias`.
// Shared by the samplers of weighted row tables (RangeSampler in lifetime_workload.hpp,
// FleetSizeSampler); each draws the column and the coin from its own random bits.
#pragma once

#include <cstdint>
#include <vector>

namespace allocstress {

struct AliasColumn {
  std::uint32_t threshold;  // coin < threshold: this column's row; else the alias row
  std::uint32_t alias;
};

// pre: weights non-empty, >= 0, with a positive finite sum.  Deterministic (index order).
std::vector<AliasColumn> build_alias_columns(const std::vector<double>& weights);

// The probability with which each row is drawn, as the 32-bit coins realise it.
std::vector<double> alias_row_probabilities(const std::vector<AliasColumn>& columns);

}  // namespace allocstress
