// Builds the InverseSizeSampler table and states the model's exact bucket law for tests.
#include "inverse_size_sampler.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace allocstress {

InverseSizeSampler::InverseSizeSampler(unsigned max_size_exp) : max_exp_(max_size_exp) {
  if (max_size_exp < kMinExp || max_size_exp > kMaxExp)
    throw std::invalid_argument("max size exponent E must be in " + std::to_string(kMinExp) + ".." +
                                std::to_string(kMaxExp) + ", got " + std::to_string(max_size_exp));
  for (unsigned z = 0; z < bucket_of_zeros_.size(); ++z)
    bucket_of_zeros_[z] = static_cast<std::uint8_t>(kMinBucket + z % bucket_count());
}

double InverseSizeSampler::bucket_probability(unsigned k) const {
  if (k < kMinBucket || k >= max_exp_) return 0.0;
  const unsigned j = k - kMinBucket;  // geometric index
  return std::ldexp(1.0, -int(j) - 1) / (1.0 - std::ldexp(1.0, -int(bucket_count())));
}

double InverseSizeSampler::mean_size() const {
  double mean = 0.0;
  for (unsigned k = kMinBucket; k < max_exp_; ++k)
    mean += bucket_probability(k) * (std::ldexp(1.0, int(k)) * 1.5 - 0.5);
  return mean;
}

}  // namespace allocstress
