// Reading the tracer's settings (see tracer_config.hpp).
#include "tracer_config.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "tracer_messages.hpp"

namespace allocstress::tracer {

namespace {

constexpr const char* kOut = "ALLOCSTRESS_TRACE_OUT";
constexpr const char* kLevel = "ALLOCSTRESS_TRACE_LEVEL";
constexpr const char* kCallSites = "ALLOCSTRESS_TRACE_CALL_SITES";

// The values of the three variables, copied out of the environment (empty = not set).
struct RawSettings {
  char out[kMaxPrefixBytes + 2] = "";
  char level[16] = "";
  char call_sites[16] = "";
  bool out_too_long = false, level_set = false, call_sites_set = false, out_set = false;

  void take(const char* entry, std::size_t length) {
    auto value_of = [&](const char* name, char* dest, std::size_t cap, bool& set) {
      const std::size_t n = std::strlen(name);
      if (length <= n || std::memcmp(entry, name, n) != 0 || entry[n] != '=') return false;
      const std::size_t v = length - n - 1;
      const std::size_t copy = v < cap - 1 ? v : cap - 1;
      std::memcpy(dest, entry + n + 1, copy);
      dest[copy] = '\0';
      set = true;
      return v >= cap - 1;  // cut short
    };
    if (value_of(kOut, out, sizeof out, out_set)) out_too_long = true;
    value_of(kLevel, level, sizeof level, level_set);
    value_of(kCallSites, call_sites, sizeof call_sites, call_sites_set);
  }
};

// Streams /proc/self/environ (NUL-separated, possibly megabytes) through a fixed buffer; only
// entries starting with "ALLOCSTRESS_TRACE_" are looked at, so long foreign entries are skipped.
bool read_proc_environ(RawSettings& raw) {
  const int fd = ::open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  char entry[kMaxPrefixBytes + 64];
  std::size_t entry_len = 0;
  bool overflow = false;
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] == '\0') {
        if (entry_len > 0 && std::memcmp(entry, "ALLOCSTRESS_TRACE_", entry_len < 18 ? entry_len : 18) == 0) {
          raw.take(entry, entry_len);
          if (overflow && std::memcmp(entry, kOut, std::strlen(kOut)) == 0) raw.out_too_long = true;
        }
        entry_len = 0;
        overflow = false;
      } else if (entry_len < sizeof entry) {
        entry[entry_len++] = buf[i];
      } else {
        overflow = true;
      }
    }
  }
  ::close(fd);
  return true;
}

void read_getenv(RawSettings& raw) {
  const char* const names[] = {kOut, kLevel, kCallSites};
  for (const char* name : names) {
    const char* v = std::getenv(name);
    if (v == nullptr) continue;
    char entry[kMaxPrefixBytes + 64];
    const std::size_t nl = std::strlen(name), vl = std::strlen(v);
    const std::size_t copy = vl < sizeof entry - nl - 2 ? vl : sizeof entry - nl - 2;
    std::memcpy(entry, name, nl);
    entry[nl] = '=';
    std::memcpy(entry + nl + 1, v, copy);
    raw.take(entry, nl + 1 + copy);
  }
}

bool parse_level(const char* text, int& level) {
  const bool negative = *text == '-';
  if (negative) ++text;
  if (*text == '\0') return false;
  long v = 0;
  for (const char* c = text; *c; ++c) {
    if (*c < '0' || *c > '9' || v > 1000) return false;
    v = v * 10 + (*c - '0');
  }
  if (negative) v = -v;
  if (v < kMinLevel || v > kMaxLevel) return false;
  level = int(v);
  return true;
}

}  // namespace

bool read_tracer_config(TracerConfig& config) {
  RawSettings raw;
  if (!read_proc_environ(raw)) read_getenv(raw);
  if (raw.out_set) {
    if (raw.out_too_long) {
      report_error(kOut, " is longer than ", std::uint64_t(kMaxPrefixBytes), " bytes (accepted: a path prefix); this process is not traced");
      return false;
    }
    if (raw.out[0] == '\0') {
      report_error(kOut, " is empty (accepted: a path prefix such as /tmp/run, giving /tmp/run.<pid>.ast); this process is not traced");
      return false;
    }
    std::memcpy(config.prefix, raw.out, std::strlen(raw.out) + 1);
  }
  if (raw.level_set && !parse_level(raw.level, config.level)) {
    report_error(kLevel, "='", raw.level, "' is not a zstd level (accepted: ", kMinLevel, "..", kMaxLevel, "); this process is not traced");
    return false;
  }
  if (raw.call_sites_set) {
    if (std::strcmp(raw.call_sites, "1") == 0) config.call_sites = true;
    else if (std::strcmp(raw.call_sites, "0") == 0) config.call_sites = false;
    else {
      report_error(kCallSites, "='", raw.call_sites, "' (accepted: 0 or 1); this process is not traced");
      return false;
    }
  }
  return true;
}

}  // namespace allocstress::tracer
