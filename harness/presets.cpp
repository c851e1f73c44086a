// The preset table.  Quick-preset sizes were chosen by measurement: see README "Presets".
#include "presets.hpp"

#include <stdexcept>

namespace allocstress {

Preset find_preset(const std::string& name) {
  if (name == "quick") {
    AllocTestParams p;
    p.slots_total = 1u << 20;
    p.max_size_exp = 16;
    p.iterations_per_thread = 10'000'000;
    p.access = MemoryAccess::write_read;
    p.seed = 1;
    return {name, p, 5, false, 120.0};
  }
  if (name == "study") {
    AllocTestParams p;
    p.slots_total = 1u << 25;
    p.max_size_exp = 16;
    p.iterations_per_thread = 100'000'000;
    p.access = MemoryAccess::write_read;
    p.seed = 1;
    return {name, p, 5, true, 3600.0};
  }
  throw std::invalid_argument("unknown preset '" + name + "' (accepted: quick, study)");
}

}  // namespace allocstress
