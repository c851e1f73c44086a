// Vose's construction of an alias table (see alias_table.hpp).
#include "alias_table.hpp"

#include <cmath>

namespace allocstress {

std::vector<AliasColumn> build_alias_columns(const std::vector<double>& weights) {
  // Scale the probabilities by n; pair each under-full column with an over-full row that tops it
  // up.  Work lists are processed in index order: deterministic.
  const std::size_t n = weights.size();
  double total = 0;
  for (double w : weights) total += w;
  std::vector<double> scaled(n);
  std::vector<std::uint32_t> small, large;
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] / total * double(n);
    (scaled[i] < 1.0 ? small : large).push_back(std::uint32_t(i));
  }
  std::vector<AliasColumn> columns(n, AliasColumn{0xffff'ffffu, 0});
  for (std::size_t i = 0; i < n; ++i) columns[i].alias = std::uint32_t(i);
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back(), l = large.back();
    small.pop_back();
    const double coin = std::ldexp(scaled[s], 32);
    columns[s] = AliasColumn{coin >= 4294967295.0 ? 0xffff'ffffu : std::uint32_t(std::llround(coin)), l};
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Leftovers (full columns, or rounding residue) keep their own row: alias == self.
  for (std::uint32_t i : small) columns[i] = AliasColumn{0xffff'ffffu, i};
  return columns;
}

std::vector<double> alias_row_probabilities(const std::vector<AliasColumn>& columns) {
  const std::size_t n = columns.size();
  std::vector<double> probability(n, 0.0);
  for (std::size_t c = 0; c < n; ++c) {
    const double own = columns[c].alias == c ? 1.0 : std::ldexp(double(columns[c].threshold), -32);
    probability[c] += own / double(n);
    probability[columns[c].alias] += (1.0 - own) / double(n);
  }
  return probability;
}

}  // namespace allocstress
