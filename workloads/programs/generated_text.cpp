// Seeded pseudo-words (see generated_text.hpp).
#include "workloads/programs/generated_text.hpp"

#include <algorithm>

namespace allocstress {

GeneratedText::GeneratedText(std::uint64_t seed, unsigned words) : rng_(mix_seed(seed ^ 0x70726f6772616d73ULL)) {
  static constexpr char kLetters[] = "etaoinshrdlucmfwypvbgkjqxz";
  double total = 0;
  for (unsigned r = 1; r <= words; ++r) {
    std::string w;
    const unsigned length = 2 + unsigned(rng_() % 9);
    for (unsigned i = 0; i < length; ++i) w += kLetters[std::min<std::uint64_t>(rng_() % 26, rng_() % 26)];
    vocabulary_.push_back(std::move(w));
    total += 1.0 / r;
    cumulative_.push_back(total);
  }
  for (double& c : cumulative_) c /= total;
}

const std::string& GeneratedText::word() {
  const double u = double(rng_() >> 11) * 0x1.0p-53;
  const auto it = std::lower_bound(cumulative_.begin(), cumulative_.end(), u);
  return vocabulary_[std::min<std::size_t>(std::size_t(it - cumulative_.begin()), vocabulary_.size() - 1)];
}

std::string GeneratedText::phrase(unsigned count) {
  std::string out;
  for (unsigned i = 0; i < count; ++i) out += (i == 0 ? "" : " ") + word();
  return out;
}

std::uint64_t GeneratedText::uniform(std::uint64_t low, std::uint64_t high) { return low + rng_() % (high - low + 1); }

std::uint64_t scaled_work(std::uint64_t base, unsigned work_percent) { return std::max<std::uint64_t>(1, base * work_percent / 100); }

}  // namespace allocstress
