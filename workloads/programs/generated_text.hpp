// Deterministic text the program inputs are made of: pseudo-words from a seeded vocabulary with a
// Zipf-like frequency, so that generated names, strings and compressible data look like text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/workload_rng.hpp"

namespace allocstress {

class GeneratedText {
 public:
  // pre: words >= 1.  The vocabulary is a function of the seed.
  GeneratedText(std::uint64_t seed, unsigned words = 4096);
  // A word, frequent ones far more often (rank r drawn with probability ~ 1/r).
  const std::string& word();
  // `count` words separated by spaces.
  std::string phrase(unsigned count);
  // A whole number in [low, high].
  std::uint64_t uniform(std::uint64_t low, std::uint64_t high);
  WorkloadRng& rng() { return rng_; }

 private:
  WorkloadRng rng_;
  std::vector<std::string> vocabulary_;
  std::vector<double> cumulative_;
};

// The number `base` scaled by work_percent / 100, at least 1.
std::uint64_t scaled_work(std::uint64_t base, unsigned work_percent);

}  // namespace allocstress
