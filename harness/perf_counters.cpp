// perf_event_open: the hardware-counter probe and per-thread cache-miss counters.
#include "perf_counters.hpp"

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

ThreadCacheCounters::ThreadCacheCounters() {
  const struct {
    std::uint32_t type;
    std::uint64_t config;
    const char* label;
  } events[kEvents] = {
      {PERF_TYPE_HW_CACHE, cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), "L1D read misses"},
      {PERF_TYPE_HW_CACHE, cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), "LL read misses"},
      {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "PERF_COUNT_HW_CACHE_MISSES"}};
  for (int i = 0; i < kEvents && reason_.empty(); ++i) fds_[i] = open_counter(events[i].type, events[i].config, events[i].label, reason_);
  if (!reason_.empty())
    for (int& fd : fds_)
      if (fd >= 0) close(std::exchange(fd, -1));
}

ThreadCacheCounters::~ThreadCacheCounters() {
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

void ThreadCacheCounters::start() {
  for (int fd : fds_)
    if (fd >= 0) {
      ioctl(fd, PERF_EVENT_IOC_RESET, 0);
      ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    }
}

void ThreadCacheCounters::stop() {
  for (int fd : fds_)
    if (fd >= 0) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

nlohmann::json ThreadCacheCounters::values() const {
  const char* names[kEvents] = {"l1d_read_misses", "ll_read_misses", "cache_misses"};
  nlohmann::json out = nlohmann::json::object();
  for (int i = 0; i < kEvents; ++i) {
    std::uint64_t v = 0;
    out[names[i]] = fds_[i] >= 0 && read(fds_[i], &v, sizeof v) == sizeof v ? nlohmann::json(v) : nlohmann::json(nullptr);
  }
  return out;
}

}  // namespace allocstress
