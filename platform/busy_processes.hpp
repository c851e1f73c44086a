// Other processes that use the CPU while allocstress is about to measure: sampled from
// /proc/<pid>/stat (utime + stime) twice, `window_ms` apart.  Used by the environment check.
#pragma once

#include <string>
#include <vector>

namespace allocstress {

struct BusyProcess {
  int pid;
  std::string name;
  double cpu_percent;  // of one CPU, over the window
};

// Processes other than this one and its ancestors using at least `min_percent` of a CPU.
std::vector<BusyProcess> busy_processes(int window_ms = 200, double min_percent = 20.0);

}  // namespace allocstress
