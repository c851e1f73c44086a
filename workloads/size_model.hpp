// Which block-size distribution a workload draws from (`--sizes`):
//   inverse  the alloc-test model, p ~ 1/size below 2^E (inverse_size_sampler.hpp)
//   fleet    published fleet statistics, independent of E (fleet_size_sampler.hpp)
//   fit      a program's measured size mix: the size table of a fit file (`allocstress fit`,
//            `--size-fit FIT.json`), drawn like the fleet table, independent of E
// Every workload that draws block sizes (alloc-test, xthread, larson, lifetime, phase-*) takes
// either; the data-structure and false-sharing workloads have fixed node/object sizes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fleet_size_sampler.hpp"
#include "inverse_size_sampler.hpp"

namespace allocstress {

enum class SizeModel { inverse, fleet, fit };

std::string_view to_string(SizeModel model);
// Throws std::invalid_argument naming the accepted spellings (inverse, fleet, fit).
SizeModel parse_size_model(std::string_view text);

// Calls f(sampler) with the model's sampler; both samplers offer
//   std::size_t sample(std::uint64_t random_bits) const   one 64-bit draw per size
//   std::size_t max_size() const                          the largest size sample() returns
//   double mean_size() const
// so workload loops are templates over the sampler type and pay no dispatch per draw.
// max_size_exp applies to inverse only (pre: InverseSizeSampler's range), `table` to fit only
// (pre: a valid size table, lifetime_params.hpp's sizes rules).
template <class F>
decltype(auto) with_size_sampler(SizeModel model, unsigned max_size_exp, const std::vector<ValueRange>& table, F&& f) {
  if (model == SizeModel::fleet) return f(FleetSizeSampler::instance());
  if (model == SizeModel::fit) {
    const FleetSizeSampler fitted(table);
    return f(fitted);
  }
  const InverseSizeSampler inverse(max_size_exp);
  return f(inverse);
}

}  // namespace allocstress
