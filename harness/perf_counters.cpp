// Probes perf_event_open for a hardware cycles counter.
#include "perf_counters.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace allocstress {

CounterAvailability hardware_counter_availability() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd >= 0) {
    close(int(fd));
    return {true, ""};
  }
  const int err = errno;
  std::string why = std::string("perf_event_open(PERF_COUNT_HW_CPU_CYCLES) failed: ") + strerrorname_np(err) + " (" +
                    std::strerror(err) + ")";
  if (err == ENOENT || err == EOPNOTSUPP) why += "; no hardware PMU is exposed (typical of VMs)";
  if (err == EACCES || err == EPERM) why += "; see /proc/sys/kernel/perf_event_paranoid";
  return {false, why};
}

}  // namespace allocstress
