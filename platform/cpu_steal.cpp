// Parses the per-CPU lines at the head of /proc/stat into a fixed buffer (no allocation).
#include "platform/cpu_steal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace allocstress {

std::optional<std::uint64_t> cpu_steal_ns(const std::vector<unsigned>& cpus) {
  // The "cpu" lines come first; 64 KiB holds them for about 700 CPUs.
  char buf[1 << 16];
  const int fd = ::open("/proc/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::size_t used = 0;
  for (ssize_t got; used + 1 < sizeof buf && (got = ::read(fd, buf + used, sizeof buf - 1 - used)) > 0;) used += std::size_t(got);
  ::close(fd);
  buf[used] = '\0';
  const long ticks_per_s = ::sysconf(_SC_CLK_TCK);
  if (ticks_per_s <= 0) return std::nullopt;
  std::uint64_t ticks = 0;
  std::size_t found = 0;
  for (char* line = buf; line != nullptr && *line != '\0';) {
    char* next = std::strchr(line, '\n');
    if (next != nullptr) *next++ = '\0';
    if (std::strncmp(line, "cpu", 3) != 0) break;  // past the CPU lines
    char* p = line + 3;
    if (*p >= '0' && *p <= '9') {
      const unsigned cpu = unsigned(std::strtoul(p, &p, 10));
      bool wanted = false;
      for (unsigned c : cpus) wanted = wanted || c == cpu;
      if (wanted) {
        // user nice system idle iowait irq softirq steal
        std::uint64_t v = 0;
        int field = 0;
        for (; field < 8; ++field) {
          char* end = nullptr;
          v = std::strtoull(p, &end, 10);
          if (end == p) break;
          p = end;
        }
        if (field < 8) return std::nullopt;
        ticks += v;
        ++found;
      }
    }
    line = next;
  }
  if (found != cpus.size()) return std::nullopt;
  return ticks * (1'000'000'000u / std::uint64_t(ticks_per_s));
}

}  // namespace allocstress
