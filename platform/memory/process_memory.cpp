// Reads /proc/self/status and getrusage; resets the peak RSS through /proc/self/clear_refs.
#include "platform/memory/process_memory.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace allocstress {

namespace {

std::optional<std::uint64_t> status_field_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
      return std::stoull(line.substr(n + 1)) * 1024u;  // "VmRSS:    1234 kB"
  }
  return std::nullopt;
}

std::uint64_t timeval_ns(const timeval& tv) {
  return std::uint64_t(tv.tv_sec) * 1'000'000'000u + std::uint64_t(tv.tv_usec) * 1000u;
}

}  // namespace

std::optional<std::uint64_t> current_rss_bytes() { return status_field_kib("VmRSS"); }
std::optional<std::uint64_t> peak_rss_bytes() { return status_field_kib("VmHWM"); }

std::string reset_peak_rss() {
  FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return std::string("cannot open /proc/self/clear_refs: ") + std::strerror(errno);
  const bool ok = std::fputs("5", f) >= 0;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) return std::string("writing 5 to /proc/self/clear_refs failed: ") + std::strerror(errno);
  return {};
}

RssReader::RssReader() : fd_(::open("/proc/self/statm", O_RDONLY | O_CLOEXEC)), page_bytes_(std::uint64_t(sysconf(_SC_PAGESIZE))) {}

RssReader::~RssReader() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint64_t RssReader::read() const {
  char buf[128];
  const ssize_t n = fd_ < 0 ? -1 : ::pread(fd_, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* p = buf;  // "size resident shared text lib data dt": the second field
  while (*p != '\0' && *p != ' ') ++p;
  std::uint64_t pages = 0;
  for (++p; *p >= '0' && *p <= '9'; ++p) pages = pages * 10 + std::uint64_t(*p - '0');
  return pages * page_bytes_;
}

namespace {

ResourceUsage resource_usage(int who) {
  rusage ru{};
  getrusage(who, &ru);
  ResourceUsage u;
  u.minor_faults = std::uint64_t(ru.ru_minflt);
  u.major_faults = std::uint64_t(ru.ru_majflt);
  u.voluntary_context_switches = std::uint64_t(ru.ru_nvcsw);
  u.involuntary_context_switches = std::uint64_t(ru.ru_nivcsw);
  u.user_time_ns = timeval_ns(ru.ru_utime);
  u.system_time_ns = timeval_ns(ru.ru_stime);
  return u;
}

}  // namespace

ResourceUsage process_resource_usage() { return resource_usage(RUSAGE_SELF); }
ResourceUsage thread_resource_usage() { return resource_usage(RUSAGE_THREAD); }

ResourceUsage operator-(const ResourceUsage& a, const ResourceUsage& b) {
  return {a.minor_faults - b.minor_faults,
          a.major_faults - b.major_faults,
          a.voluntary_context_switches - b.voluntary_context_switches,
          a.involuntary_context_switches - b.involuntary_context_switches,
          a.user_time_ns - b.user_time_ns,
          a.system_time_ns - b.system_time_ns};
}

}  // namespace allocstress
