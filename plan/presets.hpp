// Named parameter sets for `matrix --preset` (and the defaults of `run`).
//   quick  laptop-sized: 1e6 iterations per thread (the counts tier's op stream), 5 repetitions,
//          then more for the cells whose interval is wider than +-5% of the median, within 150 s
//          of the whole matrix: the default run ends within 3 minutes on a 2-core VM.
//   study  the 2018 study's sizes: 2^25 slots in total, 1e8 iterations per thread, E = 16,
//          threads 1..PUs-1 with one PU left to the OS.
#pragma once

#include <string>
#include <vector>

#include "workloads/alloc_test.hpp"

namespace allocstress {

struct Preset {
  std::string name;
  AllocTestParams params;   // the threads field is not used: presets sweep threads
  unsigned repetitions;
  bool reserve_os_pu;       // threads sweep 1..usable PUs, leaving one PU to the OS
  double cell_timeout_s;
  bool counts;              // the counts tier runs unless --no-counts (where valgrind is installed)
  double target_ci;         // adaptive repetitions when --reps is not given (0 = off): MatrixPlan::target_ci
  double time_budget_s;     // ... within this wall time of the whole matrix (0 = none)
};

// Throws std::invalid_argument naming the accepted presets.
Preset find_preset(const std::string& name);
// "quick", "study": every preset, the default first.
const std::vector<std::string>& preset_names();

}  // namespace allocstress
