// Whether hardware performance counters can be opened here (perf_event_open), and if not, why.
// Software events (page faults, context switches, task clock) work even on VMs without a PMU.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace allocstress {

struct CounterAvailability {
  bool available = false;
  std::string reason;  // "" when available, else e.g. "perf_event_open(cycles): ENOENT (no PMU ...)"
};

// Tries to open PERF_COUNT_HW_CPU_CYCLES for this thread and closes it again.
CounterAvailability hardware_counter_availability();

// A set of perf_event_open counters of the calling thread (user space only), opened disabled;
// start()/stop() bracket the phase to count.  Each event that cannot be opened is n/a with
// perf_event_open's error; the others still count.
struct CounterEvent {
  const char* name;      // the field name in records, e.g. "page_faults"
  std::uint32_t type;    // PERF_TYPE_*
  std::uint64_t config;  // PERF_COUNT_*
};

class ThreadCounters {
 public:
  explicit ThreadCounters(std::vector<CounterEvent> events);
  ~ThreadCounters();
  ThreadCounters(const ThreadCounters&) = delete;
  ThreadCounters& operator=(const ThreadCounters&) = delete;

  bool all_available() const;
  std::string first_reason() const;  // "" when all are available
  void start();
  void stop();
  // After stop(): {name: count or null}.
  nlohmann::json values() const;
  // After stop(): {name: {"value": count, "provenance": "exact"} or {"value": null, "provenance": "n/a(<error>)"}}.
  nlohmann::json values_with_provenance() const;

 private:
  std::vector<CounterEvent> events_;
  std::vector<int> fds_;
  std::vector<std::string> reasons_;
};

// L1D read misses, last-level read misses, all cache misses (the search phase of structure cells).
std::vector<CounterEvent> cache_miss_events();
// Page faults, context switches, CPU migrations, task clock (software: always there) and
// cycles, instructions, cache misses, dTLB read misses (hardware: n/a without a PMU).
std::vector<CounterEvent> profile_events();
// What every timing cell's workers count around their timed work: CPU migrations (software: the
// interference check) and cycles, instructions, cache misses (hardware: n/a without a PMU).
std::vector<CounterEvent> timing_events();

}  // namespace allocstress
