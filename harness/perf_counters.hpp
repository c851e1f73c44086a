// Whether hardware performance counters can be opened here (perf_event_open), and if not, why.
// Software events (page faults, context switches, task clock) work even on VMs without a PMU.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace allocstress {

struct CounterAvailability {
  bool available = false;
  std::string reason;  // "" when available, else e.g. "perf_event_open(cycles): ENOENT (no PMU ...)"
};

// Tries to open PERF_COUNT_HW_CPU_CYCLES for this thread and closes it again.
CounterAvailability hardware_counter_availability();

// Hardware cache-miss counters of the calling thread (user space only): L1 data read misses,
// last-level read misses and all cache misses.  Opened disabled; start()/stop() bracket the
// phase to count.  When any cannot be opened, none is used and reason() says why (errno name).
class ThreadCacheCounters {
 public:
  ThreadCacheCounters();
  ~ThreadCacheCounters();
  ThreadCacheCounters(const ThreadCacheCounters&) = delete;
  ThreadCacheCounters& operator=(const ThreadCacheCounters&) = delete;

  bool available() const { return reason_.empty(); }
  const std::string& reason() const { return reason_; }
  void start();
  void stop();
  // {"l1d_read_misses": n, "ll_read_misses": n, "cache_misses": n}; call after stop().
  nlohmann::json values() const;

 private:
  static constexpr int kEvents = 3;
  int fds_[kEvents] = {-1, -1, -1};
  std::string reason_;
};

}  // namespace allocstress
