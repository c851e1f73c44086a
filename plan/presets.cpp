// The preset table.  Quick-preset sizes were chosen by measurement: see docs/cli.md "Presets" and bench/README.md.
#include "plan/presets.hpp"

#include <stdexcept>

namespace allocstress {

namespace {

AllocTestParams alloc_test_params(std::uint64_t slots_total, unsigned max_size_exp, std::uint64_t iterations) {
  AllocTestParams p;
  p.slots_total = slots_total;
  p.max_size_exp = max_size_exp;
  p.iterations_per_thread = iterations;
  p.access = MemoryAccess::write_read;
  p.seed = 1;
  return p;
}

}  // namespace

Preset find_preset(const std::string& name) {
  //                                  slots     E   iterations/thread        reps  reserve  timeout  counts  target  budget
  if (name == "quick") return {name, alloc_test_params(1u << 20, 16, 1'000'000), 5, false, 120.0, true, 0.05, 150.0};
  if (name == "study") return {name, alloc_test_params(1u << 25, 16, 100'000'000), 5, true, 3600.0, true, 0.0, 0.0};
  throw std::invalid_argument("unknown preset '" + name + "' (accepted: quick, study)");
}

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = {"quick", "study"};
  return names;
}

}  // namespace allocstress
