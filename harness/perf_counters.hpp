// Whether hardware performance counters can be opened here (perf_event_open), and if not, why.
// Software events (page faults, context switches, task clock) work even on VMs without a PMU.
#pragma once

#include <string>

namespace allocstress {

struct CounterAvailability {
  bool available = false;
  std::string reason;  // "" when available, else e.g. "perf_event_open(cycles): ENOENT (no PMU ...)"
};

// Tries to open PERF_COUNT_HW_CPU_CYCLES for this thread and closes it again.
CounterAvailability hardware_counter_availability();

}  // namespace allocstress
