// Other processes that use the CPU while allocstress is about to measure: sampled from
// /proc/<pid>/stat (utime + stime) twice, `window_ms` apart.  Used by the environment check.
//
// The arithmetic (busy_between) takes the two snapshots and the time that passed between them as
// arguments, so that it can be checked without a clock; busy_processes() is it with the steady
// clock measuring the window and sleep_for waiting it out.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace allocstress {

struct BusyProcess {
  int pid;
  std::string name;
  double cpu_percent;  // of one CPU, over the window
};

// One process in a /proc snapshot.
struct ProcessTicks {
  std::string name;              // the command name of /proc/<pid>/stat
  unsigned long long ticks = 0;  // utime + stime, in clock ticks (sysconf(_SC_CLK_TCK) per second)
  int ppid = 0;
};
using ProcessSnapshot = std::map<int, ProcessTicks>;  // by pid

// Every readable /proc/<pid>/stat.
ProcessSnapshot snapshot_processes();

// The processes of `after` that also are in `before` and used at least `min_percent` of a CPU
// over the `seconds` between them, but `self` and its ancestors (followed through `after`'s
// ppids: the shell, the CI runner).  A pid whose ticks went down was reused: left out.
std::vector<BusyProcess> busy_between(const ProcessSnapshot& before, const ProcessSnapshot& after, double seconds, int self,
                                      double min_percent, double ticks_per_second);

// Processes other than this one and its ancestors using at least `min_percent` of a CPU over a
// window of `window_ms` (its length as the steady clock measured it).
std::vector<BusyProcess> busy_processes(int window_ms = 200, double min_percent = 20.0);

}  // namespace allocstress
