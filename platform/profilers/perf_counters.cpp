// perf_event_open: the hardware-counter probe and per-thread cache-miss counters.
#include "platform/profilers/perf_counters.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

namespace allocstress {

namespace {

// Opens one user-space counter of this thread, disabled; the fd, or -1 with `why` set.
int open_counter(std::uint32_t type, std::uint64_t config, const char* label, std::string& why) {
  perf_event_attr attr{};
  attr.type = type;
  attr.size = sizeof attr;
  attr.config = config;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd >= 0) return int(fd);
  const int err = errno;
  why = std::string("perf_event_open(") + label + ") failed: " + strerrorname_np(err) + " (" + std::strerror(err) + ")";
  if (err == ENOENT || err == EOPNOTSUPP) why += "; no hardware PMU is exposed (typical of VMs)";
  if (err == EACCES || err == EPERM) why += "; see /proc/sys/kernel/perf_event_paranoid";
  return -1;
}

constexpr std::uint64_t cache_event(std::uint64_t cache, std::uint64_t op, std::uint64_t result) {
  return cache | (op << 8) | (result << 16);
}

}  // namespace

CounterAvailability hardware_counter_availability() {
  std::string why;
  const int fd = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "PERF_COUNT_HW_CPU_CYCLES", why);
  if (fd < 0) return {false, why};
  close(fd);
  return {true, ""};
}

ThreadCounters::ThreadCounters(std::vector<CounterEvent> events) : events_(std::move(events)) {
  for (const auto& e : events_) {
    std::string why;
    fds_.push_back(open_counter(e.type, e.config, e.name, why));
    reasons_.push_back(why);
  }
}

ThreadCounters::~ThreadCounters() {
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

bool ThreadCounters::all_available() const { return first_reason().empty(); }

std::string ThreadCounters::first_reason() const {
  for (const auto& r : reasons_)
    if (!r.empty()) return r;
  return "";
}

void ThreadCounters::start() {
  for (int fd : fds_)
    if (fd >= 0) {
      ioctl(fd, PERF_EVENT_IOC_RESET, 0);
      ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    }
}

void ThreadCounters::stop() {
  for (int fd : fds_)
    if (fd >= 0) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

nlohmann::json ThreadCounters::values() const {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < events_.size(); ++i) {
    std::uint64_t v = 0;
    out[events_[i].name] = fds_[i] >= 0 && read(fds_[i], &v, sizeof v) == sizeof v ? nlohmann::json(v) : nlohmann::json(nullptr);
  }
  return out;
}

nlohmann::json ThreadCounters::values_with_provenance() const {
  nlohmann::json out = nlohmann::json::object();
  const nlohmann::json v = values();
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const char* name = events_[i].name;
    out[name] = v[name].is_null() ? nlohmann::json{{"value", nullptr}, {"provenance", "n/a(" + reasons_[i] + ")"}}
                                  : nlohmann::json{{"value", v[name]}, {"provenance", "exact"}};
  }
  return out;
}

std::vector<CounterEvent> cache_miss_events() {
  return {{"l1d_read_misses", PERF_TYPE_HW_CACHE, cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
          {"ll_read_misses", PERF_TYPE_HW_CACHE, cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
          {"cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES}};
}

std::vector<CounterEvent> profile_events() {
  return {{"page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
          {"context_switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
          {"cpu_migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
          {"task_clock_ns", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
          {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
          {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
          {"cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
          {"dtlb_read_misses", PERF_TYPE_HW_CACHE, cache_event(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)}};
}

std::vector<CounterEvent> timing_events() {
  return {{"cpu_migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
          {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
          {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
          {"cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES}};
}

}  // namespace allocstress
